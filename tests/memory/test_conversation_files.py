"""Our own TaskWeaver-format conversation files (tests/data/) load, and twnb's saves load back identical."""

from pathlib import Path

import pytest

from twnb.memory import (
    AttachmentType,
    Conversation,
    Memory,
    SharedMemoryEntry,
    load_conversation,
    save_conversation,
)

DATA = Path(__file__).resolve().parent.parent / "data"
ALL_FILES = sorted(DATA.glob("*.yaml"))


def test_there_are_data_files():
    assert len(ALL_FILES) >= 4


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_data_file_loads(path):
    assert Conversation.from_yaml(path).rounds


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_data_file_saves_and_loads_back_identical(path, tmp_path):
    conversation = Conversation.from_yaml(path)
    save_conversation(conversation, tmp_path / "out.yaml")
    assert load_conversation(tmp_path / "out.yaml").to_dict() == conversation.to_dict()


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_a_second_save_is_byte_identical(path, tmp_path):
    save_conversation(Conversation.from_yaml(path), tmp_path / "a.yaml")
    save_conversation(Conversation.from_yaml(tmp_path / "a.yaml"), tmp_path / "b.yaml")
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()


def test_planner_file_has_the_four_posts_and_planner_attachments():
    conversation = Conversation.from_yaml(DATA / "planner-word-count.yaml")
    posts = conversation.rounds[0].post_list
    assert [(p.send_from, p.send_to) for p in posts] == [
        ("User", "Planner"),
        ("Planner", "CodeInterpreter"),
        ("CodeInterpreter", "Planner"),
        ("Planner", "User"),
    ]
    assert [a.type.value for a in posts[1].attachment_list] == [
        "plan_reasoning",
        "init_plan",
        "plan",
        "current_plan_step",
        "stop",
    ]


def test_empty_attachment_list_key_loads_as_no_attachments():
    conversation = Conversation.from_yaml(DATA / "planner-word-count.yaml")
    assert conversation.rounds[0].post_list[0].attachment_list == []


def test_a_file_without_ids_gets_new_ids():
    conversation = Conversation.from_yaml(DATA / "planner-word-count.yaml")
    assert conversation.id.startswith("conv-")
    assert all(r.id.startswith("round-") for r in conversation.rounds)
    assert all(p.id.startswith("post-") for r in conversation.rounds for p in r.post_list)


def test_a_file_with_ids_keeps_them():
    conversation = Conversation.from_yaml(DATA / "twnb-saved-with-ids.yaml")
    assert conversation.id == "conv-20261130-120000-0a1b2c3d"
    assert conversation.rounds[0].id == "round-20261130-120001-11111111"
    assert conversation.rounds[0].post_list[1].id == "post-20261130-120002-bbbbbbbb"
    assert conversation.rounds[0].post_list[1].attachment_list[0].id == "atta-20261130-120002-cccccccc"


def test_revise_file_has_a_code_interpreter_to_itself_post():
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml")
    revise = conversation.rounds[0].post_list[1]
    assert (revise.send_from, revise.send_to) == ("CodeInterpreter", "CodeInterpreter")
    assert revise.get_attachment(AttachmentType.revise_message)


def test_revise_file_keeps_a_given_attachment_id():
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml")
    assert conversation.rounds[0].post_list[1].attachment_list[0].id == "atta-first-thought"


def test_artifact_paths_string_in_a_file_becomes_a_list():
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml")
    [paths] = conversation.rounds[0].post_list[2].get_attachment(AttachmentType.artifact_paths)
    assert paths.content == ["artifacts/squares.png"]


def test_plugins_file_reads_the_plugin_entries():
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-plugins.yaml")
    fetch, save = conversation.plugins
    assert (fetch.name, fetch.enabled, save.enabled) == ("fetch_prices", True, False)
    assert [p["name"] for p in fetch.parameters] == ["ticker", "days"]
    assert fetch.configurations == {"endpoint": "https://prices.example.invalid/v1"}


def test_plugins_file_keeps_the_unknown_plugin_only_key():
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-plugins.yaml")
    assert conversation.to_dict()["plugin_only"] is True


def test_twnb_file_reads_post_and_round_extra():
    round = Conversation.from_yaml(DATA / "twnb-saved-with-ids.yaml").rounds[0]
    assert round.extra == {"timing": {"wall_time_s": 4.2}}
    assert round.post_list[1].extra["usage"]["prompt_tokens"] == 812


def test_twnb_file_rehydrates_the_shared_memory_entry():
    memory = Memory("s").from_yaml("s", DATA / "twnb-saved-with-ids.yaml")
    [entry] = memory.get_shared_memory_entries("plan")
    assert isinstance(entry, SharedMemoryEntry)
    assert entry.id == "sme-20261130-120002-eeeeeeee"


def test_twnb_file_keeps_unicode_text():
    assert (
        Conversation.from_yaml(DATA / "twnb-saved-with-ids.yaml").rounds[0].user_query
        == "résumé des données ✓"
    )


def test_saved_file_writes_unicode_as_is(tmp_path):
    save_conversation(Conversation.from_yaml(DATA / "twnb-saved-with-ids.yaml"), tmp_path / "o.yaml")
    assert "résumé des données ✓" in (tmp_path / "o.yaml").read_text(encoding="utf-8")


def test_saved_file_writes_multi_line_code_as_a_block(tmp_path):
    save_conversation(Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml"), tmp_path / "o.yaml")
    assert "content: |-\n" in (tmp_path / "o.yaml").read_text(encoding="utf-8")


def test_relative_to_writes_artifact_paths_inside_the_folder_relative(tmp_path):
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml")
    [paths] = conversation.rounds[0].post_list[2].get_attachment(AttachmentType.artifact_paths)
    paths.content = [str(tmp_path / "artifacts" / "a.png"), "/elsewhere/b.png"]
    save_conversation(conversation, tmp_path / "c.yaml", relative_to=tmp_path)
    [saved] = (
        load_conversation(tmp_path / "c.yaml")
        .rounds[0]
        .post_list[2]
        .get_attachment(AttachmentType.artifact_paths)
    )
    assert saved.content == ["artifacts/a.png", "/elsewhere/b.png"]


def test_relative_to_does_not_change_the_conversation(tmp_path):
    conversation = Conversation.from_yaml(DATA / "codeinterpreter-revise.yaml")
    [paths] = conversation.rounds[0].post_list[2].get_attachment(AttachmentType.artifact_paths)
    paths.content = [str(tmp_path / "a.png")]
    save_conversation(conversation, tmp_path / "c.yaml", relative_to=tmp_path)
    assert paths.content == [str(tmp_path / "a.png")]
