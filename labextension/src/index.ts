/**
 * The MIME extension: `application/vnd.twnb.round+json` rendered by RoundRenderer, ranked above HTML
 * (rank 0; lower wins, HTML is 50) and below the live widget view (-10), so a running Round shows its
 * widget and a finished one its payload.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { MIME_TYPE } from './payload';
import { RoundRenderer } from './renderer';

export { MIME_TYPE };

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  defaultRank: 0,
  createRenderer: options => new RoundRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'twnb-labextension:round-renderer',
  description: 'Renders twnb Rounds saved in notebooks.',
  rendererFactory,
  rank: 0,
  dataType: 'json'
};

export default extension;
