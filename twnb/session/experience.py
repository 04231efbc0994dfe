"""Experience, in TaskWeaver's format: what the user taught in earlier Rounds, retrieved for a new request.

The folder (`experience_dir`, default `.twnb/experience/` beside the notebook; a TaskWeaver experience
folder is read as it is) holds TaskWeaver's files:
- `raw_exp_<id>.yaml`: a remembered Round's conversation (the conversation YAML, redacted);
- `exp_<id>.yaml`: its summary, written by the LLM (`exp_id`, `experience_text`, `raw_experience_path`,
  `embedding_model`, `embedding`: TaskWeaver's `Experience` fields);
- `handcrafted_exp_<id>.yaml`: written by hand or by `%taskweaver remember "text"`, the same fields.

For each request the most relevant experiences over a threshold go into both roles' prompts (after the
request, in the Round that uses them, so the cached prefix never changes). They are ranked by
embeddings when `embedding_model` is set (experience_embeddings.py), else, or when the server has none,
by BM25 (twnb/base/lexical_rank.py: offline, on any server); TaskWeaver's embeddings are kept as they
are in the files. A file a confined kernel could write and changed is not read until the user accepts
it (`refuse`: twnb/config/quarantine.py), said once. Every text is redacted before it is written. The
folder is listed at each Round and a file read again only when its size or modification time changed.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.base import BM25Index, clip, create_id, words
from twnb.memory import Round, dump_yaml, load_yaml_file, write_text_atomic
from twnb.session.experience_embeddings import ExperienceEmbeddings

EXPERIENCE_FILE = re.compile(r"^(handcrafted_exp|exp)_(.+)\.ya?ml$")
TOP = 3  # experiences put into a prompt at most
MIN_SCORE = 0.2  # BM25 score under which an experience is not relevant enough to send (one shared word
# in a folder of one experience scores about 0.29)
MAX_EXPERIENCE_CHARS = 2_000
UNDID = "undid it"  # how an undone Round was steered (the offer puts it last)
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
    _index: dict[str, _Indexed] = field(default_factory=dict, repr=False)  # by file name
    _listed: tuple[tuple[str, tuple[int, int]], ...] = field(default=(), repr=False)  # name, stamp
    # the ranking over the files as last listed: made again only when a file came, went or changed
    _ranking: tuple[tuple[tuple[str, tuple[int, int]], ...], list[_Indexed], BM25Index] | None = field(
        default=None, repr=False
    )
    problems: list[str] = field(default_factory=list)
    # With `embedding_model` set: ranking by embeddings first (experience_embeddings.py), BM25 without
    embeddings: ExperienceEmbeddings | None = None
    ranked_by: str = "BM25"  # how the last retrieval ranked
    _noted: bool = field(default=False, repr=False)  # the fall back to BM25 was said
    # a file's path -> the line refusing it (the notebook folder's quarantine), None: it may be read
    refuse: Callable[[Path], str | None] | None = None
    refused_lines: list[str] = field(default_factory=list)  # taken by the Round (take_refused)
    _refused_said: set[str] = field(default_factory=set, repr=False)

    def experiences(self) -> list[Experience]:
        """Every experience in the folder, by file name; unreadable files are skipped and named in
        `problems`. A file is read again only when its size or modification time changed."""
        self.problems = []
        try:
            with os.scandir(self.folder) as listing:
                entries = sorted((e for e in listing if EXPERIENCE_FILE.match(e.name)), key=lambda e: e.name)
            entries = [e for e in entries if not self._refused(Path(e.path))]
        except OSError:
            self._index.clear()
            self._listed = ()
            return []
        names = {e.name for e in entries}
        for gone in [name for name in self._index if name not in names]:
            del self._index[gone]
        for entry in entries:
            self._read(entry)
        index = self._index
        self._listed = tuple((e.name, index[e.name].stamp) for e in entries if e.name in index)
        return [index[name].experience for name, _ in self._listed]

    def _refused(self, path: Path) -> bool:
        line = None if self.refuse is None else self.refuse(path)
        if line is None:
            return False
        if line not in self._refused_said:
            self._refused_said.add(line)
            self.refused_lines.append(line)
        return True

    def take_refused(self) -> list[str]:
        """The lines refusing files not said yet."""
        lines, self.refused_lines = self.refused_lines, []
        return lines

    def retrieve(
        self, request: str, top: int = TOP, min_score: float = MIN_SCORE
    ) -> list[tuple[Experience, float]]:
        """The experiences most relevant to `request`, best first, with their scores."""
        found = self.experiences()
        if not found:
            return []
        if self.embeddings is not None:
            ranked = self.embeddings.rank(request, found, top)
            if ranked is not None:
                self.ranked_by = f"embeddings ({self.embeddings.model})"
                return ranked
        self.ranked_by = "BM25"
        key = self._listed
        if self._ranking is None or self._ranking[0] != key:
            indexed = [self._index[name] for name, _ in key]
            self._ranking = (key, indexed, BM25Index([i.words for i in indexed]))
        _, indexed, ranking = self._ranking
        scores = ranking.scores(words(request))
        best = sorted(range(len(scores)), key=lambda n: -scores[n])[:top]
        return [(indexed[n].experience, round(scores[n], 3)) for n in best if scores[n] >= min_score]

    def take_note(self) -> str | None:
        """The one line saying that embeddings failed and BM25 ranks instead, once per store."""
        if self.embeddings is None or self.embeddings.failed is None or self._noted:
            return None
        self._noted = True
        return self.embeddings.note()

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

    def _read(self, entry: os.DirEntry[str]) -> None:
        try:
            info = entry.stat()
        except OSError:
            return
        stamp = (info.st_size, info.st_mtime_ns)
        cached = self._index.get(entry.name)
        if cached is not None and cached.stamp == stamp:
            return
        path = self.folder / entry.name
        try:
            data = load_yaml_file(path)
        except Exception as error:  # a damaged file: said in the listing, the others still load
            self.problems.append(f"{entry.name}: {error}")
            self._index.pop(entry.name, None)
            return
        if not isinstance(data, dict) or not isinstance(data.get("experience_text"), str):
            self.problems.append(f"{entry.name}: no experience_text")
            return
        match = EXPERIENCE_FILE.match(entry.name)
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
        self._index[entry.name] = _Indexed(stamp, experience, Counter(words(experience.experience_text)))


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
        if extra.get("undone_by") == "User":
            lines.append("[the user undid this step's code after it ran]")
    if round.undone:
        lines.append("[the user undid this Round]")
    return "\n".join(lines)


def steering(round: Round) -> list[str]:
    """How the user steered the Round, one phrase each (none: it ran as the model wrote it)."""
    found: list[str] = []
    for post in round.post_list:
        extra = post.extra if isinstance(post.extra, dict) else {}
        if extra.get("edited_by") == "User":
            found.append("edited the plan" if post.send_from == "Planner" else "edited code")
        if extra.get("skipped_by") == "User":
            found.append("skipped a step")
        if extra.get("refused_edit"):
            found.append("made an edit verification refused")
        if extra.get("undone_by") == "User":
            found.append("undid a step's code")
    if round.undone:
        found.append(UNDID)
    return list(dict.fromkeys(found))


def remember_offer(round: Round, number: int) -> str | None:
    """The line a steered Round ends with: nothing is remembered without the user's act."""
    how = steering(round)
    if not how:
        return None
    steered = [phrase for phrase in how if phrase != UNDID]
    if not steered:
        said = f"You undid Round {number}"
    else:
        said = f"You {', '.join(steered)} in Round {number}" + (f" and {UNDID}" if UNDID in how else "")
    return f"{said}. `%taskweaver remember {number}` keeps what you taught as experience for later requests."


__all__ = [
    "SUMMARY_PROMPT",
    "Experience",
    "ExperienceStore",
    "remember_offer",
    "round_transcript",
    "steering",
]
