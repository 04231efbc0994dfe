import { describe, expect, it } from 'vitest';

import { tokens } from '../src/payload';

describe("a post's token counts", () => {
  it('are given as the server counted them', () => {
    expect(tokens({ prompt_tokens: 1200, completion_tokens: 34 })).toBe('1234 tokens (1200 in, 34 out)');
  });

  it('are marked ~ when twnb estimated them (the server sent none)', () => {
    expect(tokens({ prompt_tokens: 1200, completion_tokens: 34, estimated: true })).toBe(
      '~1234 tokens (~1200 in, ~34 out)'
    );
  });

  it('are left out when there are none', () => {
    expect(tokens({})).toBe('');
  });
});
