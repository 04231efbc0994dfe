"""The model's context: asked of each server where it says it, read from each server's context error, and
the budget a prompt gets in it."""

from __future__ import annotations

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.context_error import read_context_error
from twnb.llm.context_window import ContextWindows, KnownContext
from twnb.llm.errors import LLMContextExceeded

MESSAGES = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": "hi " * 200}]


def client_for(fake_llm, **options) -> OpenAIChatClient:
    return OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0, **options))


@pytest.mark.parametrize(
    ("server", "source"),
    [
        ("llama-server", "llama-server's /props"),
        ("vllm", "vLLM's /v1/models"),
        ("lmstudio", "LM Studio's /api/v1/models"),
        ("ollama", "Ollama's /api/ps"),
    ],
)
def test_each_server_is_asked_where_it_says_its_context(fake_llm, server, source):
    fake_llm.behaves_like, fake_llm.context_size = server, 3072

    known = client_for(fake_llm).context.known("fake-model")

    assert known == KnownContext(3072, source)


def test_a_server_that_says_nothing_leaves_the_context_unknown(fake_llm):
    fake_llm.behaves_like = "llama-cpp-python"
    client = client_for(fake_llm)

    assert client.context.known("fake-model") is None
    assert client.context.budget("fake-model") is None


def test_the_server_is_asked_once_per_model(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 2048
    client = client_for(fake_llm)

    for _ in range(3):
        client.context.known("fake-model")

    assert [r["path"] for r in fake_llm.requests()].count("/props") == 1


def test_the_context_size_setting_wins_and_asks_nothing(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 2048

    known = client_for(fake_llm, context_size=8192).context.known("fake-model")

    assert known == KnownContext(8192, "the context_size setting")
    assert fake_llm.requests() == []


def test_openai_itself_is_not_asked():
    client = OpenAIChatClient("sk-test", None)
    assert client.context.probe is None


@pytest.mark.parametrize("server", ["llama-server", "vllm", "lmstudio"])
def test_each_servers_context_error_is_read_with_its_numbers(fake_llm, server):
    fake_llm.behaves_like, fake_llm.context_size = server, 100
    fake_llm.load({"*": ["never sent"]})

    with pytest.raises(LLMContextExceeded) as caught:
        client_for(fake_llm).stream(MESSAGES, model="fake-model")

    assert (caught.value.context_tokens, caught.value.prompt_tokens) == (100, 155)
    assert "the prompt has 155 tokens, the context holds 100" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "context", "prompt"),
    [
        (
            "request (2155 tokens) exceeds the available context size (2048 tokens), try increasing it",
            2048,
            2155,
        ),
        ("Requested tokens (2155) exceed context window of 2048", 2048, 2155),
        (
            "This model's maximum context length is 4096 tokens. However, you requested 4348 tokens "
            "(4332 in the messages, 16 in the completion).",
            4096,
            4332,
        ),
        (
            "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "130,512 tokens.",
            128000,
            130512,
        ),
        (
            "Trying to keep the first 2155 tokens when context the overflows. However, the model is loaded "
            "with context length of only 2048 tokens, which is not enough.",
            2048,
            2155,
        ),
    ],
)
def test_context_errors_are_read_in_each_servers_words(text, context, prompt):
    overflow = read_context_error(text)
    assert overflow is not None
    assert (overflow.context_tokens, overflow.prompt_tokens) == (context, prompt)


def test_other_errors_are_not_context_errors():
    assert read_context_error("Invalid parameter: 'response_format' of type 'json_schema'") is None
    assert read_context_error("max_tokens must be at least 1") is None


def test_a_budget_keeps_room_for_the_reply():
    windows = ContextWindows(context_size=8192)
    assert windows.budget("m").prompt_tokens == 8192 - 2048  # a quarter of the context
    assert ContextWindows(context_size=8192, max_tokens=500).budget("m").prompt_tokens == 7692
    assert ContextWindows(context_size=512).budget("m").prompt_tokens == 256  # at least 256 for the reply


def test_the_servers_own_count_sets_how_many_characters_a_token_is():
    windows = ContextWindows(context_size=8192)
    before = windows.budget("m").estimate([{"role": "user", "content": "x" * 3000}])

    windows.observe("m", prompt_chars=4000, prompt_tokens=1000)

    after = windows.budget("m").estimate([{"role": "user", "content": "x" * 3000}])
    assert (before, after) == (1000 + 5, 750 + 5)


def test_a_context_learned_from_an_error_fits_prompts_but_is_not_enforced():
    windows = ContextWindows()

    learned = windows.learn("m", context_tokens=2048, prompt_tokens=2155, prompt_chars=8620)

    budget = windows.budget("m")
    assert learned and budget is not None
    assert budget.context == KnownContext(2048, "the server's context error") and not budget.enforced
    assert budget.chars_per_token == 4.0
    assert not windows.learn("m", context_tokens=2048, prompt_tokens=2155, prompt_chars=8620)  # nothing new
