"""A lexical ranking (BM25, what search engines use) for choosing texts by a request, offline and without
an embedding service: a word shared by every document counts for little, a rare one for much. Words are
lowercased, split at non-letters and underscores (`anomaly_detection` -> anomaly, detection), stripped of
a plural `s` and of common English words. Plugin selection and experience retrieval use it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["bm25_scores", "words"]

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


def bm25_scores(documents: Sequence[Counter[str]], query: Sequence[str] | set[str]) -> list[float]:
    """Each document's BM25 score for the query words (0.0 when it shares none); documents are word
    counts (`Counter(words(text))`)."""
    if not documents:
        return []
    average = sum(sum(d.values()) for d in documents) / len(documents) or 1.0
    frequency: Counter[str] = Counter(word for d in documents for word in d)
    asked = set(query)
    scores = []
    for document in documents:
        length = sum(document.values())
        score = 0.0
        for word in asked & document.keys():
            idf = math.log(1 + (len(documents) - frequency[word] + 0.5) / (frequency[word] + 0.5))
            count = document[word]
            score += idf * count * (K1 + 1) / (count + K1 * (1 - B + B * length / average))
        scores.append(score)
    return scores
