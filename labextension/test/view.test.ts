import { describe, expect, it } from 'vitest';

import { codeThatRan, viewOf } from '../src/view';
import { FIXTURE_NAMES, fixture } from './fixtures';

const WITH_VIEW = FIXTURE_NAMES.filter(
  name => !['older-without-view', 'oldest-without-twnb', 'newer-view'].includes(name)
);

describe('viewOf', () => {
  it.each(WITH_VIEW)('draws the view twnb computed for %s as it is', name => {
    const payload = fixture(name);
    const { view, note } = viewOf(payload);
    expect(view).toEqual((payload.twnb as { view: unknown }).view);
    expect(note).toBeNull();
  });

  it('gives no view for an older payload without one, and says how to have it drawn', () => {
    const payload = fixture('older-without-view');
    const { view, note } = viewOf(payload);
    expect(view).toBeNull();
    expect(note).toMatch(/older twnb, without its view: its saved page is shown below/);
    expect(note).toContain(`%taskweaver show ${payload.id}`);
  });

  it('gives no view for a payload without a twnb section either', () => {
    const { view, note } = viewOf(fixture('oldest-without-twnb'));
    expect(view).toBeNull();
    expect(note).toMatch(/without its twnb section/);
  });

  it('draws a newer view from the keys it knows, and says what it cannot', () => {
    const { view, note } = viewOf(fixture('newer-view'));
    expect(note).toMatch(/newer twnb \(view 99; this extension reads 1\)/);
    expect(view.code).toHaveLength(1);
    expect(view).not.toHaveProperty('sparkles');
  });

  it('keeps a ledger bar inside the time line whatever the payload says', () => {
    const payload = fixture('artifacts');
    const raw = (payload.twnb as { view: { ledger: { rows: { left: number; width: number }[] } } }).view;
    raw.ledger.rows[0].left = -50;
    raw.ledger.rows[0].width = 400;
    const { view } = viewOf(payload);
    expect([view.ledger?.rows[0].left, view.ledger?.rows[0].width]).toEqual([0, 100]);
  });
});

describe('codeThatRan', () => {
  it('takes the code of the blocks that ran', () => {
    expect(codeThatRan(fixture('plain'))).toEqual(['import statistics\nm = statistics.mean([1, 2, 3])\nm']);
  });

  it('leaves out code the user skipped', () => {
    expect(codeThatRan(fixture('code-skipped'))).toEqual([]);
  });

  it('leaves out code that raised', () => {
    expect(codeThatRan(fixture('failed'))).toEqual([]);
  });

  it('takes nothing from a payload without a view', () => {
    expect(codeThatRan(fixture('older-without-view'))).toEqual([]);
  });
});
