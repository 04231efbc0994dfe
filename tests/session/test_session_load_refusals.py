"""A Session refuses a hostile or broken file the way the notebook does (one conversation store): at
once, with the file and line, its conversation and its autosave untouched."""

from __future__ import annotations

import pytest
from support.session_script import one_step

LEVELS = zip("abcdefgh", "bcdefghi", strict=True)
ALIAS_BOMB = (
    "rounds: []\n"
    + "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in LEVELS)
)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (ALIAS_BOMB, "line 3, column 4: a YAML alias (*name) repeats the value anchored at line 2"),
        ("rounds:\n  - !!binary aGk=\n", "line 2, column 5: binary data (!!binary) is not plain data"),
        ("rounds: []\ntwnb_autosave: [1]\n", "key 'twnb_autosave' must be a mapping"),
    ],
    ids=["alias-bomb", "binary", "bad-autosave-key"],
)
def test_a_session_with_a_round_keeps_its_conversation_and_autosave_when_a_load_fails(
    make_session, workdir, text, reason
):
    session = make_session(one_step("a = 1"))
    round = session.run_round("Set a")
    conversation = session.memory.conversation
    autosaved = {p.name: p.read_bytes() for p in session.autosave_dir.iterdir()}
    (workdir / "bad.yaml").write_text(text)
    with pytest.raises(ValueError) as refused:
        session.load(workdir / "bad.yaml")
    assert str(refused.value).startswith(f"{workdir / 'bad.yaml'}: ") and reason in str(refused.value)
    assert session.memory.conversation is conversation and conversation.rounds == [round]
    assert {p.name: p.read_bytes() for p in session.autosave_dir.iterdir()} == autosaved
