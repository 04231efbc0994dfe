import { afterEach, describe, expect, it, vi } from 'vitest';

import { ROUND_ACTION_EVENT, IRoundAction } from '../src/events';
import { OPEN_SECTION_LIMIT } from '../src/renderer';
import { FIXTURE_NAMES, fixture, wholeView } from './fixtures';
import { rendered } from './render';

/** The Round's main view: everything but the folded conversation. */
function main(node: HTMLElement): string {
  const copy = node.cloneNode(true) as HTMLElement;
  copy.querySelector('.twnb-posts')?.remove();
  return copy.textContent ?? '';
}

afterEach(() => {
  document.body.textContent = '';
  vi.useRealTimers();
});

describe('decisions in the main view', () => {
  it.each([
    ['plan-approved', 'You approved this plan.'],
    ['plan-edited', 'You changed this plan.'],
    ['code-approved', 'You ran this code.'],
    ['code-edited', 'You edited this code before it ran.'],
    ['code-skipped', 'You skipped this code.'],
    ['refused-then-skipped', 'You skipped this code after verification refused your edit.'],
    ['refused-then-stopped', 'You stopped here after verification refused your edit.'],
    [
      'risky',
      "You ran this code; it paused because it overwrites sales.csv, which exists (line 1: df.to_csv('sales.csv'))."
    ]
  ])('%s says "%s" without unfolding anything', async (name, line) => {
    expect(main(await rendered(fixture(name)))).toContain(line);
  });

  it('says the plan decision even when the payload carries no plan to put it under', async () => {
    const payload = fixture('plan-approved');
    payload.twnb!.view!.plan = [];
    expect(main(await rendered(payload))).toContain('You approved this plan.');
  });

  it('a skipped block reads "not run", never "ran"', async () => {
    const node = await rendered(fixture('code-skipped'));
    const block = node.querySelector('.twnb-code-block')!;
    expect(block.querySelector('.twnb-outcome')?.textContent).toBe('not run');
    expect(node.querySelector('.twnb-code-section > summary')?.textContent).toBe('Code (1 block, 0 ran)');
  });

  it('code the user stopped at before it ran reads "not run", never "raised"', async () => {
    const block = (await rendered(fixture('stopped'))).querySelector('.twnb-code-block')!;
    expect(block.querySelector('.twnb-outcome')?.textContent).toBe('not run');
    expect(block.querySelector('.twnb-error')).toBeNull();
  });

  it("a skipped post's folded body leaves out the words twnb's view says record the skip", async () => {
    const words = 'Skipped by the user: the code did not run.';
    const payload = fixture('code-skipped');
    const skipped = payload.post_list!.find(p => p.extra?.skipped_by === 'User')!;
    skipped.message = `${words} The mean was not computed.`; // as step mode records a skip
    const node = await rendered(payload);
    const post = [...node.querySelectorAll<HTMLDetailsElement>('details.twnb-post')].find(p =>
      p.querySelector('.twnb-decision')
    )!;
    post.open = true;
    post.dispatchEvent(new Event('toggle'));
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(post.querySelector('.twnb-post-body')?.textContent).toContain('The mean was not computed.');
    expect(post.textContent).not.toContain(words);
  });

  it('a refused-then-skipped block shows the edit that never ran and why', async () => {
    const block = (await rendered(fixture('refused-then-skipped'))).querySelector('.twnb-refused-edit')!;
    expect(block.textContent).toContain('your edit (not run)');
    expect(block.querySelector('pre.twnb-code-text')?.textContent).toBe("import os\nos.system('ls')");
    expect(block.querySelector('pre.twnb-error')?.textContent).toBe('Line 2: no');
  });
});

describe('artifacts and links', () => {
  it('links every artifact, a file as well as an image', async () => {
    const node = await rendered(fixture('artifacts'));
    const links = [...node.querySelectorAll('.twnb-previews a.twnb-artifact')].map(a => a.getAttribute('href'));
    expect(links).toEqual(['unusual_weeks.csv', 'twnb-artifacts/plot.png']);
  });

  it('names an artifact in a hidden folder without linking it', async () => {
    const node = await rendered(fixture('artifacts'));
    const named = [...node.querySelectorAll('.twnb-previews .twnb-artifact-name')].map(n => n.textContent);
    expect(named).toEqual(['hidden.png']);
  });

  it("shows an image artifact's preview", async () => {
    const image = (await rendered(fixture('artifacts'))).querySelector('img.twnb-preview-image')!;
    expect(image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  });

  it("renders the answer's links and inline code through the sanitizer", async () => {
    const answer = (await rendered(fixture('artifacts'))).querySelector('.twnb-answer')!;
    expect(answer.querySelector('a')?.getAttribute('href')).toBe('unusual_weeks.csv');
    expect(answer.querySelector('code')?.textContent).toBe('weeks');
  });

  it('keeps hostile text as text: no image, no script link', async () => {
    const node = await rendered(fixture('hostile'));
    node.querySelectorAll('details').forEach(details => details.setAttribute('open', ''));
    expect(node.querySelector('img')).toBeNull();
    expect([...node.querySelectorAll('a')].some(a => /javascript/i.test(a.getAttribute('href') ?? ''))).toBe(false);
    expect(node.querySelector('.twnb-answer')?.textContent).toContain('<img src=x onerror=alert(1)>');
  });
});

describe('how a Round ended', () => {
  it('a failed Round says why and shows the traceback of the code that raised', async () => {
    const node = await rendered(fixture('failed'));
    expect(node.querySelector('.twnb-state')?.textContent).toBe('✗ failed');
    expect(node.querySelector('.twnb-note-failure')?.textContent).toBe(
      'Round failed: The LLM call failed: ConnectError'
    );
    expect(node.querySelector('.twnb-code-block .twnb-outcome')?.textContent).toBe('raised');
    expect(node.querySelector('.twnb-code-block pre.twnb-error')?.textContent).toContain("NameError: name 'x'");
  });

  it('an interrupted Round reads interrupted', async () => {
    const node = await rendered(fixture('interrupted'));
    expect(node.dataset.state).toBe('interrupted');
    expect(node.querySelector('.twnb-note-failure b')?.textContent).toBe('Round interrupted: ');
  });

  it("draws the ledger's bars where the view places them, with its totals", async () => {
    const node = await rendered(fixture('artifacts'));
    const bars = [...node.querySelectorAll<HTMLElement>('.twnb-bar')];
    expect(bars.map(bar => [bar.dataset.kind, bar.style.marginLeft])).toEqual([
      ['llm', '0%'],
      ['code', '31.25%'],
      ['llm', '50%']
    ]);
    expect(node.querySelector('.twnb-totals')?.textContent).toMatch(/^time 3\.2 s · LLM 2 calls/);
  });
});

describe('a Round saved by another twnb', () => {
  it('shows an older payload without a view as its saved page, under a note', async () => {
    const payload = fixture('older-without-view');
    const node = await rendered(payload, { 'text/html': '<p class="saved">The saved page.</p>' });
    expect(node.querySelector('.twnb-schema-note')?.textContent).toMatch(/older twnb/);
    expect(node.querySelector('.twnb-saved-page .saved')?.textContent).toBe('The saved page.');
    expect(node.querySelector('.twnb-code-block, .twnb-posts')).toBeNull(); // nothing derived from posts
  });

  it("sanitizes an older payload's saved page in an untrusted notebook", async () => {
    const page = '<p>Kept.</p><script>window.ran = 1</script><img src="x" onerror="window.ran = 1">';
    const node = await rendered(fixture('older-without-view'), { 'text/html': page });
    const saved = node.querySelector('.twnb-saved-page')!;
    expect(saved.textContent).toContain('Kept.');
    expect(saved.querySelector('script')).toBeNull();
    expect(saved.querySelector('[onerror]')).toBeNull();
  });

  it('shows the saved text of an older payload saved without a page', async () => {
    const node = await rendered(fixture('oldest-without-twnb'), { 'text/plain': 'twnb Round [finished]' });
    expect(node.querySelector('.twnb-saved-page')?.textContent).toBe('twnb Round [finished]');
  });

  it('says what it cannot show of a newer view', async () => {
    const node = await rendered(fixture('newer-view'));
    expect(node.querySelector('.twnb-schema-note')?.textContent).toMatch(/newer twnb/);
  });
});

describe('a 500-post Round', () => {
  it('folds its code and its conversation and builds no post body until one is opened', async () => {
    const node = await rendered(fixture('many-posts'));
    expect(node.querySelectorAll('.twnb-code-block').length).toBeGreaterThan(OPEN_SECTION_LIMIT);
    expect((node.querySelector('.twnb-code-section') as HTMLDetailsElement).open).toBe(false);
    expect(node.querySelectorAll('.twnb-post')).toHaveLength(500);
    expect(node.querySelector('.twnb-post-body')).toBeNull();
  });

  it("builds a post's body when it is opened", async () => {
    const node = await rendered(fixture('many-posts'));
    const post = node.querySelectorAll<HTMLDetailsElement>('.twnb-post')[2];
    post.open = true;
    post.dispatchEvent(new Event('toggle'));
    await new Promise(resolve => setTimeout(resolve, 0)); // its code renders as Markdown
    expect(post.querySelector('.twnb-post-body')?.textContent).toContain('x0 = 0');
  });
});

describe('Copy code', () => {
  it('confirms once the plugin has copied, then shows its label again', async () => {
    const node = await rendered(fixture('plain'));
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const copied = (event: Event) => {
      (event as CustomEvent<IRoundAction>).detail.done = true;
    };
    document.addEventListener(ROUND_ACTION_EVENT, copied);
    const button = node.querySelector<HTMLButtonElement>('.twnb-copy-code')!;
    button.click();
    document.removeEventListener(ROUND_ACTION_EVENT, copied);
    expect(button.textContent).toBe('Copied ✓');
    vi.advanceTimersByTime(2000);
    expect(button.textContent).toBe('Copy code');
  });

  it('says so when nothing copied', async () => {
    const node = await rendered(fixture('plain'));
    const button = node.querySelector<HTMLButtonElement>('.twnb-copy-code')!;
    button.click();
    expect(button.textContent).toBe('Could not copy');
  });

  it('is off when no code ran', async () => {
    const node = await rendered(fixture('code-skipped'));
    expect(node.querySelector<HTMLButtonElement>('.twnb-copy-code')?.disabled).toBe(true);
  });
});

describe("the user's own cells and replays", () => {
  it("folds the user's cells under one line naming them, closed", async () => {
    const node = await rendered(fixture('user-cells'));
    const fold = node.querySelector('details.twnb-user-cells') as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.querySelector('summary')?.textContent).toBe(
      'Your cells before this Round: [3] import pandas as pd, [4] sales.nope'
    );
    const code = [...fold.querySelectorAll('pre.twnb-code-text')].map(pre => pre.textContent);
    expect(code[0]).toBe("import pandas as pd\nsales = pd.read_csv('coffee_sales.csv')");
    expect(fold.textContent).toContain('made pd, sales');
    expect(fold.textContent).toContain('raised AttributeError: nope');
  });

  it('greys an undone Round under the one line of what was undone, kept as text', async () => {
    const node = await rendered(fixture('undone'));
    expect(node.classList.contains('twnb-undone')).toBe(true);
    const line = node.querySelector('.twnb-undone-line');
    expect(line?.textContent).toMatch(/^Undone by the user: removed m\. Not undone: `big` \(6\.1 GB\)/);
    expect(line?.previousElementSibling?.classList.contains('twnb-header')).toBe(true);
    expect(node.querySelector('.twnb-undone-line img')).toBeNull();
  });

  it('notes what the runtime guard saw that verification had not predicted (risky step mode)', async () => {
    const node = await rendered(fixture('risky'));
    expect(node.textContent).toContain('Not predicted');
    expect(node.textContent).toContain(
      'The runtime guard saw the code do what verification had not predicted: deletes a file that existed before: notes.txt'
    );
  });

  it('does not grey a Round that was not undone', async () => {
    const node = await rendered(fixture('plain'));
    expect(node.classList.contains('twnb-undone')).toBe(false);
    expect(node.querySelector('.twnb-undone-line')).toBeNull();
  });

  it("keeps the user's cells as text", async () => {
    const node = await rendered(fixture('user-cells'));
    expect(node.querySelector('.twnb-user-cells img')).toBeNull();
  });

  it('draws no fold for a Round without them', async () => {
    expect((await rendered(fixture('plain'))).querySelector('.twnb-user-cells')).toBeNull();
  });

  it('says a replay drifted from its recording in one note', async () => {
    const note = (await rendered(fixture('replayed'))).querySelector('.twnb-note-replay');
    expect(note?.textContent).toBe(
      'Replay: 1 call drifted from the recording in q.cassette.yaml (the recorded replies were served)'
    );
  });
});

describe('a view that leaves facts to the record', () => {
  // many-posts is left out: which of its 249 code blocks have rendered by a given moment depends on
  // what the page rendered before (the same in either order of these two renders), not on the view.
  const withView = FIXTURE_NAMES.filter(
    name => !['older-without-view', 'oldest-without-twnb', 'newer-view', 'many-posts'].includes(name)
  );

  /** The node's HTML once its code blocks have rendered. */
  async function settled(node: HTMLElement): Promise<string> {
    let before = '';
    while (before !== node.innerHTML) {
      before = node.innerHTML;
      await new Promise(resolve => setTimeout(resolve, 20));
    }
    return before;
  }

  it.each(withView)('%s renders as the whole view twnb read from it renders', async name => {
    const stored = await settled(await rendered(fixture(name)));
    document.body.textContent = '';
    const whole = fixture(name);
    whole.twnb!.view = wholeView(name);
    expect(stored).toBe(await settled(await rendered(whole)));
  });
});
