"""Bad conversation files: a ValueError naming file, round, post and key; never a KeyError."""

import textwrap

import pytest

from twnb.memory import Conversation, ConversationFormatError, Memory

GOOD_POST = """\
      - message: hi
        send_from: User
        send_to: Planner
        attachment_list: []
"""


def _write(tmp_path, text, name="conv.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _load_error(path) -> ConversationFormatError:
    with pytest.raises(ValueError) as caught:
        Conversation.from_yaml(path)
    assert isinstance(caught.value, ConversationFormatError)
    return caught.value


def _two_rounds(second_post: str) -> str:
    return (
        "enabled: true\nrounds:\n"
        "  - user_query: a\n    state: finished\n    post_list:\n" + GOOD_POST + "  - user_query: b\n"
        "    state: finished\n    post_list:\n" + GOOD_POST + second_post
    )


def test_missing_post_key_names_file_round_post_and_key(tmp_path):
    path = _write(tmp_path, _two_rounds("      - message: x\n        send_to: Planner\n"))
    error = _load_error(path)
    assert str(path) in str(error)
    assert "round 1, post 1" in str(error)
    assert "'send_from'" in str(error)
    assert error.key == "send_from"


def test_missing_round_key_names_the_round_and_key(tmp_path):
    path = _write(tmp_path, "enabled: true\nrounds:\n  - state: created\n    post_list: []\n")
    error = _load_error(path)
    assert "round 0" in str(error) and "'user_query'" in str(error)


def test_missing_rounds_key_names_the_file_and_key(tmp_path):
    path = _write(tmp_path, "enabled: true\n")
    error = _load_error(path)
    assert str(path) in str(error) and "'rounds'" in str(error)


def test_unknown_round_state_lists_the_valid_states(tmp_path):
    path = _write(tmp_path, "rounds:\n  - user_query: q\n    state: done\n    post_list: []\n")
    error = _load_error(path)
    assert "round 0: key 'state': unknown round state 'done'" in str(error)
    assert "created, finished, failed" in str(error) or "finished, failed, created" in str(error)
    assert error.key == "state"


def test_deprecated_attachment_type_keeps_taskweavers_text_with_a_location(tmp_path):
    attachment = "          - type: python\n            content: print(1)\n"
    post = "      - message: x\n        send_from: A\n        send_to: B\n        attachment_list:\n"
    path = _write(tmp_path, _two_rounds(post + attachment))
    error = _load_error(path)
    assert str(error).startswith(
        f"{path}: round 1, post 1, attachment 0: key 'type': Deprecated attachment type: python."
    )
    assert "https://microsoft.github.io/TaskWeaver/blog/local_llm on how to fix it." in str(error)


def test_unknown_attachment_type_names_where_the_key_and_the_type(tmp_path):
    attachment = "          - type: pictures\n            content: x\n"
    post = "      - message: x\n        send_from: A\n        send_to: B\n        attachment_list:\n"
    error = _load_error(_write(tmp_path, _two_rounds(post + attachment)))
    assert "round 1, post 1, attachment 0: key 'type': unknown attachment type 'pictures'" in str(error)


def test_missing_attachment_content_names_the_key(tmp_path):
    post = "      - message: x\n        send_from: A\n        send_to: B\n        attachment_list:\n"
    error = _load_error(_write(tmp_path, _two_rounds(post + "          - type: thought\n")))
    assert "attachment 0" in str(error) and error.key == "content"


def test_malformed_yaml_names_the_file_and_the_line(tmp_path):
    path = _write(tmp_path, "rounds:\n  - user_query: [unclosed\n    state: created\n")
    error = _load_error(path)
    assert str(path) in str(error) and "not valid YAML" in str(error) and "line 3" in str(error)
    assert "<unicode string>" not in str(error)


def test_a_top_level_list_is_refused_clearly(tmp_path):
    error = _load_error(_write(tmp_path, "- a\n- b\n"))
    assert "mapping" in str(error) and "list" in str(error)


def test_an_empty_file_is_refused_clearly(tmp_path):
    error = _load_error(_write(tmp_path, ""))
    assert "empty" in str(error)


def test_a_post_that_is_not_a_mapping_names_its_place(tmp_path):
    error = _load_error(_write(tmp_path, _two_rounds("      - just text\n")))
    assert "round 1, post 1" in str(error)


def test_post_list_that_is_not_a_list_names_the_key(tmp_path):
    path = _write(tmp_path, "rounds:\n  - user_query: q\n    state: created\n    post_list: oops\n")
    assert _load_error(path).key == "post_list"


def test_message_that_is_a_mapping_names_the_key(tmp_path):
    post = "      - message: {a: 1}\n        send_from: A\n        send_to: B\n"
    error = _load_error(_write(tmp_path, _two_rounds(post)))
    assert error.key == "message" and "round 1, post 1" in str(error)


def test_extra_that_is_not_a_mapping_names_the_key(tmp_path):
    post = "      - message: m\n        send_from: A\n        send_to: B\n        extra: [1]\n"
    assert _load_error(_write(tmp_path, _two_rounds(post))).key == "extra"


def test_a_bad_shared_memory_entry_names_where(tmp_path):
    attachment = (
        "          - type: shared_memory_entry\n            content: c\n"
        "            extra: {type: plan, content: c, scope: sometimes}\n"
    )
    post = "      - message: x\n        send_from: A\n        send_to: B\n        attachment_list:\n"
    error = _load_error(_write(tmp_path, _two_rounds(post + attachment)))
    assert "round 1, post 1, attachment 0" in str(error) and error.key == "scope"


def test_a_plugin_without_a_name_is_refused_clearly(tmp_path):
    error = _load_error(_write(tmp_path, "plugins:\n  - description: d\nrounds: []\n"))
    assert "plugin 0" in str(error) and "'name'" in str(error)


def test_enabled_that_is_not_a_boolean_names_the_key(tmp_path):
    assert _load_error(_write(tmp_path, "enabled: maybe\nrounds: []\n")).key == "enabled"


def test_python_yaml_tags_are_refused_by_the_safe_loader(tmp_path):
    path = _write(tmp_path, "rounds: !!python/object/apply:os.system ['echo hacked']\n")
    assert "not valid YAML" in str(_load_error(path))


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        Conversation.from_yaml(tmp_path / "nope.yaml")


def test_a_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("rounds:\n  - user_query: café\n".encode("latin-1"))
    error = _load_error(path)
    assert str(path) in str(error) and "not UTF-8" in str(error) and "byte 27 is b'\\xe9'" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "rounds:\n  - user_query: [unclosed\n",
        "rounds:\n  - user_query: q\n    state: done\n    post_list: []\n",
        _two_rounds("      - message: x\n        send_to: Planner\n"),
        _two_rounds(
            "      - message: x\n        send_from: A\n        send_to: B\n        attachment_list:\n"
            "          - type: sample\n            content: x\n"
        ),
    ],
    ids=["malformed", "unknown-state", "missing-key", "deprecated-type"],
)
def test_a_refused_file_and_its_folder_are_left_exactly_as_they_were(tmp_path, text):
    path = _write(tmp_path, text)
    before = path.read_bytes()
    _load_error(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["conv.yaml"]


def test_memory_from_yaml_keeps_its_conversation_when_the_file_is_refused(tmp_path):
    memory = Memory("s")
    memory.create_round("keep me")
    conversation = memory.conversation
    with pytest.raises(ValueError):
        memory.from_yaml("other", _write(tmp_path, "rounds:\n  - state: created\n    post_list: []\n"))
    assert memory.conversation is conversation and memory.session_id == "s"
    assert [r.user_query for r in memory.conversation.rounds] == ["keep me"]
