"""The launcher's settings, resolved by whoever starts the kernel and passed in: what the launcher
reads is what the settings say, the key travels apart from them, and no secret-named variable of the
starter reaches the launcher's environment."""

from __future__ import annotations

from pathlib import Path

from twnb.config import CONFINED_ENV, PLACEHOLDER_API_KEY, resolve_settings
from twnb.confine import confined_launch
from twnb.confine import launcher as launcher_module
from twnb.confine.launch_settings import KEY_ENV, LAUNCH_ENV, LaunchSettings
from twnb.confine.resolve_launch import launch_settings

KEY = "sk-proj-launchTEST0123456789abcdef"


def test_the_launchers_own_names_agree_with_the_settings_table() -> None:
    assert launcher_module.CONFINED_ENV == CONFINED_ENV
    assert launcher_module.PLACEHOLDER_API_KEY == PLACEHOLDER_API_KEY


def test_launch_settings_travel_as_json_unchanged(tmp_path: Path) -> None:
    environ = {
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "TWNB_CONFINE_READ": "/data",
    }
    resolved = resolve_settings(environ=environ, workdir=tmp_path, home=tmp_path / "home")
    settings, key = launch_settings(resolved)
    assert LaunchSettings.from_json(settings.to_json()) == settings
    assert settings.upstream_url == "http://127.0.0.1:9/v1" and settings.confine_read == ("/data",)
    assert key == KEY and KEY not in settings.to_json()


def test_the_launchers_environment_has_the_key_apart_and_no_secret_named_variable(tmp_path: Path) -> None:
    environ = {"OPENAI_API_KEY": KEY, "DB_PASSWORD": "hunter2", "PATH": "/usr/bin"}
    launch = confined_launch(tmp_path, environ)
    env = launch.environment(environ)
    assert env[KEY_ENV] == KEY and LAUNCH_ENV in env and env["PATH"] == "/usr/bin"
    assert "OPENAI_API_KEY" not in env and "DB_PASSWORD" not in env
    assert launch.argv[1:] == ["-m", "twnb.confine", "-f", "{connection_file}"]


def test_the_examples_folder_is_read_only_for_the_kernel_as_plugin_folders_are(tmp_path: Path) -> None:
    resolved = resolve_settings(
        environ={"TWNB_EXAMPLES_DIR": "examples"}, workdir=tmp_path, home=tmp_path / "home"
    )
    settings, _ = launch_settings(resolved)
    assert settings.read_only == ("plugins", "examples")
