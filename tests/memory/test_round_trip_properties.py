"""Property tests: to_dict/from_dict and YAML save/load round trips with arbitrary text."""

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twnb.memory import (
    Attachment,
    AttachmentType,
    Conversation,
    PluginEntry,
    Post,
    Round,
    SharedMemoryEntry,
    dump_yaml,
    load_conversation,
    load_yaml_text,
    save_conversation,
)

# Text YAML finds awkward: markers, quotes, indicators, line breaks of every kind, BOM, controls,
# lone surrogates.
ODD = st.sampled_from(
    [
        "", " ", "  lead", "trail  ", "\t", "\r", "\r\n", "\n\n", "\x85", "\u2028", "\u2029", "\ufeff",
        "\x00", "\x07", "\x1b[31m", "---", "...", "# not a comment", "key: value", "- item", "&a", "*a",
        "!tag", "%", "@", "`", "|", ">", "'", '"', "null", "~", "true", "no", "0x1F", "1e3", "012",
        "{{DELIMITER_START_TEMPORAL}}", "{{DELIMITER_END_TEMPORAL}}", "日本語", "emoji 🐍", "é\u0301",
        "half \ud83d emoji", "\udcff",  # lone surrogates: a model's stray escape, an undecodable file name
    ]
)  # fmt: skip
TEXT = st.one_of(st.text(), ODD, st.lists(st.one_of(st.text(), ODD), max_size=4).map("".join))
CODE = st.lists(st.one_of(TEXT, st.just("    indented(x)"), st.just("")), max_size=6).map("\n".join)
ANY_TEXT = st.one_of(TEXT, CODE)
ROLE = st.one_of(st.sampled_from(["User", "Planner", "CodeInterpreter"]), TEXT)

PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=8,
)
EXTRA = st.dictionaries(TEXT, PLAIN, max_size=3)
# `text` is a member TaskWeaver's reader refuses (see test_yaml_io), so it cannot round-trip.
SPECIAL = (AttachmentType.artifact_paths, AttachmentType.shared_memory_entry, AttachmentType.text)
TEXT_TYPES = [t for t in AttachmentType if t not in SPECIAL]

# Example counts. Drawing a conversation is what costs (~0.1 s each: up to 3 rounds of 4 posts of 4
# attachments, each text drawn); one holds dozens of texts, a third of them from ODD, so 20
# conversations draw each ODD string several times over. Measured: with the YAML writer's line-break
# quoting removed, or its fallback for lone surrogates, the save/load test failed for each of 20 seeds
# already at 8 examples. A Round holds up to 4 posts: 50 Rounds draw as many posts as the posts' 100.
CONVERSATIONS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@st.composite
def attachments(draw) -> Attachment:
    kind = draw(st.sampled_from(["text", "paths", "shared"]))
    if kind == "paths":
        return Attachment.create(AttachmentType.artifact_paths, draw(st.lists(TEXT.filter(bool), max_size=3)))
    if kind == "shared":
        entry = SharedMemoryEntry.create(
            draw(st.sampled_from(["plan", "experience_sub_path", "example_sub_path"])),
            draw(ANY_TEXT),
            draw(st.sampled_from(["round", "conversation"])),
        )
        return Attachment.create(AttachmentType.shared_memory_entry, draw(ANY_TEXT), extra=entry)
    return Attachment.create(draw(st.sampled_from(TEXT_TYPES)), draw(ANY_TEXT), extra=draw(st.none() | PLAIN))


@st.composite
def posts(draw) -> Post:
    post = Post.create(draw(ANY_TEXT), draw(ROLE), draw(ROLE), draw(st.lists(attachments(), max_size=4)))
    post.extra = draw(EXTRA)
    return post


@st.composite
def rounds(draw) -> Round:
    round = Round.create(draw(ANY_TEXT), state=draw(st.sampled_from(["created", "finished", "failed"])))
    round.post_list = draw(st.lists(posts(), max_size=4))
    round.extra = draw(EXTRA)
    return round


@st.composite
def conversations(draw) -> Conversation:
    conversation = Conversation.init()
    conversation.rounds = draw(st.lists(rounds(), max_size=3))
    conversation.enabled = draw(st.booleans())
    conversation.plugins = draw(
        st.lists(
            st.builds(
                PluginEntry,
                name=TEXT,
                description=ANY_TEXT,
                parameters=st.lists(
                    st.fixed_dictionaries({"name": TEXT, "description": ANY_TEXT}), max_size=2
                ),
                configurations=EXTRA,
            ),
            max_size=2,
        )
    )
    conversation.unknown_keys = draw(
        st.dictionaries(
            TEXT.filter(lambda k: k not in ("id", "plugins", "roles", "enabled", "rounds")), PLAIN, max_size=2
        )
    )
    return conversation


@given(posts())
def test_post_to_dict_from_dict_keeping_ids_is_identity(post):
    assert Post.from_dict(post.to_dict(), keep_ids=True).to_dict() == post.to_dict()


@given(posts())
def test_post_from_dict_changes_only_the_post_id(post):
    data = post.to_dict()
    loaded = Post.from_dict(data).to_dict()
    assert loaded["id"] != data["id"]
    assert {**loaded, "id": None} == {**data, "id": None}


@given(rounds())
@settings(max_examples=50)
def test_round_to_dict_from_dict_keeping_ids_is_identity(round):
    assert Round.from_dict(round.to_dict(), keep_ids=True).to_dict() == round.to_dict()


@given(conversations())
@CONVERSATIONS
def test_conversation_to_dict_is_plain_data_safe_dump_writes(conversation):
    data = conversation.to_dict()
    assert yaml.safe_load(yaml.safe_dump(data, sort_keys=False)) == data


@given(conversations())
@CONVERSATIONS
def test_conversation_from_dict_is_identity(conversation):
    assert Conversation.from_dict(conversation.to_dict()).to_dict() == conversation.to_dict()


@given(conversations())
@CONVERSATIONS
def test_conversation_yaml_save_load_is_identity_ids_included(tmp_path, conversation):
    path = tmp_path / "c.yaml"
    save_conversation(conversation, path)
    assert load_conversation(path).to_dict() == conversation.to_dict()


@given(ANY_TEXT)
def test_any_text_survives_dump_and_load(text):
    assert load_yaml_text(dump_yaml({"content": text})) == {"content": text}


@given(PLAIN)
def test_any_plain_data_survives_dump_and_load(value):
    assert load_yaml_text(dump_yaml({"extra": value})) == {"extra": value}
