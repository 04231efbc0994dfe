"""Which `%%taskweaver` cells are step cells: `--step`, `--step=risky`, `--step risky` and the `step`
setting make one; `--step=off` and the setting off do not."""

from __future__ import annotations

import pytest

from twnb.notebook.step_transform import step_flag, wants_step


@pytest.mark.parametrize(
    ("flags", "setting", "wanted"),
    [
        (" --step", "off", True),
        (" --step=risky", "off", True),
        (" --step risky --strict", "off", True),
        (" --step=off", "risky", False),
        (" --step off", "on", False),
        ("", "risky", True),
        ("", "on", True),
        ("", "off", False),
        (" --strict", "off", False),
        (" --step --help", "off", False),
    ],
)
def test_a_cell_is_a_step_cell_by_its_flag_else_by_the_setting(flags, setting, wanted):
    assert wants_step(flags, lambda: setting) is wanted


@pytest.mark.parametrize(
    ("words", "mode"),
    [
        (["--step"], "on"),
        (["--step", "--strict"], "on"),
        (["--step=risky"], "risky"),
        (["--step", "risky"], "risky"),
        ([], None),
    ],
)
def test_the_flag_names_the_mode(words, mode):
    assert step_flag(words) == mode


def test_settings_that_do_not_resolve_leave_the_cell_to_the_plain_magic():
    def broken() -> str:
        raise ValueError("bad settings")

    assert wants_step("", broken) is False
