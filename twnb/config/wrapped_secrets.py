"""A secret that holds spaces, found when output wrapped it over lines at those spaces.

`pprint` of a long string splits it into adjacent literals at its spaces (``'correct horse '`` then, on
the next line and indented, ``'battery staple'``); `textwrap` replaces a space with a line break and
indentation. Neither spelling is one of secret_spellings.py's whole spellings, so each secret with a
space gets a pattern: its words (each as written or as `repr` writes it) with, between two words,
spaces, or a line break with the indentation and quotes those wrappers put around it (a word another
rule replaced already counts as the word). The pattern is tried only near a hit of one of the
secret's words of 4 characters or more (found in one pass of its own over texts that hold a line
break), so texts without such secrets, or without a line break, cost nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from twnb.config.literal_scan import LiteralScan
from twnb.config.secret_rules import REDACTED

__all__ = ["WrappedSecrets"]

# Shorter words occur in ordinary text too often to be worth a look around each.
MIN_ANCHOR = 4
# What a wrapper may put in place of one space: spaces; or the end of a literal, a line break, the
# indentation and the start of the next literal (pprint: `'a '\n    'b'`; textwrap: `a\n    b`).
_BREAK = r"""(?:[ \t]+|[ \t]*(?:['"][ \t]*)?\r?\n[ \t]*(?:b?['"])?)"""
HIDDEN = "[hidden]"  # twnb/kernel/capture/secret_screen.py's mark, a layer above this one
# How far a wrapped secret reaches beyond its own characters, per break (the indentation of a nested
# structure's pprint).
_PER_BREAK = 160


class WrappedSecrets:
    """Finds the secrets among `secrets` that hold a space, wrapped over lines at their spaces."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._by_anchor: dict[str, list[tuple[re.Pattern[str], int]]] = {}
        for secret in secrets:
            words = secret.split()
            if len(words) < 2:
                continue
            pattern = re.compile(_BREAK.join(_word(word) for word in words))
            reach = len(secret) + _PER_BREAK * (len(words) - 1)
            # Each word long enough is an anchor: any of them may be the one another rule replaced.
            for anchor in {word for word in words if len(word) >= MIN_ANCHOR}:
                self._by_anchor.setdefault(anchor, []).append((pattern, reach))
        self._anchors = LiteralScan(self._by_anchor)

    def __bool__(self) -> bool:
        return bool(self._by_anchor)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` holds one of the secrets wrapped (or whole): (start, end) in characters."""
        found: list[tuple[int, int]] = []
        covered: dict[re.Pattern[str], int] = {}  # a pattern's last match: hits inside it are done
        for index, start, end in self._anchors.find(text):
            for pattern, reach in self._by_anchor[self._anchors.words[index]]:
                if start < covered.get(pattern, -1):
                    continue
                stop = min(len(text), end + reach)
                match = pattern.search(text, max(0, start - reach), stop)
                while match is not None and match.end() < end:  # one ending before this hit
                    match = pattern.search(text, match.end(), stop)
                if match is not None and match.start() <= start:
                    found.append((match.start(), match.end()))
                    covered[pattern] = match.end()
        return found


def _word(word: str) -> str:
    # A word may have been replaced already, with what surrounds it, by another rule (a credential
    # field's value `'password': 'correct '` is replaced up to its first quote, here or by the
    # kernel's screen of what the model is told, which writes "[hidden]").
    spelled = {word, repr(word)[1:-1], REDACTED, HIDDEN}
    return "(?:" + "|".join(re.escape(s) for s in sorted(spelled, key=len, reverse=True)) + ")"
