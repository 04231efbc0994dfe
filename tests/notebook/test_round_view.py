"""The live Round widget, driven by the session's events (real ipywidgets, no frontend needed)."""

from __future__ import annotations

import re

from nb_fake_clock import FakeClock
from support.nb_rounds import HOSTILE, analysis_round

from twnb.memory import (
    Attachment,
    AttachmentDelta,
    AttachmentType,
    MessageDelta,
    Post,
    PostCommitted,
    PostRetry,
    PostStarted,
    Round,
    RoundEnded,
    RoundFailed,
    RoundStarted,
    StatusChanged,
    UsageReported,
    derive_plan,
)
from twnb.notebook.round_view import RoundView
from twnb.notebook.theme_colours import RED
from twnb.session.plan_notebook import PlanNotebook


def _view(clock: FakeClock | None = None) -> RoundView:
    view = RoundView("What is the mean?", clock=clock or FakeClock())
    view.on_event(RoundStarted("round-1", "What is the mean?"))
    view.on_event(PostStarted("post-1", "Planner", "CodeInterpreter"))
    return view


def _markdown(view: RoundView, post_id: str) -> str:
    chunks = view._posts[post_id].message_view.box.children
    return "".join(chunk.outputs[0]["data"]["text/markdown"] for chunk in chunks)


def _all_html(view: RoundView) -> str:
    parts = [view.header.value, view.plan.value, view.status.value, view.failure.value, view.summary.value]
    for section in view._posts.values():
        parts.append(section.attachments_html.value)
    return "\n".join(parts)


def test_each_post_gets_a_collapsible_section_titled_from_and_to():
    view = _view()
    (section,) = view.posts.children
    assert section.titles == ("Planner → CodeInterpreter",)
    assert section.selected_index == 0


def test_a_post_whose_recipient_is_not_known_yet_is_titled_by_its_sender():
    # Every reply streams before it names its recipient; in step mode the Planner's plan then waits
    # for the user's approval, still without one.
    view = RoundView("What is the mean?", clock=FakeClock())
    view.on_event(PostStarted("post-1", "Planner", "Unknown"))
    view.on_event(MessageDelta("post-1", "Compute the mean.", True))
    (section,) = view.posts.children
    assert section.titles == ("Planner",)


def test_message_streams_into_the_post_as_markdown():
    view = _view()
    view.on_event(MessageDelta("post-1", "Compute ", False))
    view.on_event(MessageDelta("post-1", "the mean.", True))
    assert _markdown(view, "post-1") == "Compute the mean."


def test_streaming_is_throttled_and_the_end_is_always_flushed():
    clock = FakeClock()
    view = _view(clock)
    for _ in range(1000):  # 1000 tokens in one second
        view.on_event(MessageDelta("post-1", "x", False))
        clock.advance(0.001)
    view.on_event(MessageDelta("post-1", "!", True))
    assert view.deltas_seen == 1001
    assert view.throttle.updates <= 12
    assert _markdown(view, "post-1") == "x" * 1000 + "!"


def test_first_token_is_visible_at_once():
    clock = FakeClock()
    view = _view(clock)
    view.on_event(MessageDelta("post-1", "C", False))
    assert _markdown(view, "post-1") == "C"
    assert view.first_update_at == view.first_delta_at


def test_code_streams_highlighted_and_escaped():
    view = _view()
    view.on_event(AttachmentDelta("post-1", "a-1", AttachmentType.reply_content, "x = 1 < 2", True))
    html = view._posts["post-1"].attachments_html.value
    assert "<span" in html
    assert "x = 1 &lt; 2" in re.sub(r"<[^>]+>", "", html)


def test_retry_clears_the_post_text():
    view = _view()
    view.on_event(MessageDelta("post-1", "first attempt", True))
    view.on_event(AttachmentDelta("post-1", "a-1", AttachmentType.thought, "half a thou", True))
    view.on_event(PostRetry("post-1", "the stream dropped"))
    assert _markdown(view, "post-1") == ""
    assert "half a thou" not in _all_html(view)
    assert "retrying: the stream dropped" in view.status.value


def test_hostile_message_is_escaped_markdown():
    view = _view()
    view.on_event(MessageDelta("post-1", HOSTILE, True))
    assert _markdown(view, "post-1") == "&lt;img src=x onerror=alert(1)&gt;"


def test_hostile_text_in_attachments_status_and_failure_is_escaped():
    view = _view()
    view.on_event(AttachmentDelta("post-1", "a-1", AttachmentType.execution_result, HOSTILE, True))
    view.on_event(AttachmentDelta("post-1", "a-2", AttachmentType.thought, HOSTILE, True))
    view.on_event(StatusChanged(HOSTILE))
    view.on_event(RoundFailed("round-1", HOSTILE))
    assert "<img" not in _all_html(view)


def _following(view: RoundView) -> PlanNotebook:
    """A plan notebook in a running Round, the view's checklist following it as the magics make it."""
    plans = PlanNotebook()
    plans.register_plan_change_hook("checklist", view.on_plan_change)
    plans.start_round()
    return plans


def _checklist(view: RoundView) -> str:
    return re.sub(r"<(\w+)[^>]*>", r"<\1>", view.plan.value)  # tags without their styles


def test_plan_shows_as_a_checklist_with_states():
    round = analysis_round()
    view = _view()
    _following(view).update(derive_plan(None, round.post_list[1], user_query=round.user_query))
    assert "▶ compute the mean <small>(in_progress)</small>" in _checklist(view)
    assert "☐ report it <small>(todo)</small>" in _checklist(view)


def test_the_checklist_follows_each_plan_change_of_the_plan_notebook():
    round = analysis_round()
    view = _view()
    plans = _following(view)
    first = derive_plan(None, round.post_list[1], user_query=round.user_query)
    plans.update(first)
    plans.update(derive_plan(first, round.post_list[3], user_query=round.user_query))
    assert "☑ compute the mean <small>(done)</small>" in _checklist(view)


def test_status_line_follows_status_events():
    view = _view()
    view.on_event(StatusChanged("writing code"))
    assert "writing code" in view.status.value


def test_header_counts_tokens_and_elapsed_time():
    clock = FakeClock()
    view = _view(clock)
    view.on_event(UsageReported("post-1", {"prompt_tokens": 1200, "completion_tokens": 34}))
    clock.advance(5)
    view.on_event(StatusChanged("executing"))
    view.on_event(MessageDelta("post-1", "x", True))
    assert "1,200 in / 34 out tokens" in view.header.value
    assert "5 s" in view.header.value


def test_header_says_what_share_of_the_input_was_cached():
    view = _view()
    view.on_event(UsageReported("post-1", {"prompt_tokens": 1000, "completion_tokens": 30}))
    view.on_event(
        UsageReported("post-2", {"prompt_tokens": 1000, "completion_tokens": 30, "cached_tokens": 900})
    )
    assert "2,000 in (45% cached) / 60 out tokens" in view.header.value


def test_committed_post_replaces_streamed_text():
    round = analysis_round()
    view = _view()
    coder = round.post_list[2]
    view.on_event(PostStarted(coder.id, "CodeInterpreter", "Planner"))
    view.on_event(MessageDelta(coder.id, "partial", False))
    view.on_event(PostCommitted(coder))
    assert _markdown(view, coder.id) == "The mean is 2.0"
    assert "statistics" in _all_html(view)
    assert "SUCCESS" in _all_html(view)


def test_failed_round_shows_why_in_the_widget():
    view = _view()
    view.on_event(RoundFailed("round-1", "The LLM server refused the key (HTTP 401)."))
    view.on_event(RoundEnded("round-1", "failed", "The LLM server refused the key (HTTP 401)."))
    assert "Round failed:</b> The LLM server refused the key (HTTP 401)." in view.failure.value
    assert ">failed</span>" in view.header.value


def test_interrupted_round_says_interrupted():
    view = _view()
    view.on_event(RoundEnded("round-1", "failed", "Interrupted by the user (Ctrl-C)."))
    assert ">interrupted</span>" in view.header.value


def test_finish_shows_final_posts_state_and_summary():
    from twnb.render import MIME_TYPE, plan_from_round, round_bundle

    round = analysis_round()
    view = RoundView(round.user_query, clock=FakeClock())
    payload = round_bundle(round, session_id="s", plan=plan_from_round(round))[MIME_TYPE]
    view.finish(round, payload)
    assert len(view.posts.children) == 4
    assert ">finished</span>" in view.header.value
    assert "time 3.2 s · tokens 1,500 in / 120 out · 3 LLM calls" in view.summary.value
    assert "☑ report it" in view.plan.value


def test_mime_bundle_is_the_widget_view():
    view = _view()
    bundle = view.mime_bundle()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == view.widget.model_id


def test_tick_sends_text_the_throttle_held_back():
    clock = FakeClock()
    view = _view(clock)
    view.on_event(MessageDelta("post-1", "first ", False))
    view.on_event(MessageDelta("post-1", "held", False))  # inside the interval: held back
    assert _markdown(view, "post-1") == "first "
    clock.advance(1.0)
    view.tick()
    assert _markdown(view, "post-1") == "first held"


def test_tick_moves_the_elapsed_time_during_a_long_code_run():
    clock = FakeClock()
    view = _view(clock)
    view.on_event(StatusChanged("executing"))
    clock.advance(7)
    view.tick()
    assert "<small>7 s</small>" in view.header.value


def test_a_finished_round_shows_its_time_to_a_tenth_of_a_second():
    clock = FakeClock()
    view = _view(clock)
    clock.advance(0.6)
    view.on_event(RoundEnded("round-1", "finished", None))
    assert "<small>0.6 s</small>" in view.header.value


def test_a_finished_round_shows_the_same_time_in_its_header_and_its_summary():
    from twnb.render import MIME_TYPE, round_bundle

    clock = FakeClock()
    round = analysis_round()  # its timing says 3.2 s
    view = RoundView(round.user_query, clock=clock)
    clock.advance(3.5)  # the view was made before the Round's clock started
    view.finish(round, round_bundle(round, session_id="s")[MIME_TYPE])
    assert "<small>3.2 s" in view.header.value
    assert "time 3.2 s" in view.summary.value


def test_every_widget_shares_one_layout():
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    view = _view()  # saved widget state holds one model per widget, Layouts and styles included
    view.on_event(AttachmentDelta("post-1", "a-1", AttachmentType.thought, "t", True))
    view.on_event(AttachmentDelta("post-1", "a-2", AttachmentType.reply_content, "x = 1", True))
    made = [_instances[key]._model_name for key in set(_instances) - before]
    assert made.count("LayoutModel") == 2  # the bordered outer box, and one shared by everything inside
    assert made.count("HTMLStyleModel") == 1
    assert made.count("HTMLModel") == 6  # header, plan, status, failure, summary, the post's attachments


def _figure_post(tmp_path, *, displayed: bool):
    import base64

    from twnb.memory import Attachment, Post

    png = tmp_path / "fig.png"
    png.write_bytes(
        base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
        )
    )
    post = Post.create("made a figure", "CodeInterpreter", "Planner")
    result = Attachment.create(AttachmentType.execution_result, "The execution succeeded.")
    if displayed:
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        output = {"output_type": "display_data", "data": {"image/png": data}, "metadata": {}}
        result.extra = {"outputs": [output]}
    post.add_attachment(result)
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, ["fig.png"]))
    return post


def test_a_figure_the_code_displayed_is_linked_not_embedded_again(tmp_path):
    view = RoundView("plot", base_dir=tmp_path, clock=FakeClock())
    view.on_event(PostCommitted(_figure_post(tmp_path, displayed=True)))
    html = _all_html(view)
    assert 'href="fig.png"' in html and "shown in the cell's output" in html
    assert "base64" not in html


def test_a_figure_only_saved_to_a_file_is_shown_in_the_widget(tmp_path):
    view = RoundView("plot", base_dir=tmp_path, clock=FakeClock())
    view.on_event(PostCommitted(_figure_post(tmp_path, displayed=False)))
    assert '<img src="data:image/png;base64,' in _all_html(view)


def test_hostile_markdown_in_a_message_makes_no_image_or_link():
    view = _view()
    hostile = "![x](https://evil.example/leak.png) [y](javascript:alert(1))"
    view.on_event(MessageDelta("post-1", hostile, True))
    markdown = _markdown(view, "post-1")
    assert "![x](" not in markdown and "[y](" not in markdown
    assert "&#91;x&#93;" in markdown


def test_a_safe_link_in_a_message_stays_a_link_in_the_widget():
    from support.nb_markdown import rendered

    view = _view()
    view.on_event(MessageDelta("post-1", "Saved [unusual_weeks.csv](unusual_weeks.csv).", True))
    assert '<a href="unusual_weeks.csv">unusual_weeks.csv</a>' in rendered(_markdown(view, "post-1"))


def test_hostile_links_in_the_widget_never_get_a_scheme():
    from support.nb_markdown import rendered

    view = _view()
    view.on_event(MessageDelta("post-1", "[a](jav&#97;script:void) [b](data:text/html,x) ![c](c.png)", True))
    html = rendered(_markdown(view, "post-1"))
    assert "<img" not in html
    assert all(not href.startswith(("javascript", "data")) for href in re.findall(r'href="([^"]*)"', html))
    assert "&#91;b&#93;(data:text/html,x)" in _markdown(view, "post-1")


def _finished(round):
    from twnb.render import MIME_TYPE, plan_from_round, round_bundle

    view = RoundView(round.user_query, clock=FakeClock())
    for post in round.post_list:
        view.on_event(PostStarted(post.id, post.send_from, post.send_to))
    assert [box.selected_index for box in view.posts.children] == [0] * len(round.post_list)  # streaming
    view.finish(round, round_bundle(round, session_id="s", plan=plan_from_round(round))[MIME_TYPE])
    return view


def test_a_finished_round_folds_all_but_the_code_and_the_answer():
    view = _finished(analysis_round())
    titles = [(box.titles[0], box.selected_index) for box in view.posts.children]
    assert titles == [
        ("User → Planner", None),
        ("Planner → CodeInterpreter", None),
        ("CodeInterpreter → Planner", 0),
        ("Planner → User", 0),
    ]


def test_a_failed_round_keeps_the_post_it_stopped_at_open():
    round = analysis_round()
    round.post_list.pop()  # no answer: the Round failed after the code ran
    round.post_list.append(Post.create("Check the result.", "Planner", "CodeInterpreter"))
    round.change_round_state("failed")
    view = _finished(round)
    assert [box.selected_index for box in view.posts.children] == [None, None, 0, 0]


def test_planner_bookkeeping_folds_into_notes_once_the_round_ends():
    round = analysis_round()
    view = _view()
    answer = round.post_list[-1]
    view.on_event(PostStarted(answer.id, "Planner", "User"))
    view.on_event(AttachmentDelta(answer.id, "a-1", AttachmentType.stop, "Completed", True))
    streaming = view._posts[answer.id].attachments_html.value
    assert "<details open><summary><small>planner notes</small></summary>" in streaming
    assert "Completed" in streaming
    view.finish(round)
    ended = view._posts[answer.id].attachments_html.value
    assert ended.startswith("<details><summary><small>planner notes</small></summary>")
    assert "<small>current step:</small> <i>2. report it</i>" in ended


def test_verification_is_a_badge_next_to_the_status():
    view = _view()
    for index, (kind, text) in enumerate(
        [(AttachmentType.verification, "CORRECT"), (AttachmentType.execution_status, "SUCCESS")]
    ):
        view.on_event(AttachmentDelta("post-1", f"a-{index}", kind, text, True))
    html = view._posts["post-1"].attachments_html.value
    assert "CORRECT" not in html and "verification" not in html
    assert re.search(r">SUCCESS</b> <small [^>]*>verified</small></div>$", html)


def test_failed_verification_is_shown_plainly():
    view = _view()
    view.on_event(AttachmentDelta("post-1", "a-1", AttachmentType.verification, "INCORRECT", True))
    assert f'<small>verification:</small> <b style="color:{RED}">INCORRECT</b>' in _all_html(view)


def test_a_reply_cut_off_is_marked_in_its_title_and_body():
    view = _view()
    cut = Post.create("The mean is", "Planner", "Unknown")
    cut.id = "post-1"
    cut.extra["incomplete"] = "The reply stopped before it was complete: LLMStreamDropped."
    view.on_event(PostCommitted(cut))
    section = view._posts["post-1"]
    assert section.box.titles == ("Planner (reply cut off)",)
    assert "⚠ reply cut off: The reply stopped before it was complete: LLMStreamDropped." in (
        section.attachments_html.value
    )


def test_a_successful_result_folds_once_the_round_ends_and_an_error_does_not():
    round = analysis_round()
    view = _finished(round)
    coder = view._posts[round.post_list[2].id].attachments_html.value
    assert "<details><summary><small>result as the LLM was told</small></summary>" in coder
    failed = analysis_round()
    failed.post_list[2].del_attachment([AttachmentType.execution_status])
    failed.post_list[2].add_attachment(Attachment.create(AttachmentType.execution_status, "FAILURE"))
    view = _finished(failed)
    assert "result as the LLM was told" not in view._posts[failed.post_list[2].id].attachments_html.value


def test_an_interrupt_abandons_the_unfinished_plan_steps_in_the_checklist():
    round = analysis_round()
    view = _view()
    plans = _following(view)
    plans.update(derive_plan(None, round.post_list[1], user_query=round.user_query))
    interrupted = Round.create(user_query=round.user_query)
    interrupted.change_round_state("failed")
    plans.round_ended(interrupted)
    assert "✗ compute the mean <small>(abandoned)</small>" in _checklist(view)
    assert "✗ report it <small>(abandoned)</small>" in _checklist(view)


def test_plan_steps_render_inline_markdown_in_full():
    round = analysis_round()
    long_step = "Load `orders.csv` and " + " ".join(f"word{i}" for i in range(20))
    round.post_list[1].attachment_list[0].content = f"1. {long_step}\n2. report it"
    view = _view()
    _following(view).update(derive_plan(None, round.post_list[1], user_query=round.user_query))
    assert "Load <code>orders.csv</code> and word0" in re.sub(r"<code [^>]*>", "<code>", view.plan.value)
    assert "word19" in view.plan.value


def test_the_planner_notes_show_each_plan_text_once_per_round():
    round = analysis_round()
    view = RoundView(round.user_query, clock=FakeClock())
    for post in round.post_list:
        view.on_event(PostCommitted(post))
    first, answer = view._posts[round.post_list[1].id], view._posts[round.post_list[3].id]
    assert "1. compute the mean\n2. report it" in first.attachments_html.value
    assert "1. compute the mean\n2. report it" not in answer.attachments_html.value
    assert "<i>2. report it</i>" in answer.attachments_html.value  # its current step still shows


def test_close_closes_every_widget_of_the_view():
    round = analysis_round()
    view = RoundView(round.user_query, clock=FakeClock())
    for post in round.post_list:
        view.on_event(PostCommitted(post))
    widgets = [view.widget, view.header, view.plan, *view.posts.children, view.widget.layout]
    view.close()
    assert all(widget.comm is None for widget in widgets)
