"""Ranking experience by embeddings, when `embedding_model` is set (TaskWeaver's way).

The request and each experience's text are embedded by the same OpenAI-compatible server's embeddings
API; experiences are ranked by cosine similarity and kept over TaskWeaver's `retrieve_threshold`. An
experience file that carries an `embedding` made by the same model (TaskWeaver writes them) is used as
it is. The others are embedded once and cached beside the experience files, in `embeddings_cache.json`,
keyed by the model and a hash of the text: an edited experience is embedded again, a deleted one's
vector is dropped the next time the cache is written.

A server without embeddings (a 404, a refused model, no connection) is said once in one line and the
session ranks by BM25 from then on: retrieval must never stop a Round.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from twnb.base import clip
from twnb.memory import write_text_atomic

CACHE_FILE = "embeddings_cache.json"
MIN_SIMILARITY = 0.2  # TaskWeaver's experience retrieve_threshold
BATCH = 256  # texts per embeddings request (OpenAI takes 2,048; servers such as vLLM or TEI take fewer)

Embed = Callable[[list[str]], list[list[float]]]  # texts -> their vectors, in order


class Embeddable(Protocol):
    """What ranking reads of an experience (experience.py's Experience; a protocol, so that module
    can hold this one without a circle)."""

    @property
    def experience_text(self) -> str: ...

    @property
    def embedding_model(self) -> str | None: ...

    @property
    def embedding(self) -> list[float]: ...


Experience = TypeVar("Experience", bound=Embeddable)


@dataclass
class ExperienceEmbeddings:
    """`rank()` the experiences for a request; None once the server has no embeddings (`failed`)."""

    model: str
    embed: Embed
    folder: Path
    failed: str | None = None  # why the server gave none (then BM25 ranks, for the session's life)
    _cache: dict[str, list[float]] | None = field(default=None, repr=False)

    def rank(
        self,
        request: str,
        experiences: Sequence[Experience],
        top: int,
        min_similarity: float = MIN_SIMILARITY,
    ) -> list[tuple[Experience, float]] | None:
        if self.failed is not None:
            return None
        cache = self._load()
        vectors: list[list[float] | None] = []
        missing: dict[str, str] = {}  # key -> text, each once
        for experience in experiences:
            if experience.embedding and experience.embedding_model == self.model:
                vectors.append(experience.embedding)  # TaskWeaver's own, made by this model
                continue
            key = self._key(experience.experience_text)
            vectors.append(cache.get(key))
            if key not in cache:
                missing[key] = experience.experience_text
        try:
            texts = [request, *missing.values()]
            made = [v for n in range(0, len(texts), BATCH) for v in self.embed(texts[n : n + BATCH])]
        except Exception as error:  # the server's answer, whatever it is: BM25 ranks instead
            self.failed = f"{type(error).__name__}: {clip(' '.join(str(error).split()), 160)}"
            return None
        asked, *new = made
        if missing:
            cache.update(zip(missing, new, strict=True))
            vectors = [
                v if v is not None else cache[self._key(e.experience_text)]
                for v, e in zip(vectors, experiences, strict=True)
            ]
            self._save(cache, experiences)
        scored = [(e, round(_cosine(asked, v), 3)) for e, v in zip(experiences, vectors, strict=True) if v]
        scored.sort(key=lambda pair: -pair[1])
        return [(e, score) for e, score in scored[:top] if score >= min_similarity]

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()

    def _load(self) -> dict[str, list[float]]:
        if self._cache is None:
            try:
                data = json.loads((self.folder / CACHE_FILE).read_text(encoding="utf-8"))
                vectors = data.get("vectors", {}) if isinstance(data, dict) else {}
                self._cache = {k: v for k, v in vectors.items() if isinstance(v, list)}
            except (OSError, ValueError):  # none yet, or damaged: made again
                self._cache = {}
        return self._cache

    def _save(self, cache: dict[str, list[float]], experiences: Sequence[Embeddable]) -> None:
        """Only the vectors of the experiences there are now (a changed text's old one goes)."""
        wanted = {self._key(e.experience_text) for e in experiences}
        kept = {key: vector for key, vector in cache.items() if key in wanted}
        self._cache = kept
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.folder / CACHE_FILE, json.dumps({"vectors": kept}))
        except OSError:
            pass  # a read-only folder: embedded again next session, nothing lost

    def note(self) -> str:
        return (
            f"Experience is ranked by BM25: the server gave no embeddings for {self.model!r} ({self.failed})."
        )


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


__all__ = ["CACHE_FILE", "MIN_SIMILARITY", "ExperienceEmbeddings"]
