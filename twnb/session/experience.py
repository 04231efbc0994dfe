"""Experience, in TaskWeaver's format: what the user taught in earlier Rounds, retrieved for a new request.

The folder (`experience_dir`, default `.twnb/experience/` beside the notebook; a TaskWeaver experience
folder is read as it is) holds TaskWeaver's files:
- `raw_exp_<id>.yaml`: a remembered Round's conversation (the conversation YAML, redacted);
- `exp_<id>.yaml`: its summary, written by the LLM (`exp_id`, `experience_text`, `raw_experience_path`,
  `embedding_model`, `embedding`: TaskWeaver's `Experience` fields);
- `handcrafted_exp_<id>.yaml`: written by hand or by `%taskweaver remember "text"`, the same fields.

For each request the most relevant experiences over a threshold go into both roles' prompts (after the
request, in the Round that uses them, so the cached prefix never changes). They are ranked by BM25
(twnb/base/lexical_rank.py: offline, on any server); TaskWeaver's embeddings are kept as they are in
the files. Every text is redacted before it is written. The folder is listed at each Round and a file
read again only when its size or modification time changed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.base import bm25_scores, clip, create_id, words
from twnb.memory import Round, dump_yaml, load_yaml_file, write_text_atomic

EXPERIENCE_FILE = re.compile(r"^(handcrafted_exp|exp)_(.+)\.ya?ml$")
TOP = 3  # experiences put into a prompt at most
MIN_SCORE = 0.2  # BM25 score under which an experience is not relevant enough to send (one shared word
# in a folder of one experience scores about 0.29)
MAX_EXPERIENCE_CHARS = 2_000
TRANSCRIPT_ATTACHMENTS = ("plan", "reply_content", "execution_status", "code_error", "execution_result")
SUMMARY_PROMPT = (
    "You are the Experience summariser of a data analysis assistant. Read the conversation below, in "
    "which the user steered the assistant (edited its plan or code, skipped or refused a step, undid "
    "a Round). Write what to do next time, as short imperative bullet points in two groups: 'User "
    "preferences' (what the user wants, in their words) and 'Error resolutions' (what went wrong and "
    "how it was fixed). Name no secrets. Reply with the bullet points only."
)


@dataclass
class Experience:
    """TaskWeaver's `Experience` fields, and which file it came from."""

    exp_id: str
    experience_text: str
    raw_experience_path: str | None = None
    embedding_model: str | None = None
    embedding: list[float] = field(default_factory=list)
    path: Path | None = None

    @property
    def handcrafted(self) -> bool:
        return self.path is not None and self.path.name.startswith("handcrafted_exp_")

    def to_dict(self) -> dict[str, Any]:
        return {
            "exp_id": self.exp_id,
            "experience_text": self.experience_text,
            "raw_experience_path": self.raw_experience_path,
            "embedding_model": self.embedding_model,
            "embedding": self.embedding,
        }


@dataclass
class _Indexed:
    stamp: tuple[int, int]
    experience: Experience
    words: Counter[str]


@dataclass
class ExperienceStore:
    """The experience folder: listing, retrieval, writing and deleting."""

    folder: Path
    redact: Callable[[str], str] = str
    _index: dict[Path, _Indexed] = field(default_factory=dict, repr=False)
    problems: list[str] = field(default_factory=list)

    def experiences(self) -> list[Experience]:
        """Every experience in the folder, by id; unreadable files are skipped and named in `problems`."""
        self.problems = []
        try:
            paths = sorted(p for p in self.folder.iterdir() if EXPERIENCE_FILE.match(p.name))
        except OSError:
            self._index.clear()
            return []
        for gone in set(self._index) - set(paths):
            del self._index[gone]
        for path in paths:
            self._read(path)
        return [self._index[p].experience for p in paths if p in self._index]

    def retrieve(
        self, request: str, top: int = TOP, min_score: float = MIN_SCORE
    ) -> list[tuple[Experience, float]]:
        """The experiences most relevant to `request`, best first, with their scores."""
        found = self.experiences()
        if not found:
            return []
        indexed = [self._index[e.path] for e in found if e.path is not None]
        scores = bm25_scores([i.words for i in indexed], set(words(request)))
        ranked = sorted(zip(indexed, scores, strict=True), key=lambda pair: -pair[1])
        return [(i.experience, round(s, 3)) for i, s in ranked[:top] if s >= min_score]

    def remember_text(self, text: str) -> Experience:
        """`%taskweaver remember "text"`: a handcrafted experience."""
        exp_id = create_id()
        experience = Experience(exp_id, self.redact(text.strip()))
        return self._write(f"handcrafted_exp_{exp_id}.yaml", experience)

    def save_raw(self, conversation: dict[str, Any], exp_id: str) -> Path:
        """A Round's conversation as `raw_exp_<id>.yaml` (TaskWeaver's Memory.save_experience form)."""
        path = self.folder / f"raw_exp_{exp_id}.yaml"
        self.folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, self.redact(dump_yaml(conversation)))
        return path

    def save_summary(self, exp_id: str, text: str, raw_path: Path) -> Experience:
        """The LLM's summary of `raw_exp_<id>.yaml` as `exp_<id>.yaml`."""
        experience = Experience(exp_id, self.redact(text.strip()), raw_experience_path=raw_path.name)
        return self._write(f"exp_{exp_id}.yaml", experience)

    def find(self, exp_id: str) -> Experience | None:
        return next((e for e in self.experiences() if e.exp_id == exp_id), None)

    def delete(self, exp_id: str) -> list[Path]:
        """Remove the experience and its raw conversation; the files removed."""
        removed = []
        for name in (f"exp_{exp_id}.yaml", f"handcrafted_exp_{exp_id}.yaml", f"raw_exp_{exp_id}.yaml"):
            path = self.folder / name
            if path.exists():
                path.unlink()
                removed.append(path)
        return removed

    def _write(self, name: str, experience: Experience) -> Experience:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        write_text_atomic(path, dump_yaml(experience.to_dict()))
        experience.path = path
        return experience

    def _read(self, path: Path) -> None:
        try:
            info = path.stat()
        except OSError:
            return
        stamp = (info.st_size, info.st_mtime_ns)
        cached = self._index.get(path)
        if cached is not None and cached.stamp == stamp:
            return
        try:
            data = load_yaml_file(path)
        except Exception as error:  # a damaged file: said once in the listing, the others still load
            self.problems.append(f"{path.name}: {error}")
            self._index.pop(path, None)
            return
        if not isinstance(data, dict) or not isinstance(data.get("experience_text"), str):
            self.problems.append(f"{path.name}: no experience_text")
            return
        match = EXPERIENCE_FILE.match(path.name)
        exp_id = str(data.get("exp_id") or (match.group(2) if match else path.stem))
        embedding = data.get("embedding")
        experience = Experience(
            exp_id,
            self.redact(data["experience_text"])[:MAX_EXPERIENCE_CHARS],
            data.get("raw_experience_path"),
            data.get("embedding_model"),
            list(embedding) if isinstance(embedding, list) else [],
            path,
        )
        self._index[path] = _Indexed(stamp, experience, Counter(words(experience.experience_text)))


def round_transcript(round: Round) -> str:
    """A Round as the summariser reads it: each post's message, code, errors and the user's decisions
    (an edited plan or code with what it replaced, a skipped step, a refused edit, an undo)."""
    lines = [f"User request: {round.user_query}"]
    for post in round.post_list[1:]:
        lines.append(f"--- {post.send_from} -> {post.send_to}: {clip(post.message, 1_000, count=True)}")
        for attachment in post.attachment_list:
            if attachment.type.value in TRANSCRIPT_ATTACHMENTS:
                text = clip(str(attachment.content), 2_000, count=True)
                lines.append(f"[{attachment.type.value}] {text}")
        extra = post.extra if isinstance(post.extra, dict) else {}
        if extra.get("edited_by") == "User":
            lines.append(
                f"[the user edited this; it was before]\n{clip(str(extra.get('edited_from')), 2_000)}"
            )
        if extra.get("skipped_by") == "User":
            lines.append("[the user skipped this step]")
        if extra.get("refused_edit"):
            lines.append(f"[the user's edit was refused by verification] {extra['refused_edit']}")
    if round.undone:
        lines.append("[the user undid this Round]")
    return "\n".join(lines)


__all__ = ["SUMMARY_PROMPT", "Experience", "ExperienceStore", "round_transcript"]
