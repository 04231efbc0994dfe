"""A reply over `max_reply_chars` is stopped there, over real HTTP from the loopback server: the rest
of the stream is never read, the post keeps the text up to the limit with the reason, and the Round
fails with that reason instead of storing and showing megabytes."""

from __future__ import annotations

import pytest
from support.session_script import planner_reply

from twnb.config.resolution import resolve_settings
from twnb.config.settings import SettingsError

FIVE_MB = 5 * 1024 * 1024
LIMIT = 200_000


def _runaway_script() -> dict:
    # A code reply of 5 MB, sent in 50 KB pieces 0.3 s apart: read to its end it would take 30 s.
    code = '{"response": {"thought": "Print it all.", "reply_type": "python", "reply_content": "'
    huge = code + "x" * FIVE_MB + '"}}'
    return {
        "Planner": [planner_reply("CodeInterpreter", "Print the data.")],
        "CodeInterpreter": [{"content": huge, "chunk_size": 50_000, "delay_s": 0.3}],
    }


@pytest.fixture(scope="module")
def ran_once() -> dict:
    return {}


@pytest.fixture
def runaway_round(make_session, ran_once):
    """The Round, run once for the module (~2 s of stream): the tests only read it."""
    if "round" not in ran_once:
        session = make_session(_runaway_script(), settings={"max_reply_chars": LIMIT})
        ran_once["round"] = session.run_round("Print the data")
    return ran_once["round"]


@pytest.mark.timeout(20)  # the whole reply would take 30 s: a Round that read it all would time out
def test_a_runaway_reply_fails_the_round_with_the_limit_named(runaway_round):
    assert runaway_round.state == "failed"
    reason = runaway_round.extra["failure_reason"]
    assert reason.startswith("The CodeInterpreter's reply passed 200,000 characters (max_reply_chars)")
    assert "raise max_reply_chars" in reason


@pytest.mark.timeout(20)
def test_the_runaway_post_keeps_the_text_up_to_the_limit_and_the_reason(runaway_round):
    post = runaway_round.post_list[-1]
    assert post.send_from == "CodeInterpreter"
    assert post.extra["incomplete"] == runaway_round.extra["failure_reason"]
    assert len(post.extra["raw_text"]) == LIMIT
    assert post.extra["raw_text"].startswith('{"response": {"thought": "Print it all."')


@pytest.mark.timeout(20)
def test_nothing_of_the_runaway_reply_is_kept_past_the_limit(runaway_round):
    from twnb.memory import dump_yaml

    assert len(dump_yaml(runaway_round.to_dict())) < 3 * LIMIT


def test_the_default_limit_is_a_few_hundred_thousand_characters(tmp_path):
    assert resolve_settings(workdir=tmp_path, environ={}).settings.max_reply_chars == 200_000


def test_a_limit_too_small_for_any_reply_is_refused(tmp_path):
    with pytest.raises(SettingsError, match=r"max_reply_chars.*at least 1000"):
        resolve_settings(traitlets={"max_reply_chars": 10}, workdir=tmp_path, environ={})
