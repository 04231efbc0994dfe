"""Rounds whose code calls plugins: a real InteractiveShell runs the code, the loopback LLM server
answers (and records the prompts each role was sent)."""

from __future__ import annotations

from pathlib import Path

from plugin_scripts import one_step

from twnb.memory import Conversation

SALES = "sales = pd.DataFrame({'region': ['north', 'south', 'north'], 'amount': [5, 7, 4]})"


def system_text(request) -> str:
    return "\n".join(m["content"] for m in request["body"]["messages"] if m["role"] == "system")


def requests_of(fake_llm, role: str) -> list:
    return [r for r in fake_llm.chat_requests() if r["role"] == role]


def test_a_round_calls_a_plugin_and_the_post_records_the_call_and_its_artifacts(
    plugin_folder, make_catalog, make_session, shell
):
    shell.run_cell("import pandas as pd\n" + SALES)
    session = make_session(one_step("summary, note = sales_report(sales, 'region')\nnote"), make_catalog())
    round = session.run_round("Which region sold the most?")
    assert round.state == "finished"
    post = round.post_list[2]
    (call,) = post.extra["plugin_calls"]
    assert (call["name"], call["arguments"]) == ("sales_report", {"df": "DataFrame", "group_by": "str"})
    artifacts = next(a.content for a in post.attachment_list if a.type.value == "artifact_paths")
    assert [Path(p).name for p in artifacts] == [
        "round-1-which-region-sold-most-summary.csv",
        "round-1-which-region-sold-most-note.txt",
    ]
    assert all(Path(p).is_file() for p in artifacts)
    assert "Plugins called: sales_report." in post.message
    assert shell.user_ns["note"] == "north sold the most: 9"


def test_the_code_interpreter_is_shown_taskweavers_stubs_and_the_planner_one_line_each(
    plugin_folder, make_catalog, make_session, fake_llm
):
    session = make_session(one_step("unit_converter(3)"), make_catalog())
    session.run_round("How many metres are 3 km?")
    code_system = system_text(requests_of(fake_llm, "CodeInterpreter")[0])
    assert "## Plugins" in code_system
    assert (
        "def sales_report(\n# the sales table, with a numeric column named amount\ndf: DataFrame,"
        in code_system
    )
    assert "def unit_converter(\n# the distance in kilometres\nkilometres: float) -> str:..." in code_system
    assert "def city_lookup(" in code_system
    assert "fetch_forecast" not in code_system and "retired_tool" not in code_system
    planner_system = system_text(requests_of(fake_llm, "Planner")[0])
    assert "- unit_converter: unit_converter turns a distance in kilometres" in planner_system
    assert "def unit_converter(" not in planner_system


def test_the_plugins_section_is_the_same_on_every_call_of_a_round(
    plugin_folder, make_catalog, make_session, fake_llm
):
    session = make_session(one_step("unit_converter(-1)/0", "unit_converter(3)"), make_catalog())
    session.run_round("How many metres are 3 km?")
    first, second = (system_text(r) for r in requests_of(fake_llm, "CodeInterpreter"))
    assert first == second


def test_a_plugin_that_failed_to_load_is_said_in_the_first_round_only(
    plugin_folder, make_catalog, make_session
):
    session = make_session({**one_step("1"), "*": []}, make_catalog())
    first = session.run_round("one")
    assert [line.split(":")[0] for line in first.extra["plugin_problems"]] == [
        "Plugin broken_spec",
        "Plugin fetch_forecast",
    ]
    make_session(one_step("2"), session.plugins)  # the same catalog, a new script
    second = session.run_round("two")
    assert "plugin_problems" not in second.extra


def test_the_conversation_lists_the_plugins_the_session_had_without_secrets(
    plugin_folder, make_catalog, make_session, workdir
):
    session = make_session(one_step("1"), make_catalog())
    session.run_round("anything")
    path = session.save(workdir / "conversation.yaml")
    text = path.read_text()
    assert "unit-converter-secret-0123456789" not in text
    loaded = Conversation.from_yaml(path)
    assert [p.name for p in loaded.plugins] == ["city_lookup", "sales_report", "unit_converter"]
    converter = loaded.plugins[2]
    assert converter.required and converter.configurations["unit"] == "metres"
    assert loaded.plugins[0].plugin_only


def test_a_secret_in_a_plugins_configuration_never_reaches_the_prompt_or_the_round(
    plugin_folder, make_catalog, make_session, fake_llm, shell
):
    code = "unit_converter.target.config['api_key']"
    session = make_session(one_step(code), make_catalog())
    round = session.run_round("What is the converter's key?")
    assert round.state == "finished"
    assert all("unit-converter-secret-0123456789" not in str(r["body"]) for r in fake_llm.chat_requests())
    assert "unit-converter-secret-0123456789" not in str(round.to_dict())


def test_past_a_handful_of_plugins_the_round_records_which_it_described_and_why(
    make_catalog, make_session, fake_llm, shell
):
    words = ["temperature", "rainfall", "population", "revenue", "inventory", "traffic", "humidity", "salary"]
    for word in words:
        shell.run_cell(
            f"@__import__('twnb').plugin\ndef load_{word}(city: str) -> float:\n"
            f"    '''The {word} of a city.'''\n    return 1.0\n"
        )
    shell.run_cell(
        "@__import__('twnb').plugin(required=True)\ndef city_names() -> list:\n"
        "    '''Every city known.'''\n    return []\n"
    )
    session = make_session(one_step("1"), make_catalog(folders=[]))
    round = session.run_round("Plot the rainfall and the humidity of Paris")
    record = round.extra["plugins"]
    assert record["chosen_by"] == "request" and record["available"] == 9
    assert record["described"] == ["load_rainfall", "load_humidity", "city_names"] or set(
        record["described"]
    ) == {
        "load_rainfall",
        "load_humidity",
        "city_names",
    }
    assert set(record["scores"]) == {"load_rainfall", "load_humidity"}
    code_system = system_text(requests_of(fake_llm, "CodeInterpreter")[0])
    assert "def load_rainfall(" in code_system and "def load_salary(" not in code_system


def test_with_a_handful_or_fewer_every_plugin_is_described(plugin_folder, make_catalog, make_session):
    session = make_session(one_step("1"), make_catalog())
    round = session.run_round("anything at all")
    assert round.extra["plugins"] == {
        "described": ["city_lookup", "sales_report", "unit_converter"],
        "available": 3,
        "chosen_by": "all",
        "scores": {},
    }


def test_a_notebook_function_is_a_plugin_and_redefining_it_updates_it(
    make_catalog, make_session, fake_llm, shell
):
    shell.run_cell(
        "import twnb\n@twnb.plugin\ndef top_regions(df, n: int = 2) -> list:\n"
        "    '''The n regions with the most sales.\n\n    Args:\n        df: the sales table\n"
        "        n: how many regions\n    '''\n"
        "    return list(df.groupby('region')['amount'].sum().nlargest(n).index)\n"
    )
    shell.run_cell("import pandas as pd\n" + SALES)
    catalog = make_catalog(folders=[])
    session = make_session(one_step("best = top_regions(sales, 1)\nbest"), catalog)
    round = session.run_round("Which region is best?")
    assert shell.user_ns["best"] == ["north"]
    assert round.post_list[2].extra["plugin_calls"][0]["source"] == "notebook"
    assert callable(shell.user_ns["top_regions"]) and shell.user_ns["top_regions"].__module__ == "__main__"
    code_system = system_text(requests_of(fake_llm, "CodeInterpreter")[0])
    assert (
        "# The n regions with the most sales.\ndef top_regions(\n# the sales table\ndf: Any," in code_system
    )
    shell.run_cell(
        "@twnb.plugin\ndef top_regions(df, n: int = 2, ascending: bool = False) -> list:\n"
        "    '''The n regions ranked by sales.'''\n    return []\n"
    )
    make_session(one_step("1"), catalog)
    session.run_round("again")
    code_system = system_text(requests_of(fake_llm, "CodeInterpreter")[-1])
    assert "# The n regions ranked by sales." in code_system and "ascending: Optional[bool]" in code_system


def test_plugins_add_names_an_existing_function(make_catalog, make_session, fake_llm, shell):
    shell.run_cell("def double(x: float) -> float:\n    '''Twice x.'''\n    return 2 * x\n")
    catalog = make_catalog(folders=[], notebook_names=["double"])
    session = make_session(one_step("double(21)"), catalog)
    round = session.run_round("Double 21")
    assert round.post_list[2].extra["plugin_calls"][0]["name"] == "double"
    assert "def double(\nx: float) -> float:..." in system_text(requests_of(fake_llm, "CodeInterpreter")[0])


def test_a_deleted_notebook_function_is_no_plugin_any_more_and_says_why(make_catalog, shell):
    shell.run_cell("import twnb\n@twnb.plugin\ndef helper():\n    '''Help.'''\n")
    catalog = make_catalog(folders=[], notebook_names=["helper"])
    catalog.refresh()
    shell.run_cell("del helper")
    assert catalog.refresh() == [
        "helper: there is no helper in the notebook (any more): define it, or run the cell"
    ]
    assert [s.state for s in catalog.states()] == ["not loaded"]


def test_a_reset_conversation_gets_the_plugins_section_again(
    plugin_folder, make_catalog, make_session, workdir
):
    session = make_session({**one_step("1"), "*": []}, make_catalog())
    session.run_round("one")
    session.reset()
    make_session(one_step("2"), session.plugins)
    session.run_round("two")
    assert [p.name for p in session.memory.conversation.plugins] == [
        "city_lookup",
        "sales_report",
        "unit_converter",
    ]


def test_a_loaded_conversations_plugins_stay_when_the_session_has_none(make_catalog, make_session, workdir):
    from twnb.memory import PluginEntry

    session = make_session(one_step("1"), make_catalog(folders=[]))
    session.memory.conversation.plugins = [PluginEntry(name="from_elsewhere", description="loaded")]
    session.run_round("one")
    assert [p.name for p in session.memory.conversation.plugins] == ["from_elsewhere"]


def test_the_autosave_keeps_the_plugins_section_and_load_latest_brings_it_back(
    plugin_folder, make_catalog, make_session
):
    from twnb.session import load_autosaved_conversation

    session = make_session(one_step("1"), make_catalog())
    session.run_round("one")
    loaded = load_autosaved_conversation(session.autosave_dir)
    assert [p.name for p in loaded.plugins] == ["city_lookup", "sales_report", "unit_converter"]
    assert (
        "unit-converter-secret-0123456789" not in (session.autosave_dir.parent / "plugins.yaml").read_text()
    )
