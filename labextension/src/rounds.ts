/** The Rounds a notebook's outputs hold, read from the notebook model (not the DOM). */

import { ICodeCellModel } from '@jupyterlab/cells';
import { INotebookModel } from '@jupyterlab/notebook';

import { IRoundPayload, MIME_TYPE, asPayload } from './payload';

export interface IRoundInCell {
  cellIndex: number;
  payload: IRoundPayload;
}

/** Every Round payload in the cell's outputs, in output order. */
export function roundsInCell(cell: ICodeCellModel): IRoundPayload[] {
  const found: IRoundPayload[] = [];
  const outputs = cell.outputs;
  for (let index = 0; index < outputs.length; index++) {
    const data = outputs.get(index).data[MIME_TYPE];
    if (data !== undefined) {
      found.push(asPayload(data));
    }
  }
  return found;
}

/** Every Round in the notebook, in cell order. */
export function roundsInNotebook(model: INotebookModel): IRoundInCell[] {
  const found: IRoundInCell[] = [];
  for (let index = 0; index < model.cells.length; index++) {
    const cell = model.cells.get(index);
    if (cell.type === 'code') {
      for (const payload of roundsInCell(cell as ICodeCellModel)) {
        found.push({ cellIndex: index, payload });
      }
    }
  }
  return found;
}
