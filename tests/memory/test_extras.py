"""twnb's `extra` keys (twnb.memory.extras): the documented ones are the ones there are, and every one
survives a save and a load in order."""

import re

import pytest

from twnb.memory import (
    POST_EXTRA_KEYS,
    ROUND_EXTRA_KEYS,
    Conversation,
    Post,
    PostExtra,
    Round,
    RoundExtra,
    UsageRecord,
    add_usage,
    load_conversation,
    save_conversation,
)

USAGE = UsageRecord(prompt_tokens=10, completion_tokens=2, cached_tokens=0, calls=1, wall_time_s=0.5)
TIMING = {"started_at": "2026-01-01T00:00:00.000+00:00", "ended_at": "2026-01-01T00:00:01.000+00:00"}
POST_EXTRA = PostExtra(
    usage=USAGE,
    timing={**TIMING, "duration_s": 1.0, "execution_s": 0.2},
    reasoning="thinking",
    dropped_attempts=[{"reason": "LLMStreamDropped: cut", "raw_text": '{"resp'}],
    incomplete="The reply stopped before it was complete: LLMServerError.",
    raw_text='{"response": ',
    unknown_keys={"mood": "fine"},
    edited_from="x = 1",
    edited_by="User",
    skipped_by="User",
    approved_by="User",
    undone_by="User",
    undone="Undone by the user: removed x.",
    refused_edit={"code": "import os", "refusal": "Verification refused the edited code: os is blocked."},
    plugin_calls=[
        {
            "name": "anomaly_detection",
            "source": "taskweaver",
            "arguments": {"df": "DataFrame", "time_col_name": "str"},
            "result": "tuple (DataFrame of shape (50, 3), str of 45 characters)",
            "artifacts": ["twnb-artifacts/round-1-anomalies.csv"],
            "error": None,
            "log": ["info Plugin-anomaly_detection: 1 anomaly"],
            "started_at": "2026-01-01T00:00:00.500+00:00",
            "duration_s": 0.01,
        }
    ],
    ignored_reply_keys=["execution_status", "execution_result"],
    risk={
        "paused_for": ["it overwrites sales.csv, which exists (line 1: df.to_csv('sales.csv'))"],
        "unpredicted": ["deletes a file that existed before: notes.txt"],
    },
)
ROUND_EXTRA = RoundExtra(
    usage=USAGE,
    timing={**TIMING, "duration_s": 1.0},
    failure_reason="stopped",
    autosave_failed="Could not autosave this Round: disk full.",
    ledger={"n": 1},
    plan={"id": "plan-1", "name": "p", "subtasks": []},
    plan_recovered_from="plan-0",
    held_back_cells="You stopped this Round: the cells queued below it were not run.",
    user_cells=[
        {
            "source": "sales = load()",
            "execution_count": 3,
            "error": None,
            "variables": [{"name": "sales", "kind": "created", "type": "DataFrame"}],
            "clipped": True,
        }
    ],
    user_cells_omitted=2,
    replay={"cassette": "q.cassette.yaml", "rewound": True, "drift": ["call 1 drifted"]},
    plugins={
        "described": ["anomaly_detection"],
        "available": 9,
        "chosen_by": "request",
        "scores": {"anomaly_detection": 2.5},
    },
    plugin_only=True,
    plugin_problems=[
        "Plugin sql_pull_data: sql_pull_data.py needs the module langchain, which is not installed"
    ],
    changed_in_place=["df"],
    undo_limits=["`big` (6.1 GB) changed in place cannot be undone"],
    undone={
        "undone_at": "2026-12-02T14:03:00+00:00",
        "line": "Undone by the user: removed total; restored df.",
        "forced": False,
        "restored": ["df"],
        "removed": ["total"],
        "files_restored": [],
        "files_moved": {"/nb/out.png": "/nb/twnb-undone/round-1/out.png"},
        "not_undone": [],
    },
    confinement={
        "read": ["/usr", "/nb"],
        "write": ["/nb"],
        "connect": [5432],
        "proxy": "127.0.0.1:41000",
        "landlock_abi": 7,
        "seccomp": True,
        "mounts": True,
    },
    trust_notes=["Generated code changed the setting verify while it ran; twnb put it back."],
    rules={"files": [{"path": "AGENTS.md", "tokens": 12}], "tokens": 30, "written_by_code": ["TWNB.md"]},
    mentions=[{"mention": "@sales", "kind": "variable", "text": "sales: DataFrame, shape (2, 1)"}],
    experiences=[
        {
            "exp_id": "20261207-041000-ab12cd34",
            "score": 1.5,
            "text": "Dates are day-first.",
            "ranked_by": "BM25",
        }
    ],
    context_notes=["The server gave no embeddings: experience was ranked by BM25."],
)


def _documented_keys(docstring: str) -> list[str]:
    """The keys a docstring names after "Its keys ...:", in order."""
    listed = docstring.split("Its keys", 1)[1].split(":", 1)[1]
    return re.findall(r"`(\w+)`", listed)


def test_every_post_and_round_extra_key_survives_a_save_and_a_load_in_order(tmp_path):
    post = Post.create("hi", "Planner", "User")
    post.extra = POST_EXTRA
    round = Round.create("q", state="failed", post_list=[post])
    round.extra = ROUND_EXTRA
    conversation = Conversation.init()
    conversation.add_round(round)
    save_conversation(conversation, tmp_path / "c.yaml")
    loaded = load_conversation(tmp_path / "c.yaml")
    assert list(loaded.rounds[0].post_list[0].extra) == list(POST_EXTRA_KEYS)
    assert loaded.rounds[0].post_list[0].extra == POST_EXTRA
    assert list(loaded.rounds[0].extra) == list(ROUND_EXTRA_KEYS)
    assert loaded.rounds[0].extra == ROUND_EXTRA


@pytest.mark.parametrize(("cls", "keys"), [(Post, POST_EXTRA_KEYS), (Round, ROUND_EXTRA_KEYS)])
def test_the_docstring_lists_exactly_the_extra_keys(cls, keys):
    assert _documented_keys(cls.__doc__ or "") == list(keys)


def test_add_usage_sums_counts_and_time_and_keeps_the_latest_model():
    total = add_usage(UsageRecord(), UsageRecord(prompt_tokens=3, wall_time_s=0.25, model="a"))
    total = add_usage(total, UsageRecord(prompt_tokens=4, completion_tokens=1, wall_time_s=0.5, model="b"))
    assert total == UsageRecord(
        prompt_tokens=7, completion_tokens=1, cached_tokens=0, calls=2, wall_time_s=0.75, model="b"
    )


def test_add_usage_counts_a_record_without_calls_as_one_call_and_keeps_estimated():
    total = add_usage(UsageRecord(calls=2), UsageRecord(estimated=True))
    assert (total["calls"], total["estimated"]) == (3, True)
