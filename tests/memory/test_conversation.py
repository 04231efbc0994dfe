"""Conversation: TaskWeaver's API, plain-data `to_dict`, ids kept on twnb's load path."""

import yaml

from twnb.memory import Conversation, PluginEntry, Post, Round


def _conversation() -> Conversation:
    conversation = Conversation.init()
    round = Round.create("q")
    round.add_post(Post.create("q", "User", "Planner"))
    round.add_post(Post.create("do it", "Planner", "CodeInterpreter"))
    conversation.add_round(round)
    return conversation


def test_init_gives_an_id_and_empty_enabled_conversation():
    conversation = Conversation.init()
    assert conversation.id.startswith("conv-")
    assert (conversation.rounds, conversation.plugins, conversation.roles, conversation.enabled) == (
        [],
        [],
        [],
        True,
    )


def test_add_round_appends():
    conversation = Conversation.init()
    round = Round.create("q")
    conversation.add_round(round)
    assert conversation.rounds == [round]


def test_to_dict_keys_in_taskweavers_order():
    assert list(_conversation().to_dict()) == ["id", "plugins", "roles", "enabled", "rounds"]


def test_to_dict_lists_roles_sorted_from_the_posts():
    assert _conversation().to_dict()["roles"] == ["CodeInterpreter", "Planner", "User"]


def test_to_dict_writes_plugins_in_the_plugin_yaml_schema():
    conversation = _conversation()
    conversation.plugins.append(
        PluginEntry(name="p", description="d", parameters=[{"name": "a", "type": "int", "required": True}])
    )
    assert list(conversation.to_dict()["plugins"][0]) == [
        "name",
        "enabled",
        "required",
        "plugin_only",
        "description",
        "parameters",
        "returns",
        "configurations",
    ]


def test_to_dict_with_plugins_is_safe_dump_able():
    conversation = _conversation()
    conversation.plugins.append(PluginEntry(name="p", description="d", configurations={"k": "v"}))
    data = conversation.to_dict()
    assert yaml.safe_load(yaml.safe_dump(data, sort_keys=False)) == data


def test_to_dict_keeps_unknown_top_level_keys_after_taskweavers():
    conversation = _conversation()
    conversation.unknown_keys["plugin_only"] = True
    assert list(conversation.to_dict().items())[-1] == ("plugin_only", True)


def test_from_dict_keeps_ids_by_default():
    data = _conversation().to_dict()
    assert Conversation.from_dict(data).to_dict() == data


def test_from_dict_keep_ids_false_gives_new_ids_like_taskweaver():
    data = _conversation().to_dict()
    loaded = Conversation.from_dict(data, keep_ids=False)
    assert loaded.id != data["id"]
    assert loaded.rounds[0].id != data["rounds"][0]["id"]


def test_from_dict_gives_new_ids_where_missing():
    loaded = Conversation.from_dict({"rounds": [{"user_query": "q", "state": "created", "post_list": []}]})
    assert loaded.id.startswith("conv-")
    assert loaded.rounds[0].id.startswith("round-")


def test_from_dict_enabled_defaults_to_true():
    assert Conversation.from_dict({"rounds": []}).enabled is True


def test_from_dict_reads_enabled_false():
    assert Conversation.from_dict({"enabled": False, "rounds": []}).enabled is False


def test_from_dict_computes_roles_from_the_posts():
    assert Conversation.from_dict(_conversation().to_dict()).roles == ["CodeInterpreter", "Planner", "User"]
