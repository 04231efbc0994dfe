import { describe, expect, it, vi } from 'vitest';

import { WAITING_CLASS, scrollWaitingPanels } from '../src/waiting';

async function mutations(): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, 0)); // MutationObserver callbacks run as microtasks
}

describe('scrollWaitingPanels', () => {
  it('scrolls a panel into view when it starts waiting, once', async () => {
    const panel = document.createElement('div');
    document.body.appendChild(panel);
    const scrolled = vi.fn();
    panel.scrollIntoView = scrolled;
    const observer = scrollWaitingPanels(document.body);
    panel.classList.add(WAITING_CLASS);
    await mutations();
    panel.classList.add('another-class');
    await mutations();
    expect(scrolled).toHaveBeenCalledTimes(1);
    expect(scrolled).toHaveBeenCalledWith({ block: 'nearest' });
    observer.disconnect();
  });

  it('scrolls again at the next decision', async () => {
    const panel = document.createElement('div');
    document.body.appendChild(panel);
    const scrolled = vi.fn();
    panel.scrollIntoView = scrolled;
    const observer = scrollWaitingPanels(document.body);
    for (let decision = 0; decision < 2; decision++) {
      panel.classList.add(WAITING_CLASS);
      await mutations();
      panel.classList.remove(WAITING_CLASS);
      await mutations();
    }
    expect(scrolled).toHaveBeenCalledTimes(2);
    observer.disconnect();
  });
});
