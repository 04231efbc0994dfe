"""Hostile and broken YAML files: each refused quickly with a ValueError naming the file and the line,
never a hang, a RecursionError or a value that breaks the next save."""

import sys

import pytest
import yaml

from twnb.memory import (
    Conversation,
    ConversationFormatError,
    dump_yaml,
    load_yaml_text,
    save_conversation,
    yaml_io,
)

LOL = '["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
# The classic "billion laughs": nine levels of nine aliases each, 9**9 strings once expanded.
ALIAS_BOMB = f"rounds: []\na: &a {LOL}\n" + "".join(
    f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)

ROUND = "rounds:\n  - user_query: q\n    state: finished\n    post_list: []\n"


def _refusal(tmp_path, text: str) -> str:
    path = tmp_path / "conv.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        Conversation.from_yaml(path)
    assert isinstance(caught.value, ConversationFormatError)
    assert str(caught.value).startswith(f"{path}: ")
    return str(caught.value)


def test_the_alias_bomb_is_a_few_hundred_bytes():
    assert len(ALIAS_BOMB) < 600 and "*h" in ALIAS_BOMB


@pytest.mark.timeout(5)
def test_an_alias_bomb_is_refused_at_once_naming_the_line(tmp_path):
    message = _refusal(tmp_path, ALIAS_BOMB)
    assert "line 3, column 4: a YAML alias (*name) repeats the value anchored at line 2" in message


@pytest.mark.timeout(5)
def test_an_alias_bomb_is_refused_by_the_pure_python_loader_too():
    # An escaped lone surrogate is text libyaml refuses: the pure-Python loader reads the file.
    text = ALIAS_BOMB + 'half: "\\uD83D"\n'
    with pytest.raises(ValueError, match=r"line 3, column 8: a YAML alias \(\*a\) is not allowed"):
        load_yaml_text(text)


def test_a_single_alias_is_refused_too(tmp_path):
    text = ROUND.replace("post_list: []", "post_list: []\n    extra: {a: &x [1], b: *x}")
    assert "a YAML alias (*name) repeats the value anchored at line 5" in _refusal(tmp_path, text)


@pytest.mark.parametrize("depth", [101, 1_001, 10_000])
def test_deep_flow_nesting_is_refused_with_the_limit_named(tmp_path, depth):
    text = ROUND + "deep: " + "[" * depth + "]" * depth + "\n"
    message = _refusal(tmp_path, text)
    assert "nested deeper than 100 levels (MAX_DEPTH)" in message and "line 5" in message


def test_deep_block_nesting_is_refused(tmp_path):
    text = ROUND + "deep:\n" + "".join("  " * level + "- \n" for level in range(1, 2_000))
    assert "nested deeper than 100 levels" in _refusal(tmp_path, text)


def test_deep_nesting_in_text_libyaml_refuses_is_refused_without_recursion(tmp_path):
    # An escaped lone surrogate sends the text to the pure-Python loader, whose composer recurses.
    text = ROUND + 'half: "\\uD83D"\ndeep: ' + "[" * 10_000 + "]" * 10_000 + "\n"
    limit = sys.getrecursionlimit()
    assert "nested deeper than 100 levels" in _refusal(tmp_path, text)
    assert sys.getrecursionlimit() == limit


def test_nesting_up_to_the_limit_loads():
    depth = yaml_io.MAX_DEPTH - 1
    data = load_yaml_text("deep: " + "[" * depth + "]" * depth)
    assert isinstance(data["deep"], list)


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("!!set {a, b}", "a set (!!set)"),
        ("!!binary aGVsbG8=", "binary data (!!binary)"),
        ("!!omap [{a: 1}]", "an ordered map (!!omap)"),
        ("!!pairs [{a: 1}]", "a list of pairs (!!pairs)"),
        ("!!timestamp 2024-05-01", "a timestamp (!!timestamp)"),
    ],
)
def test_tagged_values_that_are_not_plain_data_are_refused_naming_the_line(tmp_path, value, what):
    text = ROUND.replace("post_list: []", f"post_list: []\n    extra:\n      v: {value}")
    message = _refusal(tmp_path, text)
    assert f"line 6, column 10: {what} is not plain data" in message


def test_an_untagged_timestamp_value_stays_text_and_saves(tmp_path):
    path = tmp_path / "conv.yaml"
    path.write_text(ROUND.replace("post_list: []", "post_list: []\n    extra: {at: 2024-05-01 10:00:00}"))
    conversation = Conversation.from_yaml(path)
    assert conversation.rounds[0].extra["at"] == "2024-05-01 10:00:00"
    save_conversation(conversation, tmp_path / "again.yaml")
    assert Conversation.from_yaml(tmp_path / "again.yaml").rounds[0].extra["at"] == "2024-05-01 10:00:00"


def test_a_timestamp_key_stays_text_and_saves(tmp_path):
    path = tmp_path / "conv.yaml"
    path.write_text(ROUND.replace("post_list: []", "post_list: []\n    extra: {2024-05-01: x}"))
    conversation = Conversation.from_yaml(path)
    assert conversation.rounds[0].extra == {"2024-05-01": "x"}
    assert "'2024-05-01': x" in dump_yaml(conversation.to_dict())


@pytest.mark.parametrize(
    ("key", "column", "what"),
    [("? [a, b]", 9, "a list or mapping"), ("? {a: 1}", 9, "a list or mapping"), ("~", 7, "nothing")],
)
def test_a_key_that_is_not_text_or_a_number_is_refused(tmp_path, key, column, what):
    text = ROUND.replace("post_list: []", f"post_list: []\n    extra:\n      {key}: x")
    message = _refusal(tmp_path, text)
    assert f"line 6, column {column}: a mapping key must be text or a number, not {what}" in message


def test_an_oversized_file_is_refused_with_the_limit_named(tmp_path, monkeypatch):
    monkeypatch.setattr(yaml_io, "MAX_FILE_BYTES", 1_000)
    message = _refusal(tmp_path, ROUND + "pad: " + "x" * 2_000 + "\n")
    assert "2,070 bytes is more than the 1,000 twnb reads (MAX_FILE_BYTES)" in message


def test_the_size_limit_is_a_generous_default():
    assert yaml_io.MAX_FILE_BYTES >= 100 * 1024 * 1024


def test_oversized_text_is_refused_with_the_limit_named(monkeypatch):
    monkeypatch.setattr(yaml_io, "MAX_FILE_BYTES", 10)
    with pytest.raises(ValueError, match=r"<string>: 11 characters is more than the 10 twnb reads"):
        load_yaml_text("a: 1234567\n")


def test_a_post_list_that_is_text_names_the_round_and_key(tmp_path):
    text = ROUND.replace("post_list: []", "post_list: hello")
    assert "round 0: key 'post_list' must be a list, got str" in _refusal(tmp_path, text)


@pytest.mark.timeout(5)
def test_saving_data_that_repeats_one_list_a_billion_times_is_refused():
    inner: list = ["lol"] * 9
    for _ in range(9):
        inner = [inner] * 9
    with pytest.raises(ValueError, match=r"more than 20,000,000 values \(MAX_VALUES\) once the values"):
        dump_yaml({"bomb": inner})


def test_saving_a_container_that_holds_itself_is_refused():
    loop: dict = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match=r"nested deeper than 100 levels"):
        dump_yaml({"loop": loop})


def test_saving_shared_plain_values_writes_each_copy():
    shared = {"x": 1}
    assert yaml.safe_load(dump_yaml({"a": shared, "b": shared})) == {"a": {"x": 1}, "b": {"x": 1}}
