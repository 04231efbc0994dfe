import { describe, expect, it } from 'vitest';

import { escapeMarkdown, safeLinkTarget } from '../src/markdown';

describe('escapeMarkdown with links', () => {
  it('keeps a link to a relative file', () => {
    expect(escapeMarkdown('see [unusual_weeks.csv](unusual_weeks.csv)', true)).toBe(
      'see [unusual_weeks.csv](unusual_weeks.csv)'
    );
  });

  it('keeps an https link', () => {
    expect(escapeMarkdown('[docs](https://example.org/a?b=1&c=2)', true)).toBe('[docs](https://example.org/a?b=1&c=2)');
  });

  it.each(['javascript:alert(1)', '.twnb/artifacts/x.png', '/etc/passwd', 'data:text/html,x'])(
    'shows a link to %s as text',
    target => {
      const shown = escapeMarkdown(`[x](${target})`, true);
      expect(shown.startsWith('&#91;x&#93;')).toBe(true);
    }
  );

  it('shows an image as text, never as an image', () => {
    expect(escapeMarkdown('![i](https://example.org/x.png)', true)).toBe('!&#91;i&#93;(https://example.org/x.png)');
  });

  it('shows raw HTML as text', () => {
    expect(escapeMarkdown('<img src=x onerror=alert(1)>', true)).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('leaves code spans as they are, links inside them too', () => {
    expect(escapeMarkdown('`[a](b)` and `<b>`', true)).toBe('`[a](b)` and `<b>`');
  });

  it('shows links as text when links are off', () => {
    expect(escapeMarkdown('[a](a.csv)')).toBe('&#91;a&#93;(a.csv)');
  });
});

describe('safeLinkTarget', () => {
  it('encodes what could spell a scheme in a relative path', () => {
    expect(safeLinkTarget('a&#58;b')).toBe('a%26#58;b');
  });

  it('refuses a target with a quote', () => {
    expect(safeLinkTarget('a"onclick=x')).toBeNull();
  });
});
