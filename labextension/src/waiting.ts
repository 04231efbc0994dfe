/**
 * Step mode's panel where the eye is: when a Round's approval panel starts waiting for a decision (twnb
 * adds the `twnb-waiting` class to it, and folds the notes above it), scroll it into view once, so a
 * plan to approve never waits below the fold. The user may scroll away; nothing pulls them back until
 * the next decision.
 */

export const WAITING_CLASS = 'twnb-waiting';

export function scrollWaitingPanels(root: HTMLElement): MutationObserver {
  const observer = new MutationObserver(records => {
    for (const record of records) {
      const target = record.target as HTMLElement;
      const was = (record.oldValue ?? '').split(/\s+/).includes(WAITING_CLASS);
      if (!was && target.classList?.contains(WAITING_CLASS)) {
        target.scrollIntoView({ block: 'nearest' });
      }
    }
  });
  observer.observe(root, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
  return observer;
}
