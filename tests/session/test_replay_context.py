"""A replay is the same conversation: a replayed Round's prompts carry the experiences and the rules its
recording used, whatever the experience folder and the rule files on the replaying machine hold today
(recorded_context.py).

Recorded through the real session against the loopback server, saved with its cassette
(`%taskweaver save`), the experience folder then deleted or changed, and the Round replayed from the
cassette in a fresh namespace: the prompts it sends are read from the LLM call events."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.session_fixtures import Recorder
from support.session_script import one_step
from support.shell_reset import reset_shell

from twnb.config import Redactor, ResolvedSettings, Settings
from twnb.kernel import LiveShellExecutor
from twnb.llm import cassette_path_for
from twnb.memory import Round
from twnb.session import build_session
from twnb.session.experience import ExperienceStore

QUERY = "Load the sales file and parse its order dates"
LESSON = "Parse the order dates in sales files day-first (31/01/2026)."
OTHER_LESSON = "Parse the order dates in sales files month-first (01/31/2026)."
CODE = "dates = ['31/01/2026']\nprint(len(dates))"


def experience_folder(workdir: Path) -> Path:
    return workdir / ".twnb" / "experience"


def teach(workdir: Path, lesson: str) -> None:
    ExperienceStore(experience_folder(workdir), Redactor([]).redact).remember_text(lesson)


def record(make_session: Any, shell: Any, workdir: Path, *, kept: str = "saved") -> tuple[Round, Path]:
    """The Round recorded and its cassette: the one saved beside the conversation (`kept` "saved"), or
    the session folder's own, beside its autosaved Rounds ("autosaved"); the namespace then cleared,
    as a new kernel's."""
    session = make_session(one_step(CODE), record=True)
    round = session.run_round(QUERY)
    assert round.state == "finished"
    saved = session.save(workdir / "analysis.yaml")
    reset_shell(shell)
    return round, cassette_path_for(saved) if kept == "saved" else session.cassette_path


def replay(shell: Any, workdir: Path, cassette: Path) -> tuple[Round, list[str]]:
    """The Round replayed from `cassette`; with the text of each prompt it sent."""
    session_dir = workdir / ".twnb"
    executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
    session = build_session(
        ResolvedSettings(Settings(model="fake-model", replay=str(cassette)), {}, workdir),
        executor,
        session_dir=session_dir,
    )
    recorder = Recorder()
    round = session.run_round(QUERY, recorder)
    return round, [json.dumps(e.messages) for e in recorder.of("LLMCallStarted")]


@pytest.mark.parametrize(
    ("kept", "today"), [("saved", "deleted"), ("saved", "changed"), ("autosaved", "changed")]
)
def test_a_replay_sends_the_experience_its_recording_used(
    make_session, fake_llm, shell, workdir, kept, today
):
    teach(workdir, LESSON)
    recorded, cassette = record(make_session, shell, workdir, kept=kept)
    assert LESSON in json.dumps(fake_llm.chat_requests()[0]["body"]["messages"])
    shutil.rmtree(experience_folder(workdir))
    if today == "changed":
        teach(workdir, OTHER_LESSON)  # as relevant to the request as the recorded one

    replayed, prompts = replay(shell, workdir, cassette)

    assert replayed.state == "finished" and len(prompts) == 3
    assert LESSON in prompts[0] and not any(OTHER_LESSON in p for p in prompts)
    assert replayed.extra["experiences"] == recorded.extra["experiences"]
    assert "drift" not in replayed.extra["replay"]


def test_a_recording_that_used_no_experience_replays_without_one(make_session, shell, workdir):
    recorded, cassette = record(make_session, shell, workdir)
    assert "experiences" not in recorded.extra
    teach(workdir, LESSON)

    replayed, prompts = replay(shell, workdir, cassette)

    assert not any(LESSON in p for p in prompts)
    assert "experiences" not in replayed.extra and "drift" not in replayed.extra["replay"]


def test_a_cassette_without_its_conversation_uses_todays_experience_and_says_it_drifted(
    make_session, shell, workdir
):
    teach(workdir, LESSON)
    _, cassette = record(make_session, shell, workdir)
    alone = workdir / "copied" / "alone.cassette.yaml"
    alone.parent.mkdir()
    shutil.copyfile(cassette, alone)
    shutil.rmtree(experience_folder(workdir))
    teach(workdir, OTHER_LESSON)

    replayed, prompts = replay(shell, workdir, alone)

    assert OTHER_LESSON in prompts[0]
    assert "Replay call 1 (Planner) drifted from recorded call 1" in replayed.extra["replay"]["drift"][0]


RULE = "Revenue excludes returns: drop rows whose status is returned before summing."
OTHER_RULE = "Revenue includes returns."


@pytest.mark.parametrize("today", ["deleted", "changed"])
def test_a_replay_sends_the_rules_its_recording_used(make_session, shell, workdir, today):
    (workdir / "AGENTS.md").write_text(RULE)
    recorded, cassette = record(make_session, shell, workdir)
    if today == "deleted":
        (workdir / "AGENTS.md").unlink()
    else:
        (workdir / "AGENTS.md").write_text(OTHER_RULE)

    replayed, prompts = replay(shell, workdir, cassette)

    assert all(RULE in p for p in prompts) and not any(OTHER_RULE in p for p in prompts)
    assert replayed.extra["rules"] == recorded.extra["rules"]
    assert "drift" not in replayed.extra["replay"]


def test_a_recording_that_had_no_rules_replays_without_the_rules_written_since(make_session, shell, workdir):
    recorded, cassette = record(make_session, shell, workdir)
    assert "rules" not in recorded.extra
    (workdir / "TWNB.md").write_text(RULE)

    replayed, prompts = replay(shell, workdir, cassette)

    assert not any(RULE in p for p in prompts)
    assert "rules" not in replayed.extra and "drift" not in replayed.extra["replay"]
