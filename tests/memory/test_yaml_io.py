"""YAML writing: plain data only, atomic saves, safe C loader when present."""

import gc
import os
import stat

import pytest
import yaml

from twnb.memory import (
    Attachment,
    AttachmentType,
    Conversation,
    Post,
    Round,
    conversation_dict,
    dump_yaml,
    load_conversation,
    save_conversation,
    yaml_io,
)


def _conversation() -> Conversation:
    conversation = Conversation.init()
    round = Round.create("q")
    round.add_post(Post.create("q", "User", "Planner"))
    conversation.add_round(round)
    return conversation


def test_uses_libyaml_when_present():
    if not yaml.__with_libyaml__:
        pytest.skip("pyyaml built without libyaml")
    assert issubclass(yaml_io._Loader, yaml.CSafeLoader)
    assert issubclass(yaml_io._Dumper, yaml.CSafeDumper)


def test_loader_is_a_safe_loader():
    assert issubclass(yaml_io._Loader, (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    assert issubclass(yaml_io._PyLoader, yaml.SafeLoader)


def test_dump_keeps_key_order():
    assert dump_yaml({"b": 1, "a": 2}) == "b: 1\na: 2\n"


def test_dump_writes_unicode_as_is():
    assert dump_yaml({"t": "日本語 ✓ é"}) == "t: 日本語 ✓ é\n"


def test_dump_never_writes_aliases():
    shared = {"x": 1}
    assert "&" not in dump_yaml({"a": shared, "b": shared})


def test_dump_refuses_non_plain_data_naming_where():
    with pytest.raises(ValueError, match=r"rounds\[0\]\.extra\.obj .*object"):
        dump_yaml({"rounds": [{"extra": {"obj": object()}}]})


def test_save_refuses_non_plain_extra_and_writes_nothing(tmp_path):
    conversation = _conversation()
    conversation.rounds[0].post_list[0].extra["bad"] = {1, 2}
    with pytest.raises(ValueError, match=r"extra\.bad"):
        save_conversation(conversation, tmp_path / "c.yaml")
    assert list(tmp_path.iterdir()) == []


def test_failed_save_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "c.yaml"
    save_conversation(_conversation(), path)
    before = path.read_bytes()
    broken = _conversation()
    broken.rounds[0].extra["bad"] = object()
    with pytest.raises(ValueError):
        save_conversation(broken, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_failure_while_writing_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "c.yaml"
    path.write_text("old: true\n", encoding="utf-8")

    def fail_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(yaml_io.os, "replace", fail_replace)
    with pytest.raises(OSError, match="disk full"):
        save_conversation(_conversation(), path)
    assert path.read_text(encoding="utf-8") == "old: true\n"
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_save_keeps_an_existing_files_permissions(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("x: 1\n", encoding="utf-8")
    os.chmod(path, 0o640)
    save_conversation(_conversation(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_new_file_is_readable_by_others_per_umask(tmp_path):
    path = tmp_path / "c.yaml"
    save_conversation(_conversation(), path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("text", ["a\x85", "\x85", "x\u2028y", "a\nb\u2029c", "\ufeffa"])
@pytest.mark.parametrize("base", [yaml.SafeDumper, getattr(yaml, "CSafeDumper", yaml.SafeDumper)])
def test_unicode_line_breaks_round_trip_with_either_dumper(text, base):
    dumped = yaml.dump({"c": text}, Dumper=yaml_io._make_dumper(base), allow_unicode=True)
    assert yaml_io.load_yaml_text(dumped) == {"c": text}


def test_multi_line_text_is_written_as_a_literal_block():
    assert dump_yaml({"c": "a\nb"}) == "c: |-\n  a\n  b\n"


def test_text_a_block_cannot_hold_falls_back_and_round_trips():
    text = "trailing space \n\tand tab\x07bell"
    assert yaml_io.load_yaml_text(dump_yaml({"c": text})) == {"c": text}


def test_saved_attachment_shape_is_taskweavers(tmp_path):
    conversation = _conversation()
    conversation.rounds[0].post_list[0].add_attachment(
        Attachment.create(AttachmentType.thought, "t", id="atta-1")
    )
    save_conversation(conversation, tmp_path / "c.yaml")
    text = (tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert "    - id: atta-1\n      type: thought\n      content: t\n      extra: null\n" in text


def test_save_refuses_a_text_attachment_that_could_never_be_loaded_back(tmp_path):
    conversation = _conversation()
    conversation.rounds[0].post_list[0].add_attachment(Attachment.create(AttachmentType.text, "t"))
    with pytest.raises(
        ValueError, match="round 0, post 0, attachment 0: key 'type': attachment type 'text' cannot be saved"
    ):
        save_conversation(conversation, tmp_path / "c.yaml")
    assert list(tmp_path.iterdir()) == []


def test_loading_restores_the_garbage_collector(tmp_path):
    save_conversation(_conversation(), tmp_path / "c.yaml")
    Conversation.from_yaml(tmp_path / "c.yaml")
    assert gc.isenabled()


def test_a_failed_load_restores_the_garbage_collector(tmp_path):
    (tmp_path / "c.yaml").write_text("rounds: [", encoding="utf-8")
    with pytest.raises(ValueError):
        Conversation.from_yaml(tmp_path / "c.yaml")
    assert gc.isenabled()


def test_write_text_atomic_creates_and_replaces(tmp_path):
    yaml_io.write_text_atomic(tmp_path / "f.txt", "one")
    yaml_io.write_text_atomic(tmp_path / "f.txt", "two ✓")
    assert (tmp_path / "f.txt").read_text(encoding="utf-8") == "two ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_save_yaml_file_and_load_yaml_file_round_trip(tmp_path):
    data = {"b": [1, "two", None], "a": {"x": "y\nz"}}
    yaml_io.save_yaml_file(tmp_path / "d.yaml", data)
    assert yaml_io.load_yaml_file(tmp_path / "d.yaml") == data


def test_conversation_dict_is_to_dict_when_no_folder_given():
    conversation = _conversation()
    assert conversation_dict(conversation) == conversation.to_dict()


def test_a_lone_surrogate_is_saved_escaped_and_loads_back(tmp_path):
    # json.loads('"\\ud83d"') from a model's stray escape; libyaml alone can neither write nor read it.
    conversation = Conversation.init()
    round = Round.create("q")
    round.add_post(Post.create("half \ud83d emoji", "Planner", "User"))
    conversation.add_round(round)
    path = tmp_path / "c.yaml"
    save_conversation(conversation, path)
    assert '"half \\uD83D emoji"' in path.read_text(encoding="utf-8")
    assert load_conversation(path).to_dict() == conversation.to_dict()
