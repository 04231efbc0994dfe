"""Attachment and AttachmentType behave as TaskWeaver's."""

import pytest

from twnb.memory import Attachment, AttachmentType, SharedMemoryEntry

TASKWEAVER_TYPES = [
    "init_plan", "plan", "current_plan_step", "plan_reasoning", "stop",
    "thought", "reply_type", "reply_content", "verification",
    "code_error", "execution_status", "execution_result", "artifact_paths",
    "revise_message", "function",
    "web_exploring_plan", "web_exploring_screenshot", "web_exploring_link",
    "invalid_response", "text", "shared_memory_entry", "image_url",
]  # fmt: skip


def test_attachment_type_has_exactly_taskweavers_22_members_in_order():
    assert [member.value for member in AttachmentType] == TASKWEAVER_TYPES


def test_attachment_type_names_equal_values():
    assert all(member.name == member.value for member in AttachmentType)


def test_create_accepts_a_type_name_string():
    assert Attachment.create("thought", "x").type is AttachmentType.thought


def test_create_keeps_a_given_id_and_extra():
    attachment = Attachment.create(AttachmentType.plan, "1. a", id="atta-1", extra={"k": 1})
    assert (attachment.id, attachment.extra) == ("atta-1", {"k": 1})


def test_create_rejects_an_unknown_type_name():
    with pytest.raises(ValueError, match="bogus"):
        Attachment.create("bogus", "x")


def test_text_is_a_member_so_create_accepts_it():
    assert Attachment.create("text", "x").type is AttachmentType.text


def test_repr_is_upper_type_then_content():
    assert repr(Attachment.create(AttachmentType.thought, "x")) == "THOUGHT: x"
    assert str(Attachment.create(AttachmentType.thought, "x")) == "THOUGHT: x"


def test_to_dict_keys_in_taskweavers_order_with_extra_none():
    data = Attachment.create(AttachmentType.thought, "x", id="atta-1").to_dict()
    assert list(data.items()) == [("id", "atta-1"), ("type", "thought"), ("content", "x"), ("extra", None)]


def test_to_dict_serialises_a_shared_memory_entry_extra():
    entry = SharedMemoryEntry.create("plan", "p", "round", id="sme-1")
    data = Attachment.create(AttachmentType.shared_memory_entry, "c", extra=entry).to_dict()
    assert data["extra"] == {"type": "plan", "content": "p", "scope": "round", "id": "sme-1"}


def test_from_dict_keeps_the_id_when_present():
    assert Attachment.from_dict({"id": "atta-x", "type": "plan", "content": "c"}).id == "atta-x"


def test_from_dict_makes_an_id_when_missing():
    assert Attachment.from_dict({"type": "plan", "content": "c"}).id.startswith("atta-")


@pytest.mark.parametrize("deprecated", ["python", "sample", "text"])
def test_from_dict_refuses_deprecated_types_with_taskweavers_message(deprecated):
    with pytest.raises(ValueError) as caught:
        Attachment.from_dict({"type": deprecated, "content": "print(1)"})
    assert (
        f"Deprecated attachment type: {deprecated}. Please check our blog "
        "https://microsoft.github.io/TaskWeaver/blog/local_llm on how to fix it." in str(caught.value)
    )


def test_from_dict_refuses_an_unknown_type_naming_it():
    with pytest.raises(ValueError, match="unknown attachment type 'bogus'"):
        Attachment.from_dict({"type": "bogus", "content": "x"})


def test_from_dict_rehydrates_a_shared_memory_entry():
    extra = {"type": "plan", "content": "p", "scope": "conversation", "id": "sme-1"}
    attachment = Attachment.from_dict({"type": "shared_memory_entry", "content": "c", "extra": extra})
    assert attachment.extra == SharedMemoryEntry(type="plan", content="p", scope="conversation", id="sme-1")


def test_from_dict_does_not_share_extra_with_the_input():
    source = {"type": "execution_result", "content": "c", "extra": {"outputs": [1]}}
    Attachment.from_dict(source).extra["outputs"].append(2)
    assert source["extra"] == {"outputs": [1]}


def test_artifact_paths_content_is_a_list_of_paths():
    attachment = Attachment.from_dict({"type": "artifact_paths", "content": ["a.png", "b.csv"]})
    assert attachment.content == ["a.png", "b.csv"]


def test_artifact_paths_string_is_read_as_a_one_item_list():
    assert Attachment.from_dict({"type": "artifact_paths", "content": "a.png"}).content == ["a.png"]


def test_artifact_paths_empty_is_an_empty_list():
    assert Attachment.from_dict({"type": "artifact_paths", "content": None}).content == []


def test_create_artifact_paths_from_a_string_gives_a_list():
    assert Attachment.create(AttachmentType.artifact_paths, "a.png").content == ["a.png"]


def test_numeric_content_is_kept_as_text():
    assert Attachment.from_dict({"type": "execution_result", "content": 42}).content == "42"
