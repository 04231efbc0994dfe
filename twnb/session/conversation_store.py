"""Loading and saving conversation files: the one way, for a Session and for a notebook without one.

Saving writes the conversation redacted (a Session's is already, post by post), with artifact paths
inside the file's folder made relative to it (so the folder can be moved), and copies the recording
cassette beside it (`x.cassette.yaml`).
Loading reads a conversation YAML, an autosave folder or one autosaved Round file (then the whole
autosaved conversation), resolves relative artifact paths against the file's folder (in memory they are
absolute, as the kernel reports them), and checks that what it read can be saved again. A caller
replaces its own conversation only with what `load_conversation_file` returned: a file that fails
leaves the caller's conversation as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from twnb.base import is_plain_id
from twnb.memory import (
    Conversation,
    Location,
    conversation_dict,
    find_non_plain,
    load_yaml_file,
    save_yaml_file,
)
from twnb.session.autosave import AUTOSAVE_KEY, load_autosaved_conversation, rounds_folder


def save_conversation_file(
    conversation: Conversation,
    path: str | os.PathLike[str],
    *,
    redact: Callable[[Any], Any] | None = None,
    cassette: Path | None = None,
) -> Path:
    """Write `conversation` to `path` as TaskWeaver YAML (atomically: a failure leaves the old file).
    `redact` for a conversation that is not redacted yet (a Session's posts are, when committed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = conversation_dict(conversation, relative_to=path.parent)
    save_yaml_file(path, redact(data) if redact is not None else data)
    if cassette is not None and Path(cassette).is_file():
        from twnb.llm import cassette_path_for  # lazy: twnb.llm (~50 modules, ~100 ms), for a cassette

        shutil.copyfile(cassette, cassette_path_for(path))
    return path


def saved_round_count(path: str | os.PathLike[str]) -> int | None:
    """How many Rounds the conversation file at `path` holds; None when there is no such file or it is
    not a conversation (nothing to lose by writing there)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = load_yaml_file(path)
    except (OSError, ValueError):
        return None
    rounds = data.get("rounds") if isinstance(data, dict) and AUTOSAVE_KEY not in data else None
    return len(rounds) if isinstance(rounds, list) else None


def load_conversation_file(path: str | os.PathLike[str]) -> Conversation:
    """The conversation in `path`, ids kept, read whole and checked; a bad file is a ValueError naming
    the file (and round, post, key or line), a missing one FileNotFoundError."""
    return load_conversation_and_session(path)[0]


def load_conversation_and_session(path: str | os.PathLike[str]) -> tuple[Conversation, str | None]:
    """`load_conversation_file`, and the session the file says the conversation was autosaved by (an
    autosave folder or Round file names it; a saved conversation does not: None)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}")
    if path.is_dir():
        first = next(iter(sorted(rounds_folder(path).glob("*.yaml"))), None)
        session_id = _autosave_session(load_yaml_file(first), first) if first is not None else None
        return checked_conversation(load_autosaved_conversation(path), path), session_id
    data = load_yaml_file(path)
    if isinstance(data, dict) and AUTOSAVE_KEY in data:
        session_id = _autosave_session(data, path)
        return checked_conversation(load_autosaved_conversation(path), path), session_id
    conversation = Conversation.from_dict(data, keep_ids=True, source=str(path))
    absolute_artifact_paths(conversation, path.parent)
    return checked_conversation(conversation, path), None


def _autosave_session(data: Any, path: Path) -> str | None:
    info = data.get(AUTOSAVE_KEY) if isinstance(data, dict) else None
    session_id = info.get("session_id") if isinstance(info, dict) else None
    return checked_session_id(session_id if isinstance(session_id, str) and session_id else None, path)


_NOT_PLAIN = (
    "is not a plain id (letters, digits, - and _): it would name a folder or file where later "
    "saves go; refused, nothing was loaded"
)


def checked_session_id(session_id: str | None, path: str | os.PathLike[str]) -> str | None:
    """`session_id` read from the file at `path`, if it is a plain id (it names the autosave folder
    later Rounds are written to: `../../x` or an absolute path would send them outside); ValueError
    naming the file otherwise."""
    if session_id is not None and not is_plain_id(session_id):
        raise Location(file=str(path)).error(f"session id {session_id!r:.80} {_NOT_PLAIN}")
    return session_id


def checked_conversation(conversation: Conversation, path: Path) -> Conversation:
    """Refuse now what the next save would: after the conversation replaced the caller's, it is too late.
    Its ids must be plain: a Round's names its autosave file and undo's folder, a post's undo's copies."""
    for what, value in _ids(conversation):
        if not is_plain_id(value):
            raise Location(file=str(path)).error(f"{what} id {value!r:.80} {_NOT_PLAIN}")
    data = conversation_dict(conversation)  # raises, located, for an attachment no one could load
    bad = find_non_plain(data)
    if bad is not None:
        raise Location(file=str(path)).error(f"{bad} is not plain data and could not be saved again")
    return conversation


def _ids(conversation: Conversation) -> Iterator[tuple[str, object]]:
    yield "conversation", conversation.id
    for round in conversation.rounds:
        yield "Round", round.id
        for post in round.post_list:
            yield "post", post.id


def absolute_artifact_paths(conversation: Conversation, folder: Path) -> None:
    for round in conversation.rounds:
        for post in round.post_list:
            for attachment in post.attachment_list:
                if attachment.type.value == "artifact_paths" and isinstance(attachment.content, list):
                    attachment.content = [str(folder.resolve() / p) for p in attachment.content]
