/**
 * The front-end plugin: commands on a rendered Round (Insert code as cells, Copy code, open an
 * artifact) and the Round history panel, in the command palette and the notebook toolbar. The
 * renderer asks for an action through a DOM event (see events.ts); the command palette acts on the
 * active cell.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Clipboard, ICommandPalette, ToolbarButton } from '@jupyterlab/apputils';
import { ICodeCellModel } from '@jupyterlab/cells';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { IRoundAction, ROUND_ACTION_EVENT } from './events';
import { RoundHistoryPanel } from './history';
import { IRoundPayload } from './payload';
import { highlightRequestCells } from './requestcells';
import { roundsInCell } from './rounds';
import { codeThatRan } from './view';
import { scrollWaitingPanels } from './waiting';

const CATEGORY = 'twnb';
export const COMMANDS = {
  insertCode: 'twnb:insert-code-as-cells',
  copyCode: 'twnb:copy-code',
  openArtifact: 'twnb:open-artifact',
  openHistory: 'twnb:open-round-history'
};

interface IRoundPlace {
  panel: NotebookPanel;
  cellIndex: number;
  payload: IRoundPayload;
}

/** The Round `roundId` (or the first) in the panel's cell at `cellIndex`. */
function roundAt(panel: NotebookPanel, cellIndex: number, roundId?: string): IRoundPlace | null {
  const cell = panel.model?.cells.get(cellIndex);
  if (!cell || cell.type !== 'code') {
    return null;
  }
  const rounds = roundsInCell(cell as ICodeCellModel);
  const payload = rounds.find(round => roundId && round.id === roundId) ?? rounds[0];
  return payload ? { panel, cellIndex, payload } : null;
}

function activeRound(tracker: INotebookTracker): IRoundPlace | null {
  const panel = tracker.currentWidget;
  return panel ? roundAt(panel, panel.content.activeCellIndex) : null;
}

/** The Round's successful code as new code cells right below its cell, in post order. */
function insertCode(place: IRoundPlace): number {
  const codes = codeThatRan(place.payload);
  const model = place.panel.model;
  if (!model || !codes.length) {
    return 0;
  }
  model.sharedModel.transact(() => {
    model.sharedModel.insertCells(
      place.cellIndex + 1,
      codes.map(source => ({ cell_type: 'code' as const, source, metadata: {} }))
    );
  });
  place.panel.content.activeCellIndex = place.cellIndex + 1;
  return codes.length;
}

function copyCode(place: IRoundPlace): void {
  Clipboard.copyToSystem(codeThatRan(place.payload).join('\n\n'));
}

/** An artifact path as saved (relative to the notebook's folder, or absolute) as a server path. */
function serverPath(panel: NotebookPanel, path: string): string {
  if (path.startsWith('/')) {
    return path;
  }
  const folder = panel.context.path.split('/').slice(0, -1);
  const parts = [...folder];
  for (const part of path.split('/')) {
    if (part === '..') {
      parts.pop();
    } else if (part && part !== '.') {
      parts.push(part);
    }
  }
  return parts.join('/');
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'twnb-labextension:plugin',
  description: "Insert a Round's code as cells, copy it, open its artifacts, and list the Rounds of a notebook.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette, IEditorLanguageRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    languages: IEditorLanguageRegistry | null
  ) => {
    const { commands, shell } = app;
    let history: RoundHistoryPanel | null = null;
    const hasCode = () => {
      const place = activeRound(tracker);
      return !!place && codeThatRan(place.payload).length > 0;
    };

    commands.addCommand(COMMANDS.insertCode, {
      label: 'Insert Round code as cells',
      caption: "Add the code of the active cell's Round that ran successfully as new cells below it",
      isEnabled: hasCode,
      execute: () => {
        const place = activeRound(tracker);
        return place ? insertCode(place) : 0;
      }
    });
    commands.addCommand(COMMANDS.copyCode, {
      label: 'Copy Round code',
      caption: "Copy the code of the active cell's Round that ran successfully",
      isEnabled: hasCode,
      execute: () => {
        const place = activeRound(tracker);
        if (place) {
          copyCode(place);
        }
      }
    });
    commands.addCommand(COMMANDS.openArtifact, {
      label: args => `Open ${String(args.path ?? 'artifact')}`,
      execute: args => {
        const panel = tracker.currentWidget;
        const path = String(args.path ?? '');
        if (!panel || !path) {
          return;
        }
        return commands.execute('docmanager:open', { path: serverPath(panel, path) });
      }
    });
    commands.addCommand(COMMANDS.openHistory, {
      label: 'Open Round history',
      caption: 'List the twnb Rounds in this notebook; a click scrolls to one',
      execute: () => {
        if (!history || history.isDisposed) {
          history = new RoundHistoryPanel(tracker);
          shell.add(history, 'right', { rank: 600 });
        }
        history.refresh();
        shell.activateById(history.id);
      }
    });
    if (palette) {
      for (const command of [COMMANDS.insertCode, COMMANDS.copyCode, COMMANDS.openHistory]) {
        palette.addItem({ command, category: CATEGORY });
      }
    }

    tracker.widgetAdded.connect((_, panel) => {
      const button = new ToolbarButton({
        label: 'Rounds',
        tooltip: 'Open Round history: the twnb Rounds in this notebook',
        className: 'twnb-history-button',
        onClick: () => void commands.execute(COMMANDS.openHistory)
      });
      panel.toolbar.insertItem(10, 'twnbRoundHistory', button);
    });

    // A button in a rendered Round: act on the notebook and cell that hold it.
    document.addEventListener(ROUND_ACTION_EVENT, event => {
      const detail = (event as CustomEvent<IRoundAction>).detail;
      const target = event.target as HTMLElement;
      const panel = tracker.find(candidate => candidate.node.contains(target));
      if (!panel || !detail) {
        return;
      }
      if (detail.action === 'open-artifact') {
        void commands.execute('docmanager:open', { path: serverPath(panel, String(detail.path ?? '')) });
        return;
      }
      const cellIndex = panel.content.widgets.findIndex(cell => cell.node.contains(target));
      const place = cellIndex < 0 ? null : roundAt(panel, cellIndex, detail.roundId);
      if (!place) {
        return;
      }
      if (detail.action === 'insert-code') {
        detail.done = insertCode(place) > 0;
      } else if (detail.action === 'copy-code') {
        copyCode(place);
        detail.done = true;
      }
    });
    highlightRequestCells(tracker, languages);
    scrollWaitingPanels(document.body);
    document.body.dataset.twnbLabextension = 'active';
  }
};

export default plugin;
