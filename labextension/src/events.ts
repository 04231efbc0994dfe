/**
 * How a rendered Round asks the front-end plugin to act: a DOM event that bubbles from the output to
 * the document, where the plugin (which has the notebook tracker and the commands) listens. The
 * renderer is a MIME extension and has no access to the application.
 */

export const ROUND_ACTION_EVENT = 'twnb-round-action';

export interface IRoundAction {
  action: 'insert-code' | 'copy-code' | 'open-artifact';
  roundId?: string;
  path?: string;
  /** Set by the plugin once it has done the action (the event is dispatched synchronously). */
  done?: boolean;
}

export function requestAction(from: HTMLElement, detail: IRoundAction): void {
  from.dispatchEvent(new CustomEvent<IRoundAction>(ROUND_ACTION_EVENT, { bubbles: true, detail }));
}
