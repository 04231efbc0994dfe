"""Prompts fitted to a known context: each level cuts what the model can do without, the first level that
fits is sent, and a prompt that fits at none is refused with the numbers."""

from __future__ import annotations

import pytest
from prompt_history import analysis_round, memory_with, sent, with_task

from twnb.llm.context_window import ContextWindows, KnownContext, PromptBudget
from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.planner import Planner
from twnb.roles.planner_prompt import Worker
from twnb.roles.prompt_fit import FIT_LEVELS, FULL, PromptTooLong, fit_prompt, prompt_tokens
from twnb.roles.role_setup import CodeLimits, RoleSurroundings
from twnb.roles.translator import PostTranslator

WIDE_NAMESPACE = "Variables in the kernel:\n" + "".join(
    f"- col_{i}: Series, int64, 1,000 values\n" for i in range(300)
)


def roles() -> tuple[Planner, CodeInterpreter]:
    translator = PostTranslator()
    wide = RoleSurroundings(namespace_summary=lambda: WIDE_NAMESPACE)
    code = CodeInterpreter(None, "m", translator, surroundings=wide)
    planner = Planner(None, "m", translator, workers=[Worker(code.alias, code.intro)], surroundings=wide)
    return planner, code


def budget(tokens: int, *, source: str = "llama-server's /props") -> PromptBudget:
    return PromptBudget(KnownContext(tokens, source), reply_tokens=tokens // 4, chars_per_token=4.0)


def text_of(messages) -> str:
    return "\n".join(m["content"] for m in sent(messages))


def test_without_a_known_context_the_prompt_is_what_it_always_was():
    planner, _ = roles()
    memory = memory_with([analysis_round(n) for n in range(1, 6)])

    assert sent(fit_prompt(lambda fit: planner.compose(memory, fit), None, "Planner")) == sent(
        planner.compose(memory)
    )


def test_a_prompt_that_fits_is_sent_whole():
    planner, _ = roles()
    memory = memory_with([analysis_round(n) for n in range(1, 6)])

    fitted = fit_prompt(lambda fit: planner.compose(memory, fit), budget(100_000), "Planner")

    assert sent(fitted) == sent(planner.compose(memory, FULL))


def test_each_level_makes_the_prompt_smaller():
    planner, code = roles()
    memory = with_task(memory_with([analysis_round(n) for n in range(1, 12)]))
    for role in (planner, code):
        sizes = [len(text_of(role.compose(memory, fit))) for fit in FIT_LEVELS]
        assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes), type(role).__name__


def test_the_first_level_that_fits_is_sent():
    planner, _ = roles()
    memory = memory_with([analysis_round(n) for n in range(1, 12)])
    _, *cut = [prompt_tokens(planner.compose(memory, fit), budget(1)) for fit in FIT_LEVELS]
    room = budget(int((cut[1] + 1) / 0.75) + 4)  # level 2 fits, level 1 does not
    assert room.prompt_tokens >= cut[1] and room.prompt_tokens < cut[0]

    fitted = fit_prompt(lambda fit: planner.compose(memory, fit), room, "Planner")

    assert sent(fitted) == sent(planner.compose(memory, FIT_LEVELS[2]))


def test_fitting_keeps_the_request_and_cuts_the_examples_and_the_summary():
    planner, _ = roles()
    memory = memory_with([analysis_round(n) for n in range(1, 12)], "Now compare the regions")

    text = text_of(planner.compose(memory, FIT_LEVELS[-1]))

    assert "Now compare the regions" in text
    assert "col_0" not in text  # no namespace summary
    assert len(sent(planner.compose(memory, FIT_LEVELS[-1]))) < len(sent(planner.compose(memory, FULL)))


def test_a_prompt_that_fits_nowhere_is_refused_with_the_numbers_and_what_to_change():
    planner, _ = roles()
    memory = memory_with([analysis_round(1)])

    with pytest.raises(PromptTooLong) as caught:
        fit_prompt(lambda fit: planner.compose(memory, fit), budget(400), "Planner")

    message = str(caught.value)
    assert "The Planner's prompt does not fit the model's context" in message
    assert "400-token context (llama-server's /props) leaves 300" in message
    assert "llama-server -c N" in message and "max_tokens" in message


def test_a_context_learned_from_an_error_only_fits_and_never_refuses():
    planner, _ = roles()
    memory = memory_with([analysis_round(1)])
    learned = budget(400, source="the server's context error")

    fitted = fit_prompt(lambda fit: planner.compose(memory, fit), learned, "Planner")

    assert sent(fitted) == sent(planner.compose(memory, FIT_LEVELS[-1]))


def test_a_role_given_the_context_fits_its_own_prompts():
    windows = ContextWindows(context_size=3000)
    translator = PostTranslator()
    wide = RoleSurroundings(namespace_summary=lambda: WIDE_NAMESPACE)
    code = CodeInterpreter(None, "m", translator, limits=CodeLimits(context=windows), surroundings=wide)
    memory = with_task(memory_with([analysis_round(n) for n in range(1, 4)]))

    assert code.turn.budget() == windows.budget("m")
    fitted = fit_prompt(lambda fit: code.compose(memory, fit), code.turn.budget(), code.name)
    assert prompt_tokens(fitted, windows.budget("m")) <= windows.budget("m").prompt_tokens
