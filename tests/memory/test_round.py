"""Round behaves as TaskWeaver's, plus twnb's `extra`."""

import pytest

from twnb.memory import Post, Round


def _round() -> Round:
    round = Round.create("count rows", id="round-1")
    round.add_post(Post.create("count rows", "User", "Planner"))
    return round


def test_create_defaults_to_state_created_and_no_posts():
    round = Round.create("q")
    assert (round.state, round.post_list, round.extra) == ("created", [], {})


def test_create_keeps_a_given_id():
    assert Round.create("q", id="round-x").id == "round-x"


def test_add_post_appends():
    round = _round()
    post = Post.create("x", "Planner", "User")
    round.add_post(post)
    assert round.post_list[-1] is post


@pytest.mark.parametrize("state", ["finished", "failed", "created"])
def test_change_round_state_sets_the_state(state):
    round = _round()
    round.change_round_state(state)
    assert round.state == state


def test_to_dict_keys_in_taskweavers_order_without_empty_extra():
    assert list(_round().to_dict()) == ["id", "user_query", "state", "post_list"]


def test_to_dict_writes_extra_last_when_not_empty():
    round = _round()
    round.extra["failure_reason"] = "boom"
    assert list(round.to_dict().items())[-1] == ("extra", {"failure_reason": "boom"})


def test_from_dict_gives_new_round_and_post_ids():
    data = _round().to_dict()
    loaded = Round.from_dict(data)
    assert loaded.id != data["id"]
    assert loaded.post_list[0].id != data["post_list"][0]["id"]


def test_from_dict_keep_ids_round_trips_exactly():
    round = _round()
    round.extra["timing"] = {"wall_time_s": 1.5}
    assert Round.from_dict(round.to_dict(), keep_ids=True).to_dict() == round.to_dict()


def test_from_dict_reads_a_null_post_list_as_empty():
    assert Round.from_dict({"user_query": "q", "state": "created", "post_list": None}).post_list == []


def test_repr_names_query_state_and_post_count():
    text = repr(_round())
    assert text.startswith(
        "Round:\n- Query: count rows\n- State: created\n- Post Num:1\n- Post List: \n  * Post:"
    )
