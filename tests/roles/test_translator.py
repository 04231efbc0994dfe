"""PostTranslator: LLM reply -> Post (with events and clear errors) and Post -> reply text."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from twnb.memory import (
    Attachment,
    AttachmentDelta,
    AttachmentType,
    MessageDelta,
    Post,
    SharedMemoryEntry,
)
from twnb.roles.errors import TranslationError
from twnb.roles.translator import REASONING_CAP, PostTranslator

translator = PostTranslator()


class Recorder:
    """An observer that keeps every event."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def on_event(self, event: object) -> None:
        self.events.append(event)


def cut(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


CI_REPLY = json.dumps(
    {
        "response": {
            "thought": "Load the file, then count.",
            "reply_type": "python",
            "reply_content": 'import pandas as pd\ndf = pd.read_csv("data.csv")\nlen(df)',
        }
    }
)

# TaskWeaver's tests/unit_tests/test_translator.py inputs.
TW_RESPONSE_STR2 = (
    '{"response": {"thought": "This is the thought", "reply_type": "python", '
    '"reply_content": "print(\'This is the code\')", "execution_status": '
    '"SUCCESS", "execution_result": "This is the execution result", "send_to": '
    '"Planner", "message": "This is the message"}}'
)
TW_RESPONSE_STR_NON_STOP = (
    '{"response": {"thought": "This is the thought", "reply_type": "python", '
    '"reply_content": "print(\'This is the code\')", "execution_status": '
    '"SUCCESS", "execution_result": "This is the execution result", "send_to": '
    '"Planner", "message": "This is '
)


# --------------------------------------------------------------------------- raw_text_to_post


def test_translator_is_constructed_without_arguments():
    assert isinstance(PostTranslator(), PostTranslator)


def test_each_key_becomes_an_attachment_in_reply_order():
    post = translator.raw_text_to_post(cut(CI_REPLY, 4), "CodeInterpreter")
    assert [(a.type, a.content) for a in post.attachment_list] == [
        (AttachmentType.thought, "Load the file, then count."),
        (AttachmentType.reply_type, "python"),
        (AttachmentType.reply_content, 'import pandas as pd\ndf = pd.read_csv("data.csv")\nlen(df)'),
    ]
    assert (post.send_from, post.send_to, post.message) == ("CodeInterpreter", "Unknown", "")


def test_taskweaver_reply_gives_five_attachments_send_to_and_message():
    post = translator.raw_text_to_post(TW_RESPONSE_STR2, "CodeInterpreter")
    assert len(post.attachment_list) == 5
    assert (post.attachment_list[3].type, post.attachment_list[3].content) == (
        AttachmentType.execution_status,
        "SUCCESS",
    )
    assert (post.attachment_list[4].type, post.attachment_list[4].content) == (
        AttachmentType.execution_result,
        "This is the execution result",
    )
    assert (post.send_to, post.message) == ("Planner", "This is the message")


def test_a_truncated_reply_raises_with_the_partial_post_as_taskweaver_kept_it():
    with pytest.raises(TranslationError) as caught:
        translator.raw_text_to_post(TW_RESPONSE_STR_NON_STOP, "CodeInterpreter")
    partial = caught.value.partial_post
    assert caught.value.kind == "truncated"
    assert len(partial.attachment_list) == 5
    assert (partial.send_to, partial.message) == ("Planner", "This is ")
    assert caught.value.raw_text == TW_RESPONSE_STR_NON_STOP


def test_the_truncation_error_can_be_quoted_to_the_model():
    with pytest.raises(TranslationError) as caught:
        translator.raw_text_to_post(TW_RESPONSE_STR_NON_STOP, "CodeInterpreter")
    assert str(caught.value) == (
        'The reply ended before the JSON object was complete (in the value of "message"). '
        'Reply with exactly one JSON object of the form {"response": {...}}.'
    )


def test_a_reply_without_json_raises_with_the_whole_raw_text():
    reply = "I'm sorry, I can't do that."
    with pytest.raises(TranslationError, match="contains no JSON object") as caught:
        translator.raw_text_to_post(cut(reply, 3), "Planner")
    assert (caught.value.kind, caught.value.raw_text) == ("missing", reply)


def test_invalid_json_raises_naming_the_place():
    with pytest.raises(TranslationError, match='after the value of "thought"') as caught:
        translator.raw_text_to_post('{"response": {"thought": "a" "plan": "b"}}', "Planner")
    assert caught.value.kind == "invalid"
    assert caught.value.partial_post.get_attachment(AttachmentType.thought)[0].content == "a"


def test_a_missing_required_key_is_named():
    with pytest.raises(TranslationError) as caught:
        translator.raw_text_to_post(CI_REPLY, "CodeInterpreter", required_keys=["thought", "plan", "stop"])
    assert caught.value.kind == "missing_keys"
    assert str(caught.value) == (
        'The "response" object is missing the required key(s) "plan", "stop" '
        '(it has: "thought", "reply_type", "reply_content").'
    )
    assert len(caught.value.partial_post.attachment_list) == 3


def test_validate_errors_become_translation_errors_carrying_the_post():
    def validate(post: Post) -> None:
        if post.get_attachment(AttachmentType.reply_type)[0].content not in ("python", "text"):
            raise ValueError('"reply_type" must be "python" or "text"')

    reply = '{"response": {"thought": "t", "reply_type": "code", "reply_content": "x"}}'
    with pytest.raises(TranslationError, match='"reply_type" must be "python" or "text"') as caught:
        translator.raw_text_to_post(reply, "CodeInterpreter", validate=validate)
    assert (caught.value.kind, caught.value.raw_text) == ("invalid_value", reply)
    assert caught.value.partial_post.attachment_list[1].content == "code"


def test_validate_may_raise_assertion_error_as_taskweavers_planner_does():
    def validate(post: Post) -> None:
        assert post.send_to != "Planner", "the Planner cannot send a message to itself"

    with pytest.raises(TranslationError, match="cannot send a message to itself"):
        translator.raw_text_to_post(
            '{"response": {"send_to": "Planner", "message": "m"}}', "Planner", validate=validate
        )


def test_a_translation_error_from_validate_gets_the_post_and_raw_text():
    def validate(post: Post) -> None:
        raise TranslationError("bad stop value")

    with pytest.raises(TranslationError) as caught:
        translator.raw_text_to_post(CI_REPLY, "CodeInterpreter", validate=validate)
    assert caught.value.partial_post is not None and caught.value.raw_text == CI_REPLY


def test_translation_error_is_a_value_error():
    assert issubclass(TranslationError, ValueError)


def test_an_unknown_key_is_kept_in_extra_and_is_no_attachment():
    reply = '{"response": {"thought": "t", "confidence": 0.9, "notes": "n"}}'
    post = translator.raw_text_to_post(reply, "CodeInterpreter")
    assert [a.type for a in post.attachment_list] == [AttachmentType.thought]
    assert post.extra["unknown_keys"] == {"confidence": "0.9", "notes": "n"}


def test_the_post_id_is_the_one_given_so_a_retry_reuses_it():
    post = translator.raw_text_to_post(CI_REPLY, "CodeInterpreter", post_id="post-fixed")
    assert post.id == "post-fixed"


def test_each_call_builds_a_fresh_post_so_a_retry_keeps_nothing_of_the_failed_attempt():
    with pytest.raises(TranslationError):
        translator.raw_text_to_post('{"response": {"thought": "first try', "CodeInterpreter", post_id="p1")
    post = translator.raw_text_to_post(CI_REPLY, "CodeInterpreter", post_id="p1")
    assert [a.content for a in post.get_attachment(AttachmentType.thought)] == ["Load the file, then count."]


def test_send_to_defaults_to_the_argument_when_the_reply_has_none():
    post = translator.raw_text_to_post('{"response": {"message": "hi"}}', "Planner", send_to="User")
    assert post.send_to == "User"


def test_non_string_values_become_their_json_text():
    reply = '{"response": {"execution_status": 1, "stop": true, "plan": ["a", "b"], "thought": null}}'
    post = translator.raw_text_to_post(reply, "Planner")
    assert [a.content for a in post.attachment_list] == ["1", "true", '["a", "b"]', "null"]


def test_a_null_message_is_an_empty_message():
    post = translator.raw_text_to_post('{"response": {"message": null, "send_to": null}}', "Planner")
    assert (post.message, post.send_to) == ("", "")


def test_artifact_paths_from_a_reply_are_a_list_of_paths():
    post = translator.raw_text_to_post(
        '{"response": {"artifact_paths": ["a.png", "b.csv"]}}', "CodeInterpreter"
    )
    assert post.attachment_list[0].content == ["a.png", "b.csv"]


def test_think_text_goes_to_extra_reasoning_never_to_message_or_attachments():
    reply = (
        "<think>The user wants a count. SECRET-PLAN</think>\n"
        '```json\n{"response": {"thought": "t", "message": "m"}}\n```'
    )
    post = translator.raw_text_to_post(cut(reply, 5), "Planner")
    assert post.extra["reasoning"] == "The user wants a count. SECRET-PLAN"
    assert "SECRET-PLAN" not in post.message
    assert all("SECRET-PLAN" not in a.content for a in post.attachment_list)
    assert "SECRET-PLAN" not in translator.post_to_raw_text(post)


def test_reasoning_is_capped_with_a_note_of_what_was_dropped():
    reply = "<think>" + "x" * (REASONING_CAP + 5) + '</think>{"response": {"message": "m"}}'
    post = translator.raw_text_to_post(cut(reply, 1000), "Planner")
    assert post.extra["reasoning"] == "x" * REASONING_CAP + "\n[... 5 more characters of reasoning not kept]"


def test_a_reply_without_reasoning_has_no_reasoning_entry():
    assert "reasoning" not in translator.raw_text_to_post(CI_REPLY, "CodeInterpreter").extra


def test_reasoning_is_kept_on_the_partial_post_of_a_failed_attempt():
    with pytest.raises(TranslationError) as caught:
        translator.raw_text_to_post("<think>hmm</think> no json here", "Planner")
    assert caught.value.partial_post.extra["reasoning"] == "hmm"


def test_the_raw_text_is_kept_in_extra_only_when_asked():
    chunks = cut("Sure!\n" + CI_REPLY, 7)
    assert "raw_text" not in translator.raw_text_to_post(chunks, "CodeInterpreter").extra
    post = translator.raw_text_to_post(chunks, "CodeInterpreter", keep_raw_text=True)
    assert post.extra["raw_text"] == "Sure!\n" + CI_REPLY


def test_an_object_without_the_response_wrapper_is_accepted_when_its_keys_are_output_keys():
    reply = '```json\n{"thought": "t", "reply_type": "text", "reply_content": "hello"}\n```'
    post = translator.raw_text_to_post(reply, "CodeInterpreter")
    assert [a.content for a in post.attachment_list] == ["t", "text", "hello"]


def test_an_error_from_the_stream_itself_propagates_unchanged():
    class Dropped(Exception):
        pass

    def stream() -> Iterator[str]:
        yield '{"response": {"message": "hal'
        raise Dropped("connection lost")

    with pytest.raises(Dropped):
        translator.raw_text_to_post(stream(), "Planner")


# --------------------------------------------------------------------------- events


def test_events_arrive_in_order_with_only_the_new_piece_each_time():
    recorder = Recorder()
    chunks = ['{"response": {"thought": "ab', 'cd", "message": "He', 'llo"}}']
    post = translator.raw_text_to_post(chunks, "Planner", recorder, post_id="p7")
    att_id = post.attachment_list[0].id
    assert recorder.events == [
        AttachmentDelta("p7", att_id, AttachmentType.thought, "", False),
        AttachmentDelta("p7", att_id, AttachmentType.thought, "ab", False),
        AttachmentDelta("p7", att_id, AttachmentType.thought, "cd", True),
        MessageDelta("p7", "He", False),
        MessageDelta("p7", "llo", True),
    ]


def test_the_attachment_is_announced_before_any_of_its_text_arrives():
    recorder = Recorder()
    translator.raw_text_to_post(['{"response": {"reply_content": ', '"x"}}'], "CodeInterpreter", recorder)
    first = recorder.events[0]
    assert isinstance(first, AttachmentDelta) and (first.text, first.is_end) == ("", False)


def test_concatenated_deltas_equal_the_final_contents():
    recorder = Recorder()
    post = translator.raw_text_to_post(cut(TW_RESPONSE_STR2, 3), "CodeInterpreter", recorder)
    by_attachment: dict[str, str] = {}
    for event in recorder.events:
        if isinstance(event, AttachmentDelta):
            by_attachment[event.attachment_id] = by_attachment.get(event.attachment_id, "") + event.text
    message = "".join(e.text for e in recorder.events if isinstance(e, MessageDelta))
    assert by_attachment == {a.id: a.content for a in post.attachment_list}
    assert message == post.message


def test_send_to_unknown_keys_and_reasoning_emit_no_events():
    recorder = Recorder()
    translator.raw_text_to_post(
        '<think>r</think>{"response": {"send_to": "User", "zzz": "q"}}', "Planner", recorder
    )
    assert recorder.events == []


def test_a_null_message_emits_an_empty_end_not_the_word_null():
    recorder = Recorder()
    translator.raw_text_to_post('{"response": {"message": null}}', "Planner", recorder, post_id="p")
    assert recorder.events == [MessageDelta("p", "", True)]


# --------------------------------------------------------------------------- parse_llm_output_stream


def test_parse_stream_yields_key_then_pieces_with_literals_as_their_text():
    items = list(translator.parse_llm_output_stream(['{"response": {"stop": tr', 'ue, "n": 1', "2}}"]))
    assert items == [("stop", "", False), ("stop", "true", True), ("n", "", False), ("n", "12", True)]


def test_parse_stream_accepts_think_blocks_and_fences():
    reply = '<think>x</think>```json\n{"response": {"message": "m"}}\n```'
    assert [i for i in translator.parse_llm_output_stream(cut(reply, 2)) if i[2]] == [("message", "m", True)]


# --------------------------------------------------------------------------- post_to_raw_text


def taskweaver_post() -> Post:
    post = Post.create(message="This is the message", send_from="CodeInterpreter", send_to="Planner")
    return post


def test_post_to_raw_text_gives_taskweavers_exact_text():
    post = taskweaver_post()
    assert (
        translator.post_to_raw_text(post, if_format_message=True, if_format_send_to=True)
        == '{"response": {"send_to": "Planner", "message": "This is the message"}}'
    )


def test_post_to_raw_text_without_message_and_send_to_is_an_empty_response():
    assert translator.post_to_raw_text(
        taskweaver_post(), if_format_message=False, if_format_send_to=False
    ) == ('{"response": {}}')


def test_post_to_raw_text_with_attachments_matches_taskweavers_reply():
    post = taskweaver_post()
    post.add_attachment(Attachment.create(type="thought", content="This is the thought"))
    post.add_attachment(Attachment.create(type="reply_type", content="python"))
    post.add_attachment(Attachment.create(type="reply_content", content="print('This is the code')"))
    post.add_attachment(Attachment.create(type="execution_status", content="SUCCESS"))
    post.add_attachment(Attachment.create(type="execution_result", content="This is the execution result"))
    assert translator.post_to_raw_text(post) == TW_RESPONSE_STR2


def test_post_to_raw_text_does_not_modify_the_callers_ignored_types():
    ignored = [AttachmentType.execution_result]
    post = taskweaver_post()
    post.add_attachment(Attachment.create(AttachmentType.execution_result, "r"))
    text = translator.post_to_raw_text(post, ignored_types=ignored)
    assert ignored == [AttachmentType.execution_result]
    assert "execution_result" not in text


def test_post_to_raw_text_always_drops_shared_memory_entries():
    post = taskweaver_post()
    entry = SharedMemoryEntry.create(type="plan", content="p", scope="conversation")
    post.add_attachment(Attachment.create(AttachmentType.shared_memory_entry, "", extra=entry))
    assert "shared_memory_entry" not in translator.post_to_raw_text(post, ignored_types=[])


def test_post_to_raw_text_joins_a_repeated_type_with_a_newline():
    post = taskweaver_post()
    post.add_attachment(Attachment.create("thought", "first"))
    post.add_attachment(Attachment.create("thought", "second"))
    assert json.loads(translator.post_to_raw_text(post))["response"]["thought"] == "first\nsecond"


def test_post_to_raw_text_renders_artifact_paths_one_per_line():
    post = taskweaver_post()
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, ["out/a.png", "out/b.csv"]))
    assert (
        json.loads(translator.post_to_raw_text(post))["response"]["artifact_paths"] == "out/a.png\nout/b.csv"
    )


def test_post_to_raw_text_uses_the_content_formatter():
    post = taskweaver_post()
    post.add_attachment(Attachment.create("thought", "t"))
    text = translator.post_to_raw_text(post, content_formatter=lambda a: a.content.upper())
    assert json.loads(text)["response"]["thought"] == "T"


def test_a_post_survives_post_to_raw_text_then_raw_text_to_post():
    post = translator.raw_text_to_post(TW_RESPONSE_STR2, "CodeInterpreter")
    again = translator.raw_text_to_post(cut(translator.post_to_raw_text(post), 3), "CodeInterpreter")
    assert [(a.type, a.content) for a in again.attachment_list] == [
        (a.type, a.content) for a in post.attachment_list
    ]
    assert (again.send_to, again.message) == (post.send_to, post.message)
