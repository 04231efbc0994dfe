"""What a TaskWeaver case asks of twnb: settings mapped or named, and the cases twnb must skip."""

from __future__ import annotations

from pathlib import Path

import yaml

from twnb.evaluation.case_file import read_case
from twnb.evaluation.case_settings import case_setup, setting_lines


def _setup(make_case, **fields):
    return case_setup(read_case(make_case("case", **fields)))


def test_taskweaver_settings_with_a_twnb_setting_are_mapped(make_case):
    setup = _setup(
        make_case,
        config_var={
            "execution_service.kernel_mode": "local",
            "code_interpreter.code_verification_on": True,
            "code_interpreter.max_retry_count": 1,
            "session.max_internal_chat_round_num": "8",
            "code_interpreter.blocked_functions": ["os.remove"],
        },
    )
    assert setup.settings == {
        "taskweaver_verification": True,
        "max_retries": 1,
        "max_posts": 8,
        "taskweaver_blocked_functions": ["os.remove"],
        "block_functions": ["os.remove"],
    }
    assert setup.skip_reasons == []


def test_taskweavers_verification_is_added_to_twnbs_never_put_in_its_place(make_case):
    setup = _setup(
        make_case,
        config_var={
            "code_interpreter.code_verification_on": False,
            "code_interpreter.allowed_modules": ["pandas"],
        },
    )
    assert setup.settings == {"taskweaver_verification": False, "taskweaver_allowed_modules": ["pandas"]}
    assert "verify" not in setup.settings


def test_mapped_settings_become_config_lines_of_the_notebook():
    lines = setting_lines({"verify": False, "block_functions": ["os.remove"]})
    assert lines == [
        "%config TaskWeaverMagics.verify = False",
        "%config TaskWeaverMagics.block_functions = ['os.remove']",
    ]


def test_the_misspelled_verification_key_one_of_taskweavers_cases_uses_is_mapped_too(make_case):
    setup = _setup(make_case, config_var={"code_verification.code_verification_on": False})
    assert setup.settings == {"taskweaver_verification": False}


def test_settings_twnb_has_no_counterpart_for_are_named_not_silently_dropped(make_case):
    setup = _setup(make_case, config_var={"planner.prompt_compression": True, "logging.log_file": "x.log"})
    assert setup.skip_reasons == []
    assert any(
        "planner.prompt_compression: not mapped" in note and "condenses" in note for note in setup.notes
    )
    assert any("logging.log_file: not mapped (not a twnb setting)" in note for note in setup.notes)


def test_a_role_twnb_does_not_have_skips_the_case_naming_it(make_case):
    setup = _setup(
        make_case, config_var={"session.roles": ["planner", "web_search"], "web_search.chunk_size": 9}
    )
    assert setup.skip_reasons == ["it needs the role web_search (a web search service)"]
    assert any("web_search.chunk_size: not mapped (for the role web_search)" in note for note in setup.notes)


def test_taskweavers_own_two_roles_run_and_a_planner_less_case_is_noted(make_case):
    assert _setup(make_case, config_var={"session.roles": ["planner", "code_interpreter"]}).skip_reasons == []
    alone = _setup(make_case, config_var={"session.roles": ["code_interpreter"]})
    assert alone.skip_reasons == [] and any("always plans with its Planner" in n for n in alone.notes)


def test_container_mode_skips_the_case_when_the_kernel_is_not_confined(make_case):
    setup = _setup(make_case, config_var={"execution_service.kernel_mode": "container"})
    assert setup.skip_reasons == [
        "it runs code in TaskWeaver's container mode, which twnb gives only in its confined kernel"
        " (this run is unconfined: --no-confine, or this system cannot confine a kernel)"
    ]


def test_container_mode_runs_in_the_confined_kernel(make_case):
    case = read_case(make_case("case", config_var={"execution_service.kernel_mode": "container"}))
    setup = case_setup(case, confined=True)
    assert setup.skip_reasons == []
    assert "TaskWeaver's container mode: its code runs in twnb's confined kernel" in setup.notes


def test_plugin_selection_is_noted_and_the_plugin_only_role_is_the_plugin_only_setting(make_case):
    selection = _setup(make_case, config_var={"code_generator.enable_auto_plugin_selection": True})
    assert selection.skip_reasons == [] and any(
        "chooses by the request's words" in n for n in selection.notes
    )
    only = _setup(make_case, config_var={"session.roles": ["planner", "code_interpreter_plugin_only"]})
    assert only.skip_reasons == [] and only.settings == {"plugin_only": True}


def test_the_plugins_of_the_cases_project_are_its_plugin_dirs(tmp_path: Path, make_case):
    plugins = tmp_path / "project" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "sql_pull_data.yaml").write_text(yaml.safe_dump({"name": "sql_pull_data", "enabled": False}))
    (plugins / "tell_joke.yaml").write_text(yaml.safe_dump({"name": "tell_joke", "enabled": True}))
    setup = _setup(
        make_case,
        app_dir="../project/",  # TaskWeaver resolves it from the folder above cases/
        scoring_points=[{"score_point": "Agent should call the sql_pull_data function", "weight": 1}],
    )
    assert setup.skip_reasons == []
    assert setup.settings == {"plugin_dirs": [str(plugins.resolve())]}
    assert "the TaskWeaver plugins of its app_dir are loaded; it names sql_pull_data" in setup.notes


def test_a_file_named_like_a_plugin_is_not_the_plugin(tmp_path: Path, make_case):
    plugins = tmp_path / "project" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "anomaly_detection.yaml").write_text(yaml.safe_dump({"name": "anomaly_detection"}))
    setup = _setup(
        make_case,
        app_dir="../project/",
        task_description="Pull the table from ./anomaly_detection.db and average it by month.",
        scoring_points=[{"score_point": "The data comes from anomaly_detection.db.", "weight": 1}],
    )
    assert setup.skip_reasons == [] and not any("it names" in note for note in setup.notes)


def test_shell_commands_to_run_first_do_not_skip_the_case(make_case):
    setup = _setup(make_case, pre_command=["python -m plugin_mgt --refresh"])
    assert setup.skip_reasons == []


def test_a_missing_dependency_skips_the_case_with_how_to_install_it(make_case):
    setup = _setup(make_case, dependencies=["pyyaml", "twnb-no-such-package-5e1"])
    assert setup.skip_reasons == [
        "it needs twnb-no-such-package-5e1, which is not installed (pip install 'twnb-no-such-package-5e1')"
    ]


def test_a_dependency_at_a_version_not_installed_skips_the_case_naming_the_installed_one(make_case):
    import importlib.metadata

    installed = importlib.metadata.version("pyyaml")
    assert _setup(make_case, dependencies=["pyyaml>=5"]).skip_reasons == []
    setup = _setup(make_case, dependencies=["pyyaml>999"])
    assert setup.skip_reasons == [f"it needs pyyaml>999, and pyyaml {installed} is installed"]


def test_a_dependency_pip_would_not_understand_is_named(make_case):
    setup = _setup(make_case, dependencies=["numpy=1.24.3"])
    assert setup.skip_reasons == [
        "its dependency 'numpy=1.24.3' is not a requirement pip understands (e.g. numpy>=1.24)"
    ]
