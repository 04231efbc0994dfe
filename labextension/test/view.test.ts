import { describe, expect, it } from 'vitest';

import { codeThatRan, viewOf } from '../src/view';
import { posts } from '../src/payload';
import { FIXTURE_NAMES, fixture, wholeView } from './fixtures';

const WITH_VIEW = FIXTURE_NAMES.filter(
  name => !['older-without-view', 'oldest-without-twnb', 'newer-view'].includes(name)
);

describe('viewOf', () => {
  it.each(WITH_VIEW)('draws the view twnb computed for %s as twnb reads it', name => {
    const payload = fixture(name);
    const { view, note } = viewOf(payload);
    expect(view).toEqual(wholeView(name)); // the texts the payload's view left to the record put back
    expect(note).toBeNull();
  });

  it('reads a text the view left out from the record, and one the view carries from the view', () => {
    const payload = fixture('plain');
    const raw = (payload.twnb as { view: Record<string, unknown> }).view;
    expect(raw).not.toHaveProperty('answer'); // the answer is the last Planner-to-User message as it is
    const answer = posts(payload)
      .filter(post => post.send_to === 'User')
      .pop();
    answer!.message = 'The record says 2.';
    expect(viewOf(payload).view?.answer).toBe('The record says 2.');
    raw.answer = 'The view says 2.';
    expect(viewOf(payload).view?.answer).toBe('The view says 2.');
    raw.answer = null; // present and null: no answer, whatever the record holds
    expect(viewOf(payload).view?.answer).toBeNull();
  });

  it('reads the plan, post titles and ledger labels a view left out from the record', () => {
    const payload = fixture('artifacts');
    const raw = (payload.twnb as { view: Record<string, unknown> }).view;
    expect(raw).not.toHaveProperty('plan');
    expect(raw).not.toHaveProperty('posts');
    payload.twnb!.plan!.subtasks![0].name = 'The record says so';
    posts(payload)[1].send_to = 'Reviewer';
    const entries = (payload.extra as { ledger: { entries: { role: string }[] } }).ledger.entries;
    entries[0].role = 'Reviewer';
    const { view } = viewOf(payload);
    expect(view?.plan[0].text).toBe('The record says so');
    expect(view?.posts[1].title).toBe('Planner → Reviewer');
    expect(view?.ledger?.rows[0].label).toBe('Reviewer LLM');
  });

  it('draws a fact the view carries from the view, whatever the record says', () => {
    const payload = fixture('artifacts');
    const raw = (payload.twnb as { view: Record<string, unknown> }).view;
    raw.plan = [{ text: 'The view says so', state: 'done' }];
    raw.posts = [{ title: 'A title only the view knows' }, {}, {}, {}];
    const { view } = viewOf(payload);
    expect(view?.plan).toEqual([{ text: 'The view says so', state: 'done' }]);
    expect(view?.posts.map(post => post.title)).toEqual([
      'A title only the view knows',
      'Planner → CodeInterpreter',
      'CodeInterpreter → Planner',
      'Planner → User'
    ]);
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
    expect(note).toMatch(/newer twnb \(view 99; this extension reads 3\)/);
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
