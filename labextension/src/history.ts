/**
 * Round history: a side panel listing the Rounds found in the current notebook's outputs; a click
 * scrolls the notebook to that Round's cell and selects it.
 */

import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { roundsInNotebook } from './rounds';

export class RoundHistoryPanel extends Widget {
  private _watched: NotebookPanel | null = null;

  constructor(private readonly _tracker: INotebookTracker) {
    super();
    this.id = 'twnb-round-history';
    this.addClass('twnb-round-history');
    this.title.label = 'Rounds';
    this.title.caption = 'Round history: the twnb Rounds in this notebook';
    this.title.closable = true;
    _tracker.currentChanged.connect(this.refresh, this);
    this.refresh();
  }

  /** Rebuild the list from the current notebook (called when it changes or its cells change). */
  refresh(): void {
    const panel = this._tracker.currentWidget;
    if (panel !== this._watched) {
      this._watched?.model?.contentChanged.disconnect(this._schedule, this);
      panel?.model?.contentChanged.connect(this._schedule, this);
      this._watched = panel;
    }
    this.node.textContent = '';
    const heading = document.createElement('h3');
    heading.className = 'twnb-history-title';
    heading.textContent = panel ? `Rounds in ${panel.context.path.split('/').pop()}` : 'No notebook open';
    this.node.appendChild(heading);
    const rounds = panel?.model ? roundsInNotebook(panel.model) : [];
    if (panel && !rounds.length) {
      const empty = document.createElement('p');
      empty.className = 'twnb-history-empty';
      empty.textContent = 'No Rounds in this notebook yet: run a %%taskweaver cell.';
      this.node.appendChild(empty);
    }
    const list = document.createElement('ol');
    list.className = 'twnb-history-list';
    rounds.forEach(({ cellIndex, payload }, index) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'twnb-history-item';
      button.dataset.cellIndex = String(cellIndex);
      const state = document.createElement('span');
      state.className = `twnb-state twnb-state-${String(payload.state ?? '').replace(/[^a-z_]/gi, '')}`;
      state.textContent = String(payload.state ?? '?');
      const request = document.createElement('span');
      request.className = 'twnb-history-request';
      request.textContent = `${index + 1}. ${String(payload.user_query ?? '(no request)')}`;
      button.append(request, state);
      button.addEventListener('click', () => void this._scrollTo(cellIndex));
      item.appendChild(button);
      list.appendChild(item);
    });
    this.node.appendChild(list);
  }

  dispose(): void {
    this._watched?.model?.contentChanged.disconnect(this._schedule, this);
    this._tracker.currentChanged.disconnect(this.refresh, this);
    super.dispose();
  }

  private _pending = 0;

  private _schedule(): void {
    // Outputs change many times while a Round runs: refresh at most once per animation frame.
    if (!this._pending) {
      this._pending = requestAnimationFrame(() => {
        this._pending = 0;
        this.refresh();
      });
    }
  }

  private async _scrollTo(cellIndex: number): Promise<void> {
    const panel = this._tracker.currentWidget;
    if (!panel) {
      return;
    }
    const notebook = panel.content;
    notebook.activeCellIndex = cellIndex;
    notebook.deselectAll();
    const cell = notebook.widgets[cellIndex];
    if (cell) {
      await notebook.scrollToCell(cell, 'start');
      cell.node.scrollIntoView({ block: 'start' });
    }
  }
}
