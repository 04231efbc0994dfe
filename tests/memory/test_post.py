"""Post behaves as TaskWeaver's, plus twnb's `extra`."""

import re

from twnb.memory import Attachment, AttachmentType, Post


def _post() -> Post:
    post = Post.create("hello", "Planner", "CodeInterpreter")
    post.add_attachment(Attachment.create(AttachmentType.thought, "t1", id="atta-1"))
    post.add_attachment(Attachment.create(AttachmentType.plan, "p", id="atta-2"))
    post.add_attachment(Attachment.create(AttachmentType.thought, "t2", id="atta-3"))
    return post


def test_create_defaults_send_to_unknown_and_empty_attachments():
    post = Post.create("m", "User")
    assert (post.send_to, post.attachment_list, post.extra) == ("Unknown", [], {})


def test_create_turns_a_none_message_into_empty_text():
    assert Post.create(None, "User").message == ""


def test_get_attachment_returns_every_attachment_of_a_type_in_order():
    assert [a.content for a in _post().get_attachment(AttachmentType.thought)] == ["t1", "t2"]


def test_del_attachment_removes_every_listed_type():
    post = _post()
    post.del_attachment([AttachmentType.thought])
    assert [a.type for a in post.attachment_list] == [AttachmentType.plan]


def test_to_dict_keys_in_taskweavers_order_without_empty_extra():
    assert list(_post().to_dict()) == ["id", "message", "send_from", "send_to", "attachment_list"]


def test_to_dict_writes_extra_last_when_not_empty():
    post = _post()
    post.extra["usage"] = {"prompt_tokens": 3}
    data = post.to_dict()
    assert list(data)[-1] == "extra"
    assert data["extra"] == {"usage": {"prompt_tokens": 3}}


def test_from_dict_gives_a_new_id():
    data = _post().to_dict()
    assert Post.from_dict(data).id != data["id"]


def test_from_dict_keep_ids_keeps_post_and_attachment_ids():
    data = _post().to_dict()
    assert Post.from_dict(data, keep_ids=True).to_dict() == data


def test_from_dict_reads_an_empty_attachment_list_as_none():
    post = Post.from_dict(
        {"message": "m", "send_from": "User", "send_to": "Planner", "attachment_list": None}
    )
    assert post.attachment_list == []


def test_from_dict_accepts_a_missing_attachment_list():
    assert Post.from_dict({"message": "m", "send_from": "User", "send_to": "Planner"}).attachment_list == []


def test_from_dict_reads_extra():
    data = {"message": "m", "send_from": "User", "send_to": "Planner", "extra": {"timing": {"s": 1}}}
    assert Post.from_dict(data).extra == {"timing": {"s": 1}}


def test_repr_matches_taskweavers_layout():
    post = Post.create("hi", "User", "Planner", [Attachment.create(AttachmentType.thought, "x")])
    assert repr(post) == "* Post: User -> Planner:\n    # Message: hi\n    # Attachment List: [THOUGHT: x]"


def test_to_dict_does_not_share_extra_with_the_post():
    post = _post()
    post.extra["usage"] = {"n": 1}
    post.to_dict()["extra"]["usage"]["n"] = 2
    assert post.extra == {"usage": {"n": 1}}


def test_post_ids_look_like_taskweavers():
    assert re.fullmatch(r"post-\d{8}-\d{6}-[0-9a-f]{8}", _post().id)
