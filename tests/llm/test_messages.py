"""Msg and content blocks (AgentScope's shape), the one conversion to OpenAI's format, Post <-> Msg."""

from __future__ import annotations

import json

import pytest

from twnb.llm.messages import (
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    msg_to_post,
    post_to_msg,
    to_openai_messages,
)
from twnb.memory import Attachment, AttachmentType, Post, SharedMemoryEntry

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def rich_msg() -> Msg:
    return Msg(
        "CodeInterpreter",
        "assistant",
        [
            TextBlock(type="text", text="Here is the sum."),
            ThinkingBlock(type="thinking", thinking="private reasoning"),
            ToolUseBlock(
                type="tool_use", id="call-1", name="python", input={"code": "1 + 1"}, raw_input="1 + 1"
            ),
            ToolResultBlock(
                type="tool_result",
                id="call-1",
                name="python",
                output=[
                    TextBlock(type="text", text="2"),
                    ImageBlock(
                        type="image", source=Base64Source(type="base64", media_type="image/png", data=PNG_B64)
                    ),
                ],
            ),
        ],
        {"note": "kept"},
    )


# --- Msg ----------------------------------------------------------------------------------------


def test_msg_round_trips_through_a_json_dict():
    msg = rich_msg()
    again = Msg.from_dict(json.loads(json.dumps(msg.to_dict())))
    assert again == msg
    assert (again.id, again.timestamp) == (msg.id, msg.timestamp)


def test_to_dict_has_exactly_agentscopes_keys():
    assert set(Msg("a", "user", "hi").to_dict()) == {"id", "name", "role", "content", "metadata", "timestamp"}


def test_to_dict_copies_so_the_msg_cannot_be_changed_through_it():
    msg = rich_msg()
    msg.to_dict()["content"][0]["text"] = "changed"
    assert msg.content[0]["text"] == "Here is the sum."


def test_a_misplaced_role_is_refused_naming_the_argument_order():
    with pytest.raises(ValueError, match=r"got 'hello' \(the order is Msg\(name, role, content\)\)"):
        Msg("User", "hello", "user")  # type: ignore[arg-type]


def test_from_dict_names_missing_keys():
    with pytest.raises(ValueError, match="missing: role"):
        Msg.from_dict({"name": "a", "content": "x"})


def test_get_text_content_joins_text_blocks_and_skips_thinking():
    assert rich_msg().get_text_content() == "Here is the sum."
    assert Msg("a", "user", "").get_text_content() == ""
    assert Msg("a", "assistant", [ThinkingBlock(type="thinking", thinking="x")]).get_text_content() is None


def test_get_and_has_content_blocks_filter_by_type():
    msg = rich_msg()
    assert [b["type"] for b in msg.get_content_blocks()] == ["text", "thinking", "tool_use", "tool_result"]
    assert [b["id"] for b in msg.get_content_blocks("tool_use")] == ["call-1"]
    assert len(msg.get_content_blocks(["text", "thinking"])) == 2
    assert msg.has_content_blocks("tool_result") and not msg.has_content_blocks("image")
    assert Msg("a", "user", "").has_content_blocks("text")  # str content is one text block, as in AgentScope


# --- to_openai_messages -------------------------------------------------------------------------


def test_plain_messages_become_plain_strings():
    msgs = [Msg("system", "system", "Be brief."), Msg("User", "user", [TextBlock(type="text", text="hi")])]
    assert to_openai_messages(msgs) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


def test_thinking_is_never_sent_back_and_tool_calls_are_split_out():
    converted = to_openai_messages([rich_msg()])
    assert "private reasoning" not in json.dumps(converted)
    assert converted[0] == {
        "role": "assistant",
        "content": "Here is the sum.",
        "tool_calls": [
            {"id": "call-1", "type": "function", "function": {"name": "python", "arguments": "1 + 1"}}
        ],
    }
    assert converted[1] == {"role": "tool", "tool_call_id": "call-1", "content": "2"}
    # A tool message cannot hold an image: it follows as a user message.
    assert converted[2]["role"] == "user"
    assert converted[2]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG_B64}"},
    }


def test_user_images_become_image_url_parts_for_vision_models():
    msg = Msg(
        "User",
        "user",
        [
            TextBlock(type="text", text="What is this?"),
            ImageBlock(type="image", source=URLSource(type="url", url="https://example.org/cat.png")),
        ],
    )
    assert to_openai_messages([msg]) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "https://example.org/cat.png"}},
            ],
        }
    ]


def test_without_vision_images_become_a_short_note():
    msg = Msg(
        "User",
        "user",
        [ImageBlock(type="image", source=Base64Source(type="base64", media_type="image/png", data=PNG_B64))],
    )
    assert to_openai_messages([msg], vision=False) == [
        {"role": "user", "content": "[image: image/png image]"}
    ]


def test_a_base64_source_that_is_already_a_data_url_is_used_as_is():
    url = f"data:image/jpeg;base64,{PNG_B64}"
    msg = Msg(
        "User",
        "user",
        [ImageBlock(type="image", source=Base64Source(type="base64", media_type="image/jpeg", data=url))],
    )
    assert to_openai_messages([msg])[0]["content"][0]["image_url"]["url"] == url


# --- Post <-> Msg ---------------------------------------------------------------------------------


def code_interpreter_post() -> Post:
    post = Post.create("Done: the sum is 2.", "CodeInterpreter", "Planner")
    for kind, content in [
        ("thought", "I will add the numbers."),
        ("reply_type", "python"),
        ("reply_content", "x = 1 + 1\nx"),
        ("verification", "CORRECT"),
        ("execution_status", "SUCCESS"),
        ("execution_result", "2"),
        ("artifact_paths", ["plots/a.png", "data/out.csv"]),
        ("code_error", ""),
    ]:
        post.add_attachment(Attachment.create(kind, content))
    post.attachment_list[5].extra = {
        "outputs": [{"output_type": "display_data", "data": {"image/png": PNG_B64}}]
    }
    post.extra = {"usage": {"prompt_tokens": 10}, "reasoning": "thinking text"}
    return post


def test_a_post_maps_onto_blocks_as_the_reference_says():
    msg = post_to_msg(code_interpreter_post(), round_id="round-1")
    assert (msg.name, msg.role) == ("CodeInterpreter", "assistant")
    assert [b["type"] for b in msg.content] == ["text", "thinking", "tool_use", "text", "tool_result"]
    tool_use, result = msg.content[2], msg.content[4]
    assert tool_use["input"] == {"code": "x = 1 + 1\nx"} and result["id"] == tool_use["id"]
    assert [b["type"] for b in result["output"]] == ["text", "image"]
    assert msg.metadata["twnb"]["send_to"] == "Planner"
    assert msg.metadata["twnb"]["round_id"] == "round-1"


def test_a_user_post_is_a_user_msg():
    msg = post_to_msg(Post.create("what is 1 + 1?", "User", "Planner"))
    assert msg.role == "user"
    assert to_openai_messages([msg]) == [{"role": "user", "content": "what is 1 + 1?"}]


def test_post_to_msg_to_json_and_back_is_lossless_field_by_field():
    post = code_interpreter_post()
    msg = Msg.from_dict(json.loads(json.dumps(post_to_msg(post).to_dict())))
    back = msg_to_post(msg)
    assert back == post
    assert back.to_dict() == post.to_dict()


ROUND_TRIP_CASES = [
    ("init_plan", "1. load <sequentially depends on 0>", None),
    ("plan", "1. load", None),
    ("current_plan_step", "1", None),
    ("plan_reasoning", "because", None),
    ("stop", "InProcess", None),
    ("reply_type", "text", None),
    ("revise_message", "fix the import", None),
    ("function", '{"name": "f", "arguments": "{\\"a\\": 1}"}', None),
    ("function", "not json at all", None),
    ("web_exploring_plan", "search", None),
    ("web_exploring_screenshot", "https://example.org/s.png", None),
    ("web_exploring_link", "https://example.org", None),
    ("invalid_response", "garbage", None),
    ("text", "old style text", None),
    ("image_url", "data:image/png;base64,AAAA", None),
    ("shared_memory_entry", "plan", SharedMemoryEntry.create("plan", "the plan", "conversation")),
]


@pytest.mark.parametrize(("kind", "content", "extra"), ROUND_TRIP_CASES)
def test_every_attachment_type_survives_the_round_trip(kind, content, extra):
    post = Post.create("m", "Planner", "User")
    post.add_attachment(Attachment.create(kind, content, extra=extra))
    back = msg_to_post(Msg.from_dict(json.loads(json.dumps(post_to_msg(post).to_dict()))))
    assert back == post


def test_text_reply_content_is_a_text_block_not_code():
    post = Post.create("", "CodeInterpreter", "Planner")
    post.add_attachment(Attachment.create("reply_type", "text"))
    post.add_attachment(Attachment.create("reply_content", "I cannot do that."))
    msg = post_to_msg(post)
    assert not msg.has_content_blocks("tool_use")
    assert msg_to_post(msg) == post


def test_a_msg_made_elsewhere_becomes_a_post_with_its_text():
    post = msg_to_post(Msg("User", "user", "hello"))
    assert (post.send_from, post.send_to, post.message, post.attachment_list) == (
        "User",
        "Unknown",
        "hello",
        [],
    )


def test_every_attachment_type_is_covered_by_the_mapping():
    covered = {
        "thought",
        "reply_type",
        "reply_content",
        "verification",
        "execution_status",
        "execution_result",
        "artifact_paths",
        "code_error",
    }
    covered |= {case[0] for case in ROUND_TRIP_CASES}
    assert covered == {t.value for t in AttachmentType}
