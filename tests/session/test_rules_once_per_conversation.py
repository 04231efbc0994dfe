"""The user's rules are saved once per conversation while they stay the same: a Round whose prompts
carried the rules an earlier Round's record holds names that Round (`text_in`) instead of holding the
text again (about 1.2 KB a Round with rules). A replay is still the same conversation: it takes the text
from the Round named. Real sessions against the loopback server, the conversation saved as YAML and read
back by twnb's TaskWeaver-compatible reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.session_fixtures import Recorder
from support.session_script import one_step
from support.shell_reset import reset_shell

from twnb.config import ResolvedSettings, Settings
from twnb.kernel import LiveShellExecutor
from twnb.llm import cassette_path_for
from twnb.memory import Round
from twnb.session import build_session
from twnb.session.conversation_store import load_conversation_file

QUERY = "Load the sales file and parse its order dates"
RULE = "Revenue excludes returns: drop rows whose status is returned before summing."
OTHER_RULE = "Revenue includes returns."
CODE = "dates = ['31/01/2026']\nprint(len(dates))"


def _rounds(make_session: Any, *rules: str, workdir: Path) -> tuple[Any, list[Round]]:
    """One Round per entry of `rules`, AGENTS.md holding that text while it runs."""
    script = one_step(CODE)
    session = make_session({role: replies * len(rules) for role, replies in script.items()}, record=True)
    rounds = []
    for text in rules:
        (workdir / "AGENTS.md").write_text(text)
        rounds.append(session.run_round(QUERY))
    return session, rounds


def test_a_round_with_the_same_rules_names_the_round_that_holds_their_text(make_session, workdir):
    _, (first, second, third) = _rounds(make_session, RULE, RULE, RULE, workdir=workdir)
    assert first.extra["rules"]["files"][0]["text"] == RULE
    for later in (second, third):
        assert later.extra["rules"]["text_in"] == first.id
        assert "text" not in later.extra["rules"]["files"][0]
        assert later.extra["rules"]["files"][0]["path"] == "AGENTS.md"  # what was in force stays said


def test_the_saved_conversation_holds_the_rules_text_once_and_loads(make_session, workdir):
    session, rounds = _rounds(make_session, RULE, RULE, RULE, workdir=workdir)
    saved = session.save(workdir / "analysis.yaml")
    assert saved.read_text().count("drop rows whose status is returned") == 1
    loaded = load_conversation_file(saved)
    assert [r.extra["rules"] for r in loaded.rounds] == [r.extra["rules"] for r in rounds]


def test_rules_that_changed_are_held_again(make_session, workdir):
    _, (_, second, third) = _rounds(make_session, RULE, OTHER_RULE, RULE, workdir=workdir)
    assert second.extra["rules"]["files"][0]["text"] == OTHER_RULE
    assert third.extra["rules"]["files"][0]["text"] == RULE  # the latest Round's differ: held again
    assert "text_in" not in second.extra["rules"] and "text_in" not in third.extra["rules"]


def _replaying(workdir: Path, shell: Any, cassette: Path) -> Any:
    """A session replaying `cassette` in a fresh namespace, as a new kernel's."""
    session_dir = workdir / ".twnb"
    executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
    settings = ResolvedSettings(Settings(model="fake-model", replay=str(cassette)), {}, workdir)
    return build_session(settings, executor, session_dir=session_dir)


def test_a_replay_sends_the_rules_text_a_later_round_named(make_session, shell, workdir):
    session, (_, second) = _rounds(make_session, RULE, RULE, workdir=workdir)
    assert second.extra["rules"].get("text_in")
    cassette = cassette_path_for(session.save(workdir / "analysis.yaml"))
    reset_shell(shell)
    (workdir / "AGENTS.md").write_text(OTHER_RULE)

    replaying = _replaying(workdir, shell, cassette)
    replaying.run_round(QUERY)
    recorder = Recorder()
    replayed = replaying.run_round(QUERY, recorder)

    prompts = [json.dumps(e.messages) for e in recorder.of("LLMCallStarted")]
    assert len(prompts) == 3 and all(RULE in p for p in prompts) and not any(OTHER_RULE in p for p in prompts)
    assert "drift" not in replayed.extra["replay"]
    assert replayed.extra["rules"]["files"] == second.extra["rules"]["files"]
