"""A lexical ranking (BM25, what search engines use) for choosing texts by a request, offline and without
an embedding service: a word shared by every document counts for little, a rare one for much. Words are
lowercased, split at non-letters and underscores (`anomaly_detection` -> anomaly, detection), stripped of
a plural `s` and of common English words. Plugin selection and experience retrieval use it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["BM25Index", "bm25_scores", "words"]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "by",
        "from",
        "at",
        "as",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "me",
        "my",
        "our",
        "us",
        "you",
        "your",
        "i",
        "we",
        "please",
        "can",
        "could",
        "would",
        "should",
        "will",
        "do",
        "does",
        "what",
        "which",
        "how",
    ]
)
K1, B = 1.2, 0.75  # BM25's usual term-saturation and length-normalisation constants


def words(text: str) -> list[str]:
    """Lowercase words of `text`, split at anything not a letter or digit, plural `s` dropped."""
    found = []
    for word in _WORD.findall(text.lower().replace("_", " ")):
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.append(word)
    return found


class BM25Index:
    """Documents (word counts, `Counter(words(text))`) indexed once for many queries: each query touches
    only the documents that share a word with it."""

    def __init__(self, documents: Sequence[Counter[str]]) -> None:
        self.size = len(documents)
        self.lengths = [sum(d.values()) for d in documents]
        self.average = (sum(self.lengths) / self.size if self.size else 0.0) or 1.0
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for index, document in enumerate(documents):
            for word, count in document.items():
                self.postings.setdefault(word, []).append((index, count))

    def scores(self, query: Iterable[str]) -> list[float]:
        """Each document's BM25 score for the query words (0.0 when it shares none)."""
        scores = [0.0] * self.size
        for word in set(query):
            posting = self.postings.get(word)
            if not posting:
                continue
            frequency = len(posting)
            idf = math.log(1 + (self.size - frequency + 0.5) / (frequency + 0.5))
            for index, count in posting:
                norm = K1 * (1 - B + B * self.lengths[index] / self.average)
                scores[index] += idf * count * (K1 + 1) / (count + norm)
        return scores


def bm25_scores(documents: Sequence[Counter[str]], query: Iterable[str]) -> list[float]:
    """Each document's BM25 score for the query words (0.0 when it shares none); documents are word
    counts (`Counter(words(text))`). For many queries over the same documents, keep a BM25Index."""
    return BM25Index(documents).scores(query)
