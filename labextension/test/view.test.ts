import { describe, expect, it } from 'vitest';

import { codeThatRan, viewFromRecord, viewOf } from '../src/view';
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

  it('reads an older payload without a view from its posts, and says so', () => {
    const { view, note } = viewOf(fixture('older-without-view'));
    expect(note).toMatch(/older twnb, without its view/);
    expect(view.code.map(block => [block.outcome, block.decision, block.decision_line])).toEqual([
      ['skipped', 'skipped', 'You skipped this code']
    ]);
  });

  it('reads a payload without a twnb section from its posts', () => {
    const { view, note } = viewOf(fixture('oldest-without-twnb'));
    expect(note).toMatch(/without its twnb section/);
    expect(view.state).toBe('finished');
    expect(view.code.map(block => block.outcome)).toEqual(['ran']);
    expect(view.answer).toBe('The mean is 2.');
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

describe('the fallback for older payloads', () => {
  it.each(['plain', 'code-approved', 'code-edited', 'code-skipped', 'failed', 'interrupted', 'stopped'])(
    'agrees with the view twnb computed for %s on state, answer and each code block',
    name => {
      const payload = fixture(name);
      const computed = viewOf(payload).view;
      const derived = viewFromRecord(payload);
      expect(derived.state).toBe(computed.state);
      expect(derived.answer).toBe(computed.answer);
      const facts = (blocks: typeof computed.code) =>
        blocks.map(block => [block.code, block.outcome, block.decision, block.decision_line]);
      expect(facts(derived.code)).toEqual(facts(computed.code));
    }
  );
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
});
