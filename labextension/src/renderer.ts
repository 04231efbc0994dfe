/**
 * The Round renderer: a finished Round (live a moment ago, or in a notebook reopened much later) drawn
 * from its payload's view (`twnb.view`, computed once by twnb: see view.ts) in the static HTML's
 * layout: the request, the plan, each code block with what became of it and the decision made on it,
 * every artifact, the answer, the notes, the ledger, and the whole conversation folded (each post's
 * body built when first opened, so hundreds stay responsive). All text from the payload is untrusted:
 * Markdown goes through JupyterLab's sanitizer with raw HTML and images escaped first and only safe
 * links kept; everything else is set as text.
 */

import { renderHTML, renderMarkdown } from '@jupyterlab/rendermime';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { IRoundAction, requestAction } from './events';
import { escapeMarkdown, fenced } from './markdown';
import {
  IPost,
  IPreview,
  IRoundPayload,
  asPayload,
  attachment,
  attachments,
  contentText,
  posts,
  seconds,
  tokens,
  unknownAttachmentTypes,
  withoutRecordedWords
} from './payload';
import { IArtifactView, ICodeBlockView, IRoundView, safeRelativeUrl, viewOf } from './view';

/** The code section starts open up to this many blocks (as the static HTML's); the conversation is closed. */
export const OPEN_SECTION_LIMIT = 20;
/** How long "Copied" shows on the Copy code button. */
export const CONFIRM_MS = 2000;
const STATE_MARKS: Record<string, string> = {
  done: '✓',
  finished: '✓',
  in_progress: '▶',
  running: '▶',
  todo: '○',
  failed: '✗',
  abandoned: '✗',
  interrupted: '■'
};
/** A code block's outcome as its badge says it (the static HTML's words). */
export const OUTCOME_LABELS: Record<string, string> = {
  ran: 'ran',
  failed: 'raised',
  refused: 'refused by verification',
  skipped: 'not run',
  not_run: 'not run'
};
// Shown as plain labelled text in a post's body, in this order after the message.
const PLAIN_ATTACHMENTS: Record<string, string> = {
  thought: 'Thought',
  plan_reasoning: 'Plan reasoning',
  plan: 'Plan',
  current_plan_step: 'Current step',
  stop: 'Stop',
  verification: 'Verification'
};

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function cssName(text: string): string {
  return text.replace(/[^a-z_]/gi, '');
}

function section(title: string, className: string, open: boolean): [HTMLDetailsElement, HTMLElement] {
  const details = element('details', `twnb-section ${className}`);
  details.open = open;
  details.appendChild(element('summary', 'twnb-section-title', title));
  const body = element('div', 'twnb-section-body');
  details.appendChild(body);
  return [details, body];
}

function stateBadge(state: string): HTMLElement {
  return element('span', `twnb-state twnb-state-${cssName(state)}`, `${STATE_MARKS[state] ?? '•'} ${state}`);
}

export class RoundRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly _options: IRenderMime.IRendererOptions) {
    super();
    this.addClass('twnb-round');
    // As JupyterLab's own renderers do: says what the output shows (tests and styles select on it).
    this.node.dataset.mimeType = _options.mimeType;
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const payload = asPayload(model.data[this._options.mimeType]);
    const { view, note } = viewOf(payload);
    this.node.textContent = '';
    this.node.dataset.roundId = payload.id ?? '';
    if (view === null) {
      return this._savedPage(model, note);
    }
    this.node.dataset.state = view.state;
    const pending: Promise<void>[] = [];
    const markdown = (host: HTMLElement, source: string, links = false) =>
      pending.push(this._markdown(host, escapeMarkdown(source, links)));

    this.node.appendChild(this._header(view));
    // An undone Round stays, greyed (the stylesheet), under the one line of what was undone.
    this.toggleClass('twnb-undone', Boolean(view.undone));
    if (view.undone) {
      this.node.appendChild(element('div', 'twnb-undone-line', view.undone));
    }
    const unknown = unknownAttachmentTypes(payload);
    if (note || unknown.length) {
      const unknownText = unknown.length
        ? `Not shown as such (unknown attachment types, kept as text): ${unknown.join(', ')}.`
        : '';
      this.node.appendChild(element('div', 'twnb-schema-note', [note, unknownText].filter(Boolean).join(' ')));
    }
    if (view.request) {
      const request = element('div', 'twnb-request');
      markdown(request, view.request);
      this.node.appendChild(request);
    }
    const parts = [
      this._userCells(view),
      this._plan(view, markdown),
      this._code(view, payload.id),
      this._artifacts(view.artifacts, payload.twnb?.previews)
    ];
    if (view.answer) {
      // The answer after the code and the artifacts, as the user got it: it may speak of the plot "above".
      const box = element('div', 'twnb-answer');
      markdown(box, view.answer, true);
      parts.push(box);
    }
    for (const item of view.notes) {
      const box = element('div', `twnb-note twnb-note-${cssName(item.kind)}`);
      box.append(element('b', undefined, `${item.label}: `), item.text);
      parts.push(box);
    }
    parts.push(this._ledger(view), this._posts(payload, view));
    for (const part of parts) {
      if (part) {
        this.node.appendChild(part);
      }
    }
    // Blocks end with a line break in the text, so the output's text (a search, a copy, a test) reads
    // "finished" and "Plot ..." as words, not "finishedPlot".
    for (const child of Array.from(this.node.children)) {
      child.after(document.createTextNode('\n'));
    }
    return Promise.all(pending).then(() => undefined);
  }

  /** A payload without a view (an older twnb): the note, then the Round's own saved HTML (the static
   * fallback, through JupyterLab's sanitizer as the HTML renderer would show it), or its text. */
  private _savedPage(model: IRenderMime.IMimeModel, note: string | null): Promise<void> {
    delete this.node.dataset.state;
    this.node.appendChild(element('div', 'twnb-schema-note', note ?? ''));
    const host = element('div', 'twnb-saved-page');
    this.node.appendChild(host);
    const page = model.data['text/html'];
    const plain = model.data['text/plain'];
    const text = typeof plain === 'string' ? plain : 'This Round was saved with nothing else to show.';
    if (typeof page !== 'string' || !page) {
      host.appendChild(element('pre', 'twnb-result', text));
      return Promise.resolve();
    }
    return renderHTML({
      host,
      source: page,
      trusted: model.trusted,
      sanitizer: this._options.sanitizer,
      resolver: this._options.resolver,
      linkHandler: this._options.linkHandler,
      latexTypesetter: this._options.latexTypesetter,
      shouldTypeset: false
    }).catch(() => {
      host.textContent = text; // a renderer failure still shows the Round as text
    });
  }

  private _markdown(host: HTMLElement, source: string): Promise<void> {
    host.classList.add('twnb-markdown');
    return renderMarkdown({
      host,
      source,
      trusted: false,
      sanitizer: this._options.sanitizer,
      resolver: this._options.resolver,
      linkHandler: this._options.linkHandler,
      latexTypesetter: this._options.latexTypesetter,
      markdownParser: this._options.markdownParser ?? null,
      shouldTypeset: false
    }).catch(() => {
      host.textContent = source; // a renderer failure still shows the text
    });
  }

  private _header(view: IRoundView): HTMLElement {
    const header = element('div', 'twnb-header');
    header.appendChild(element('span', 'twnb-title', 'Round'));
    header.append(' ', stateBadge(view.state), ' ');
    if (view.summary) {
      header.appendChild(element('span', 'twnb-facts', view.summary));
    }
    return header;
  }

  private _plan(view: IRoundView, markdown: (host: HTMLElement, source: string) => void): HTMLElement | null {
    if (!view.plan.length) {
      // A payload without a plan still says what the user decided on it.
      return view.plan_decision ? element('div', 'twnb-decision', `${view.plan_decision}.`) : null;
    }
    const [details, body] = section(
      `Plan (${view.plan.length} steps)`,
      'twnb-plan',
      view.plan.length <= OPEN_SECTION_LIMIT
    );
    const list = element('ol', 'twnb-plan-list');
    for (const step of view.plan) {
      const item = element('li', `twnb-step twnb-step-${cssName(step.state)}`);
      item.dataset.state = step.state;
      const name = element('span', 'twnb-step-name');
      markdown(name, step.text);
      item.append(
        element('span', 'twnb-step-mark', STATE_MARKS[step.state] ?? '•'),
        ' ',
        name,
        ' ',
        element('span', 'twnb-step-state', step.state.replace('_', ' '))
      );
      list.appendChild(item);
    }
    body.appendChild(list);
    if (view.plan_decision) {
      body.appendChild(element('div', 'twnb-decision', `${view.plan_decision}.`));
    }
    return details;
  }

  /** The user's own cells that ran before the Round, folded under one line naming them. */
  private _userCells(view: IRoundView): HTMLElement | null {
    const cells = view.user_cells;
    if (!cells || !cells.cells.length) {
      return null;
    }
    const [details, body] = section(cells.title, 'twnb-user-cells', false);
    for (const cell of cells.cells) {
      body.appendChild(element('pre', 'twnb-code-text', cell.code));
      if (cell.facts.length) {
        body.appendChild(element('div', 'twnb-user-cell-facts', cell.facts.join('; ')));
      }
    }
    if (cells.omitted) {
      body.appendChild(element('div', 'twnb-user-cell-facts', `${cells.omitted} earlier cells were not recorded.`));
    }
    return details;
  }

  private _code(view: IRoundView, roundId: string | undefined): HTMLElement | null {
    const blocks = view.code;
    if (!blocks.length) {
      return null;
    }
    const ran = blocks.filter(block => block.outcome === 'ran').length;
    const [details, body] = section(
      `Code (${blocks.length} block${blocks.length === 1 ? '' : 's'}, ${ran} ran)`,
      'twnb-code-section',
      blocks.length <= OPEN_SECTION_LIMIT
    );
    const actions = element('div', 'twnb-actions');
    const insert = element('button', 'jp-Button twnb-insert-code', 'Insert code as cells');
    const copy = element('button', 'jp-Button twnb-copy-code', 'Copy code');
    for (const [button, action] of [
      [insert, 'insert-code'],
      [copy, 'copy-code']
    ] as const) {
      button.type = 'button';
      button.disabled = ran === 0;
      button.addEventListener('click', () => {
        const detail: IRoundAction = { action, roundId };
        requestAction(this.node, detail);
        if (action === 'copy-code') {
          confirm(copy, detail.done === true ? 'Copied ✓' : 'Could not copy');
        }
      });
      actions.appendChild(button);
    }
    body.appendChild(actions);
    blocks.forEach((block, index) => body.appendChild(this._codeBlock(block, index + 1)));
    return details;
  }

  private _codeBlock(block: ICodeBlockView, number: number): HTMLElement {
    const box = element('div', `twnb-code-block twnb-outcome-${cssName(block.outcome)}`);
    box.dataset.outcome = block.outcome;
    box.dataset.postId = block.post_id;
    const head = element('div', 'twnb-code-head');
    head.append(
      element('span', 'twnb-code-number', `${number}.`),
      ' ',
      element(
        'span',
        `twnb-outcome twnb-outcome-badge-${cssName(block.outcome)}`,
        OUTCOME_LABELS[block.outcome] ?? block.outcome
      )
    );
    if (block.decision_line) {
      head.append(' ', element('span', 'twnb-decision', `${block.decision_line}.`));
    }
    box.appendChild(head);
    if (block.refused_edit) {
      const refused = element('div', 'twnb-refused-edit');
      refused.appendChild(element('div', 'twnb-field-name', 'your edit (not run)'));
      refused.appendChild(element('pre', 'twnb-code-text', block.refused_edit.code));
      if (block.refused_edit.refusal) {
        refused.appendChild(element('pre', 'twnb-error', block.refused_edit.refusal));
      }
      box.appendChild(refused);
    }
    const code = element('div', 'twnb-code');
    void this._markdown(code, fenced(block.code, 'python'));
    box.appendChild(code);
    if (block.result) {
      const [fold, inner] = section('result as the LLM was told', 'twnb-result-fold', false);
      inner.appendChild(element('pre', 'twnb-result', block.result));
      box.appendChild(fold);
    }
    if (block.error) {
      box.appendChild(element('pre', 'twnb-error', block.error));
    }
    return box;
  }

  private _artifacts(artifacts: IArtifactView[], previews: IPreview[] | undefined): HTMLElement | null {
    if (!artifacts.length) {
      return null;
    }
    const all = Array.isArray(previews) ? previews : [];
    const box = element('div', 'twnb-previews');
    for (const artifact of artifacts) {
      const figure = element('figure', `twnb-preview twnb-artifact-${cssName(artifact.kind)}`);
      const preview = artifact.preview !== null ? all[artifact.preview] : undefined;
      const mime = String(preview?.mime ?? '');
      if (preview && typeof preview.data === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(mime)) {
        const image = element('img', 'twnb-preview-image');
        image.src = `data:${mime};base64,${preview.data}`;
        image.alt = artifact.label;
        image.title = `Open ${artifact.path} in JupyterLab`;
        image.addEventListener('click', () =>
          requestAction(this.node, { action: 'open-artifact', path: artifact.path })
        );
        figure.appendChild(image);
      } else if (artifact.omitted) {
        figure.appendChild(element('div', 'twnb-preview-omitted', artifact.omitted));
      }
      figure.appendChild(this._artifactLink(artifact.path, artifact.label, element('figcaption')));
      box.appendChild(figure);
    }
    return box;
  }

  private _artifactLink(path: string, label: string, into: HTMLElement): HTMLElement {
    const url = safeRelativeUrl(path);
    if (url === null) {
      // Hidden or absolute: the server would not serve it, so it is named, not linked.
      into.appendChild(element('code', 'twnb-artifact-name', label));
      return into;
    }
    const link = element('a', 'twnb-artifact', label);
    link.setAttribute('href', url);
    link.title = `Open ${path} in JupyterLab`;
    link.dataset.path = path;
    link.addEventListener('click', event => {
      event.preventDefault();
      requestAction(this.node, { action: 'open-artifact', path });
    });
    into.appendChild(link);
    return into;
  }

  private _ledger(view: IRoundView): HTMLElement | null {
    if (!view.ledger || !view.ledger.rows.length) {
      return null;
    }
    const box = element('div', 'twnb-timeline');
    for (const row of view.ledger.rows) {
      const line = element('div', 'twnb-timeline-row');
      line.appendChild(element('div', 'twnb-timeline-label', `${row.label} · ${row.figures}`));
      const bar = element('div', `twnb-bar twnb-bar-${cssName(row.tone)}`);
      bar.dataset.kind = row.kind;
      bar.title = `${row.label}: ${row.figures}`;
      bar.style.marginLeft = `${row.left}%`;
      bar.style.width = `${row.width}%`;
      line.appendChild(bar);
      box.appendChild(line);
    }
    box.appendChild(element('div', 'twnb-totals', view.ledger.totals));
    return box;
  }

  private _posts(payload: IRoundPayload, view: IRoundView): HTMLElement {
    const all = posts(payload);
    const [details, body] = section(
      `Conversation (${all.length} post${all.length === 1 ? '' : 's'})`,
      'twnb-posts',
      false
    );
    // Each decided post under its decision line, without the record's words for the same decision.
    all.forEach((post, index) =>
      body.appendChild(this._post(withoutRecordedWords(post, view.posts[index]?.recorded_words), index, view))
    );
    return details;
  }

  private _post(post: IPost, index: number, view: IRoundView): HTMLElement {
    const details = element('details', 'twnb-post');
    details.dataset.index = String(index);
    const facts = view.posts[index];
    const summary = element('summary', 'twnb-post-summary');
    summary.append(
      element('span', 'twnb-post-route', facts?.title || `${post.send_from ?? '?'} → ${post.send_to ?? '?'}`),
      ' '
    );
    if (facts?.decision) {
      summary.append(element('span', 'twnb-decision', `${facts.decision}.`), ' ');
    }
    const status = attachment(post, 'execution_status');
    if (status) {
      const text = contentText(status.content);
      summary.append(element('span', `twnb-exec twnb-exec-${cssName(text.toLowerCase())}`, text), ' ');
    }
    const firstLine = String(post.message ?? '').split('\n')[0];
    summary.appendChild(
      element('span', 'twnb-post-first-line', firstLine.length > 120 ? firstLine.slice(0, 119) + '…' : firstLine)
    );
    details.appendChild(summary);
    let built = false;
    details.addEventListener('toggle', () => {
      if (details.open && !built) {
        built = true;
        details.appendChild(this._postBody(post, facts?.cut_off ?? null));
      }
    });
    return details;
  }

  private _postBody(post: IPost, cutOff: string | null): HTMLElement {
    const body = element('div', 'twnb-post-body');
    if (cutOff) {
      body.appendChild(element('div', 'twnb-note twnb-note-cut_off', `⚠ ${cutOff}`));
    }
    if (post.message) {
      const message = element('div', 'twnb-message');
      void this._markdown(message, escapeMarkdown(String(post.message), true));
      body.appendChild(message);
    }
    const label = (name: string, value: string, className = 'twnb-field') => {
      const row = element('div', className);
      row.appendChild(element('span', 'twnb-field-name', `${name}: `));
      row.appendChild(element('span', 'twnb-field-value', value));
      body.appendChild(row);
    };
    const replyType = contentText(attachment(post, 'reply_type')?.content);
    for (const item of attachments(post)) {
      const type = String(item.type ?? '');
      const text = contentText(item.content);
      if (type in PLAIN_ATTACHMENTS) {
        if (text && !(type === 'verification' && text === 'CORRECT')) {
          label(PLAIN_ATTACHMENTS[type], text);
        }
      } else if (type === 'reply_content') {
        const code = element('div', 'twnb-code');
        void this._markdown(code, replyType === 'text' ? escapeMarkdown(text) : fenced(text, 'python'));
        body.appendChild(code);
      } else if (type === 'execution_status') {
        label('Execution', text, `twnb-field twnb-exec-${cssName(text.toLowerCase())}`);
      } else if (type === 'execution_result') {
        if (text) {
          body.appendChild(element('pre', 'twnb-result', text));
        }
      } else if (type === 'code_error') {
        if (text && text !== 'No error is found.') {
          body.appendChild(element('pre', 'twnb-error', text));
        }
      } else if (type === 'revise_message') {
        const [fold, inner] = section('Revise message', 'twnb-revise', false);
        inner.appendChild(element('pre', 'twnb-error', text));
        body.appendChild(fold);
      } else if (type === 'artifact_paths') {
        const content = item.content;
        const paths = (typeof content === 'string' ? [content] : Array.isArray(content) ? content : []).filter(
          (path): path is string => typeof path === 'string' && !!path
        );
        if (paths.length) {
          const row = element('div', 'twnb-artifacts');
          row.appendChild(element('span', 'twnb-field-name', 'Artifacts: '));
          for (const path of paths) {
            this._artifactLink(path, path.split('/').pop() || path, row);
          }
          body.appendChild(row);
        }
      } else if (type !== 'reply_type' && type !== 'init_plan' && text) {
        label(type || 'attachment', text);
      }
    }
    const facts = [seconds(post.extra?.timing?.duration_s), tokens(post.extra?.usage)].filter(Boolean);
    if (facts.length) {
      body.appendChild(element('div', 'twnb-facts', facts.join(' · ')));
    }
    return body;
  }
}

/** Say on `button` what its click did, for a moment, then put its label back. */
export function confirm(button: HTMLButtonElement, said: string): void {
  const label = button.dataset.label ?? button.textContent ?? '';
  button.dataset.label = label;
  button.textContent = said;
  button.classList.add('twnb-confirmed');
  window.setTimeout(() => {
    button.textContent = label;
    button.classList.remove('twnb-confirmed');
  }, CONFIRM_MS);
}
