"""The plugin settings: plugin_dirs, plugin_config, plugin_only, mcp_servers, mcp_timeout (read from
every place a setting may be, checked with a clear error), and the secrets they hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twnb.config.redaction import Redactor
from twnb.config.resolution import resolve_settings
from twnb.config.settings import SettingsError
from twnb.config.settings_secrets import settings_secrets


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    workdir, home = tmp_path / "nb", tmp_path / "home"
    workdir.mkdir()
    home.mkdir()
    return workdir, home


def resolve(dirs, **kwargs):
    workdir, home = dirs
    kwargs.setdefault("environ", {})
    return resolve_settings(workdir=workdir, home=home, **kwargs)


def test_plugin_dirs_come_from_the_environment_separated_by_the_path_separator(dirs):
    settings = resolve(dirs, environ={"TWNB_PLUGIN_DIRS": f"plugins{os.pathsep}/opt/more"}).settings
    assert settings.plugin_dirs == ("plugins", "/opt/more")


def test_plugin_dirs_come_from_twnb_yaml_and_from_config(dirs):
    (dirs[0] / "twnb.yaml").write_text("plugins:\n  dirs: [tools, shared/plugins]\n")
    assert resolve(dirs).settings.plugin_dirs == ("tools", "shared/plugins")
    assert resolve(dirs, traitlets={"plugin_dirs": ["x"]}).settings.plugin_dirs == ("x",)


def test_plugin_config_is_a_mapping_per_plugin_kept_whole(dirs):
    (dirs[0] / "twnb.yaml").write_text("plugins:\n  config:\n    sql.pull:\n      db: sqlite:///a.db\n")
    assert resolve(dirs).settings.plugin_config == {"sql.pull": {"db": "sqlite:///a.db"}}


def test_mcp_servers_from_twnb_yaml(dirs):
    (dirs[0] / "twnb.yaml").write_text(
        "mcp:\n  servers:\n    files:\n      command: python\n      args: [server.py, 3]\n"
        "      env: {ROOT: /data}\n    search:\n      url: http://127.0.0.1:8000/mcp\n  timeout: 15\n"
    )
    settings = resolve(dirs).settings
    assert settings.mcp_servers == {
        "files": {"command": "python", "args": ["server.py", "3"], "env": {"ROOT": "/data"}},
        "search": {"url": "http://127.0.0.1:8000/mcp"},
    }
    assert settings.mcp_timeout == 15.0


@pytest.mark.parametrize(
    ("servers", "says"),
    [
        ({"files": {"args": ["x"]}}, "'files' needs a command (stdio) or a url (streamable HTTP), not both"),
        ({"files": {"command": "python", "url": "http://x"}}, "not both"),
        (
            {"files": {"command": "python", "port": 3}},
            "'files' has port (it may have command, args, env, cwd)",
        ),
        ({"files": {"command": "python", "args": "server.py"}}, "'files' args must be a list of strings"),
        ({"files": {"command": "python", "env": {"A": ["b"]}}}, "'files' env must map names to strings"),
        ({"files": {"url": "ftp://host/mcp"}}, "'files' url must be an http(s) URL"),
        ({"my server": {"command": "python"}}, "a server's name is a word"),
        (["python"], "MCP servers by name"),
    ],
)
def test_a_wrong_mcp_server_is_a_clear_error(dirs, servers, says):
    with pytest.raises(SettingsError, match="mcp_servers from %config TaskWeaverMagics") as error:
        resolve(dirs, traitlets={"mcp_servers": servers})
    assert says in str(error.value)


def test_plugin_only_is_off_unless_set(dirs):
    assert resolve(dirs).settings.plugin_only is False
    assert resolve(dirs, overrides={"plugin_only": True}).settings.plugin_only is True


def test_secrets_in_plugin_config_and_mcp_env_and_headers_are_found_by_their_names():
    class Plain:
        def __init__(self) -> None:
            self.plugin_config = {"sql": {"api_key": "plugin-key-0123456789", "table": "orders-by-month"}}
            self.mcp_servers = {
                "files": {
                    "command": "x",
                    "env": {"GITHUB_TOKEN": "ghp-token-abcdefgh", "ROOT": "/data/shared/x"},
                },
                "web": {"url": "http://h", "headers": {"Authorization": "Bearer header-token-987654"}},
            }

    assert settings_secrets(Plain()) == [
        "plugin-key-0123456789",
        "ghp-token-abcdefgh",
        "Bearer header-token-987654",
        "header-token-987654",
    ]


def test_the_settings_redactor_knows_those_secrets_from_the_start(dirs):
    resolved = resolve(
        dirs, traitlets={"mcp_servers": {"files": {"command": "x", "env": {"DB_PASSWORD": "pw-1234567890"}}}}
    )
    redactor = Redactor.from_settings(resolved, environ={})
    assert "pw-1234567890" not in redactor.redact("the server said pw-1234567890")
    assert "pw-1234567890" not in redactor.redact(resolved.format_table())
