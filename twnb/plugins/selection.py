"""Choosing which plugins to describe when there are more than a handful, without an embedding service.

TaskWeaver selects plugins by the cosine similarity of embeddings (an embedding model and a refresh
step). Here the request is scored against each plugin's words (its name, counted twice, its
description, its arguments' names and descriptions) with BM25 (twnb/base/lexical_rank.py), the lexical
ranking search engines use: a word shared by every plugin counts for little, a rare one for much.
Described are: the required plugins, the best `top` plugins that share a word with the request,
and the plugins earlier code called (a follow-up, "now for March", needs them again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from twnb.base import bm25_scores, words
from twnb.memory import PluginEntry, PluginOfferRecord

__all__ = ["HANDFUL", "TOP", "choose_plugins"]

HANDFUL = 6  # up to this many plugins, every one is described
TOP = 5  # beyond it, at most this many chosen by the request (plus required and used ones)


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
    ranked = bm25_scores(documents, set(words(request)))
    scores = {entry.name: round(score, 3) for entry, score in zip(entries, ranked, strict=True) if score > 0}
    best = set(sorted(scores, key=lambda name: (-scores[name], name))[:TOP])
    keep = best | {e.name for e in entries if e.required} | set(used)
    chosen = [e for e in entries if e.name in keep]
    return chosen, PluginOfferRecord(
        described=[e.name for e in chosen],
        available=len(entries),
        chosen_by="request",
        scores={name: score for name, score in scores.items() if name in keep},
    )
