/**
 * `%%taskweaver` cells hold a request in words, not Python: their editor highlights them as a Markdown
 * cell is highlighted (the Python mode drew keywords bold green in the request and everything after
 * an apostrophe as a string). The notebook gives every code cell its kernel's mime type when the cell
 * is made and when the kernel's language is known; a request cell's mime type is set back to
 * Markdown's each time, and a cell that stops starting with `%%taskweaver` gets the kernel's again.
 * The mime type is the editor's only: it is not saved in the notebook.
 *
 * The editor loads a mime type's language asynchronously and applies whichever load ends last: set
 * right after the notebook's Python, Markdown's could be overtaken by Python's (slower to load the
 * first time). So Markdown's is set once the language the notebook asked for has loaded.
 */

import { Cell } from '@jupyterlab/cells';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

export const REQUEST_MAGIC = '%%taskweaver';
export const REQUEST_MIME = 'text/x-ipythongfm'; // what JupyterLab's Markdown cells use

export function isRequest(source: string): boolean {
  return source.trimStart().startsWith(REQUEST_MAGIC);
}

const watched = new WeakSet<object>();

function highlight(panel: NotebookPanel, cell: Cell, languages: IEditorLanguageRegistry | null): void {
  const model = cell.model;
  if (model.type !== 'code') {
    return;
  }
  if (!isRequest(model.sharedModel.getSource())) {
    if (model.mimeType === REQUEST_MIME) {
      model.mimeType = panel.content.codeMimetype;
    }
    return;
  }
  const asked = model.mimeType;
  if (asked === REQUEST_MIME) {
    return;
  }
  const setRequestMime = () => {
    if (model.mimeType === asked && isRequest(model.sharedModel.getSource())) {
      model.mimeType = REQUEST_MIME;
    }
  };
  if (languages) {
    void languages.getLanguage(asked).then(setRequestMime, setRequestMime);
  } else {
    setRequestMime();
  }
}

function watchCell(panel: NotebookPanel, cell: Cell, languages: IEditorLanguageRegistry | null): void {
  if (watched.has(cell.model)) {
    return;
  }
  watched.add(cell.model);
  const update = () => highlight(panel, cell, languages);
  cell.model.contentChanged.connect(update);
  cell.model.mimeTypeChanged.connect(update);
  update();
}

function watchPanel(panel: NotebookPanel, languages: IEditorLanguageRegistry | null): void {
  const notebook = panel.content;
  const all = () => notebook.widgets.forEach(cell => watchCell(panel, cell, languages));
  // Connected after the notebook's own handler, so the new cells' widgets exist when it runs.
  const watchModel = () => notebook.model?.cells.changed.connect(all);
  notebook.modelChanged.connect(() => {
    watchModel();
    all();
  });
  watchModel();
  all();
}

/** Highlight the request cells of every notebook the tracker sees, as they are opened and edited. */
export function highlightRequestCells(tracker: INotebookTracker, languages: IEditorLanguageRegistry | null): void {
  tracker.forEach(panel => watchPanel(panel, languages));
  tracker.widgetAdded.connect((_, panel) => watchPanel(panel, languages));
}
