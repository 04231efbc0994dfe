/**
 * The facts a view (version 3) leaves to the record as it is, put back before the view is read, by the
 * rules of twnb/render/recorded_facts.py: the plan's steps are `twnb.plan`'s subtasks (name, state), a
 * post's title is `send_from → send_to`, a code block's files are its post's `artifact_paths`, an
 * artifact's label and link are its path's last part and the path itself, a ledger row's label, kind,
 * tone, start and duration are the ledger's entry at the same place; and an absent
 * key holds its default (null, "", []). A key present in the view, null included, is the view's own.
 */

import { IRoundPayload, attachments, posts } from './payload';

type Item = Record<string, unknown>;

const DEFAULTS = (): Item => ({ plan_decision: null, notes: [] });
const BLOCK_DEFAULTS: Item = { decision: null, decision_line: null, error: '', refused_edit: null };
const POST_DEFAULTS: Item = { decision: null, cut_off: null };
const ARTIFACT_DEFAULTS: Item = { preview: null, omitted: null };
const OK_STATUSES = new Set(['stop', 'length', 'success', '']);
const KIND_LABEL: Record<string, string> = { llm: 'LLM', code: 'code', wait: 'decision' };

function isItem(value: unknown): value is Item {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function items(value: unknown): Item[] {
  return Array.isArray(value) ? value.filter(isItem) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' && isFinite(value) ? value : 0;
}

function recordedPlan(payload: IRoundPayload): Item[] {
  const plan: unknown = payload.twnb?.plan;
  return items(isItem(plan) ? plan.subtasks : null).map(step => ({
    text: text(step.name),
    state: text(step.state) || 'todo'
  }));
}

function recordedTitle(post: Item | undefined): string {
  return `${text(post?.send_from)} → ${text(post?.send_to)}`;
}

function recordedPaths(payload: IRoundPayload, postId: string): string[] {
  const found: string[] = [];
  const post = posts(payload).find(item => text(item.id) === postId);
  for (const item of post ? attachments(post) : []) {
    if (item.type !== 'artifact_paths') {
      continue;
    }
    const content: unknown = item.content;
    const listed: unknown[] = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
    for (const path of listed) {
      if (typeof path === 'string' && path.trim() && !found.includes(path)) {
        found.push(path);
      }
    }
  }
  return found;
}

function recordedEntries(payload: IRoundPayload): Item[] {
  const extra: unknown = payload.extra;
  const twnb: unknown = payload.twnb;
  for (const ledger of [isItem(extra) ? extra.ledger : null, isItem(twnb) ? twnb.ledger : null]) {
    if (isItem(ledger) && Array.isArray(ledger.entries) && ledger.entries.length) {
      return items(ledger.entries);
    }
  }
  return [];
}

function recordedRow(entry: Item): Item {
  const kind = text(entry.kind);
  const status = text(entry.status);
  return {
    label: kind === 'wait' ? 'waiting for your decision' : `${text(entry.role)} ${KIND_LABEL[kind] ?? kind}`,
    kind,
    tone: OK_STATUSES.has(status) ? kind : status === 'skipped' ? 'skipped' : 'failed',
    start_s: num(entry.start_s),
    duration_s: num(entry.duration_s)
  };
}

/** `raw` (a view as the payload carries it) with each fact it left to the record put back. */
export function putBack(raw: Item, payload: IRoundPayload): Item {
  const whole: Item = { ...DEFAULTS(), ...raw };
  if (!('plan' in whole)) {
    whole.plan = recordedPlan(payload);
  }
  const record = posts(payload) as Item[];
  const stored = 'posts' in whole ? items(whole.posts) : record.map(() => ({}));
  whole.posts = stored.map((post, index) => ({ ...POST_DEFAULTS, title: recordedTitle(record[index]), ...post }));
  whole.code = items(whole.code).map(block => ({
    ...BLOCK_DEFAULTS,
    artifacts: recordedPaths(payload, text(block.post_id)),
    ...block
  }));
  whole.artifacts = items(whole.artifacts).map(item => {
    const path = text(item.path);
    return { ...ARTIFACT_DEFAULTS, label: path.split('/').pop() ?? '', url: path, ...item };
  });
  if (isItem(whole.ledger)) {
    const rows = items(whole.ledger.rows);
    const entries = recordedEntries(payload);
    whole.ledger = {
      ...whole.ledger,
      rows:
        rows.length === entries.length ? rows.map((row, index) => ({ ...recordedRow(entries[index]), ...row })) : rows
    };
  }
  return whole;
}
