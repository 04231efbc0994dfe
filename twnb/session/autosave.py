"""Autosave: each Round in its own file, rewritten atomically after every post.

`<session_dir>/<session_id>/rounds/<round_id>.yaml` holds one Round, so saving after a post costs the
same in Round 100 as in Round 1. Each file is a valid TaskWeaver conversation YAML with that one Round
(TaskWeaver, and `Conversation.from_yaml`, read it as is) plus a `twnb_autosave` key giving the session
id and the Round's position, from which a whole conversation is assembled again. Each file also carries
the conversation's own top-level keys as they were when it was written (the plan waiting for the next
Round, say); the assembled conversation takes those of the last Round's file. The conversation's
`plugins:` section, which changes only when the session's plugins do, is written beside the folder
(`<session_id>/plugins.yaml`) when it changes, rather than into every Round's file after every post.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twnb.memory import Conversation, Location, PluginEntry, Round, load_yaml_file, save_yaml_file

AUTOSAVE_KEY = "twnb_autosave"


def round_file_data(
    round: Round,
    *,
    conversation: Conversation,
    session_id: str,
    index: int,
    redact: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """The autosave file's data for `round` of `conversation`; `redact` as for `save_round`."""
    data = round.to_dict()
    kept = {key: value for key, value in conversation.unknown_keys.items() if key != AUTOSAVE_KEY}
    return {
        "id": conversation.id,
        "plugins": [],
        "roles": sorted({name for p in round.post_list for name in (p.send_from, p.send_to)}),
        "enabled": True,
        "rounds": [redact(data) if redact is not None else data],
        **(redact(kept) if redact is not None else kept),
        AUTOSAVE_KEY: {"session_id": session_id, "index": index},
    }


def write_round(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['rounds'][0]['id']}.yaml"
    save_yaml_file(path, data)
    return path


def save_round(
    folder: Path,
    round: Round,
    *,
    conversation: Conversation,
    session_id: str,
    index: int,
    redact: Callable[[Any], Any] | None = None,
) -> Path:
    """Write the autosave file of `conversation`'s Round `round` into `folder` (raises OSError when the
    disk refuses); `redact` for a Round that is not redacted yet (a Session's are, post by post, when
    committed)."""
    data = round_file_data(
        round, conversation=conversation, session_id=session_id, index=index, redact=redact
    )
    return write_round(folder, data)


PLUGINS_FILE = "plugins.yaml"


def save_plugins(rounds_folder: Path, conversation: Conversation) -> Path:
    """Write the conversation's plugins (TaskWeaver's plugin-YAML schema) beside `rounds_folder`."""
    path = rounds_folder.parent / PLUGINS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    save_yaml_file(path, {"plugins": [plugin.to_dict() for plugin in conversation.plugins]})
    return path


def _saved_plugins(rounds_folder: Path) -> list[PluginEntry]:
    path = rounds_folder.parent / PLUGINS_FILE
    if not path.is_file():
        return []
    data = load_yaml_file(path)
    items = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a mapping with a list of plugins under 'plugins'")
    where = Location(str(path))
    return [PluginEntry.from_yaml_content(item, where, index) for index, item in enumerate(items)]


def is_autosave_file(path: str | os.PathLike[str]) -> bool:
    try:
        data = load_yaml_file(path)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and AUTOSAVE_KEY in data


def rounds_folder(path: str | os.PathLike[str]) -> Path:
    """The folder of autosaved Round files `path` names: the `rounds` folder of a session's own
    folder (`<session_dir>/<id>`, which may hold its cassette.yaml too), else itself
    (`<session_dir>/<id>/rounds`, or a Round file's folder).
    A folder holding several sessions' folders, or none, is a FileNotFoundError saying what to give."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if any((folder / "rounds").glob("*.yaml")):  # before its own files: it may hold the cassette.yaml
        return folder / "rounds"
    if any(folder.glob("*.yaml")):
        return folder
    sessions = sorted(
        (p.parent for p in folder.glob("*/rounds") if any(p.glob("*.yaml"))),
        key=lambda p: (p / "rounds").stat().st_mtime,
    )
    if sessions:
        plural = "s" if len(sessions) != 1 else ""
        raise FileNotFoundError(
            f"{folder} holds the autosaves of {len(sessions)} session{plural}, not one conversation: "
            f"give one session's folder, e.g. {sessions[-1]} (the newest)"
        )
    raise FileNotFoundError(
        f"{folder} holds no autosaved Rounds (give a session's folder, <session_dir>/<id>, or its rounds "
        "folder)"
    )


def load_autosaved_conversation(path: str | os.PathLike[str]) -> Conversation:
    """The whole conversation from an autosave folder (`<id>/rounds`, or the session's `<id>`), or
    from any one Round file in it: every Round in the folder, in the order they were made, ids kept,
    and the top-level keys of the last Round's file (a session rewrites that file when they change
    between Rounds)."""
    folder = rounds_folder(path)
    files = sorted(folder.glob("*.yaml"))
    entries: list[tuple[int, str, Conversation]] = []
    for file in files:
        conversation = Conversation.from_yaml(file)
        index = _round_index(conversation.unknown_keys.get(AUTOSAVE_KEY), file)
        started = ""
        if conversation.rounds:
            timing = conversation.rounds[0].extra.get("timing")
            started = str((timing if isinstance(timing, dict) else {}).get("started_at") or "")
        entries.append((index, started, conversation))
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    first = entries[0][2]
    result = Conversation(id=first.id, rounds=[], plugins=_saved_plugins(folder), roles=[], enabled=True)
    for _, _, conversation in entries:
        result.rounds.extend(conversation.rounds)
    result.roles = result.all_roles()
    last = entries[-1][2]
    result.unknown_keys = {key: value for key, value in last.unknown_keys.items() if key != AUTOSAVE_KEY}
    return result


def _round_index(info: object, file: Path) -> int:
    """The Round's position from the file's `twnb_autosave` mapping, checked (a hand-edited or hostile
    file must fail with its name, not with an AttributeError)."""
    if info is None:
        return 0
    index = info.get("index", 0) if isinstance(info, dict) else None
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise Location(file=str(file)).error(
            f"key '{AUTOSAVE_KEY}' must be a mapping with 'session_id' (text) and 'index' (a whole number "
            f"from 0), got {info!r:.80}; restore the file from the autosave twnb wrote, or delete it",
            key=AUTOSAVE_KEY,
        )
    return index
