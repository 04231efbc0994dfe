"""The README's settings table, made from the settings table.

``python -m twnb.config.readme_table`` rewrites the table in README.md between its two marker
comments; ``tests/config/test_readme_table.py`` fails when README.md's table differs from this one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from twnb.config.table import SETTINGS, Setting

__all__ = ["BEGIN", "END", "readme_with_table", "settings_table_markdown"]

BEGIN = "<!-- settings table: generated from twnb/config/table.py by python -m twnb.config.readme_table -->"
END = "<!-- end of the settings table -->"

_HEADER = (
    "| `%config TaskWeaverMagics.` | environment | YAML key | default | what it sets |\n|---|---|---|---|---|"
)


def settings_table_markdown() -> str:
    """One Markdown row per setting, in the table's order."""
    return "\n".join([_HEADER, *(_row(row) for row in SETTINGS)])


def _row(row: Setting) -> str:
    name = f"`{row.name}`" if row.traitlet else f"never ({row.name.replace('_', ' ')})"
    if row.kind in ("modules", "ports"):
        name += " (a list)"
    env = ", ".join(f"`{name}`" for name in row.env) or "-"
    if row.kind in ("modules", "ports") and row.env:
        env += " (comma-separated)"
    if row.kind == "prices":
        name += " (a dict)"
        env += " (JSON)"
    if row.kind == "choice":
        name += " (" + " \\| ".join(row.choices) + ")"
    yaml_key = f"`{row.yaml_key}`" if row.yaml_key else ("never" if row.kind == "secret" else "-")
    return f"| {name} | {env} | {yaml_key} | {row.describe_default()} | {row.help} |"


def readme_with_table(readme: str) -> str:
    """`readme` with the text between the markers replaced by the generated table."""
    try:
        start = readme.index(BEGIN) + len(BEGIN)
        end = readme.index(END, start)
    except ValueError:
        raise ValueError(f"README.md lacks the settings table markers {BEGIN!r} and {END!r}") from None
    return f"{readme[:start]}\n{settings_table_markdown()}\n{readme[end:]}"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path("README.md")
    path.write_text(readme_with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"settings table written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
