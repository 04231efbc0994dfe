/**
 * The Round renderer: a finished Round (live a moment ago, or in a notebook reopened much later) shown
 * from its MIME payload as the live widget showed it: request, state, plan checklist, answer, code,
 * previews, and every post (collapsed, its body built when first opened, so hundreds stay responsive).
 * All text from the payload is untrusted: Markdown goes through JupyterLab's sanitizer with raw HTML
 * escaped first, everything else is set as text.
 */

import { renderMarkdown } from '@jupyterlab/rendermime';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { requestAction } from './events';
import { escapeMarkdown, fenced } from './markdown';
import {
  IPost,
  IRoundPayload,
  answerPost,
  artifactPaths,
  asPayload,
  attachment,
  attachments,
  contentText,
  decisionLine,
  posts,
  schemaNote,
  seconds,
  successfulSteps,
  withoutDecisionWords,
  tokens,
  unknownAttachmentTypes
} from './payload';

/** Plan and code sections start open up to this many entries; the post list always starts closed. */
const OPEN_SECTION_LIMIT = 20;
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
// Shown as plain labelled text in a post's body, in this order after the message.
const PLAIN_ATTACHMENTS: Record<string, string> = {
  thought: 'Thought',
  plan_reasoning: 'Plan reasoning',
  plan: 'Plan',
  current_plan_step: 'Current step',
  stop: 'Stop',
  verification: 'Verification'
};

/** The state users see, as twnb's static HTML says it: a Round failed by an interrupt is `interrupted`. */
function roundState(payload: IRoundPayload): string {
  const state = String(payload.state ?? 'unknown');
  const reason = String(payload.extra?.failure_reason ?? '');
  return state === 'failed' && reason.toLowerCase().includes('interrupt') ? 'interrupted' : state;
}

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

function section(title: string, className: string, open: boolean): [HTMLDetailsElement, HTMLElement] {
  const details = element('details', `twnb-section ${className}`);
  details.open = open;
  details.appendChild(element('summary', 'twnb-section-title', title));
  const body = element('div', 'twnb-section-body');
  details.appendChild(body);
  return [details, body];
}

function stateBadge(state: string): HTMLElement {
  const badge = element('span', `twnb-state twnb-state-${state.replace(/[^a-z_]/gi, '')}`);
  badge.textContent = `${STATE_MARKS[state] ?? '•'} ${state}`;
  return badge;
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
    this.node.textContent = '';
    this.node.dataset.roundId = payload.id ?? '';
    const pending: Promise<void>[] = [];
    const markdown = (host: HTMLElement, source: string) => pending.push(this._markdown(host, source));

    this.node.appendChild(this._header(payload));
    const note = schemaNote(payload);
    const unknown = unknownAttachmentTypes(payload);
    if (note || unknown.length) {
      const box = element('div', 'twnb-schema-note');
      box.textContent = [note, unknown.length ? `Not shown as such (unknown attachment types, kept as text): ${unknown.join(', ')}.` : '']
        .filter(Boolean)
        .join(' ');
      this.node.appendChild(box);
    }
    if (payload.user_query) {
      const request = element('div', 'twnb-request');
      markdown(request, escapeMarkdown(String(payload.user_query)));
      this.node.appendChild(request);
    }
    const plan = this._plan(payload);
    if (plan) {
      this.node.appendChild(plan);
    }
    this.node.appendChild(this._code(payload, markdown));
    const previews = this._previews(payload);
    if (previews) {
      this.node.appendChild(previews);
    }
    // The answer last, as the user got it: it may speak of the plot "above".
    const answer = answerPost(payload);
    if (answer && answer.message) {
      const box = element('div', 'twnb-answer');
      markdown(box, escapeMarkdown(String(answer.message)));
      this.node.appendChild(box);
    }
    this.node.appendChild(this._posts(payload));
    // Blocks end with a line break in the text, so the output's text (a search, a copy, a test) reads
    // "finished" and "Plot ..." as words, not "finishedPlot".
    for (const child of Array.from(this.node.children)) {
      child.after(document.createTextNode('\n'));
    }
    return Promise.all(pending).then(() => undefined);
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

  private _header(payload: IRoundPayload): HTMLElement {
    const header = element('div', 'twnb-header');
    header.appendChild(element('span', 'twnb-title', 'Round'));
    header.append(' ', stateBadge(roundState(payload)), ' ');
    const section = payload.twnb && typeof payload.twnb === 'object' ? payload.twnb : {};
    const facts = [
      seconds(section.timing?.duration_s),
      tokens(section.usage),
      section.usage?.calls ? `${section.usage.calls} model calls` : '',
      section.usage?.model ?? ''
    ].filter(Boolean);
    if (facts.length) {
      header.appendChild(element('span', 'twnb-facts', facts.join(' · ')));
    }
    return header;
  }

  private _plan(payload: IRoundPayload): HTMLElement | null {
    const plan = payload.twnb?.plan;
    const steps = plan && Array.isArray(plan.subtasks) ? plan.subtasks : [];
    if (!steps.length) {
      return null;
    }
    const [details, body] = section(`Plan (${steps.length} steps)`, 'twnb-plan', steps.length <= OPEN_SECTION_LIMIT);
    const list = element('ol', 'twnb-plan-list');
    for (const step of steps) {
      const state = String(step?.state ?? 'todo');
      const item = element('li', `twnb-step twnb-step-${state.replace(/[^a-z_]/gi, '')}`);
      item.dataset.state = state;
      item.append(
        element('span', 'twnb-step-mark', STATE_MARKS[state] ?? '•'),
        ' ',
        element('span', 'twnb-step-name', String(step?.name ?? step?.description ?? '')),
        ' ',
        element('span', 'twnb-step-state', state.replace('_', ' '))
      );
      list.appendChild(item);
    }
    body.appendChild(list);
    // Step mode: whether the user approved the plan as it was or changed it (the first plan decided on).
    const decided = posts(payload).find(post => post.send_from === 'Planner' && decisionLine(post));
    if (decided) {
      body.appendChild(element('div', 'twnb-decision', decisionLine(decided) ?? ''));
    }
    return details;
  }

  private _code(payload: IRoundPayload, markdown: (host: HTMLElement, source: string) => void): HTMLElement {
    const steps = successfulSteps(payload);
    const [details, body] = section(
      `Code that ran (${steps.length} block${steps.length === 1 ? '' : 's'})`,
      'twnb-code-section',
      steps.length > 0 && steps.length <= OPEN_SECTION_LIMIT
    );
    const actions = element('div', 'twnb-actions');
    const insert = element('button', 'jp-Button twnb-insert-code', 'Insert code as cells');
    const copy = element('button', 'jp-Button twnb-copy-code', 'Copy code');
    for (const [button, action] of [
      [insert, 'insert-code'],
      [copy, 'copy-code']
    ] as const) {
      button.type = 'button';
      button.disabled = steps.length === 0;
      button.addEventListener('click', () => requestAction(this.node, { action, roundId: payload.id }));
      actions.appendChild(button);
    }
    body.appendChild(actions);
    for (const step of steps) {
      const block = element('div', 'twnb-code');
      markdown(block, fenced(step.code, 'python'));
      if (step.decision) {
        body.appendChild(element('div', 'twnb-decision', step.decision));
      }
      body.appendChild(block);
      if (step.result) {
        body.appendChild(element('pre', 'twnb-result', step.result));
      }
    }
    return details;
  }

  private _previews(payload: IRoundPayload): HTMLElement | null {
    const previews = Array.isArray(payload.twnb?.previews) ? payload.twnb!.previews! : [];
    if (!previews.length) {
      return null;
    }
    const box = element('div', 'twnb-previews');
    for (const preview of previews) {
      const path = String(preview?.path ?? '');
      const figure = element('figure', 'twnb-preview');
      const mime = String(preview?.mime ?? '');
      if (typeof preview?.data === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(mime)) {
        const image = element('img', 'twnb-preview-image');
        image.src = `data:${mime};base64,${preview.data}`;
        image.alt = path;
        image.title = `Open ${path} in JupyterLab`;
        image.addEventListener('click', () => requestAction(this.node, { action: 'open-artifact', path }));
        figure.appendChild(image);
      } else {
        figure.appendChild(element('div', 'twnb-preview-omitted', String(preview?.omitted ?? 'no preview')));
      }
      figure.appendChild(this._artifactLink(path, element('figcaption')));
      box.appendChild(figure);
    }
    return box;
  }

  private _artifactLink(path: string, into: HTMLElement): HTMLElement {
    const link = element('a', 'twnb-artifact', path);
    // A relative path keeps its address (copy link, open in a new tab); anything with a scheme (the
    // payload is untrusted: `javascript:`) gets none. A click opens the file in JupyterLab instead.
    link.setAttribute('href', /^[^/:?#]*:/.test(path) ? '#' : encodeURI(path));
    link.title = `Open ${path} in JupyterLab`;
    link.dataset.path = path;
    link.addEventListener('click', event => {
      event.preventDefault();
      requestAction(this.node, { action: 'open-artifact', path });
    });
    into.appendChild(link);
    return into;
  }

  private _posts(payload: IRoundPayload): HTMLElement {
    const all = posts(payload);
    const [details, body] = section(`Conversation (${all.length} posts)`, 'twnb-posts', false);
    // Each decided post under its decision line, without the record's words for the same decision.
    all.forEach((post, index) => body.appendChild(this._post(withoutDecisionWords(post), index)));
    return details;
  }

  private _post(post: IPost, index: number): HTMLElement {
    const details = element('details', 'twnb-post');
    details.dataset.index = String(index);
    const summary = element('summary', 'twnb-post-summary');
    summary.append(element('span', 'twnb-post-route', `${post.send_from ?? '?'} → ${post.send_to ?? '?'}`), ' ');
    const decision = decisionLine(post);
    if (decision) {
      summary.append(element('span', 'twnb-decision', decision), ' ');
    }
    const status = attachment(post, 'execution_status');
    if (status) {
      const text = contentText(status.content);
      summary.append(element('span', `twnb-exec twnb-exec-${text.toLowerCase()}`, text), ' ');
    }
    const firstLine = String(post.message ?? '').split('\n')[0];
    summary.appendChild(element('span', 'twnb-post-first-line', firstLine.length > 120 ? firstLine.slice(0, 119) + '…' : firstLine));
    details.appendChild(summary);
    let built = false;
    details.addEventListener('toggle', () => {
      if (details.open && !built) {
        built = true;
        details.appendChild(this._postBody(post));
      }
    });
    return details;
  }

  private _postBody(post: IPost): HTMLElement {
    const body = element('div', 'twnb-post-body');
    const pending: Promise<void>[] = [];
    if (post.message) {
      const message = element('div', 'twnb-message');
      pending.push(this._markdown(message, escapeMarkdown(String(post.message))));
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
        pending.push(
          this._markdown(code, replyType === 'python' ? fenced(text, 'python') : escapeMarkdown(text))
        );
        body.appendChild(code);
      } else if (type === 'execution_status') {
        label('Execution', text, `twnb-field twnb-exec-${text.toLowerCase()}`);
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
        const paths = artifactPaths({ attachment_list: [item] });
        if (paths.length) {
          const row = element('div', 'twnb-artifacts');
          row.appendChild(element('span', 'twnb-field-name', 'Artifacts: '));
          for (const path of paths) {
            this._artifactLink(path, row);
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
    void Promise.all(pending);
    return body;
  }
}
