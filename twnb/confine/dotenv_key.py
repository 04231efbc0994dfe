"""A `.env` the confined kernel could come to read that holds the model's key, said once at start.

The launcher hides each `.env` inside a folder the kernel may read (a mount: plan.py's `hidden`), so
the kernel cannot read it. But a file saved from outside while the kernel runs, by writing a new file
and renaming it over (Jupyter and most editors), loses that mount in the kernel's namespace, and the
kernel could read the key for the rest of its life. No sound fix exists in this design: the kernel
may write the notebook's folder, so even an editor's temporary file there is within its reach, and
re-applying the mount after a rename races with code spinning on `open` (docs/architecture.md,
"Residual gaps"). So the start says it, in one line naming the file and where the key belongs instead:
the environment (the settings read the key from the environment or the notebook's `.env` only, never
from a YAML file). The key itself is never printed.

Only the standard library: the launcher imports this at every confined kernel's start.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

_DOTENV = ".env"
_MIN_KEY = 8  # a shorter "key" (a local server's placeholder) is looked for by its variable only


def holds_key(path: Path, names: Iterable[str], key: str) -> bool:
    """Whether the `.env` at `path` sets one of `names` to a value, or holds `key`'s value anywhere;
    False when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if len(key) >= _MIN_KEY and key in text:
        return True
    wanted = set(names)
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        name, equals, value = line.partition("=")
        if equals and name.strip() in wanted and value.strip().strip("'\"").strip():
            return True
    return False


def key_dotenvs(hidden: Iterable[Path], names: Iterable[str], key: str) -> list[Path]:
    """The `.env` files among `hidden` (the plan's hidden places) that hold the model's key."""
    names = tuple(names)
    return [path for path in hidden if path.name == _DOTENV and holds_key(path, names, key)]


def key_notice(paths: list[Path], names: Iterable[str]) -> str | None:
    """The line that says the key in `paths` is within the kernel's reach once saved; None for none."""
    if not paths:
        return None
    name = ([*names] or ["OPENAI_API_KEY"])[-1]  # the settings' api_key_env comes last
    where = ", ".join(str(path) for path in paths)
    one = len(paths) == 1
    return (
        f"the model's key is in {where}: the kernel cannot read {'it' if one else 'them'} now, but could "
        f"until it ends if {'that file is' if one else 'one of them is'} saved while it runs (a save "
        "renames a new file over it, which undoes the mount that hides it); put the key in the "
        f"environment that starts Jupyter or twnb instead ({name}=...) and take it out of the file."
    )
