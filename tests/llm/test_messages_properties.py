"""Property: any Post, whatever its attachments (types repeated, in any order, empty or odd contents),
goes Post -> Msg -> JSON -> Msg -> Post unchanged, ids and extras included."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from twnb.llm.messages import Msg, msg_to_post, post_to_msg
from twnb.memory import Attachment, AttachmentType, Post

PIECES = st.sampled_from([*'ab "{}\n€数', "http://x/", "data:", "python", "text"])
TEXT = st.lists(PIECES, max_size=6).map("".join)
KINDS = st.sampled_from([t.value for t in AttachmentType if t.value != "shared_memory_entry"])
IMAGE_OUTPUT = {"outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=\n"}}]}
EXTRA = st.one_of(st.none(), st.just(IMAGE_OUTPUT), st.dictionaries(st.sampled_from(["a", "b"]), TEXT))


@st.composite
def posts(draw) -> Post:
    post = Post.create(draw(TEXT), draw(st.sampled_from(["User", "Planner", "CodeInterpreter"])), draw(TEXT))
    for kind, content, extra in draw(st.lists(st.tuples(KINDS, TEXT, EXTRA), max_size=8)):
        if kind == "artifact_paths":
            content = [content] if content else []
        post.add_attachment(Attachment.create(kind, content, extra=extra))
    post.extra = draw(st.dictionaries(st.sampled_from(["usage", "reasoning"]), TEXT))
    return post


# 100 posts of up to 8 attachments draw ~400 attachments: each of the 11 kinds with each of the 3
# shapes of extra ~12 times, over texts from 14 pieces, a space this count covers many times over.
@settings(max_examples=100, deadline=None)
@given(posts())
def test_any_post_survives_msg_and_json(post):
    back = msg_to_post(Msg.from_dict(json.loads(json.dumps(post_to_msg(post).to_dict()))))

    assert back.to_dict() == post.to_dict()
    assert (back.id, back.extra) == (post.id, post.extra)
