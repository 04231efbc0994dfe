"""The README's settings table is the one generated from the settings table."""

from __future__ import annotations

from pathlib import Path

import pytest

from twnb.config.readme_table import BEGIN, END, readme_with_table, settings_table_markdown
from twnb.config.table import SETTINGS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_settings_table_matches_the_generated_one():
    text = README.read_text(encoding="utf-8")
    assert text == readme_with_table(text), (
        "README.md's settings table differs from twnb/config/table.py: run python -m twnb.config.readme_table"
    )


def test_every_setting_has_a_row_in_the_generated_table():
    table = settings_table_markdown()
    for row in SETTINGS:
        assert f"| `{row.name}`" in table or (row.kind == "secret" and "| never (" in table)


def test_a_readme_without_the_markers_is_a_clear_error():
    with pytest.raises(ValueError, match="lacks the settings table markers"):
        readme_with_table("# no table here\n")


def test_regenerating_replaces_a_stale_table():
    stale = f"intro\n{BEGIN}\n| old | table |\n{END}\noutro\n"
    fresh = readme_with_table(stale)
    assert "| old | table |" not in fresh
    assert fresh.startswith("intro\n") and fresh.endswith(f"{END}\noutro\n")
