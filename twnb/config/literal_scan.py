"""Where literal words occur in a text, as character offsets, in one pass over the text's UTF-8 bytes.

Redaction looks for hundreds of known spellings of secrets, for the literal starts of key shapes
(``sk-``, ``ghp_``, ...) and for ellipses in every text twnb records or sends, so this pass is most of
its cost. ahocorasick_rs's ``str`` interface spends ~3 ms per MB converting the text before it searches;
its bytes interface searches what ``str.encode`` makes (~0.1 ms per MB for ASCII text). A byte offset is
a character offset in ASCII text, and is counted back into one otherwise: a match of a whole UTF-8 word
begins and ends on a character boundary.
"""

from __future__ import annotations

from collections.abc import Iterable

from ahocorasick_rs import BytesAhoCorasick, MatchKind

__all__ = ["LiteralScan"]

# Lone surrogates (a file name decoded with surrogateescape) encode too, so no text is refused.
_ERRORS = "surrogatepass"


class LiteralScan:
    """Finds `words` in texts: leftmost first, none overlapping another; of two words starting at one
    place, the first in `words`, or with `longest` the longer."""

    def __init__(self, words: Iterable[str], *, longest: bool = False) -> None:
        # The longest first, then the first of them wins: what MatchKind.LeftmostLongest gives, in half
        # its time (measured on the redaction bench: it reads on past a match for a longer one).
        self.words = tuple(sorted(words, key=len, reverse=True) if longest else words)
        encoded = [word.encode("utf-8", _ERRORS) for word in self.words]
        self._automaton = BytesAhoCorasick(encoded, matchkind=MatchKind.LeftmostFirst)

    def find(self, text: str) -> list[tuple[int, int, int]]:
        """(index of the word in `self.words`, start, end) of each match, in characters of `text`."""
        data = text.encode("utf-8", _ERRORS)
        hits = self._automaton.find_matches_as_indexes(data)
        if not hits or len(data) == len(text):  # ASCII: a byte is a character
            return hits
        characters = _character_offsets(data, {offset for _, start, end in hits for offset in (start, end)})
        return [(word, characters[start], characters[end]) for word, start, end in hits]

    def words_in(self, text: str) -> set[str]:
        """The words `text` holds (no offsets to count)."""
        hits = self._automaton.find_matches_as_indexes(text.encode("utf-8", _ERRORS))
        return {self.words[word] for word, _, _ in hits}


def _character_offsets(data: bytes, byte_offsets: set[int]) -> dict[int, int]:
    """Each byte offset (on a character boundary) of UTF-8 `data` as a character offset, counting the
    characters between one offset and the next once."""
    characters: dict[int, int] = {}
    counted_bytes = counted_characters = 0
    for offset in sorted(byte_offsets):
        counted_characters += len(data[counted_bytes:offset].decode("utf-8", _ERRORS))
        counted_bytes = offset
        characters[offset] = counted_characters
    return characters
