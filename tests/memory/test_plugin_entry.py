"""PluginEntry: read in the plugin-YAML schema, written back in it as plain data."""

import pytest

from twnb.memory import PluginEntry

SPEC = {
    "name": "fetch",
    "enabled": True,
    "required": False,
    "plugin_only": True,
    "description": "d",
    "parameters": [{"name": "ticker", "type": "string", "required": True, "description": "t"}],
    "returns": [{"name": "df", "type": "DataFrame", "description": "r"}],
    "configurations": {"key": "v"},
}


def test_reads_every_schema_field():
    entry = PluginEntry.from_yaml_content(SPEC)
    assert (entry.name, entry.plugin_only, entry.configurations) == ("fetch", True, {"key": "v"})
    assert entry.parameters[0]["name"] == "ticker"


def test_to_dict_writes_the_schema_back_in_order():
    assert PluginEntry.from_yaml_content(SPEC).to_dict() == SPEC
    assert list(PluginEntry.from_yaml_content(SPEC).to_dict()) == list(SPEC)


def test_defaults_follow_taskweaver():
    entry = PluginEntry.from_yaml_content({"name": "p"})
    assert (entry.enabled, entry.required, entry.plugin_only, entry.parameters) == (True, False, False, [])


def test_impl_is_code_else_the_name():
    assert PluginEntry.from_yaml_content({"name": "p"}).impl == "p"
    assert PluginEntry.from_yaml_content({"name": "p", "code": "impl_p"}).impl == "impl_p"


def test_config_is_the_configurations():
    assert PluginEntry.from_yaml_content(SPEC).config == {"key": "v"}


def test_unknown_keys_are_kept_after_the_schema():
    data = {**SPEC, "examples": "fetch('MSFT')"}
    assert list(PluginEntry.from_yaml_content(data).to_dict().items())[-1] == ("examples", "fetch('MSFT')")


def test_a_parameter_without_a_name_is_refused():
    with pytest.raises(ValueError, match="'name'"):
        PluginEntry.from_yaml_content({"name": "p", "parameters": [{"type": "int"}]})


def test_a_flag_that_is_not_boolean_is_refused():
    with pytest.raises(ValueError, match="'enabled'"):
        PluginEntry.from_yaml_content({"name": "p", "enabled": "yes please"})
