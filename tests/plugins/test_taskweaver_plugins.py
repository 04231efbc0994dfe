"""TaskWeaver plugins loaded unchanged: a folder of `NAME.yaml` + `NAME.py` files written in TaskWeaver's
format (tests/plugins/data/taskweaver), loaded into a real InteractiveShell's namespace."""

from __future__ import annotations

import importlib.machinery
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from twnb.plugins.calls import CallLog, open_call_log


def states_by_name(catalog):
    return {state.name: state for state in catalog.states()}


def test_each_plugin_of_the_folder_loads_or_says_why_not(plugin_folder, make_catalog):
    catalog = make_catalog()
    catalog.refresh()
    states = states_by_name(catalog)
    assert {name: state.state for name, state in states.items()} == {
        "broken_spec": "not loaded",
        "city_lookup": "loaded",
        "fetch_forecast": "not loaded",
        "retired_tool": "disabled",
        "sales_report": "loaded",
        "unit_converter": "loaded",
    }
    assert states["fetch_forecast"].problem == (
        "fetch_forecast.py needs the module twnb_test_weather_client_not_installed, which is not installed "
        "(install it: pip install twnb_test_weather_client_not_installed)"
    )
    assert "broken_spec.yaml is not valid" in states["broken_spec"].problem
    assert "parameters" in states["broken_spec"].problem


def test_a_plugin_that_fails_to_load_is_said_once(plugin_folder, make_catalog):
    catalog = make_catalog()
    first = catalog.refresh()
    assert sorted(line.split(":")[0] for line in first) == ["broken_spec", "fetch_forecast"]
    assert catalog.refresh() == []


def test_taskweaver_plugin_api_is_importable_without_taskweaver(plugin_folder, make_catalog):
    if importlib.machinery.PathFinder.find_spec("taskweaver") is not None:
        pytest.skip("TaskWeaver is installed here: its own API is used (see the next test)")
    catalog = make_catalog()
    catalog.refresh()
    import taskweaver.plugin

    instance = states_by_name(catalog)["sales_report"].function.target
    assert isinstance(instance, taskweaver.plugin.Plugin)
    assert taskweaver.plugin.Plugin.__module__ == "twnb.plugins.taskweaver_api.plugin.base"


def test_an_installed_taskweaver_is_used_rather_than_shadowed(
    plugin_folder, make_catalog, tmp_path, monkeypatch
):
    site = tmp_path / "site"
    package = site / "taskweaver" / "plugin"
    package.mkdir(parents=True)
    (site / "taskweaver" / "__init__.py").write_text("INSTALLED = True\n")
    (package / "__init__.py").write_text(
        textwrap.dedent(
            """
            from abc import ABC
            from taskweaver.plugin.register import register_plugin

            class PluginContext(ABC):
                pass

            class Plugin:
                def __init__(self, name, ctx, config):
                    self.name, self.ctx, self.config = name, ctx, config

                def log(self, level, message):
                    self.ctx.log(level, "Plugin-" + self.name, message)
            """
        )
    )
    (package / "register.py").write_text(
        textwrap.dedent(
            """
            register_plugin_inner = None

            def register_plugin(cls):
                register_plugin_inner(cls)
                return cls
            """
        )
    )
    (package / "context.py").write_text("from taskweaver.plugin import PluginContext\n")
    for name in [n for n in sys.modules if n == "taskweaver" or n.startswith("taskweaver.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(site))
    try:
        catalog = make_catalog()
        catalog.refresh()
        import taskweaver
        import taskweaver.plugin

        assert taskweaver.INSTALLED
        instance = states_by_name(catalog)["sales_report"].function.target
        assert isinstance(instance, taskweaver.plugin.Plugin)
        assert isinstance(instance.ctx, taskweaver.plugin.PluginContext)
    finally:
        for name in [n for n in sys.modules if n == "taskweaver" or n.startswith("taskweaver.")]:
            del sys.modules[name]


def test_self_config_is_the_spec_configurations_with_the_settings_values_on_top(
    plugin_folder, make_catalog, shell
):
    catalog = make_catalog(configurations={"unit_converter": {"factor": 0.621371, "unit": "miles"}})
    catalog.refresh()
    assert shell.user_ns["unit_converter"](10) == "6.21371 miles"
    instance = states_by_name(catalog)["unit_converter"].function.target
    assert instance.config == {
        "factor": 0.621371,
        "unit": "miles",
        "api_key": "unit-converter-secret-0123456789",
    }


def test_secret_looking_configuration_values_are_handed_to_the_redactor(plugin_folder, make_catalog):
    remembered = []
    catalog = make_catalog(remember_secrets=lambda values: remembered.extend(values))
    catalog.refresh()
    assert remembered == ["unit-converter-secret-0123456789"]


def test_a_plugin_is_a_function_of_its_name_in_the_kernel_hidden_from_who(plugin_folder, make_catalog, shell):
    make_catalog().refresh()
    assert shell.user_ns["city_lookup"]("Kyoto") == "Japan"
    assert shell.user_ns_hidden["city_lookup"] is shell.user_ns["city_lookup"]
    assert "city_lookup" not in shell.run_line_magic("who_ls", "")


def test_a_plugin_never_replaces_a_variable_of_the_users(plugin_folder, make_catalog, shell):
    shell.user_ns["sales_report"] = "my own notes"
    catalog = make_catalog()
    catalog.refresh()
    assert shell.user_ns["sales_report"] == "my own notes"
    state = states_by_name(catalog)["sales_report"]
    assert state.state == "not loaded"
    assert state.problem.startswith("the notebook has a variable named sales_report (str)")


def test_closing_the_catalog_takes_its_plugins_out_of_the_namespace(plugin_folder, make_catalog, shell):
    catalog = make_catalog()
    catalog.refresh()
    catalog.close()
    assert "city_lookup" not in shell.user_ns and "city_lookup" not in shell.user_ns_hidden


def test_a_recorded_call_has_argument_types_result_log_and_the_artifacts_it_added(
    plugin_folder, make_catalog, shell, workdir
):
    catalog = make_catalog()
    catalog.refresh()
    sales = pd.DataFrame({"region": ["north", "south", "north"], "amount": [5, 7, 4]})
    log = CallLog(workdir / "twnb-artifacts", "round-1-sales-by-region", "exec-1")
    with open_call_log(log):
        _summary, note = shell.user_ns["sales_report"](sales, group_by="region")
    assert note == "north sold the most: 9"
    (call,) = log.calls
    assert call["name"] == "sales_report" and call["source"] == "taskweaver"
    assert call["arguments"] == {"df": "DataFrame", "group_by": "str"}
    assert call["result"] == "tuple (DataFrame of shape (2, 2), str of 22 characters)"
    assert call["log"] == ["info Plugin-sales_report: summarised 3 rows"]
    assert call["error"] is None
    csv, txt = (Path(p) for p in call["artifacts"])
    assert (csv.name, txt.name) == ("round-1-sales-by-region-summary.csv", "round-1-sales-by-region-note.txt")
    assert pd.read_csv(csv).to_dict("list") == {"region": ["north", "south"], "amount": [9, 7]}
    assert txt.read_text() == "north sold the most: 9"


def test_a_plugin_that_raises_is_recorded_with_its_error_and_the_error_goes_on(
    plugin_folder, make_catalog, shell, workdir
):
    make_catalog().refresh()
    log = CallLog(workdir / "twnb-artifacts", "round-1", "exec-1")
    with open_call_log(log), pytest.raises(KeyError):
        shell.user_ns["sales_report"](pd.DataFrame({"amount": [1]}), "region")
    assert log.calls[0]["error"] == "KeyError: 'region'"


def test_ctx_get_env_reads_plugin_name_variable(plugin_folder, make_catalog, monkeypatch):
    monkeypatch.setenv("PLUGIN_sales_report_REGION", "north")
    catalog = make_catalog()
    catalog.refresh()
    context = states_by_name(catalog)["sales_report"].function.target.ctx
    assert context.get_env("sales_report", "REGION") == "north"
    with pytest.raises(KeyError, match="PLUGIN_sales_report_MISSING"):
        context.get_env("sales_report", "MISSING")


def test_ctx_wraps_temporal_text_with_taskweavers_delimiter(plugin_folder, make_catalog):
    from twnb.memory import PromptUtil

    catalog = make_catalog()
    catalog.refresh()
    context = states_by_name(catalog)["sales_report"].function.target.ctx
    wrapped = context.wrap_text_with_delimiter_temporal("big table")
    assert PromptUtil.remove_parts(wrapped, PromptUtil.DELIMITER_TEMPORAL) == ""


def test_the_spec_gives_taskweavers_prompt_stub(plugin_folder):
    from twnb.memory import PluginEntry

    entry = PluginEntry.from_yaml_file(plugin_folder / "sales_report.yaml")
    assert entry.format_prompt() == (
        "# sales_report sums the sales of a table by one of its columns and saves the summary as a CSV "
        "file and a short text note for the user.\n"
        "# Examples:\n"
        '# summary, note = sales_report(df, "region")\n'
        "def sales_report(\n"
        "# the sales table, with a numeric column named amount\n"
        "df: DataFrame,\n"
        "# the column to group the sales by\n"
        "group_by: str) -> Tuple[\n"
        "# summary: one row per group with the total amount\n"
        "DataFrame,\n"
        "# note: a sentence naming the best group\n"
        "str]:...\n"
    )
    assert entry.spec.plugin_description() == (
        "- sales_report: sales_report sums the sales of a table by one of its columns and saves the "
        "summary as a CSV file and a short text note for the user. Arguments required: df: DataFrame, "
        "group_by: str\n"
    )


def test_a_result_is_described_without_computing_it():
    from twnb.plugins.calls import describe_value

    class LazyFrame:
        """Like a Dask frame: its length and its shape's row count run the whole query."""

        computed = 0

        def __len__(self):
            LazyFrame.computed += 1
            return 10

        @property
        def shape(self):
            LazyFrame.computed += 1
            return (object(), 3)

    assert describe_value(LazyFrame()) == "LazyFrame"
    assert describe_value(pd.DataFrame({"a": [1, 2]})) == "DataFrame of shape (2, 1)"
    assert describe_value(list(range(10))) == "list of length 10"
    assert LazyFrame.computed == 0


def test_the_function_of_a_plugins_name_cannot_be_pointed_elsewhere(plugin_folder, make_catalog, shell):
    make_catalog().refresh()
    with pytest.raises(AttributeError, match="the plugin function city_lookup cannot be changed"):
        shell.user_ns["city_lookup"].target = print
    assert shell.user_ns["city_lookup"]("Lima") == "Peru"


def test_a_specs_code_name_that_is_a_path_is_not_imported(plugin_folder, make_catalog, workdir):
    spec = (plugin_folder / "city_lookup.yaml").read_text().replace("name: city_lookup", "name: sneaky")
    (plugin_folder / "sneaky.yaml").write_text(spec + "code: ../outside_module\n")
    (workdir / "outside_module.py").write_text("open('imported-from-outside', 'w').close()\n")
    catalog = make_catalog()
    catalog.refresh()
    sneaky = states_by_name(catalog)["sneaky"]
    assert sneaky.state == "not loaded" and "is not a module name" in sneaky.problem
    assert not (workdir / "imported-from-outside").exists()
