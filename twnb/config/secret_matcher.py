"""Finding known secret values in a text, in every spelling (secret_spellings.py), whole or cut by a
display, in time linear in the text whatever the number of secrets.

A regular expression that alternates the literal values tries each alternative at each position: with
80 secrets in a dozen spellings each it redacts a few MB/s. An Aho-Corasick automaton (literal_scan.py)
finds all of them in one pass. A cut spelling (a prefix of 12 characters or more directly followed by
``...`` or ``…``) is found from the ellipses, which are few: the 12 characters before each are looked
up among the secrets' 12-character windows, and a candidate is checked whole.
"""

from __future__ import annotations

from collections.abc import Iterable

from twnb.config.literal_scan import LiteralScan
from twnb.config.secret_spellings import MIN_TRUNCATED_PREFIX, spellings
from twnb.config.wrapped_secrets import WrappedSecrets

__all__ = ["SecretMatcher"]

_ELLIPSES = LiteralScan(("...", "…"))


class SecretMatcher:
    """Replaces every spelling of `secrets`, whole or cut, in a text. Immutable: a new set of secrets is
    a new matcher (the Redactor's memo is keyed by it)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = frozenset(s for s in secrets if s)
        words = sorted({word for secret in self.secrets for word in spellings(secret)})
        # Leftmost-longest: of two secrets at one place (one containing the other), the longer goes whole.
        self._spellings = LiteralScan(words, longest=True)
        # The last MIN_TRUNCATED_PREFIX characters of each prefix long enough to be a cut spelling, and
        # the prefixes ending so, longest first (spellings of one secret share their first characters).
        prefix_ends: dict[str, set[str]] = {}
        for word in words:
            for length in range(MIN_TRUNCATED_PREFIX, len(word) + 1):
                prefix_ends.setdefault(word[length - MIN_TRUNCATED_PREFIX : length], set()).add(word[:length])
        self._prefix_ends = {
            window: sorted(prefixes, key=len, reverse=True) for window, prefixes in prefix_ends.items()
        }
        # A spelling holding a line break can reach across a blank line (Redactor._splittable).
        self.crosses_lines = any("\n" in word or "\r" in word for word in words)
        # Secrets with spaces, wrapped over lines at them by pprint or textwrap.
        self._wrapped = WrappedSecrets(self.secrets)

    def redact(self, text: str, replacement: str) -> str:
        """`text` with each spelling, and each cut spelling with its ellipsis, replaced."""
        spans = [(start, end) for _, start, end in self._spellings.find(text)]
        if "..." in text or "…" in text:
            spans += self._cut_spans(text)
            spans.sort()
        if self._wrapped and "\n" in text:
            spans += self._wrapped.spans(text)
            spans.sort()
        if not spans:
            return text
        pieces: list[str] = []
        done = 0
        for start, end in spans:
            if start < done:  # overlaps the previous span: one replacement covers both
                if end > done:
                    done = end
                continue
            pieces += (text[done:start], replacement)
            done = end
        pieces.append(text[done:])
        return "".join(pieces)

    def _cut_spans(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        for _, at, after in _ELLIPSES.find(text):
            if at < MIN_TRUNCATED_PREFIX:
                continue
            prefixes = self._prefix_ends.get(text[at - MIN_TRUNCATED_PREFIX : at])
            if prefixes is None:
                continue
            for prefix in prefixes:  # the longest that the text holds right before the ellipsis
                if len(prefix) <= at and text.startswith(prefix, at - len(prefix)):
                    spans.append((at - len(prefix), after))
                    break
        return spans
