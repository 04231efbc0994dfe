"""Choosing which plugins to describe when there are more than a handful, without an embedding service.

TaskWeaver selects plugins by the cosine similarity of embeddings (an embedding model and a refresh
step). Here the request is scored against each plugin's words (its name, counted twice, its
description, its arguments' names and descriptions) with BM25, the lexical ranking search engines
use: a word shared by every plugin counts for little, a rare one for much. Words are lowercased, split
at non-letters and underscores (`anomaly_detection` -> anomaly, detection) and stripped of a plural
`s`. Described are: the required plugins, the best `top` plugins that share a word with the request,
and the plugins earlier code called (a follow-up, "now for March", needs them again).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from twnb.memory import PluginEntry, PluginOfferRecord

__all__ = ["HANDFUL", "TOP", "choose_plugins", "words"]

HANDFUL = 6  # up to this many plugins, every one is described
TOP = 5  # beyond it, at most this many chosen by the request (plus required and used ones)
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
K1, B = 1.2, 0.75


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


def _document(entry: PluginEntry) -> list[str]:
    parts = [entry.name, entry.name, entry.description]
    for parameter in entry.parameters:
        parts += [str(parameter.get("name", "")), str(parameter.get("description") or "")]
    return words(" ".join(parts))


def choose_plugins(
    entries: Sequence[PluginEntry], request: str, used: Iterable[str] = ()
) -> tuple[list[PluginEntry], PluginOfferRecord]:
    """The entries to describe for `request` (in their given order) and the record of the choice."""
    if len(entries) <= HANDFUL:
        return list(entries), PluginOfferRecord(
            described=[e.name for e in entries], available=len(entries), chosen_by="all", scores={}
        )
    documents = [Counter(_document(e)) for e in entries]
    average = sum(sum(d.values()) for d in documents) / len(documents) or 1.0
    frequency: Counter[str] = Counter(word for d in documents for word in d)
    query = set(words(request))
    scores: dict[str, float] = {}
    for entry, document in zip(entries, documents, strict=True):
        length = sum(document.values())
        score = 0.0
        for word in query & set(document):
            idf = math.log(1 + (len(entries) - frequency[word] + 0.5) / (frequency[word] + 0.5))
            count = document[word]
            score += idf * count * (K1 + 1) / (count + K1 * (1 - B + B * length / average))
        if score > 0:
            scores[entry.name] = round(score, 3)
    best = set(sorted(scores, key=lambda name: (-scores[name], name))[:TOP])
    keep = best | {e.name for e in entries if e.required} | set(used)
    chosen = [e for e in entries if e.name in keep]
    return chosen, PluginOfferRecord(
        described=[e.name for e in chosen],
        available=len(entries),
        chosen_by="request",
        scores={name: score for name, score in scores.items() if name in keep},
    )
