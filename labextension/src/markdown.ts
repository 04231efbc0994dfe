/**
 * Untrusted text (LLM replies, results) as Markdown that renders as the same text: raw HTML and images
 * stay text. JupyterLab's sanitizer would strip scripts anyway; this also keeps `<img onerror>` or an
 * image that would load a remote address on render from becoming anything but the characters typed.
 */

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '[': '&#91;',
  ']': '&#93;',
  '\\': '&#92;'
};

function escapeInline(text: string): string {
  return text.replace(/[&<>[\]\\]/g, ch => ESCAPES[ch]);
}

const LINK = /(!?)\[([^\]\n]*)\]\(([^()\s]*)\)/g;
const WEB_URL = /^https?:\/\/[^/?#\s]+/i;

/** A link target from untrusted text, or null to show the link as text: http(s) URLs and visible
 * relative paths (no scheme, no leading `/` or `\\`, no hidden part such as `.twnb/`, which the server
 * refuses to serve), as twnb's static views allow (twnb/render/links.py). */
export function safeLinkTarget(target: string): string | null {
  if (!target || /[\s"'`<>\\]/.test(target)) {
    return null;
  }
  if (WEB_URL.test(target)) {
    return target;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) || target.startsWith('/')) {
    return null;
  }
  const path = target.split(/[?#]/)[0];
  if (path.split('/').some(part => part.startsWith('.') && part !== '.' && part !== '..')) {
    return null;
  }
  // `&` and `:` encoded: no character reference can spell a scheme once the target is decoded.
  return target.replace(/[&:]/g, ch => encodeURIComponent(ch));
}

function escapeWithLinks(text: string, links: boolean): string {
  if (!links) {
    return escapeInline(text);
  }
  let out = '';
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const target = match[1] ? null : safeLinkTarget(match[3]);
    out += escapeInline(text.slice(last, match.index));
    out += target === null ? escapeInline(match[0]) : `[${escapeInline(match[2])}](${target})`;
    last = (match.index ?? 0) + match[0].length;
  }
  return out + escapeInline(text.slice(last));
}

function escapeOutsideCodeSpans(text: string, links: boolean): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(CODE_SPAN)) {
    out += escapeWithLinks(text.slice(last, match.index), links) + match[0];
    last = (match.index ?? 0) + match[0].length;
  }
  return out + escapeWithLinks(text.slice(last), links);
}

/** A fenced code block that shows `code` literally, whatever backticks it holds. */
export function fenced(code: string, language = ''): string {
  const longest = Math.max(0, ...(code.match(/`+/g) || []).map(run => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${code}\n${fence}`;
}

/** `text` as Markdown whose structure (emphasis, lists, tables, fences, code spans) stays, but whose
 * raw HTML and images become text; links stay links when `links` is set and their target is safe
 * (`safeLinkTarget`), else they become text too. */
export function escapeMarkdown(text: string, links = false): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let plain: string[] = [];
  const flush = () => {
    if (plain.length) {
      out.push(escapeOutsideCodeSpans(plain.join('\n'), links));
      plain = [];
    }
  };
  for (let index = 0; index < lines.length;) {
    const opened = FENCE_OPEN.exec(lines[index]);
    if (!opened) {
      plain.push(lines[index]);
      index += 1;
      continue;
    }
    flush();
    const marker = opened[1];
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}\\${marker[0]}{${marker.length},}\\s*$`).test(lines[end])) {
      end += 1;
    }
    out.push(fenced(lines.slice(index + 1, end).join('\n'), opened[2]));
    index = end + 1;
  }
  flush();
  return out.join('\n');
}
