"""Settings resolution: docs/architecture.md contract 4, row by row and layer by layer."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from twnb.config.resolution import resolve_settings
from twnb.config.settings import Settings, SettingsError
from twnb.config.table import DEFAULT_AZURE_API_VERSION, PLACEHOLDER_API_KEY, SETTINGS

CANARY = "sk-canary-0123456789abcdefXYZ"


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


def write_project_yaml(dirs, text: str) -> Path:
    path = dirs[0] / "twnb.yaml"
    path.write_text(text)
    return path


def write_user_yaml(dirs, text: str) -> Path:
    path = dirs[1] / ".config" / "twnb" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


# --- each row of the table ----------------------------------------------------------------------

# (setting, traitlet value, environment variables, YAML text, expected value)
ROWS = [
    ("model", "m", {"TWNB_MODEL": "m"}, "llm:\n  model: m\n", "m"),
    (
        "base_url",
        "http://h:1/v1",
        {"OPENAI_BASE_URL": "http://h:1/v1"},
        "llm:\n  api_base: http://h:1/v1\n",
        "http://h:1/v1",
    ),
    (
        "azure_endpoint",
        "https://a.example",
        {"AZURE_OPENAI_ENDPOINT": "https://a.example"},
        "llm:\n  azure_endpoint: https://a.example\n",
        "https://a.example",
    ),
    (
        "api_version",
        "2024-06-01",
        {"OPENAI_API_VERSION": "2024-06-01"},
        "llm:\n  api_version: 2024-06-01\n",
        "2024-06-01",
    ),
    ("planner_model", "p", {"TWNB_PLANNER_MODEL": "p"}, "planner:\n  model: p\n", "p"),
    ("code_model", "c", {"TWNB_CODE_MODEL": "c"}, "code_interpreter:\n  model: c\n", "c"),
    ("session_dir", "runs", {"TWNB_SESSION_DIR": "runs"}, "session:\n  dir: runs\n", "runs"),
    (
        "artifacts_dir",
        "figures",
        {"TWNB_ARTIFACTS_DIR": "figures"},
        "session:\n  artifacts_dir: figures\n",
        "figures",
    ),
    ("record", True, {"TWNB_RECORD": "yes"}, "session:\n  record: true\n", True),
    ("replay", "c.yaml", {"TWNB_REPLAY": "c.yaml"}, "llm:\n  replay: c.yaml\n", "c.yaml"),
    ("examples_dir", "ex", {"TWNB_EXAMPLES_DIR": "ex"}, "session:\n  examples_dir: ex\n", "ex"),
    (
        "allow_modules",
        ["polars", "duckdb"],
        {"TWNB_ALLOW_MODULES": "polars, duckdb"},
        "code_interpreter:\n  allow_modules: [polars, duckdb]\n",
        ("polars", "duckdb"),
    ),
    (
        "block_functions",
        ["os.remove", "os.unlink"],
        {"TWNB_BLOCK_FUNCTIONS": "os.remove, os.unlink"},
        "code_interpreter:\n  block_functions: [os.remove, os.unlink]\n",
        ("os.remove", "os.unlink"),
    ),
    (
        "prices",
        {"gpt-4.1": {"input": 2, "output": 8}},
        {"TWNB_PRICES": '{"gpt-4.1": {"input": 2, "output": 8}}'},
        "llm:\n  prices:\n    gpt-4.1: {input: 2, output: 8}\n",
        {"gpt-4.1": {"input": 2.0, "output": 8.0}},
    ),
    ("trace", "console", {"TWNB_TRACE": "Console"}, "tracing:\n  mode: console\n", "console"),
]


@pytest.mark.parametrize(
    ("setting", "traitlet", "env", "yaml_text", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_each_row_is_read_from_its_traitlet(dirs, setting, traitlet, env, yaml_text, expected):
    resolved = resolve(dirs, traitlets={setting: traitlet})
    assert getattr(resolved.settings, setting) == expected
    assert resolved.sources[setting].describe() == f"%config TaskWeaverMagics.{setting}"


@pytest.mark.parametrize(
    ("setting", "traitlet", "env", "yaml_text", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_each_row_is_read_from_its_environment_variable(dirs, setting, traitlet, env, yaml_text, expected):
    resolved = resolve(dirs, environ=env)
    assert getattr(resolved.settings, setting) == expected
    assert resolved.sources[setting].describe() == f"{next(iter(env))} (environment)"


@pytest.mark.parametrize(
    ("setting", "traitlet", "env", "yaml_text", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_each_row_is_read_from_the_dotenv_file(dirs, setting, traitlet, env, yaml_text, expected):
    path = dirs[0] / ".env"
    path.write_text("".join(f"{name}={value}\n" for name, value in env.items()))
    resolved = resolve(dirs)
    assert getattr(resolved.settings, setting) == expected
    assert resolved.sources[setting].describe() == f"{next(iter(env))} in {path}"


@pytest.mark.parametrize(
    ("setting", "traitlet", "env", "yaml_text", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_each_row_is_read_from_twnb_yaml(dirs, setting, traitlet, env, yaml_text, expected):
    path = write_project_yaml(dirs, yaml_text)
    resolved = resolve(dirs)
    assert getattr(resolved.settings, setting) == expected
    assert str(path) in resolved.sources[setting].describe()


@pytest.mark.parametrize(
    ("setting", "traitlet", "env", "yaml_text", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_each_row_is_read_from_the_user_config(dirs, setting, traitlet, env, yaml_text, expected):
    path = write_user_yaml(dirs, yaml_text)
    resolved = resolve(dirs)
    assert getattr(resolved.settings, setting) == expected
    assert str(path) in resolved.sources[setting].describe()


# Rows with no environment variable: traitlet and YAML only.
NON_ENV_ROWS = [
    ("api_key_env", "MY_KEY", "llm:\n  api_key_env: MY_KEY\n", "MY_KEY"),
    ("verify", False, "code_interpreter:\n  verify: false\n", False),
    ("max_retries", 5, "code_interpreter:\n  max_retries: 5\n", 5),
    ("timeout", 30, "code_interpreter:\n  timeout: 30\n", 30.0),
    ("max_posts", 7, "session:\n  max_posts: 7\n", 7),
]


@pytest.mark.parametrize(
    ("setting", "traitlet", "yaml_text", "expected"), NON_ENV_ROWS, ids=[r[0] for r in NON_ENV_ROWS]
)
def test_rows_without_a_variable_come_from_traitlet_or_yaml(dirs, setting, traitlet, yaml_text, expected):
    assert getattr(resolve(dirs, traitlets={setting: traitlet}).settings, setting) == expected
    write_project_yaml(dirs, yaml_text)
    assert getattr(resolve(dirs).settings, setting) == expected


def test_defaults_when_nothing_is_configured(dirs):
    s = resolve(dirs).settings
    assert (s.model, s.base_url, s.api_key, s.azure_endpoint) == (None, None, None, None)
    assert (s.api_key_env, s.session_dir, s.verify, s.max_retries, s.timeout, s.max_posts) == (
        "OPENAI_API_KEY",
        ".twnb",
        True,
        3,
        600.0,
        20,
    )
    assert not s.is_azure


# What each kind of row holds once resolved (twnb/config/table.py's KINDS).
KIND_TYPES = {
    "text": str,
    "url": str,
    "secret": str,
    "choice": str,
    "bool": bool,
    "count": int,
    "seconds": float,
    "modules": tuple[str, ...],
    "paths": tuple[str, ...],
    "ports": tuple[str, ...],
    "mapping": dict[str, dict[str, Any]],
    "servers": dict[str, dict[str, Any]],
    "prices": dict[str, dict[str, float]],
}


def test_settings_has_one_typed_attribute_per_row_of_the_table_in_its_order():
    assert [f.name for f in fields(Settings)] == [row.name for row in SETTINGS]


@pytest.mark.parametrize("row", SETTINGS, ids=lambda row: row.name)
def test_each_attribute_has_its_rows_type_and_default(row):
    declared = get_type_hints(Settings)[row.name]
    expected = KIND_TYPES[row.kind] | None if row.default is None else KIND_TYPES[row.kind]
    assert (declared, getattr(Settings(), row.name)) == (expected, row.default)


def test_taskweaver_aliases_are_read(dirs):
    env = {"LLM_MODEL": "tw-model", "LLM_API_BASE": "https://api.openai.com/v1", "LLM_API_KEY": CANARY}
    s = resolve(dirs, environ=env).settings
    assert (s.model, s.base_url, s.api_key) == ("tw-model", "https://api.openai.com/v1", CANARY)


def test_twnb_names_win_over_taskweaver_aliases_in_the_same_layer(dirs):
    env = {
        "LLM_MODEL": "tw",
        "TWNB_MODEL": "twnb",
        "LLM_API_BASE": "http://tw/v1",
        "OPENAI_BASE_URL": "http://o/v1",
    }
    s = resolve(dirs, environ=env).settings
    assert (s.model, s.base_url) == ("twnb", "http://o/v1")


def test_yaml_accepts_taskweaver_style_dotted_keys(dirs):
    write_project_yaml(dirs, "llm.model: dotted\nsession.max_posts: 9\n")
    s = resolve(dirs).settings
    assert (s.model, s.max_posts) == ("dotted", 9)


# --- precedence ---------------------------------------------------------------------------------

LAYERS = ["flag", "%config", "environment", ".env", "twnb.yaml", "user config", "default"]


@pytest.mark.parametrize("top", LAYERS)
def test_precedence_for_the_model_goes_flag_config_env_dotenv_project_user_default(dirs, top):
    """Every layer below `top` also sets the model; the value from `top` must win."""
    present = LAYERS[LAYERS.index(top) :]
    kwargs: dict = {"environ": {}}
    if "flag" in present:
        kwargs["overrides"] = {"model": "flag"}
    if "%config" in present:
        kwargs["traitlets"] = {"model": "%config"}
    if "environment" in present:
        kwargs["environ"] = {"TWNB_MODEL": "environment"}
    if ".env" in present:
        (dirs[0] / ".env").write_text("TWNB_MODEL=.env\n")
    if "twnb.yaml" in present:
        write_project_yaml(dirs, "llm:\n  model: twnb.yaml\n")
    if "user config" in present:
        write_user_yaml(dirs, "llm:\n  model: user config\n")
    resolved = resolve(dirs, **kwargs)
    if top == "default":
        assert resolved.settings.model is None and "model" not in resolved.sources
    else:
        assert resolved.settings.model == top and resolved.sources["model"].layer == top


def test_environment_beats_dotenv_even_through_an_alias(dirs):
    (dirs[0] / ".env").write_text("TWNB_MODEL=from-dotenv\n")
    assert resolve(dirs, environ={"LLM_MODEL": "from-env"}).settings.model == "from-env"


def test_unset_values_in_upper_layers_do_not_hide_lower_ones(dirs):
    resolved = resolve(
        dirs, overrides={"model": None}, traitlets={"model": ""}, environ={"TWNB_MODEL": "env"}
    )
    assert resolved.settings.model == "env"


def test_flags_override_settings_other_than_the_model(dirs):
    write_project_yaml(dirs, "code_interpreter:\n  verify: true\n  timeout: 60\n")
    s = resolve(dirs, overrides={"verify": False, "timeout": 5}).settings
    assert (s.verify, s.timeout) == (False, 5.0)


# --- per-role models ----------------------------------------------------------------------------


def test_per_role_models_default_to_the_model(dirs):
    resolved = resolve(dirs, environ={"TWNB_MODEL": "base"})
    s = resolved.settings
    assert (s.planner_model, s.code_model) == ("base", "base")
    assert s.model_for("Planner") == s.model_for("CodeInterpreter") == "base"
    assert resolved.sources["planner_model"].describe() == "default (same as model)"


def test_a_per_role_model_overrides_the_model_for_that_role_only(dirs):
    s = resolve(dirs, environ={"TWNB_MODEL": "base", "TWNB_CODE_MODEL": "coder"}).settings
    assert (s.model_for("Planner"), s.model_for("CodeInterpreter")) == ("base", "coder")


# --- the API key --------------------------------------------------------------------------------


def test_the_key_never_shows_in_repr_str_to_dict_or_describe(dirs):
    resolved = resolve(dirs, environ={"OPENAI_API_KEY": CANARY, "TWNB_MODEL": "m"})
    assert resolved.settings.api_key == CANARY
    shown = [
        repr(resolved.settings),
        str(resolved.settings),
        repr(resolved),
        str(resolved.settings.to_dict()),
        repr(resolved.describe()),
        resolved.format_table(),
    ]
    for text in shown:
        assert CANARY not in text
    assert resolved.settings.to_dict()["api_key_set"] is True


def test_describe_says_only_where_the_key_came_from(dirs):
    resolved = resolve(dirs, environ={"OPENAI_API_KEY": CANARY})
    row = next(r for r in resolved.describe() if r.setting == "api_key")
    assert (row.value, row.source) == ("set", "set from OPENAI_API_KEY (environment)")


def test_the_key_is_refused_as_a_traitlet_or_flag_without_echoing_it(dirs):
    for layer in ("traitlets", "overrides"):
        with pytest.raises(SettingsError, match="cannot be set through") as info:
            resolve(dirs, **{layer: {"api_key": CANARY}})
        assert CANARY not in str(info.value)


def test_api_key_env_names_the_variable_that_holds_the_key(dirs):
    env = {"OPENAI_API_KEY": "sk-not-this-one-0000000000", "TEAM_KEY": CANARY}
    resolved = resolve(dirs, environ=env, traitlets={"api_key_env": "TEAM_KEY"})
    assert resolved.settings.api_key == CANARY
    assert resolved.sources["api_key"].name == "TEAM_KEY"


def test_a_named_key_variable_that_is_missing_is_a_clear_error(dirs):
    resolved = resolve(dirs, environ={"OPENAI_API_KEY": CANARY}, traitlets={"api_key_env": "TEAM_KEY"})
    with pytest.raises(SettingsError, match="TEAM_KEY, but that variable is not set"):
        resolved.require_api_key()


def test_no_key_for_openai_is_a_clear_error_naming_where_to_put_it(dirs):
    with pytest.raises(SettingsError) as info:
        resolve(dirs).require_api_key()
    message = str(info.value)
    assert "OPENAI_API_KEY" in message and ".env" in message and "never put it in the notebook" in message


def test_a_local_server_without_a_key_gets_the_placeholder(dirs):
    resolved = resolve(dirs, environ={"OPENAI_BASE_URL": "http://localhost:11434/v1", "TWNB_MODEL": "llama3"})
    assert resolved.settings.api_key == PLACEHOLDER_API_KEY
    assert not resolved.settings.has_real_api_key
    assert next(r for r in resolved.describe() if r.setting == "api_key").value == "placeholder"


def test_a_local_server_with_a_key_uses_the_key(dirs):
    env = {"OPENAI_BASE_URL": "http://localhost:8000/v1", "OPENAI_API_KEY": CANARY}
    assert resolve(dirs, environ=env).settings.api_key == CANARY


# --- Azure --------------------------------------------------------------------------------------


def test_azure_endpoint_selects_azure_and_prefers_the_azure_key(dirs):
    env = {
        "AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com",
        "AZURE_OPENAI_API_KEY": CANARY,
        "OPENAI_API_KEY": "sk-openai-not-for-azure-000000",
        "TWNB_MODEL": "my-deployment",
    }
    resolved = resolve(dirs, environ=env)
    s = resolved.settings
    assert s.is_azure and s.api_key == CANARY and s.model == "my-deployment"
    assert s.api_version == DEFAULT_AZURE_API_VERSION
    assert resolved.sources["api_key"].name == "AZURE_OPENAI_API_KEY"


def test_azure_takes_openai_api_key_when_that_is_all_there_is(dirs):
    env = {"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com", "OPENAI_API_KEY": CANARY}
    assert resolve(dirs, environ=env).settings.api_key == CANARY


def test_azure_without_a_key_gets_no_placeholder(dirs):
    resolved = resolve(dirs, environ={"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com"})
    with pytest.raises(SettingsError, match="AZURE_OPENAI_API_KEY"):
        resolved.require_api_key()


# --- nothing configured, bad values ---------------------------------------------------------------


def test_no_model_raises_one_message_listing_what_to_set_and_where(dirs):
    resolved = resolve(dirs)
    with pytest.raises(SettingsError) as info:
        resolved.require_model()
    message = str(info.value)
    for needed in (
        "%config TaskWeaverMagics.model",
        "TWNB_MODEL",
        f"{dirs[0]}/.env",
        "twnb.yaml",
        "~/.config/twnb/config.yaml",
    ):
        assert needed in message


def test_model_for_a_role_without_any_model_raises_the_same_error():
    with pytest.raises(SettingsError, match="No model is configured"):
        Settings().model_for("Planner")


def test_a_bad_number_names_the_setting_and_the_file(dirs):
    path = write_project_yaml(dirs, "code_interpreter:\n  timeout: soon\n")
    with pytest.raises(SettingsError, match="timeout") as info:
        resolve(dirs)
    assert str(path) in str(info.value) and "number of seconds" in str(info.value)


def test_a_bad_boolean_names_the_setting(dirs):
    with pytest.raises(SettingsError, match=r"verify .* must be true or false"):
        resolve(dirs, traitlets={"verify": "maybe"})


def test_an_unknown_setting_is_refused_with_the_known_ones(dirs):
    with pytest.raises(SettingsError, match=r"Unknown setting 'modle'.*model"):
        resolve(dirs, traitlets={"modle": "x"})


def test_a_base_url_without_a_scheme_is_refused(dirs):
    with pytest.raises(SettingsError, match="http\\(s\\) URL"):
        resolve(dirs, environ={"OPENAI_BASE_URL": "localhost:11434"})


def test_broken_yaml_names_the_file_and_line(dirs):
    path = write_project_yaml(dirs, "llm:\n  model: [unclosed\n")
    with pytest.raises(SettingsError, match="not valid YAML at line") as info:
        resolve(dirs)
    assert str(path) in str(info.value)


def test_yaml_that_is_not_a_mapping_is_refused(dirs):
    write_project_yaml(dirs, "- a\n- b\n")
    with pytest.raises(SettingsError, match="must be a YAML mapping"):
        resolve(dirs)


def test_a_key_in_yaml_is_ignored_with_a_warning_that_does_not_show_it(dirs):
    write_project_yaml(dirs, f"llm:\n  model: m\n  api_key: {CANARY}\n")
    with pytest.warns(UserWarning, match="never reads API keys from YAML") as record:
        resolved = resolve(dirs)
    assert resolved.settings.api_key is None
    assert all(CANARY not in str(w.message) for w in record)


def test_recording_and_replaying_at_once_is_a_clear_error(dirs):
    with pytest.raises(SettingsError, match=r"record .* and replay .* exclude each other"):
        resolve(dirs, environ={"TWNB_RECORD": "1", "TWNB_REPLAY": "c.yaml"})


def test_allow_modules_refuses_what_is_not_a_module_name(dirs):
    with pytest.raises(SettingsError, match=r"allow_modules from TWNB_ALLOW_MODULES .* module names"):
        resolve(dirs, environ={"TWNB_ALLOW_MODULES": "polars; rm -rf /"})


def test_artifacts_go_to_a_visible_folder_by_default(dirs):
    assert resolve(dirs).settings.artifacts_dir == "twnb-artifacts"


@pytest.mark.parametrize("value", [".twnb/artifacts", "out/.figures", "~/.cache/twnb"])
def test_a_hidden_artifacts_folder_is_refused_with_the_reason(dirs, value):
    with pytest.raises(SettingsError) as info:
        resolve(dirs, environ={"TWNB_ARTIFACTS_DIR": value})
    message = str(info.value)
    assert "TWNB_ARTIFACTS_DIR" in message and "hidden folder" in message
    assert "Jupyter does not serve hidden folders" in message and "\n" not in message


@pytest.mark.parametrize("value", [".", "./"])
def test_the_notebooks_own_folder_is_refused_as_the_artifacts_folder(dirs, value):
    with pytest.raises(SettingsError, match="is the notebook's folder itself") as info:
        resolve(dirs, environ={"TWNB_ARTIFACTS_DIR": value})
    assert "TWNB_ARTIFACTS_DIR" in str(info.value)


# --- prices and tracing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"m": {"input": 1}}',
        '{"m": {"input": 1, "output": -1}}',
        '{"m": {"input": 1, "output": 2, "cache": 1}}',
        '{"m": 3}',
        "not a mapping",
    ],
)
def test_bad_prices_are_refused_with_the_shape_expected(dirs, text):
    with pytest.raises(SettingsError, match=r"prices from TWNB_PRICES .*must be prices per million tokens"):
        resolve(dirs, environ={"TWNB_PRICES": text})


def test_a_cached_price_is_optional(dirs):
    resolved = resolve(dirs, environ={"TWNB_PRICES": '{"m": {"input": 1, "output": 2, "cached": 0.5}}'})
    assert resolved.settings.prices == {"m": {"input": 1.0, "output": 2.0, "cached": 0.5}}


def test_an_unknown_trace_mode_names_the_choices(dirs):
    with pytest.raises(SettingsError, match=r"trace from TWNB_TRACE .*one of off, on, console, otlp"):
        resolve(dirs, environ={"TWNB_TRACE": "yes"})


@pytest.mark.parametrize(("text", "mode"), [("on", "on"), ("off", "off"), ("otlp", "otlp")])
def test_a_bare_on_or_off_in_yaml_is_a_trace_mode(dirs, text, mode):
    write_project_yaml(dirs, f"tracing:\n  mode: {text}\n")
    assert resolve(dirs).settings.trace == mode


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("risky", "risky"),
        ("on", "on"),
        ("off", "off"),
        ("1", "on"),
        ("true", "on"),
        ("0", "off"),
        ("FALSE", "off"),
    ],
)
def test_the_step_setting_is_off_on_or_risky_and_reads_the_old_yes_or_no_as_on_or_off(dirs, text, mode):
    assert resolve(dirs, environ={"TWNB_STEP": text}).settings.step == mode


def test_step_true_in_yaml_is_step_mode_on(dirs):
    write_project_yaml(dirs, "session:\n  step: true\n")
    assert resolve(dirs).settings.step == "on"


def test_an_unknown_step_mode_names_the_choices(dirs):
    with pytest.raises(SettingsError, match=r"step from TWNB_STEP .*one of off, on, risky"):
        resolve(dirs, environ={"TWNB_STEP": "sometimes"})
