"""A session replaying a cassette behaves like the recording: it starts over as a new conversation once
every reply has been served (Run All again in the same kernel), reports drift in the Round's record
instead of a warning, and names the figures it saves as the recording did, whatever the folder holds."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from support.session_script import attachment, one_step
from support.shell_reset import reset_shell

from twnb.config import ResolvedSettings, Settings
from twnb.kernel import LiveShellExecutor
from twnb.session import build_session
from twnb.session.autosave import load_autosaved_conversation

FIGURE = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\nprint('drawn')"
QUERY = "Plot 1, 2, 3"


@pytest.fixture
def cassette(make_session, shell, workdir) -> Path:
    """A recorded Round (the loopback server's replies) that draws a figure; the kernel's variables
    are then cleared, as a new kernel's are (what the code made is part of what its prompts said)."""
    session = make_session(one_step(FIGURE), record=True)
    assert session.run_round(QUERY).state == "finished"
    assert session.cassette_path is not None
    recorded = workdir / "recorded.cassette.yaml"
    recorded.write_bytes(session.cassette_path.read_bytes())
    reset_shell(shell)
    return recorded


def replaying(shell: Any, workdir: Path, cassette: Path) -> Any:
    session_dir = workdir / ".twnb"
    executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
    return build_session(
        ResolvedSettings(Settings(model="fake-model", replay=str(cassette)), {}, workdir),
        executor,
        session_dir=session_dir,
    )


def figure_path(round: Any) -> str:
    code_post = next(p for p in round.post_list if attachment(p, "artifact_paths") is not None)
    return attachment(code_post, "artifact_paths").content[0]


def test_a_used_up_cassette_starts_over_as_a_new_conversation(shell, workdir, cassette):
    session = replaying(shell, workdir, cassette)
    first = session.run_round(QUERY)
    first_session = session.session_id
    again = session.run_round(QUERY)
    assert (first.state, again.state) == ("finished", "finished")
    # The kernel still holds what the first run made, so the prompts may drift: the replies are served.
    assert again.extra["replay"]["rewound"] is True
    assert session.session_id != first_session and session.memory.conversation.rounds == [again]
    kept = load_autosaved_conversation(workdir / ".twnb" / first_session / "rounds")
    assert [r.id for r in kept.rounds] == [first.id]


def test_a_replay_that_follows_its_recording_records_no_drift(shell, workdir, cassette):
    round = replaying(shell, workdir, cassette).run_round(QUERY)
    assert round.extra["replay"] == {"cassette": "recorded.cassette.yaml"}


def test_drift_is_in_the_rounds_record_not_a_warning(shell, workdir, cassette):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a CassetteDriftWarning would fail here
        round = replaying(shell, workdir, cassette).run_round("Plot something else")
    drift = round.extra["replay"]["drift"]
    assert round.state == "finished" and drift
    assert "Replay call 1 (Planner) drifted from recorded call 1" in drift[0]


def test_reset_rewinds_the_cassette(shell, workdir, cassette):
    session = replaying(shell, workdir, cassette)
    session.run_round(QUERY)
    session.reset()
    round = session.run_round(QUERY)
    assert round.state == "finished" and "rewound" not in round.extra["replay"]


def test_a_replay_names_its_figure_as_its_recording_did_whatever_the_folder_holds(shell, workdir, cassette):
    recorded = (workdir / ".twnb" / "artifacts").glob("*.png")
    (left_by_the_recording,) = list(recorded)
    round = replaying(shell, workdir, cassette).run_round(QUERY)
    assert Path(figure_path(round)) == left_by_the_recording
    assert "drift" not in round.extra["replay"]


def test_a_live_session_never_replaces_a_figure_it_did_not_write(make_session, fake_llm, workdir):
    first = make_session(one_step(FIGURE)).run_round(QUERY)
    fake_llm.load(one_step(FIGURE))
    second = make_session().run_round(QUERY)
    assert figure_path(first) != figure_path(second)
    assert Path(figure_path(first)).is_file() and Path(figure_path(second)).name.endswith("-2.png")
