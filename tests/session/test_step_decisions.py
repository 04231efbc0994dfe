"""The Round driver as step mode drives it: the plan paused for approval, code run, edited or skipped,
and Stop, each recorded as the User's decision."""

from __future__ import annotations

import pytest
from support.session_script import answer, attachment, code_reply, kinds, one_step, planner_reply
from support.shell_reset import reset_shell

from twnb.render import MIME_TYPE, round_bundle
from twnb.render.view import view_of
from twnb.session.code_request import (
    ApprovedRun,
    CodeRequest,
    EditedRun,
    PlanRequest,
    RefusedEdit,
    Skipped,
    UndoneRun,
    UserStopped,
)
from twnb.session.session import STOPPED


def _finish(driver, value):
    with pytest.raises(StopIteration) as stop:
        driver.send(value)
    return stop.value.value


def test_the_plain_driver_never_pauses_on_the_plan(make_session):
    session = make_session(one_step("x = 1"))
    assert isinstance(next(session.round_driver("Set x")), CodeRequest)


def test_step_mode_pauses_on_the_planners_first_plan_with_its_steps(make_session):
    session = make_session(one_step("x = 1"))
    request = next(session.round_driver("Set x", approve_plan=True))
    assert isinstance(request, PlanRequest)
    assert request.steps == ["Do it", "Report <interactively depends on 1>"]


def test_an_approved_plan_goes_on_to_the_code_unchanged(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x", approve_plan=True)
    next(driver)
    request = driver.send(None)
    assert isinstance(request, CodeRequest) and request.verification == "CORRECT"


def _approved_round(session, plan_sent_back=None):
    """A step-mode Round: the plan approved (None, or the same steps sent back), the code Run as it was."""
    driver = session.round_driver("Set x", approve_plan=True)
    next(driver)
    request = driver.send(plan_sent_back)
    return _finish(driver, ApprovedRun(session.execute(request)))


def test_a_plan_approved_unchanged_is_recorded_as_approved_by_the_user(make_session):
    session = make_session(one_step("x = 1"))
    round = _approved_round(session)
    plan = round.post_list[1]
    assert (plan.send_from, plan.extra.get("approved_by")) == ("Planner", "User")
    assert "edited_by" not in plan.extra and "edited_from" not in plan.extra


def test_a_plan_sent_back_with_the_same_steps_counts_as_approved(make_session):
    session = make_session(one_step("x = 1"))
    round = _approved_round(session, ["Do it", "Report <interactively depends on 1>"])
    assert round.post_list[1].extra.get("approved_by") == "User"
    assert kinds(round)[:2] == [("User", "Planner"), ("Planner", "CodeInterpreter")]


def test_code_run_unchanged_is_recorded_as_approved_by_the_user(make_session, shell):
    session = make_session(one_step("x = 1"))
    round = _approved_round(session)
    post = round.post_list[2]
    assert shell.user_ns["x"] == 1
    assert post.extra.get("approved_by") == "User" and "edited_by" not in post.extra
    assert attachment(post, "reply_content").content == "x = 1"
    assert attachment(post, "execution_status").content == "SUCCESS"


def test_a_plain_round_records_no_decision(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    round = _finish(driver, session.execute(next(driver)))
    decided = [p for p in round.post_list if {"approved_by", "edited_by", "skipped_by"} & set(p.extra)]
    assert decided == []


def test_approvals_send_the_llm_exactly_what_a_plain_round_sends(make_session, fake_llm, shell):
    def prompts() -> list:
        return [(r["role"], r["body"]["messages"]) for r in fake_llm.chat_requests()]

    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    _finish(driver, session.execute(next(driver)))
    plain = prompts()
    reset_shell(shell)  # the same kernel state for the second Round
    _approved_round(make_session(one_step("x = 1")))
    assert prompts()[len(plain) :] == plain


def test_an_edited_plan_is_recorded_as_the_users_and_handed_back_to_the_planner(make_session, fake_llm):
    script = one_step("x = 1")
    script["Planner"].insert(1, planner_reply("CodeInterpreter", "Run the edited step.", step="1. Set x"))
    session = make_session(script)
    driver = session.round_driver("Set x", approve_plan=True)
    next(driver)
    request = driver.send(["Set x", "Say x"])
    round = _finish(driver, session.executor.run(request.code))
    assert kinds(round)[:3] == [("User", "Planner"), ("Planner", "User"), ("User", "Planner")]
    edited = round.post_list[1]
    assert attachment(edited, "init_plan").content == "1. Set x\n2. Say x"
    assert edited.extra["edited_by"] == "User"
    assert edited.extra["edited_from"]["init_plan"].startswith("1. Do it")
    assert edited.extra["edited_from"]["send_to"] == "CodeInterpreter"
    assert "1. Set x\n2. Say x" in round.post_list[2].message
    planner_calls = [r for r in fake_llm.chat_requests() if r["role"] == "Planner"]
    assert "1. Set x\n2. Say x" in str(planner_calls[1]["body"]["messages"][-1]["content"])


def test_edited_code_is_what_runs_and_is_recorded_with_the_models_original(make_session, shell, fake_llm):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    request = next(driver)
    result = session.execute(request, "x = 2")
    round = _finish(driver, EditedRun("x = 2", result))
    post = round.post_list[2]
    assert shell.user_ns["x"] == 2
    assert attachment(post, "reply_content").content == "x = 2"
    assert post.extra["edited_from"] == "x = 1"
    assert "edited" in post.message
    planner_calls = [r for r in fake_llm.chat_requests() if r["role"] == "Planner"]
    assert "The user edited the code" in str(planner_calls[-1]["body"]["messages"][-1]["content"])


def test_skipped_code_is_recorded_as_not_run_by_the_user(make_session, shell):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    round = _finish(driver, Skipped())
    post = round.post_list[2]
    assert round.state == "finished" and "never" not in shell.user_ns
    assert attachment(post, "execution_status").content == "NONE"
    assert "skipped by the user" in attachment(post, "execution_result").content.lower()
    assert post.send_to == "Planner"


def test_stop_ends_the_round_interrupted_keeping_the_code_it_stopped_at(make_session):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(UserStopped())
    round = stop.value.value
    assert round.state == "failed" and round.extra["failure_reason"] == STOPPED
    assert "stopped" in attachment(round.post_list[-1], "execution_result").content


def test_code_the_user_stopped_at_reads_not_run_in_every_view(make_session):
    from twnb.render import round_bundle

    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(UserStopped())
    bundle = round_bundle(stop.value.value, session_id="s")
    (block,) = view_of(bundle["application/vnd.twnb.round+json"])["code"]
    assert block["outcome"] == "not_run" and block["error"] == ""
    for view in VIEWS:
        assert "raised" not in bundle[view], view


def test_stop_on_the_plan_keeps_the_planners_post(make_session):
    session = make_session({"Planner": [planner_reply("CodeInterpreter", "Go.")], "CodeInterpreter": []})
    driver = session.round_driver("Set it", approve_plan=True)
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(UserStopped())
    round = stop.value.value
    assert kinds(round) == [("User", "Planner"), ("Planner", "CodeInterpreter")]
    assert round.extra["failure_reason"] == STOPPED


def test_a_text_answer_without_a_worker_does_not_pause(make_session):
    session = make_session({"Planner": [answer("Hello.")], "CodeInterpreter": [code_reply("x")]})
    driver = session.round_driver("Hi", approve_plan=True)
    with pytest.raises(StopIteration) as stop:
        next(driver)
    assert stop.value.value.state == "finished"


def test_the_static_bundle_shows_the_users_decisions(make_session):
    from twnb.render import round_bundle

    script = one_step("x = 1")
    script["Planner"].insert(1, planner_reply("CodeInterpreter", "Run the edited step.", step="1. Set x"))
    session = make_session(script)
    driver = session.round_driver("Set x", approve_plan=True)
    next(driver)
    driver.send(["Set x", "Say x"])
    round = _finish(driver, Skipped())
    markdown = round_bundle(round, session_id=session.session_id, plan=None, previews=[])["text/markdown"]
    assert "You changed this plan." in markdown
    assert "You skipped this code." in markdown


def test_the_static_bundle_shows_the_users_approvals(make_session):
    from twnb.render import round_bundle

    session = make_session(one_step("x = 1"))
    round = _approved_round(session)
    markdown = round_bundle(round, session_id=session.session_id, plan=None, previews=[])["text/markdown"]
    assert "You approved this plan." in markdown  # shown even with no checklist to put it under
    assert "code: 1 block (1 ran). You ran this code." in markdown


def test_an_edit_verification_refuses_gets_the_refusal_naming_its_line_and_nothing_runs(make_session, shell):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    next(driver)
    refusal = session.check_edit("import subprocess\nx = 2")
    assert refusal is not None
    assert refusal.startswith("Verification refused the edited code:")
    assert "Line 1: import subprocess" in refusal
    assert "x" not in shell.user_ns and "subprocess" not in shell.user_ns


def test_the_refusal_of_an_edit_speaks_to_the_user_not_in_the_models_words(make_session):
    session = make_session(one_step("x = 1"))
    refusal = session.check_edit("import subprocess\nx = 2")
    assert refusal is not None
    assert "Importing module 'subprocess' is not allowed." in refusal
    assert "your instructions" not in refusal


def test_an_edit_verification_accepts_may_run(make_session):
    session = make_session(one_step("x = 1"))
    assert session.check_edit("import math\nx = math.sqrt(4)") is None


def test_with_verification_off_an_edit_is_not_checked(make_session):
    session = make_session(one_step("x = 1"), settings={"verify": False})
    assert session.check_edit("import subprocess") is None


def test_a_refused_edit_of_a_module_off_the_list_says_how_to_allow_it(make_session):
    session = make_session(one_step("x = 1"))
    refusal = session.check_edit("import requests")
    assert refusal is not None and "allow_modules = ['requests']" in refusal


VIEWS = ["text/html", "text/plain"]  # the HTML and the terminal's text (the saved text is a summary)


def _skipped_round(make_session):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    return _finish(driver, Skipped())


def _edited_round(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    result = session.execute(next(driver), "x = 2")
    return _finish(driver, EditedRun("x = 2", result))


def _parts(shown: str, view: str) -> list[str]:
    """The parts of a view that each say a decision once: the HTML has a main view (beside the code)
    and the folded conversation (in the post's summary); the Markdown and the text one list of posts."""
    if view != "text/html":
        return [shown]
    main, conversation = shown.split("<b>Conversation (")
    return [main, conversation]


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_says_once_that_the_user_skipped_the_code(make_session, view):
    from twnb.render import round_bundle, terminal_bundle

    for part in _parts(
        terminal_bundle(round_bundle(_skipped_round(make_session), session_id="s"))[view], view
    ):
        assert "You skipped this code" in part
        assert part.lower().count("skipped") == 1


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_says_once_that_the_user_edited_the_code(make_session, view):
    from twnb.render import round_bundle, terminal_bundle

    for part in _parts(
        terminal_bundle(round_bundle(_edited_round(make_session), session_id="s"))[view], view
    ):
        assert "You edited this code before it ran" in part
        assert part.lower().count("edited") == 1


@pytest.mark.parametrize("view", VIEWS)
def test_an_edited_posts_view_keeps_what_the_run_gave(make_session, view):
    from twnb.render import round_bundle, terminal_bundle

    shown = terminal_bundle(round_bundle(_edited_round(make_session), session_id="s"))[view]
    assert "The code ran successfully." in shown


def test_the_round_json_keeps_the_words_the_record_and_the_llm_have_for_a_skip(make_session):
    from twnb.render import round_bundle

    round = _skipped_round(make_session)
    data = round_bundle(round, session_id="s")["application/vnd.twnb.round+json"]
    assert data["post_list"] == round.to_dict()["post_list"]


REFUSED_CODE = "import subprocess\nnever = 2"


def _skipped_after_refusal(make_session, code=REFUSED_CODE):
    """Skip pressed after verification refused the user's edit `code`, as step mode sends it."""
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    refusal = session.check_edit(code)
    assert refusal is not None
    return _finish(driver, Skipped(RefusedEdit(code, refusal))), refusal


def test_a_skip_after_a_refused_edit_keeps_the_edit_and_the_refusal_the_user_saw(make_session, shell):
    round, refusal = _skipped_after_refusal(make_session)
    post = round.post_list[2]
    assert post.extra["refused_edit"] == {"code": REFUSED_CODE, "refusal": refusal}
    assert post.extra["skipped_by"] == "User" and "never" not in shell.user_ns
    assert attachment(post, "reply_content").content == "never = 1"


def test_a_refused_edit_survives_the_saved_yaml(make_session, tmp_path):
    from twnb.memory import Conversation

    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    _finish(driver, Skipped(RefusedEdit(REFUSED_CODE, "Verification refused the edited code: ...")))
    session.save(tmp_path / "conv.yaml")
    loaded = Conversation.from_yaml(str(tmp_path / "conv.yaml")).rounds[0].post_list[2]
    assert loaded.extra["refused_edit"]["code"] == REFUSED_CODE


def test_a_stop_after_a_refused_edit_keeps_the_edit_and_the_refusal(make_session):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(UserStopped(RefusedEdit(REFUSED_CODE, "refused")))
    round = stop.value.value
    assert round.extra["failure_reason"] == STOPPED
    assert round.post_list[-1].extra["refused_edit"] == {"code": REFUSED_CODE, "refusal": "refused"}


def test_a_plain_skip_records_no_refused_edit(make_session):
    round = _skipped_round(make_session)
    assert "refused_edit" not in round.post_list[2].extra


def test_a_skip_after_a_refused_edit_sends_the_llm_what_a_plain_skip_sends(make_session, fake_llm):
    def prompts() -> list:
        return [(r["role"], r["body"]["messages"]) for r in fake_llm.chat_requests()]

    _skipped_round(make_session)
    plain = prompts()
    _skipped_after_refusal(make_session)
    assert prompts()[len(plain) :] == plain


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_shows_the_refused_edit_once_under_its_skip_line(make_session, view):
    from twnb.render import round_bundle, terminal_bundle

    round, _ = _skipped_after_refusal(make_session, "import subprocess\nrefused_value = 2")
    shown = terminal_bundle(round_bundle(round, session_id="s"))[view]
    for part in _parts(shown, view):
        assert part.count("You skipped this code after verification refused your edit") == 1
    shown = _parts(shown, view)[0]  # the HTML shows the edit in its main view only
    assert shown.count("refused_value") == 1
    assert shown.count("Verification refused the edited code:") == 1
    assert shown.index("You skipped this code") < shown.index("refused_value")


@pytest.mark.parametrize("view", VIEWS)
def test_a_plain_skips_view_shows_no_refused_edit(make_session, view):
    from twnb.render import round_bundle, terminal_bundle

    shown = terminal_bundle(round_bundle(_skipped_round(make_session), session_id="s"))[view]
    assert "refused" not in shown and "your edit" not in shown


def _with_undo_log(session, shell, workdir):
    from twnb.kernel import UndoLog

    log = UndoLog(100, workdir / ".twnb" / "undo", shell.user_ns)
    session.executor.undo_log = session.undo_log = log
    return session


def test_code_undone_right_after_it_ran_is_taken_back_and_the_model_told(
    make_session, shell, fake_llm, workdir
):
    shell.user_ns["items"] = [1]
    session = _with_undo_log(make_session(one_step("items.append(2)\nx = 1")), shell, workdir)
    driver = session.round_driver("Set x")
    request = next(driver)
    result = session.execute(request)
    line = session.undo_piece(request.post_id)["line"]
    assert line == "Undone by the user: removed x; restored items."
    assert shell.user_ns["items"] == [1] and "x" not in shell.user_ns
    round = _finish(driver, UndoneRun(result, line))
    post = round.post_list[2]
    assert (post.extra["undone_by"], post.extra["undone"]) == ("User", line)
    assert attachment(post, "execution_status").content == "SUCCESS"
    planner_calls = [r for r in fake_llm.chat_requests() if r["role"] == "Planner"]
    assert "The user undid this code after it ran" in str(
        planner_calls[-1]["body"]["messages"][-1]["content"]
    )


def test_a_file_made_by_code_undone_right_after_it_ran_is_linked_where_undo_moved_it(
    make_session, shell, workdir
):
    session = _with_undo_log(
        make_session(one_step("open('made.csv', 'w').write('a\\n1\\n')")), shell, workdir
    )
    driver = session.round_driver("Write the table")
    request = next(driver)
    result = session.execute(request)
    undone = session.undo_piece(request.post_id)
    round = _finish(driver, UndoneRun(result, undone["line"], files_moved=undone["files_moved"]))
    moved = workdir / "twnb-undone" / round.id / "made.csv"
    assert moved.is_file() and not (workdir / "made.csv").exists()
    assert attachment(round.post_list[2], "artifact_paths").content == [str(moved)]
    shown = round_bundle(round, session_id="s", base_dir=workdir)
    relative = f"twnb-undone/{round.id}/made.csv"
    assert f'href="{relative}"' in shown["text/html"] and 'href="made.csv"' not in shown["text/html"]
    assert [a["path"] for a in shown[MIME_TYPE]["twnb"]["view"]["artifacts"]] == [relative]
