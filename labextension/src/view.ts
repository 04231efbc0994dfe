/**
 * The view of a Round: what to show, computed once by twnb in Python (`twnb.view` in the payload,
 * twnb/render/view.py) and drawn here as the static HTML draws it. The extension draws that view and
 * nothing else: a payload saved by an older twnb has none, so `viewOf` gives no view and the renderer
 * shows the Round's own saved HTML under a note (`%taskweaver show ROUND_ID` computes its view anew in
 * Python); a view of a newer version is drawn from the keys known here.
 */

import { IRoundPayload, SCHEMA_VERSION, attachment, posts } from './payload';
import { putBack } from './recorded';

/**
 * The `twnb.view.version` this extension draws (1 carried every text; 2 leaves some to the record; 3
 * also the facts the record gives as they are, and keys at their defaults: recorded.ts).
 */
export const VIEW_VERSION = 3;

export interface IPlanStepView {
  text: string;
  state: string;
}

export interface IRefusedEditView {
  code: string;
  refusal: string;
}

export interface ICodeBlockView {
  post_id: string;
  code: string;
  /** ran | failed | refused | skipped | not_run */
  outcome: string;
  /** approved | edited | skipped | refused_then_skipped | refused_then_stopped, or null */
  decision: string | null;
  decision_line: string | null;
  result: string;
  error: string;
  refused_edit: IRefusedEditView | null;
  artifacts: string[];
}

export interface IArtifactView {
  path: string;
  label: string;
  url: string | null;
  /** image | file */
  kind: string;
  /** index into twnb.previews */
  preview: number | null;
  omitted: string | null;
}

export interface INoteView {
  kind: string;
  label: string;
  text: string;
}

export interface ILedgerRowView {
  label: string;
  figures: string;
  kind: string;
  /** llm | code | failed | skipped */
  tone: string;
  start_s: number;
  duration_s: number;
  left: number;
  width: number;
}

export interface ILedgerView {
  rows: ILedgerRowView[];
  totals: string;
}

export interface IPostView {
  title: string;
  decision: string | null;
  cut_off: string | null;
  /** The words recording the decision at the start of the post's message and result (left out). */
  recorded_words?: string;
}

/** One of the user's own cells that ran before the Round (twnb/render/user_cells.py). */
export interface IUserCellView {
  label: string;
  code: string;
  facts: string[];
}

export interface IUserCellsView {
  title: string;
  cells: IUserCellView[];
  omitted: number;
}

export interface IRoundView {
  version: number;
  state: string;
  request: string;
  summary: string;
  plan: IPlanStepView[];
  plan_decision: string | null;
  code: ICodeBlockView[];
  artifacts: IArtifactView[];
  answer: string | null;
  notes: INoteView[];
  ledger: ILedgerView | null;
  posts: IPostView[];
  /** Present only when the Round recorded some (a view without it: none). */
  user_cells?: IUserCellsView;
  /** Present only when the user undid the Round: the one line of what was undone (the Round greys). */
  undone?: string;
}

export interface IViewReading {
  /** null: the payload carries no view (an older twnb); the renderer shows its saved HTML instead. */
  view: IRoundView | null;
  /** What could not be read, for the reader: null when the payload's view is one this extension knows. */
  note: string | null;
}

const OK_STATES = new Set(['created', 'running', 'finished', 'failed', 'interrupted']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value ? value : null;
}

function list<T>(value: unknown, read: (item: Record<string, unknown>) => T): T[] {
  return Array.isArray(value) ? value.filter(isObject).map(read) : [];
}

function num(value: unknown): number {
  return typeof value === 'number' && isFinite(value) ? value : 0;
}

/**
 * Where a view (version 2) leaves a text to the record, as twnb's `view.stored_view` does: the request
 * is the Round's `user_query`, the answer the last Planner-to-User message, a code block's code and
 * result its post's `reply_content` and `execution_result`, each as it is. A key present in the view,
 * null included, is the view's own.
 */
function recordedAttachment(payload: IRoundPayload, postId: string, type: string): string {
  const post = posts(payload).find(item => item.id === postId);
  return post ? text(attachment(post, type)?.content) : '';
}

function recordedAnswer(payload: IRoundPayload): string | null {
  const answers = posts(payload).filter(post => post.send_from === 'Planner' && post.send_to === 'User');
  return answers.length ? textOrNull(answers[answers.length - 1].message) : null;
}

/** A view from the payload, each field checked: the payload is untrusted and may be from any twnb. */
function readView(stored: Record<string, unknown>, payload: IRoundPayload): IRoundView {
  const raw = putBack(stored, payload);
  const ledger = isObject(raw.ledger) ? raw.ledger : null;
  const view: IRoundView = {
    version: num(raw.version),
    state: text(raw.state) || 'unknown',
    request: 'request' in raw ? text(raw.request) : text(payload.user_query),
    summary: text(raw.summary),
    plan: list(raw.plan, step => ({ text: text(step.text), state: text(step.state) || 'todo' })),
    plan_decision: textOrNull(raw.plan_decision),
    code: list(raw.code, block => ({
      post_id: text(block.post_id),
      code: 'code' in block ? text(block.code) : recordedAttachment(payload, text(block.post_id), 'reply_content'),
      outcome: text(block.outcome) || 'not_run',
      decision: textOrNull(block.decision),
      decision_line: textOrNull(block.decision_line),
      result:
        'result' in block ? text(block.result) : recordedAttachment(payload, text(block.post_id), 'execution_result'),
      error: text(block.error),
      refused_edit: isObject(block.refused_edit)
        ? { code: text(block.refused_edit.code), refusal: text(block.refused_edit.refusal) }
        : null,
      artifacts: Array.isArray(block.artifacts) ? block.artifacts.filter(p => typeof p === 'string') : []
    })),
    artifacts: list(raw.artifacts, item => ({
      path: text(item.path),
      label: text(item.label) || text(item.path),
      url: textOrNull(item.url),
      kind: text(item.kind) || 'file',
      preview: typeof item.preview === 'number' ? item.preview : null,
      omitted: textOrNull(item.omitted)
    })),
    answer: 'answer' in raw ? textOrNull(raw.answer) : recordedAnswer(payload),
    notes: list(raw.notes, note => ({ kind: text(note.kind), label: text(note.label), text: text(note.text) })),
    ledger: ledger
      ? {
          rows: list(ledger.rows, row => ({
            label: text(row.label),
            figures: text(row.figures),
            kind: text(row.kind),
            tone: text(row.tone),
            start_s: num(row.start_s),
            duration_s: num(row.duration_s),
            left: Math.min(Math.max(num(row.left), 0), 100),
            width: Math.min(Math.max(num(row.width), 0), 100)
          })),
          totals: text(ledger.totals)
        }
      : null,
    posts: list(raw.posts, post => {
      const read: IPostView = {
        title: text(post.title),
        decision: textOrNull(post.decision),
        cut_off: textOrNull(post.cut_off)
      };
      if (typeof post.recorded_words === 'string' && post.recorded_words) {
        read.recorded_words = post.recorded_words;
      }
      return read;
    })
  };
  if (isObject(raw.user_cells)) {
    view.user_cells = {
      title: text(raw.user_cells.title),
      cells: list(raw.user_cells.cells, cell => ({
        label: text(cell.label),
        code: text(cell.code),
        facts: Array.isArray(cell.facts) ? cell.facts.filter(f => typeof f === 'string') : []
      })),
      omitted: num(raw.user_cells.omitted)
    };
  }
  if (typeof raw.undone === 'string' && raw.undone) {
    view.undone = raw.undone;
  }
  return view;
}

/** The view to draw for `payload`, and what the reader should know about how it was read. */
export function viewOf(payload: IRoundPayload): IViewReading {
  const section = isObject(payload.twnb) ? (payload.twnb as Record<string, unknown>) : null;
  const schema = section && typeof section.schema_version === 'number' ? section.schema_version : null;
  const newerSchema =
    schema !== null && schema > SCHEMA_VERSION
      ? `This Round was saved by a newer twnb (schema ${schema}; this extension reads ${SCHEMA_VERSION}): parts it does not know are not shown.`
      : null;
  const raw = section && isObject(section.view) ? section.view : null;
  if (!raw) {
    const older = section
      ? 'This Round was saved by an older twnb, without its view'
      : 'This Round was saved without its twnb section (an older twnb)';
    const id = typeof payload.id === 'string' && payload.id ? payload.id : 'ROUND_ID';
    return {
      view: null,
      note:
        newerSchema ??
        `${older}: its saved page is shown below. \`%taskweaver show ${id}\` in a kernel draws it as twnb draws Rounds now.`
    };
  }
  const view = readView(raw, payload);
  if (view.version > VIEW_VERSION) {
    return {
      view,
      note: `This Round was saved by a newer twnb (view ${view.version}; this extension reads ${VIEW_VERSION}): parts it does not know are not shown.`
    };
  }
  if (newerSchema) {
    return { view, note: newerSchema };
  }
  return {
    view,
    note: OK_STATES.has(view.state) ? null : `This Round's state (${view.state}) is not one this extension knows.`
  };
}

/** A link target for an artifact path: a visible relative path, percent-encoded; null otherwise. */
export function safeRelativeUrl(path: string): string | null {
  if (!path || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path) || /^[/\\~]/.test(path)) {
    return null;
  }
  if (path.split('/').some(part => part.startsWith('.') && part !== '.' && part !== '..')) {
    return null; // Jupyter Server refuses to serve hidden paths
  }
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The code of the blocks that ran, in order: what "Insert code as cells" and "Copy code" take. */
export function codeThatRan(payload: IRoundPayload): string[] {
  const { view } = viewOf(payload);
  return view ? view.code.filter(block => block.outcome === 'ran' && block.code.trim()).map(block => block.code) : [];
}
