"""SharedMemoryEntry and Memory.get_shared_memory_entries scoping."""

import pytest

from twnb.memory import Attachment, AttachmentType, Memory, Post, SharedMemoryEntry, save_conversation


def _share(round, role, entry_type, scope, content):
    post = Post.create("m", role, "Planner")
    entry = SharedMemoryEntry.create(entry_type, content, scope)
    post.add_attachment(Attachment.create(AttachmentType.shared_memory_entry, "", extra=entry))
    round.add_post(post)
    return entry


def test_create_gives_an_sme_id_and_keeps_fields():
    entry = SharedMemoryEntry.create("plan", "c", "round")
    assert (entry.type, entry.content, entry.scope) == ("plan", "c", "round")
    assert entry.id.startswith("sme-")


def test_to_dict_has_type_content_scope_id():
    entry = SharedMemoryEntry.create("plan", "c", "round", id="sme-1")
    assert entry.to_dict() == {"type": "plan", "content": "c", "scope": "round", "id": "sme-1"}


def test_from_dict_round_trips():
    entry = SharedMemoryEntry.create("example_sub_path", "sub", "conversation")
    assert SharedMemoryEntry.from_dict(entry.to_dict()) == entry


def test_from_dict_refuses_an_unknown_scope():
    with pytest.raises(ValueError, match="scope 'forever'"):
        SharedMemoryEntry.from_dict({"type": "plan", "content": "c", "scope": "forever", "id": "x"})


def test_conversation_scope_entries_from_earlier_rounds_are_kept():
    memory = Memory("s")
    entry = _share(memory.create_round("1"), "Planner", "plan", "conversation", "a")
    memory.create_round("2")
    assert memory.get_shared_memory_entries("plan") == [entry]


def test_round_scope_entries_from_earlier_rounds_are_dropped():
    memory = Memory("s")
    _share(memory.create_round("1"), "Planner", "plan", "round", "a")
    memory.create_round("2")
    assert memory.get_shared_memory_entries("plan") == []


def test_round_scope_entries_from_the_last_round_are_kept():
    memory = Memory("s")
    memory.create_round("1")
    entry = _share(memory.create_round("2"), "Planner", "plan", "round", "a")
    assert memory.get_shared_memory_entries("plan") == [entry]


def test_other_entry_types_are_ignored():
    memory = Memory("s")
    _share(memory.create_round("1"), "Planner", "experience_sub_path", "conversation", "a")
    assert memory.get_shared_memory_entries("plan") == []


def test_a_later_entry_from_the_same_role_replaces_the_earlier():
    memory = Memory("s")
    round = memory.create_round("1")
    _share(round, "Planner", "plan", "conversation", "old")
    newer = _share(round, "Planner", "plan", "conversation", "new")
    assert memory.get_shared_memory_entries("plan") == [newer]


def test_entries_are_ordered_by_when_the_surviving_entry_was_posted():
    memory = Memory("s")
    round = memory.create_round("1")
    _share(round, "Planner", "plan", "conversation", "p-old")
    worker = _share(round, "Worker", "plan", "conversation", "w")
    planner = _share(round, "Planner", "plan", "conversation", "p-new")
    assert memory.get_shared_memory_entries("plan") == [worker, planner]


def test_entries_work_after_a_yaml_round_trip(tmp_path):
    memory = Memory("s")
    entry = _share(memory.create_round("1"), "Planner", "plan", "conversation", "a")
    save_conversation(memory.conversation, tmp_path / "c.yaml")
    assert Memory("s").from_yaml("s", tmp_path / "c.yaml").get_shared_memory_entries("plan") == [entry]


def test_entries_work_when_extra_is_still_a_plain_dict():
    memory = Memory("s")
    post = Post.create("m", "Planner", "User")
    extra = {"type": "plan", "content": "c", "scope": "conversation", "id": "sme-1"}
    post.add_attachment(Attachment.create(AttachmentType.shared_memory_entry, "", extra=extra))
    memory.create_round("1").add_post(post)
    assert memory.get_shared_memory_entries("plan") == [SharedMemoryEntry.from_dict(extra)]
