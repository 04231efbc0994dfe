/** A Round rendered as JupyterLab renders it: RoundRenderer with JupyterLab's sanitizer and Markdown parser. */

import { Sanitizer } from '@jupyterlab/apputils';
import { EditorLanguageRegistry } from '@jupyterlab/codemirror';
import { createMarkdownParser } from '@jupyterlab/markedparser-extension';
import { MimeModel } from '@jupyterlab/rendermime';

import { MIME_TYPE, IRoundPayload } from '../src/payload';
import { RoundRenderer } from '../src/renderer';

const markdownParser = createMarkdownParser(new EditorLanguageRegistry());

/** `payload` rendered, with the bundle's other views (`text/html`, `text/plain`) when given. */
export async function rendered(payload: IRoundPayload, others: Record<string, string> = {}): Promise<HTMLElement> {
  const renderer = new RoundRenderer({
    mimeType: MIME_TYPE,
    sanitizer: new Sanitizer(),
    resolver: null,
    linkHandler: null,
    latexTypesetter: null,
    markdownParser
  });
  document.body.appendChild(renderer.node);
  await renderer.renderModel(new MimeModel({ data: { ...others, [MIME_TYPE]: payload as never }, trusted: false }));
  await new Promise(resolve => setTimeout(resolve, 0)); // code blocks render without being awaited
  return renderer.node;
}
