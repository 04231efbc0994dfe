"""Memory.get_role_rounds: per-role views with TaskWeaver's temporal-delimiter rules."""

import pytest

from twnb.memory import Attachment, AttachmentType, Conversation, Memory, Post, PromptUtil, save_conversation

S, E = PromptUtil.DELIMITER_TEMPORAL
TEMPORAL = f"keep {S}drop{E} end"


def _memory(states=("finished", "finished")) -> Memory:
    memory = Memory("session-1")
    for index, state in enumerate(states):
        round = memory.create_round(f"q{index}")
        round.add_post(Post.create(f"q{index}", "User", "Planner"))
        round.add_post(Post.create(TEMPORAL, "Planner", "CodeInterpreter"))
        round.add_post(Post.create("done", "CodeInterpreter", "Planner"))
        round.add_post(Post.create("answer", "Planner", "User"))
        round.change_round_state(state)
    return memory


def test_init_sets_session_id_and_a_fresh_conversation():
    memory = Memory("session-1")
    assert memory.session_id == "session-1"
    assert memory.conversation.id.startswith("conv-") and memory.conversation.rounds == []


def test_create_round_adds_a_created_round_with_the_query():
    memory = Memory("s")
    round = memory.create_round("hello")
    assert memory.conversation.rounds == [round]
    assert (round.user_query, round.state) == ("hello", "created")


def test_empty_memory_gives_no_rounds():
    assert Memory("s").get_role_rounds("Planner") == []


def test_only_failed_rounds_gives_no_rounds():
    assert _memory(("failed",)).get_role_rounds("Planner") == []


def test_keeps_only_posts_the_role_sent_or_received():
    [_, last] = _memory().get_role_rounds("CodeInterpreter")
    assert [(p.send_from, p.send_to) for p in last.post_list] == [
        ("Planner", "CodeInterpreter"),
        ("CodeInterpreter", "Planner"),
    ]


def test_rounds_without_a_post_for_the_role_are_still_listed_empty():
    rounds = _memory().get_role_rounds("Nobody")
    assert [len(r.post_list) for r in rounds] == [0, 0]


def test_view_rounds_keep_id_query_and_state():
    memory = _memory()
    views = memory.get_role_rounds("Planner")
    assert [(r.id, r.user_query, r.state) for r in views] == [
        (r.id, r.user_query, r.state) for r in memory.conversation.rounds
    ]


def test_earlier_rounds_lose_temporal_parts():
    first = _memory().get_role_rounds("CodeInterpreter")[0]
    assert first.post_list[0].message == "keep  end"


def test_last_round_keeps_temporal_text_without_markers():
    last = _memory().get_role_rounds("CodeInterpreter")[-1]
    assert last.post_list[0].message == "keep drop end"


def test_several_parts_in_an_earlier_round_are_all_cut():
    memory = _memory()
    memory.conversation.rounds[0].post_list[1].message = f"a{S}1{E}b{S}2{E}c"
    assert memory.get_role_rounds("Planner")[0].post_list[1].message == "abc"


def test_unmatched_start_marker_in_an_earlier_round_is_left_as_is():
    memory = _memory()
    memory.conversation.rounds[0].post_list[1].message = f"a{S}b"
    assert memory.get_role_rounds("Planner")[0].post_list[1].message == f"a{S}b"


def test_unmatched_start_marker_in_the_last_round_is_stripped():
    memory = _memory()
    memory.conversation.rounds[-1].post_list[1].message = f"a{S}b"
    assert memory.get_role_rounds("Planner")[-1].post_list[1].message == "ab"


def test_originals_are_never_mutated():
    memory = _memory()
    before = memory.conversation.to_dict()
    views = memory.get_role_rounds("Planner")
    views[0].post_list[0].attachment_list.append("x")  # type: ignore[arg-type]
    views[0].post_list[0].message = "changed"
    assert memory.conversation.to_dict() == before


def test_views_are_copies_not_the_stored_posts():
    memory = _memory()
    view = memory.get_role_rounds("Planner")[0]
    assert view.post_list[0] is not memory.conversation.rounds[0].post_list[0]


def test_failed_rounds_are_hidden():
    memory = _memory(("failed", "finished"))
    assert [r.user_query for r in memory.get_role_rounds("Planner")] == ["q1"]


def test_failed_rounds_are_shown_when_asked():
    memory = _memory(("failed", "finished"))
    assert [r.user_query for r in memory.get_role_rounds("Planner", include_failure_rounds=True)] == [
        "q0",
        "q1",
    ]


def test_a_hidden_failed_last_round_makes_the_previous_round_last():
    memory = _memory(("finished", "failed"))
    [only] = memory.get_role_rounds("CodeInterpreter")
    assert only.post_list[0].message == "keep drop end"


@pytest.mark.parametrize("role", ["Planner", "CodeInterpreter", "User"])
def test_each_role_sees_its_own_posts_only(role):
    for round in _memory().get_role_rounds(role):
        assert all(role in (p.send_from, p.send_to) for p in round.post_list)


def test_from_yaml_replaces_the_conversation_and_session_id(tmp_path):
    source = _memory()
    save_conversation(source.conversation, tmp_path / "c.yaml")
    memory = Memory("old")
    assert memory.from_yaml("new", tmp_path / "c.yaml") is memory
    assert memory.session_id == "new"
    assert memory.conversation.to_dict() == source.conversation.to_dict()


def test_save_experience_thin_keeps_only_plan_attachments(tmp_path):
    memory = _memory(("finished",))
    post = memory.conversation.rounds[0].post_list[1]
    post.add_attachment(Attachment.create(AttachmentType.plan, "1. a"))
    post.add_attachment(Attachment.create(AttachmentType.thought, "t"))
    memory.save_experience(tmp_path)
    saved = Conversation.from_yaml(tmp_path / "raw_exp_session-1.yaml")
    assert [a.type for a in saved.rounds[0].post_list[1].attachment_list] == [AttachmentType.plan]
    assert len(memory.conversation.rounds[0].post_list[1].attachment_list) == 2


def test_save_experience_full_keeps_everything(tmp_path):
    memory = _memory(("finished",))
    memory.conversation.rounds[0].post_list[1].add_attachment(Attachment.create(AttachmentType.thought, "t"))
    memory.save_experience(tmp_path, thin_mode=False)
    assert (
        Conversation.from_yaml(tmp_path / "raw_exp_session-1.yaml").to_dict() == memory.conversation.to_dict()
    )


def test_views_copy_attachments_and_extras_deeply():
    memory = _memory(("finished",))
    stored = memory.conversation.rounds[0].post_list[1]
    stored.extra["usage"] = {"n": 1}
    stored.add_attachment(Attachment.create(AttachmentType.artifact_paths, ["a.png"], extra={"k": [1]}))
    before = memory.conversation.to_dict()
    view = memory.get_role_rounds("Planner")[0].post_list[1]
    view.extra["usage"]["n"] = 2
    view.attachment_list[0].content.append("b.png")
    view.attachment_list[0].extra["k"].append(2)
    assert memory.conversation.to_dict() == before
    assert view.attachment_list[0].to_dict()["id"] == stored.attachment_list[0].id


def test_views_carry_each_rounds_extra():
    memory = _memory(("failed", "finished"))
    memory.conversation.rounds[0].extra["failure_reason"] = "the model gave up"
    [failed, _] = memory.get_role_rounds("Planner", include_failure_rounds=True)
    assert failed.extra == {"failure_reason": "the model gave up"}


def test_a_later_call_sees_a_post_added_since_the_last():
    memory = _memory(("finished",))
    memory.get_role_rounds("Planner")
    memory.conversation.rounds[0].add_post(Post.create("more", "User", "Planner"))
    assert memory.get_role_rounds("Planner")[0].post_list[-1].message == "more"


def test_a_later_call_sees_a_message_replaced_since_the_last():
    memory = _memory(("finished",))
    memory.get_role_rounds("Planner")
    memory.conversation.rounds[0].post_list[3].message = "a better answer"
    assert memory.get_role_rounds("Planner")[0].post_list[-1].message == "a better answer"


def test_a_round_that_stops_being_last_loses_its_temporal_parts_on_the_next_call():
    memory = _memory(("finished",))
    assert memory.get_role_rounds("Planner")[0].post_list[1].message == "keep drop end"
    memory.create_round("q1")
    assert memory.get_role_rounds("Planner")[0].post_list[1].message == "keep  end"


def _settled(memory: Memory) -> None:
    """Two calls with a Round added between: the first Rounds are settled in the cached views."""
    memory.get_role_rounds("Planner")
    memory.create_round("next")
    memory.get_role_rounds("Planner")


def test_a_settled_round_given_a_post_since_the_last_call_shows_it():
    memory = _memory(("finished", "finished", "finished"))
    _settled(memory)
    memory.conversation.rounds[0].add_post(Post.create("more", "User", "Planner"))
    assert memory.get_role_rounds("Planner")[0].post_list[-1].message == "more"


def test_a_settled_round_that_failed_since_the_last_call_is_left_out():
    memory = _memory(("finished", "finished", "finished"))
    _settled(memory)
    memory.conversation.rounds[1].change_round_state("failed")
    assert [r.user_query for r in memory.get_role_rounds("Planner")] == ["q0", "q2", "next"]


def test_a_settled_round_replaced_since_the_last_call_shows_the_replacement():
    memory = _memory(("finished", "finished", "finished"))
    _settled(memory)
    memory.conversation.rounds[1] = _memory(("finished",)).conversation.rounds[0]
    memory.conversation.rounds[1].user_query = "replaced"
    assert [r.user_query for r in memory.get_role_rounds("Planner")] == ["q0", "replaced", "q2", "next"]


def test_a_settled_round_removed_since_the_last_call_is_gone_and_the_rest_keep_their_views():
    memory = _memory(("finished", "finished", "finished"))
    _settled(memory)
    before = memory.get_role_rounds("Planner")
    del memory.conversation.rounds[0]
    after = memory.get_role_rounds("Planner")
    assert [r.user_query for r in after] == ["q1", "q2", "next"]
    assert after[0] is before[1]


def test_a_round_that_becomes_last_again_gets_its_temporal_parts_back():
    memory = _memory(("finished", "finished"))
    _settled(memory)
    del memory.conversation.rounds[-1]
    assert memory.get_role_rounds("Planner")[-1].post_list[1].message == "keep drop end"


def test_the_list_returned_is_the_callers_own():
    memory = _memory(("finished", "finished"))
    memory.get_role_rounds("Planner").clear()
    assert len(memory.get_role_rounds("Planner")) == 2


def test_a_settled_round_whose_state_changed_since_the_last_call_shows_the_new_state():
    memory = _memory(("finished", "finished", "finished"))
    memory.get_role_rounds("Planner", include_failure_rounds=True)
    memory.create_round("next")
    memory.get_role_rounds("Planner", include_failure_rounds=True)
    memory.conversation.rounds[1].change_round_state("failed")
    assert memory.get_role_rounds("Planner", include_failure_rounds=True)[1].state == "failed"
