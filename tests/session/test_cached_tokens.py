"""Cached input tokens, as a server with a prompt cache reports them through the openai SDK, reach each
Post's usage, the Round's usage and the Round's summary line."""

from __future__ import annotations

from support.session_script import answer, code_reply, planner_reply

from twnb.render import round_bundle


def two_rounds_script() -> dict:
    return {
        "Planner": [planner_reply("CodeInterpreter", "Run the step."), answer("Done.")] * 2,
        "CodeInterpreter": [code_reply("a = 1"), code_reply("b = 2")],
    }


def test_cached_tokens_reported_by_the_server_are_kept_per_call_and_summed_per_round(make_session, fake_llm):
    fake_llm.prompt_cache = True
    session = make_session(two_rounds_script())
    session.run_round("Set a")
    second = session.run_round("Now set b")

    posts = [p for p in second.post_list if p.send_from != "User"]
    cached = [p.extra["usage"]["cached_tokens"] for p in posts]
    assert len(posts) == 3
    assert all(c > 0 for c in cached)  # every call repeats at least its role's system prompt
    assert all(c < p.extra["usage"]["prompt_tokens"] for c, p in zip(cached, posts, strict=True))
    assert second.extra["usage"]["cached_tokens"] == sum(cached)


def test_the_round_summary_line_says_what_share_of_the_input_was_cached(make_session, fake_llm):
    fake_llm.prompt_cache = True
    session = make_session(two_rounds_script())
    first = session.run_round("Set a")
    second = session.run_round("Now set b")

    usage = second.extra["usage"]
    share = usage["cached_tokens"] / usage["prompt_tokens"]
    line = round_bundle(second, session_id=session.session_id)["text/plain"].splitlines()[-1]
    assert f"{usage['prompt_tokens']:,} in ({share:.0%} cached)" in line
    assert "cached" in round_bundle(first, session_id=session.session_id)["text/plain"]  # its 2nd, 3rd calls
