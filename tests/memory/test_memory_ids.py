"""Ids are made exactly as TaskWeaver makes them."""

import re

from twnb.base import create_id
from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round, SharedMemoryEntry

CREATED = r"\d{8}-\d{6}-[0-9a-f]{8}"
LOADED = r"[0-9a-f]{12}"


def test_create_id_is_utc_timestamp_and_8_hex():
    assert re.fullmatch(CREATED, create_id())


def test_create_id_length_sets_random_bytes():
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{12}", create_id(6))


def test_created_objects_carry_taskweavers_prefixes():
    assert re.fullmatch("post-" + CREATED, Post.create("m", "User").id)
    assert re.fullmatch("round-" + CREATED, Round.create("q").id)
    assert re.fullmatch("conv-" + CREATED, Conversation.init().id)
    assert re.fullmatch("atta-" + CREATED, Attachment.create(AttachmentType.thought, "t").id)
    assert re.fullmatch("sme-" + CREATED, SharedMemoryEntry.create("plan", "c", "round").id)


def test_from_dict_gives_new_12_hex_ids_like_taskweaver():
    post = Post.from_dict({"id": "post-keep", "message": "m", "send_from": "User", "send_to": "Planner"})
    round = Round.from_dict({"id": "round-keep", "user_query": "q", "state": "created", "post_list": []})
    assert re.fullmatch("post-" + LOADED, post.id)
    assert re.fullmatch("round-" + LOADED, round.id)


def test_ids_are_unique():
    assert len({create_id() for _ in range(1000)}) == 1000
