/**
 * The Round MIME payload (`application/vnd.twnb.round+json`) as this extension reads it: the Round's
 * `to_dict()` keys at the top level plus a `twnb` object (schema version, plan, timing, usage,
 * previews). Every field is optional here: a payload from an older or newer twnb renders what it has.
 */

export const MIME_TYPE = 'application/vnd.twnb.round+json';
/** The `twnb.schema_version` this extension was written for. */
export const SCHEMA_VERSION = 1;

export interface IAttachment {
  id?: string;
  type?: string;
  content?: unknown;
  extra?: unknown;
}

export interface IPostTiming {
  duration_s?: number;
  execution_s?: number;
}

export interface IUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  calls?: number;
  model?: string;
  /** The server sent no counts: twnb estimated them (shown with ~). */
  estimated?: boolean;
}

export interface IPost {
  id?: string;
  message?: string;
  send_from?: string;
  send_to?: string;
  attachment_list?: IAttachment[];
  /** Step mode marks a post a person decided on: `approved_by`, `edited_by` or `skipped_by` is "User". */
  extra?: { timing?: IPostTiming; usage?: IUsage; approved_by?: string; edited_by?: string; skipped_by?: string };
}

export interface ISubtask {
  name?: string;
  description?: string;
  state?: string;
  outcome?: string | null;
}

export interface IPlan {
  name?: string;
  state?: string;
  subtasks?: ISubtask[];
}

export interface IPreview {
  path?: string;
  mime?: string;
  data?: string;
  omitted?: string;
  size?: number;
}

export interface ITwnbSection {
  schema_version?: number;
  session_id?: string;
  plan?: IPlan | null;
  timing?: IPostTiming;
  usage?: IUsage;
  previews?: IPreview[];
  /** What every view shows, computed once by twnb (view.ts reads it). */
  view?: unknown;
}

export interface IRoundPayload {
  id?: string;
  user_query?: string;
  state?: string;
  post_list?: IPost[];
  extra?: { failure_reason?: unknown };
  twnb?: ITwnbSection;
}

/** Attachment types TaskWeaver and twnb write; anything else is shown as plain text and named. */
export const KNOWN_ATTACHMENT_TYPES = new Set([
  'init_plan',
  'plan',
  'current_plan_step',
  'plan_reasoning',
  'stop',
  'thought',
  'reply_type',
  'reply_content',
  'verification',
  'code_error',
  'execution_status',
  'execution_result',
  'artifact_paths',
  'revise_message',
  'function',
  'web_exploring_plan',
  'web_exploring_screenshot',
  'web_exploring_link',
  'invalid_response',
  'text',
  'shared_memory_entry',
  'image_url'
]);

export function asPayload(data: unknown): IRoundPayload {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as IRoundPayload) : {};
}

export function posts(payload: IRoundPayload): IPost[] {
  return Array.isArray(payload.post_list) ? payload.post_list.filter(p => p && typeof p === 'object') : [];
}

export function attachments(post: IPost): IAttachment[] {
  return Array.isArray(post.attachment_list) ? post.attachment_list.filter(a => a && typeof a === 'object') : [];
}

export function attachment(post: IPost, type: string): IAttachment | undefined {
  return attachments(post).find(a => a.type === type);
}

/** An attachment's content as text (lists joined by lines, other values as JSON). */
export function contentText(value: unknown): string {
  if (value === null || value === undefined) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map(contentText).join('\n');
  }
  return JSON.stringify(value, null, 2);
}

/** `post` as shown under its decision line: its message and execution result without `words`, the
 * words that record the same decision (twnb's view gives them: `recorded_words`); a text left empty is
 * not shown. Without words, the post as it is. */
export function withoutRecordedWords(post: IPost, words: string | undefined): IPost {
  if (!words) {
    return post;
  }
  const strip = (text: unknown): unknown => {
    const trimmed = typeof text === 'string' ? text.trimStart() : '';
    return trimmed.startsWith(words) ? trimmed.slice(words.length).trimStart() : text;
  };
  return {
    ...post,
    message: strip(post.message) as string | undefined,
    attachment_list: attachments(post).map(item =>
      item.type === 'execution_result' ? { ...item, content: strip(item.content) } : item
    )
  };
}

/** Attachment types in the payload this extension does not know, each once. */
export function unknownAttachmentTypes(payload: IRoundPayload): string[] {
  const found = new Set<string>();
  for (const post of posts(payload)) {
    for (const item of attachments(post)) {
      if (typeof item.type === 'string' && !KNOWN_ATTACHMENT_TYPES.has(item.type)) {
        found.add(item.type);
      }
    }
  }
  return [...found];
}

export function seconds(value: unknown): string {
  return typeof value === 'number' && isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)} s` : '';
}

export function tokens(usage: IUsage | undefined): string {
  if (!usage || typeof usage !== 'object') {
    return '';
  }
  const prompt = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const completion = typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  if (!prompt && !completion) {
    return '';
  }
  const mark = usage.estimated === true ? '~' : '';
  return `${mark}${prompt + completion} tokens (${mark}${prompt} in, ${mark}${completion} out)`;
}
