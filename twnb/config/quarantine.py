"""The quarantine of a notebook folder's trust base: nothing a confined kernel could write becomes
trusted by a later session without the user's act from outside (docs/architecture.md, "Residual gaps").

A confined kernel's mounts keep `twnb.yaml`, `AGENTS.md` and `TWNB.md` read-only only until someone
saves one from outside by rename (the mount stays on the old file), and the kernel of the
`twnb-confined` kernelspec may write the experience folder, and a plugin folder that did not exist at
its start. So the launcher, outside the confinement and before the kernel runs any code, records the
SHA-256 of each of those files (absent ones as absent) in the user's state folder
(`$XDG_STATE_HOME/twnb/quarantine/KEY/`, default `~/.local/state/...`, KEY from the notebook folder's
real path), which the kernel may read but not write. When the kernel ends, its warden (outside) enters
each file that changed, appeared or vanished as quarantined; a start with no clean end (the warden
killed, the machine stopped) is finished by the next reader outside (the next launcher, an unconfined
session, `twnb trust`). While a confined kernel runs in the folder, a file that differs from its
baseline is refused too. The loaders ask `FolderQuarantine.refusal` (through `FileTrust.allows` for
settings and plugins); `twnb trust accept FILE` makes a file's current content the new baseline.
The same end moves aside what programs that never ask twnb would obey (a `.git`, a module shadowing
an installed one) and quarantines sub-folders' trust-base files in their own records (planted.py);
a moved entry carries `moved_to` and leaves quarantine only by `accept`, which moves it back.

The record folder holds `record.json` (written whole: a temporary file renamed over it), a `lock`
(flock, taken by every writer) and `copies/SHA256`: the baselines of text files up to `MAX_COPY`,
for the diff `twnb trust accept` shows.

Imported by the confined kernel's launcher at every start: the standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

try:  # the built-in module (~1.5 ms) rather than hashlib, which loads OpenSSL (~4 ms) at every start
    from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - Python 3.12 renamed it; hashlib is always there
    from hashlib import sha256

# The kernel's environment names its own notebook folder's record here (its HOME is private, so the
# state folder could not be found from it); the folder's key must match, or the name is ignored.
RECORD_DIR_ENV = "TWNB_QUARANTINE_DIR"
# In the notebook's folder: what every session loads from there (settings and rules).
FOLDER_FILES = ("twnb.yaml", "AGENTS.md", "TWNB.md")
RECORD = "record.json"
LOCK = "lock"
COPIES = "copies"
MAX_COPY = 256 * 1024  # a baseline kept for the diff: text files up to this size
MAX_FILES = 5_000  # per watched folder: a folder larger than this is cut (the rest unwatched, said)
LOCK_WAIT_S = 10.0
_MISSING = object()

Found = tuple[str, int] | None  # (sha256, size); None: absent, empty or not a regular file


class QuarantineError(OSError):
    """The record cannot be read or written; the message says where and why."""


def state_home(environ: Mapping[str, str]) -> Path:
    xdg = environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".local" / "state"


def quarantine_root(environ: Mapping[str, str]) -> Path:
    return state_home(environ) / "twnb" / "quarantine"


def folder_key(folder: str | os.PathLike[str]) -> str:
    return str(sha256(os.path.realpath(folder).encode("utf-8", "surrogateescape")).hexdigest())[:32]


def record_dir(folder: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    key = folder_key(folder)
    given = env.get(RECORD_DIR_ENV, "")
    if given and os.path.basename(given) == key:
        return Path(given)
    return quarantine_root(env) / key


def read_found(path: str | os.PathLike[str]) -> tuple[Found, bytes | None]:
    """The file's digest and size, and its content when a baseline copy would keep it."""
    try:
        info = os.stat(path)
    except OSError:
        return None, None
    if not _is_regular(info.st_mode) or info.st_size == 0:
        return None, None  # an empty file loads nothing: the same as none (the launcher's stand-ins)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None, None
    try:
        digest = sha256()
        kept: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if size <= MAX_COPY:
                kept.append(chunk)
    finally:
        os.close(fd)
    if size == 0:
        return None, None
    content = b"".join(kept) if size <= MAX_COPY else None
    return (digest.hexdigest(), size), content


def _is_regular(mode: int) -> bool:
    return (mode & 0o170000) == 0o100000


def is_text(content: bytes | None) -> bool:
    if content is None or b"\0" in content[:8192]:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _proc_start(pid: int) -> int | None:
    """The start time of a live (not zombie) process, from /proc/PID/stat (field 22); None: gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
        fields = data[data.rindex(b")") + 2 :].split()
    except (OSError, ValueError):
        return None
    if not fields or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[19])


def process_id(pid: int) -> list[int] | None:
    """[pid, start time]: a pid the system gives again later is not mistaken for this process."""
    start = _proc_start(pid)
    return None if start is None else [pid, start]


def _is_alive(ident: object) -> bool:
    if not isinstance(ident, list) or len(ident) != 2:
        return False
    return _proc_start(int(ident[0])) == int(ident[1])


def user_namespace(pid: int | str = "self") -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/user")
    except OSError:
        return None


def _namespace_has_processes(namespace: object) -> bool:
    """Whether a live process is still in the kernel's user namespace (children the kernel started
    may outlive it: they are confined as it was, and can write what it could)."""
    if not isinstance(namespace, str) or not namespace:
        return False
    from twnb.config.namespace_processes import namespace_has_members  # lazy: select, at an end only

    return namespace_has_members(namespace)


def session_alive(session: Mapping[str, object]) -> bool:
    return (
        _is_alive(session.get("warden"))
        or _is_alive(session.get("kernel"))
        or _namespace_has_processes(session.get("userns"))
    )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class _Lock:
    """The record's lock (flock), waited for at most LOCK_WAIT_S: a confined kernel can read the
    lock file and hold a lock on it, so a writer gives up rather than hang (the record then keeps its
    running session: readers go on refusing what changed, never trusting it)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK

    def __enter__(self) -> _Lock:
        import fcntl  # lazy: fcntl (~0.3 ms), for writers only: readers never lock

        deadline = time.monotonic() + LOCK_WAIT_S
        self._fd = self._open()
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self._fd)
                    raise QuarantineError(f"the quarantine record {self.path.parent} stays locked") from None
                time.sleep(0.02)
                continue
            if self._still_there():
                return self
            # the record was pruned (gone_records.py) while this waited: the lock of a new one
            os.close(self._fd)
            self._fd = self._open()

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:  # pruned since it was made: made again
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)

    def _still_there(self) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(self._fd).st_ino
        except OSError:
            return False

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)  # releases the lock


def load(folder: Path) -> dict[str, object] | None:
    try:
        with open(folder / RECORD, encoding="utf-8") as file:
            data = json.load(file)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise QuarantineError(f"the quarantine record {folder / RECORD} cannot be read: {error}") from error
    return data if isinstance(data, dict) else None


def save(folder: Path, record: Mapping[str, object], *, durable: bool = False) -> None:
    """The record written whole (a temporary file renamed over it). `durable`: on the disk before the
    rename, for the one write a machine crash must not lose (a session's start: without it a kernel
    that wrote before the crash would leave no session to finish); a later write lost by a crash is
    done again by the next reader (`_finish_ended`) or the user (`accept`)."""
    temporary = folder / f".{RECORD}.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(record, file, sort_keys=True, indent=1)
        if durable:
            file.flush()
            os.fsync(file.fileno())
    os.replace(temporary, folder / RECORD)


def _dict(record: Mapping[str, object], key: str) -> dict[str, object]:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def _sessions(record: Mapping[str, object]) -> list[dict[str, object]]:
    value = record.get("sessions")
    return [s for s in value if isinstance(s, dict)] if isinstance(value, list) else []


def name_in(folder: str, path: str | os.PathLike[str]) -> str:
    """A file's name in the record: relative to the notebook's folder inside it, else absolute. The
    folders on its way are resolved, never the file itself: an `AGENTS.md` that is a symlink is still
    `AGENTS.md` (resolved, a planted link would be asked about under its target's name)."""
    absolute = os.path.abspath(path)
    real = os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))
    relative = os.path.relpath(real, folder)
    return real if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def watched_now(folder: str, watch: Mapping[str, object]) -> dict[str, tuple[Found, bytes | None]]:
    """Every watched file as it is now: the named files and each file under the watched folders."""
    found: dict[str, tuple[Found, bytes | None]] = {}
    files = watch.get("files")
    for name in files if isinstance(files, list) else []:
        found[str(name)] = read_found(os.path.join(folder, str(name)))
    folders = watch.get("folders")
    for place in folders if isinstance(folders, list) else []:
        root = os.path.join(folder, str(place))
        count = 0
        for parent, dirs, names in os.walk(root):
            dirs.sort()
            for each in sorted(names):
                count += 1
                if count > MAX_FILES:
                    break
                path = os.path.join(parent, each)
                found[name_in(folder, path)] = read_found(path)
    return found


def _is_watched(watch: Mapping[str, object], name: str) -> bool:
    files = watch.get("files")
    if isinstance(files, list) and name in files:
        return True
    folders = watch.get("folders")
    return isinstance(folders, list) and any(
        name.startswith(str(place).rstrip("/") + "/") for place in folders
    )


def _as_found(value: object) -> Found:
    if isinstance(value, list) and len(value) == 2:
        return str(value[0]), int(value[1])
    return None


def _mark(record: dict[str, object], now: Mapping[str, tuple[Found, bytes | None]]) -> None:
    """Enter each file that differs from its baseline as quarantined, with what was found; a
    quarantined file back at its baseline is trusted again (it is what the user trusted)."""
    baseline = _dict(record, "baseline")
    quarantined = _dict(record, "quarantined")
    for name in sorted({*baseline, *now, *quarantined}):
        entry = quarantined.get(name)
        if isinstance(entry, dict) and entry.get("moved_to"):
            continue  # moved aside (planted.py): back only by `twnb trust accept`
        if name in now:
            current = now[name][0]
        elif name in baseline or name in quarantined:
            current = read_found(os.path.join(str(record["folder"]), name))[0]
        else:
            continue
        trusted = _as_found(baseline.get(name))
        if current == trusted:
            quarantined.pop(name, None)
            continue
        before = quarantined.get(name)
        since = before.get("since") if isinstance(before, dict) else None
        quarantined[name] = {"found": None if current is None else list(current), "since": since or _now()}
    record["quarantined"] = quarantined


def _keep_copy(folder: Path, found: Found, content: bytes | None) -> None:
    if found is None or not is_text(content) or content is None:
        return
    copy = folder / COPIES / found[0]
    if copy.exists():
        return
    copy.parent.mkdir(mode=0o700, exist_ok=True)
    temporary = copy.with_name(f".{found[0]}.{os.getpid()}")
    temporary.write_bytes(content)
    os.replace(temporary, copy)


def _prune_copies(folder: Path, baseline: Mapping[str, object]) -> None:
    kept = {found[0] for value in baseline.values() if (found := _as_found(value)) is not None}
    try:
        names = os.listdir(folder / COPIES)
    except OSError:
        return
    for name in names:
        if name not in kept:
            with contextlib.suppress(OSError):
                os.unlink(folder / COPIES / name)


def _set_baseline(
    folder: Path, record: dict[str, object], now: Mapping[str, tuple[Found, bytes | None]]
) -> None:
    """What is there now becomes the baseline, but for quarantined files: no confined kernel runs, so
    every change since the last end was made outside one."""
    quarantined = _dict(record, "quarantined")
    old = _dict(record, "baseline")
    baseline = {name: value for name, value in old.items() if name in quarantined}
    for name, (found, content) in now.items():
        if name in quarantined:
            continue
        if found is not None:
            baseline[name] = list(found)
            _keep_copy(folder, found, content)
    record["baseline"] = baseline
    if baseline != old:
        _prune_copies(folder, baseline)


def _finish_ended(record: dict[str, object], keep: int | None = None) -> bool:
    """Compare the files with their baselines for every session no process is left of (a start with
    no clean end) and drop those sessions; True when one was."""
    sessions = _sessions(record)
    ended = [s for s in sessions if not session_alive(s) and _kernel_pid(s) != keep]
    if not ended:
        return False
    _end_sessions(record, ended)
    return True


def _end_sessions(record: dict[str, object], ended: list[dict[str, object]], leftovers: int = 0) -> None:
    """The end of `ended` (sessions of `record` no process is left of): each file compared with its
    baseline, what their kernels planted settled, the sessions dropped and their end noted
    (`leftovers`: the processes the warden ended, kernel_end.py says them)."""
    before = dict(_dict(record, "quarantined"))
    _mark(record, watched_now(str(record["folder"]), _dict(record, "watch")))
    held = [entry for session in ended for entry in _settle_planted(record, session)]
    record["sessions"] = [s for s in _sessions(record) if s not in ended]
    _note_ended(record, ended, before, held, leftovers)
    _HELD_ELSEWHERE.extend(held)


MAX_ENDED = 20  # the ends kept in the record, for the starters that report them (kernel_end.py)


def _note_ended(
    record: dict[str, object],
    ended: Iterable[Mapping[str, object]],
    before: Mapping[str, object],
    held: Iterable[tuple[str, str]],
    leftovers: int = 0,
) -> None:
    """What the end of `ended` quarantined or moved aside (the entries new or changed since `before`),
    the sub-folders' trust-base files it handed to their records and the processes the kernel left
    running that its warden ended: the starter of a batch command says them once its kernel ended
    (kernel_end.py)."""
    after = _dict(record, "quarantined")
    names = sorted(name for name, entry in after.items() if before.get(name) != entry)
    elsewhere = [[holder, path] for holder, path in held]
    kept = record.get("ended")
    ends = [e for e in kept if isinstance(e, dict)] if isinstance(kept, list) else []
    for session in ended:
        end: dict[str, object] = {
            "kernel": session.get("kernel"),
            "quarantined": names,
            "elsewhere": elsewhere,
        }
        if leftovers:
            end["leftovers"] = leftovers
        ends.append(end)
    record["ended"] = ends[-MAX_ENDED:]


# Trust-base files found in sub-folders, for their own folders' records: entered once the lock of the
# record that found them is released (two records' locks are never held at once).
_HELD_ELSEWHERE: list[tuple[str, str]] = []


def _settle_planted(record: dict[str, object], session: Mapping[str, object]) -> list[tuple[str, str]]:
    """What the session's kernel left that a later program obeys (planted.py): `.git`, shadowing
    modules, the files tools obey and the home folder's start-up files it made moved aside and
    entered as quarantined here; the trust-base files of sub-folders returned as (folder, path) for
    their folders' records."""
    writable = session.get("writable")
    since = session.get("since_ns")
    if not isinstance(writable, list) or not isinstance(since, int):
        return []
    from twnb.config import planted  # lazy: walks the folders, at a kernel's end only

    fixed = session.get("fixed")
    absent = session.get("absent")
    folder = str(record["folder"])
    found = planted.find_planted(
        [str(place) for place in writable],
        notebook_dir=folder,
        since_ns=since,
        fixed=[str(place) for place in fixed] if isinstance(fixed, list) else [],
        absent=[str(place) for place in absent] if isinstance(absent, list) else [],
        settings_at_start=_dict(session, "tool_settings"),
        installed=planted.installed_modules([str(place) for place in writable]),
    )
    if found.cut:
        print(
            f"twnb-confined: the look for .git folders, shadowing modules and trust-base files stopped "
            f"after {planted.MAX_ENTRIES} entries of {', '.join(map(str, writable))}: the rest was not "
            "looked at",
            file=sys.stderr,
        )
    planted.remove_caches(found.caches)
    quarantined = _dict(record, "quarantined")
    elsewhere: list[tuple[str, str]] = []
    for each in found.planted:
        if each.holder is not None:
            elsewhere.append((each.holder, each.path))
            continue
        try:
            moved = planted.move_aside(each.path)
        except OSError as error:
            said = f"twnb-confined: {each.path} ({each.what}) could not be moved aside: {error}"
            print(said, file=sys.stderr)
            continue
        quarantined[name_in(folder, each.path)] = {
            "found": None,
            "since": _now(),
            "moved_to": name_in(folder, moved),
            "what": each.what,
        }
    record["quarantined"] = quarantined
    return elsewhere


def _enter_elsewhere(environ: Mapping[str, str]) -> None:
    """Each trust-base file a kernel left in a sub-folder, quarantined in that folder's record."""
    while _HELD_ELSEWHERE:
        holder, path = _HELD_ELSEWHERE.pop()
        place = record_dir(holder, environ)
        try:
            place.mkdir(mode=0o700, parents=True, exist_ok=True)
            with _Lock(place):
                new: dict[str, object] = {
                    "folder": os.path.realpath(holder),
                    "baseline": {},
                    "quarantined": {},
                }
                record = load(place) or new
                record.setdefault("device", os.stat(holder).st_dev)  # see begin
                record.setdefault("watch", {"files": list(FOLDER_FILES), "folders": []})
                name = name_in(os.path.realpath(holder), path)
                found = read_found(path)[0]
                if found is not None and _as_found(_dict(record, "baseline").get(name)) != found:
                    quarantined = _dict(record, "quarantined")
                    quarantined[name] = {"found": list(found), "since": _now()}
                    record["quarantined"] = quarantined
                    save(place, record)
        except OSError as error:
            print(f"twnb-confined: {path} could not be quarantined in {place}: {error}", file=sys.stderr)


def _kernel_pid(session: Mapping[str, object]) -> int | None:
    kernel = session.get("kernel")
    return int(kernel[0]) if isinstance(kernel, list) and kernel else None


def _merged_watch(
    old: Mapping[str, object], files: Iterable[str], folders: Iterable[str]
) -> dict[str, object]:
    def union(key: str, more: Iterable[str]) -> list[str]:
        before = old.get(key)
        return sorted({*(before if isinstance(before, list) else []), *more})

    return {"files": union("files", files), "folders": union("folders", folders)}


def begin(
    folder: Path,
    notebook_dir: str,
    *,
    files: Iterable[str],
    folders: Iterable[str],
    warden: int,
    kernel: int,
    writable: Iterable[str] = (),
    fixed: Iterable[str] = (),
    absent: Iterable[str] = (),
    tool_settings: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """The launcher, before the kernel runs any code: finish the sessions that ended unclean, take the
    files as they are now as the baseline (unless another confined kernel runs in the folder: then the
    baselines stay), and enter this kernel's session: with the folders the kernel may write and the
    places mounted read-only in them, where its end looks for what it left (planted.py), the home
    folder's trust-base places absent then inside them (what appears there is moved aside), the text
    of the `pyproject.toml` and `setup.cfg` at their tops (whose code-loading settings the end compares:
    tool_settings.py), and the time it started. Raises QuarantineError (OSError)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _Lock(folder):
            record = load(folder) or {"folder": notebook_dir, "baseline": {}, "quarantined": {}}
            record["folder"] = notebook_dir
            # the file system it is on: a record whose folder is not there but whose file system is
            # (a deleted or renamed folder, not an unmounted disk) is pruned (gone_records.py)
            record["device"] = os.stat(notebook_dir).st_dev
            record["watch"] = _merged_watch(_dict(record, "watch"), files, folders)
            _finish_ended(record)
            if not _sessions(record):
                _set_baseline(folder, record, watched_now(notebook_dir, _dict(record, "watch")))
            session = {
                "warden": process_id(warden) or [warden, 0],
                "kernel": process_id(kernel) or [kernel, 0],
                "userns": None,
                "started": _now(),
                "since_ns": time.time_ns(),
                "writable": sorted(writable),
                "fixed": sorted(fixed),
                "absent": sorted(absent),
                "tool_settings": dict(tool_settings or {}),
            }
            record["sessions"] = [*_sessions(record), session]
            save(folder, record, durable=True)
    except QuarantineError:
        _HELD_ELSEWHERE.clear()
        raise
    except OSError as error:
        _HELD_ELSEWHERE.clear()
        raise QuarantineError(f"the quarantine record in {folder} cannot be written: {error}") from error
    _enter_elsewhere(os.environ if environ is None else environ)  # what a session ended unclean left


def enter_namespace(folder: Path, kernel: int, namespace: str | None) -> None:
    """The launcher, in its new user namespace (before its mounts): the namespace its kernel and
    every process the kernel starts live in, by which an ended kernel's lingering children are found."""
    with _Lock(folder):
        record = load(folder) or {}
        for session in _sessions(record):
            if _kernel_pid(session) == kernel:
                session["userns"] = namespace
        save(folder, record)


def namespace_of(folder: Path, kernel: int) -> str | None:
    """The user namespace the kernel's session entered (`user:[N]`), None when it entered none (a
    start refused before the namespace) or the record cannot be read."""
    try:
        record = load(folder) or {}
    except QuarantineError:
        return None
    for session in _sessions(record):
        if _kernel_pid(session) == kernel:
            namespace = session.get("userns")
            return namespace if isinstance(namespace, str) and namespace else None
    return None


def wait_for_end(folder: Path, kernel: int, poll_s: float = 0.2) -> None:
    """The warden: until no process of the kernel's session is left (one it could not end yet: a
    process in uninterruptible sleep dies of its SIGKILL only when the sleep ends)."""
    try:
        record = load(folder) or {}
    except QuarantineError:
        return
    for session in _sessions(record):
        if _kernel_pid(session) == kernel:
            while _is_alive(session.get("kernel")) or _namespace_has_processes(session.get("userns")):
                time.sleep(poll_s)


def end(folder: Path, kernel: int, environ: Mapping[str, str] | None = None, *, leftovers: int = 0) -> None:
    """The warden, once the kernel and every process it started are gone: quarantine what changed,
    and drop the session (`leftovers`: how many processes the kernel left running it ended)."""
    with _Lock(folder):
        record = load(folder)
        if record is None:
            return
        sessions = _sessions(record)
        mine = [s for s in sessions if _kernel_pid(s) == kernel]
        if not mine:
            return
        _end_sessions(record, mine, leftovers)
        save(folder, record)
    _enter_elsewhere(os.environ if environ is None else environ)


class LaunchRecord:
    """The launcher's and its warden's side of one confined kernel's session in the record
    (`begin`, `enter_namespace`, `namespace_of`, `wait_for_end`, `end`)."""

    def __init__(
        self, notebook_dir: str | os.PathLike[str], environ: Mapping[str, str] | None = None
    ) -> None:
        self.notebook_dir = os.path.realpath(notebook_dir)
        self.folder = record_dir(self.notebook_dir, environ)
        self._environ = environ

    def kernel_environ(self) -> dict[str, str]:
        """What the kernel's environment carries: where its folder's record is (read-only there)."""
        return {RECORD_DIR_ENV: str(self.folder)}

    def begin(
        self,
        *,
        files: Iterable[str],
        folders: Iterable[str],
        warden: int,
        kernel: int,
        writable: Iterable[str] = (),
        fixed: Iterable[str] = (),
        absent: Iterable[str] = (),
        tool_settings: Mapping[str, object] | None = None,
    ) -> None:
        begin(
            self.folder,
            self.notebook_dir,
            files=files,
            folders=folders,
            warden=warden,
            kernel=kernel,
            writable=writable,
            fixed=fixed,
            absent=absent,
            tool_settings=tool_settings,
            environ=self._environ,
        )

    def enter_namespace(self, kernel: int) -> None:
        enter_namespace(self.folder, kernel, user_namespace())

    def namespace_of(self, kernel: int) -> str | None:
        return namespace_of(self.folder, kernel)

    def wait_for_end(self, kernel: int) -> None:
        wait_for_end(self.folder, kernel)

    def end(self, kernel: int, *, leftovers: int = 0) -> None:
        end(self.folder, kernel, self._environ, leftovers=leftovers)


class FolderQuarantine:
    """One notebook folder's quarantine as a reader sees it: whether a file may be loaded
    (`refusal`), what is quarantined, and accepting a file (outside a confined kernel)."""

    def __init__(
        self, notebook_dir: str | os.PathLike[str], environ: Mapping[str, str] | None = None
    ) -> None:
        self.folder = os.path.realpath(notebook_dir)
        self.record_dir = record_dir(self.folder, environ)
        self._environ = os.environ if environ is None else environ
        self._stamp: object = _MISSING
        self._record: dict[str, object] | None = None

    def record(self) -> dict[str, object] | None:
        """The record as it is now, a session that ended unclean finished first where this process
        may write it (outside a confined kernel); read again only when the file changed."""
        try:
            info = os.stat(self.record_dir / RECORD)
            stamp: object = (info.st_ino, info.st_size, info.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                self._record = None if stamp is None else load(self.record_dir)
            except QuarantineError:
                self._record = {"folder": self.folder, "unreadable": True}
        record = self._record
        if record is not None and _sessions(record) and not all(session_alive(s) for s in _sessions(record)):
            self.finish_ended()
            return self._record
        return record

    def finish_ended(self) -> None:
        try:
            with _Lock(self.record_dir):
                record = load(self.record_dir)
                if record is not None and _finish_ended(record):
                    save(self.record_dir, record)
        except OSError:
            _HELD_ELSEWHERE.clear()
            return  # read-only here (a confined kernel): the sessions count as running
        _enter_elsewhere(self._environ)
        self._stamp = _MISSING
        self._record = None
        self._reload()

    def _reload(self) -> None:
        try:
            info = os.stat(self.record_dir / RECORD)
            self._stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
            self._record = load(self.record_dir)
        except OSError:
            self._stamp, self._record = None, None

    def refusal(self, path: str | os.PathLike[str], digest: str | None = None) -> str | None:
        """Why `path` may not be loaded (the words after its name), None when it may."""
        record = self.record()
        if record is None:
            return None
        name = name_in(self.folder, path)
        if record.get("unreadable"):  # what it would say of the folder's files is unknown: none is trusted
            if os.path.isabs(name):
                return None
            return f"cannot be checked: the quarantine record {self.record_dir} cannot be read"
        if name in _dict(record, "quarantined"):
            return "was changed while a confined kernel could write it"
        if not _sessions(record) or not _is_watched(_dict(record, "watch"), name):
            return None
        if digest is None:
            found = read_found(path)[0]
            digest = None if found is None else found[0]
        elif _empty_digest(digest):
            digest = None
        trusted = _as_found(_dict(record, "baseline").get(name))
        if digest != (None if trusted is None else trusted[0]):
            return "was changed while a confined kernel that can write it runs in this folder"
        return None

    def name_of(self, path: str | os.PathLike[str]) -> str:
        """A file's name in the record (relative to the notebook's folder when inside it)."""
        return name_in(self.folder, os.path.join(self.folder, path))

    def current(self, name: str) -> tuple[Found, bytes | None]:
        return read_found(os.path.join(self.folder, name))

    def diff(self, name: str) -> list[str] | None:
        """The file's change against its trusted content as a unified diff (None: not text both
        sides, or the trusted content was not kept)."""
        import difflib  # lazy: difflib (~8 ms), only `twnb trust accept` shows a change

        trusted, before = self.baseline_of(name)
        now, after = self.current(name)
        if (trusted is not None and not is_text(before)) or (now is not None and not is_text(after)):
            return None
        old = (before or b"").decode("utf-8").splitlines(keepends=True)
        new = (after or b"").decode("utf-8").splitlines(keepends=True)
        diff = difflib.unified_diff(old, new, f"{name} (trusted)", f"{name} (now)")
        return [line if line.endswith("\n") else line + "\n" for line in diff]

    def line(self, path: str | os.PathLike[str], what: str, digest: str | None = None) -> str | None:
        """The one line a loader says when it refuses `path` as `what`, None when it may load it."""
        why = self.refusal(path, digest)
        return None if why is None else refusal_line(path, why, what, self.folder)

    def quarantined(self) -> dict[str, dict[str, object]]:
        record = self.record() or {}
        return {
            name: dict(value)
            for name, value in _dict(record, "quarantined").items()
            if isinstance(value, dict)
        }

    def running(self) -> bool:
        return bool(_sessions(self.record() or {}))

    def baseline_of(self, name: str) -> tuple[Found, bytes | None]:
        """The file's baseline and, for a text file up to MAX_COPY, its content."""
        trusted = _as_found(_dict(self.record() or {}, "baseline").get(name))
        if trusted is None:
            return None, None
        try:
            return trusted, (self.record_dir / COPIES / trusted[0]).read_bytes()
        except OSError:
            return trusted, None

    def accept(self, names: Iterable[str]) -> None:
        """Each file's content now becomes its baseline, out of quarantine. Raises QuarantineError."""
        try:
            with _Lock(self.record_dir):
                record = load(self.record_dir)
                if record is None:
                    return
                baseline = _dict(record, "baseline")
                quarantined = _dict(record, "quarantined")
                for name in names:
                    entry = quarantined.get(name)
                    if isinstance(entry, dict) and entry.get("moved_to"):
                        self._move_back(name, str(entry["moved_to"]))
                        quarantined.pop(name, None)
                        continue
                    found, content = read_found(os.path.join(self.folder, name))
                    if found is None:
                        baseline.pop(name, None)
                    else:
                        baseline[name] = list(found)
                        _keep_copy(self.record_dir, found, content)
                    quarantined.pop(name, None)
                record["baseline"], record["quarantined"] = baseline, quarantined
                save(self.record_dir, record)
        except QuarantineError:
            raise
        except OSError as error:
            raise QuarantineError(
                f"the quarantine record in {self.record_dir} cannot be written: {error}"
            ) from error
        self._stamp = _MISSING

    def _move_back(self, name: str, moved_to: str) -> None:
        """A `.git` or module moved aside (planted.py) put back under its own name."""
        place = os.path.join(self.folder, name)
        if os.path.lexists(place):
            raise QuarantineError(f"{name} exists again: move it away, then accept {name} to put it back")
        os.rename(os.path.join(self.folder, moved_to), place)


_EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def _empty_digest(digest: str) -> bool:
    return digest == _EMPTY_SHA256


def refusal_line(
    path: str | os.PathLike[str], why: str, what: str, notebook_dir: str | os.PathLike[str]
) -> str:
    """The one line a loader says when it refuses a file: which, why, and the command that accepts it."""
    folder = os.path.realpath(notebook_dir)
    name = name_in(folder, path)
    effect = (
        "its settings are not applied (resolved as if the file were absent)"
        if what == "settings"
        else f"twnb does not load it as {what}"
    )
    return (
        f"{name} {why}: {effect}. Read it; to use it, run `twnb trust --folder {folder} accept {name}` "
        "outside the confined kernel."
    )
