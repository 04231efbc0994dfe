"""Plugin-only mode: generated code may call plugins and use what they returned, nothing else
(TaskWeaver's allowed_functions / allowed_variables verification, roles/plugin_only.py)."""

from __future__ import annotations

import pytest
from plugin_scripts import one_step

from twnb.roles.plugin_only import assigned_names, check_allowed, check_plugin_only
from twnb.roles.refusal import Rule

PLUGINS = ["city_lookup", "unit_converter"]


@pytest.mark.parametrize(
    "code",
    [
        'r1 = city_lookup(**{"city": "Lima"})\nr1',
        "country = city_lookup('Paris')\ndistance = unit_converter(kilometres=-2.5)\ncountry, distance",
        "city_lookup(city='Kyoto')",
        "a, b = unit_converter([1, 2]), city_lookup({'name': None})".replace(
            ", city_lookup({'name': None})", ""
        ),
    ],
)
def test_plugin_calls_and_their_results_pass(code):
    assert check_plugin_only(code, PLUGINS) == []


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("import os", "no imports in plugin-only mode"),
        ("x = len('abc')", "len is not a plugin (the plugins: city_lookup, unit_converter)"),
        ("print(city_lookup('Lima'))", "print is not a plugin"),
        ("x = 5", "only a plugin call's result may be assigned"),
        ("r = city_lookup(city=secret_name)", "an argument must be a literal or an earlier plugin result"),
        ("r = city_lookup(f'{1}')", "an argument must be a literal or an earlier plugin result"),
        ("r = city_lookup('Lima'.lower())", "an argument must be a literal or an earlier plugin result"),
        ("unit_converter.target.config", "an expression may only be a plugin call or the names of results"),
        ("for c in ['a']:\n    city_lookup(c)", "a For statement is not allowed in plugin-only mode"),
        ("r = getattr(city_lookup, 'target')", "getattr is not a plugin"),
        ("other", "other is not a result of a plugin call"),
        ("obj.city_lookup('x')", "a call must name a plugin function directly"),
    ],
)
def test_anything_else_is_refused_with_the_reason(code, why):
    refusals = check_plugin_only(code, PLUGINS)
    assert refusals and all(r.rule is Rule.PLUGIN_ONLY for r in refusals)
    assert any(why in r.message for r in refusals), [r.message for r in refusals]


def test_an_empty_list_of_plugins_allows_no_call():
    (refusal,) = check_plugin_only("city_lookup('Lima')", [])
    assert refusal.message == "city_lookup is not a plugin (the plugins: none)"


def test_results_of_earlier_plugin_only_code_may_be_used():
    assert check_plugin_only("unit_converter(distance)", PLUGINS, variables=["distance"]) == []
    assert assigned_names("distance = unit_converter(3)\na, b = x()") == ["distance", "a", "b"]


def test_a_refusal_names_its_line():
    (refusal,) = check_plugin_only("r = city_lookup('Lima')\nimport os\nr", PLUGINS)
    assert (refusal.line, refusal.source) == (2, "import os")


def test_a_plugin_only_round_refuses_other_code_then_runs_the_plugin_calls(
    plugin_folder, make_catalog, make_session, fake_llm, shell
):
    script = one_step("import os\nos.getcwd()", "country = city_lookup('Lima')\ncountry", final="Peru.")
    session = make_session(script, make_catalog())
    round = session.run_round("Where is Lima?", plugin_only=True)
    assert round.state == "finished" and round.extra["plugin_only"] is True
    refused, ran = round.post_list[2], round.post_list[3]
    verdict = {a.type.value: a.content for a in refused.attachment_list}
    assert verdict["verification"] == "INCORRECT"
    assert "Line 1: import os -> no imports in plugin-only mode" in verdict["code_error"]
    assert ran.extra["plugin_calls"][0]["name"] == "city_lookup"
    assert shell.user_ns["country"] == "Peru"


def test_plugin_only_offers_the_plugins_marked_plugin_only_and_says_the_rules(
    plugin_folder, make_catalog, make_session, fake_llm
):
    session = make_session(one_step("city_lookup('Lima')"), make_catalog())
    round = session.run_round("Where is Lima?", plugin_only=True)
    assert round.extra["plugins"]["described"] == ["city_lookup"]
    system = next(
        m["content"]
        for r in fake_llm.chat_requests()
        if r["role"] == "CodeInterpreter"
        for m in r["body"]["messages"]
        if m["role"] == "system"
    )
    assert (
        "## Plugin-only mode" in system and "def city_lookup(" in system and "def sales_report(" not in system
    )


def test_plugin_only_holds_with_verification_off(plugin_folder, make_catalog, make_session):
    script = one_step("x = 1 + 1", "TEXT:That cannot be done with the plugins.")
    session = make_session(script, make_catalog(), verify=False)
    round = session.run_round("Add 1 and 1", plugin_only=True)
    verdict = {a.type.value: a.content for a in round.post_list[2].attachment_list}
    assert verdict["verification"] == "INCORRECT"
    assert "only a plugin call's result may be assigned" in verdict["code_error"]


def test_an_ordinary_round_is_not_plugin_only(plugin_folder, make_catalog, make_session, shell):
    session = make_session(one_step("import math\nroot = math.sqrt(16)\nroot"), make_catalog())
    round = session.run_round("Root of 16")
    assert round.state == "finished" and "plugin_only" not in round.extra
    assert shell.user_ns["root"] == 4.0


TASKWEAVER_CODE = "exec('import os')\neval('import sys')\nprint('Hello, World!')\n"


@pytest.mark.parametrize(("allowed", "refused"), [(["print", "abs"], 2), ([], 3), (None, 0)])
def test_taskweavers_allowed_functions_rule(allowed, refused):
    refusals = check_allowed(TASKWEAVER_CODE, allowed_functions=allowed)
    assert len(refusals) == refused
    if allowed == ["print", "abs"]:
        assert [(r.line, r.subject) for r in refusals] == [(1, "exec"), (2, "eval")]


@pytest.mark.parametrize(
    ("code", "allowed", "refused"),
    [
        ("name = 'John'\nage = 25\nprint(name, age)\n", ["name", "age"], 0),
        ("name = 'John'\nage = 25\nprint(name, age)\n", [], 2),
        ("name = 'John'\nage = 25\nprint(name, age)\n", None, 0),
        ("name, age = 'John', 25\n", ["name", "age"], 0),
    ],
)
def test_taskweavers_allowed_variables_rule(code, allowed, refused):
    refusals = check_allowed(code, allowed_variables=allowed)
    assert len(refusals) == refused
    assert all(r.message.startswith("assigning to ") for r in refusals)


def test_a_result_rebound_to_something_else_is_no_longer_a_result():
    code = "r = city_lookup('Lima')\nr = secret\nunit_converter(r)"
    refusals = check_plugin_only(code, PLUGINS)
    assert [(r.line, r.message) for r in refusals][-1] == (
        3,
        "an argument must be a literal or an earlier plugin result",
    )


def test_an_earlier_result_rebound_by_this_code_is_no_longer_a_result():
    refusals = check_plugin_only("distance = 5\nunit_converter(distance)", PLUGINS, variables=["distance"])
    assert 2 in [r.line for r in refusals]
