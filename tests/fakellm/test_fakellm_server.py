"""The loopback server itself: role selection, script rules and control endpoints, in and out of process."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import openai
import pytest

from fakellm.script import Script

# `python -m tests.fakellm` from the repository's root, as its README says.
ROOT = Path(__file__).resolve().parents[2]
AS_A_PROCESS = [sys.executable, "-m", "tests.fakellm"]


def sdk(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="test-key", base_url=base_url, max_retries=0, timeout=5.0)


def ask(client: openai.OpenAI, system: str | None) -> str:
    messages = [{"role": "system", "content": system}] if system is not None else []
    messages.append({"role": "user", "content": "go"})
    reply = client.chat.completions.create(model="fake-model", messages=messages)
    return reply.choices[0].message.content


def http_json(url: str, payload: object | None = None) -> object:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_the_role_named_earliest_in_the_system_prompt_is_served(fake_llm):
    fake_llm.load({"Planner": ["plan"], "CodeInterpreter": ["code"]})
    client = sdk(fake_llm.base_url)

    assert ask(client, "You are the CodeInterpreter. Report your results to the Planner.") == "code"
    assert ask(client, "You are the Planner; the CodeInterpreter runs code for you.") == "plan"
    assert [r["role"] for r in fake_llm.chat_requests()] == ["CodeInterpreter", "Planner"]


def test_each_roles_replies_are_served_in_order_then_the_wildcard(fake_llm):
    fake_llm.load({"Planner": ["first", "second"], "*": ["any"]})
    client = sdk(fake_llm.base_url)

    replies = [ask(client, "You are the Planner.") for _ in range(3)]

    assert replies == ["first", "second", "any"]


def test_a_request_without_a_system_prompt_gets_the_wildcard(fake_llm):
    fake_llm.load({"Planner": ["plan"], "*": ["any"]})

    assert ask(sdk(fake_llm.base_url), None) == "any"


def test_a_tie_goes_to_the_longest_key():
    script = Script.from_spec({"Plan": [], "Planner": []})

    assert script.role_for("You are the Planner.") == "Planner"


def test_nothing_left_is_a_400_naming_the_role(fake_llm):
    fake_llm.load({"Planner": []})

    with pytest.raises(openai.BadRequestError) as caught:
        ask(sdk(fake_llm.base_url), "You are the Planner.")

    assert caught.value.code == "fake_script_exhausted"
    assert "'Planner'" in str(caught.value)


def test_an_unknown_reply_key_is_refused_with_its_place():
    with pytest.raises(ValueError, match=r"script\['Planner'\]\[1\]: unknown reply keys \['contnet'\]"):
        Script.from_spec({"Planner": ["ok", {"contnet": "typo"}]})


def test_an_unknown_fault_is_refused():
    with pytest.raises(ValueError, match="fault must be one of"):
        Script.from_spec({"*": [{"fault": "http_418"}]})


def test_reject_response_format_with_a_list_refuses_only_those_types(fake_llm):
    fake_llm.load({"*": [{"content": "ok", "reject_response_format": ["json_schema"]}]})
    client = sdk(fake_llm.base_url)
    messages = [{"role": "user", "content": "reply in JSON"}]
    schema = {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}}}

    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="fake-model", messages=messages, response_format=schema)
    accepted = client.chat.completions.create(
        model="fake-model", messages=messages, response_format={"type": "json_object"}
    )

    assert refused.value.body["param"] == "response_format"
    assert "'json_schema' is not supported" in refused.value.body["message"]
    assert accepted.choices[0].message.content == "ok"


def test_reject_response_format_true_refuses_every_type_but_not_plain_text():
    script = Script.from_spec({"*": [{"content": "ok", "reject_response_format": True}]})

    kinds = ["json_schema", "json_object", None]
    faults = [script.next_for("", response_format_type=kind).fault for kind in kinds]

    assert faults == ["reject_response_format", "reject_response_format", None]


def test_a_bad_reject_response_format_is_refused_with_its_place():
    expected = r"script\['\*'\]\[0\]: reject_response_format is true, false or a list"
    with pytest.raises(ValueError, match=expected):
        Script.from_spec({"*": [{"reject_response_format": "json_schema"}]})


def test_a_non_streamed_reply_carries_reasoning_and_usage(fake_llm):
    fake_llm.load({"*": [{"content": "answer", "reasoning": "thinking", "cached_tokens": 3}]})

    reply = sdk(fake_llm.base_url).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "go"}]
    )

    assert reply.choices[0].message.content == "answer"
    assert reply.choices[0].message.reasoning_content == "thinking"
    assert reply.usage.prompt_tokens_details.cached_tokens == 3


def test_the_usage_chunk_comes_only_when_asked_for(fake_llm):
    fake_llm.load({"*": ["a", "b"]})
    client = sdk(fake_llm.base_url)
    messages = [{"role": "user", "content": "go"}]

    plain = list(client.chat.completions.create(model="m", messages=messages, stream=True))
    with_usage = list(
        client.chat.completions.create(
            model="m", messages=messages, stream=True, stream_options={"include_usage": True}
        )
    )

    assert all(chunk.usage is None for chunk in plain)
    assert with_usage[-1].choices == [] and with_usage[-1].usage.completion_tokens == 1


def test_control_endpoints_load_a_script_and_list_requests_over_http(fake_llm):
    http_json(f"{fake_llm.root_url}/_fake/script", {"*": ["over http"]})

    assert ask(sdk(fake_llm.base_url), None) == "over http"
    recorded = http_json(f"{fake_llm.root_url}/_fake/requests")
    assert [r["path"] for r in recorded] == ["/v1/chat/completions"]

    http_json(f"{fake_llm.root_url}/_fake/reset", {})
    assert http_json(f"{fake_llm.root_url}/_fake/requests") == []


def test_models_are_listed(fake_llm):
    models = sdk(fake_llm.base_url).models.list()

    assert [m.id for m in models.data] == ["fake-model"]


def test_runs_as_its_own_process_and_prints_its_base_url(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"*": ["from a process"]}))
    process = subprocess.Popen(
        [*AS_A_PROCESS, "--script", str(script), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        assert ask(sdk(base_url), None) == "from a process"
    finally:
        process.terminate()
        process.wait(timeout=5)


def test_a_bad_script_file_stops_the_process_with_a_message(tmp_path):
    script = tmp_path / "script.json"
    script.write_text("{not json")

    done = subprocess.run(
        [*AS_A_PROCESS, "--script", str(script)], capture_output=True, text=True, timeout=10, cwd=ROOT
    )

    assert done.returncode == 2
    assert "cannot read it as JSON" in done.stderr


def test_with_a_prompt_cache_the_prefix_shared_with_an_earlier_request_is_reported_cached(fake_llm):
    fake_llm.load({"*": ["a", "b"]})
    fake_llm.prompt_cache = True
    client = sdk(fake_llm.base_url)
    first = [{"role": "system", "content": "S" * 400}, {"role": "user", "content": "question one"}]
    second = [*first, {"role": "assistant", "content": "a"}, {"role": "user", "content": "question two"}]

    usages = [
        client.chat.completions.create(model="fake-model", messages=messages).usage
        for messages in (first, second)
    ]

    shared = len("<|system|>" + "S" * 400 + "<|user|>question one")  # the first request whole
    assert [u.prompt_tokens_details.cached_tokens for u in usages] == [0, shared // 4]


# -- acting like the servers people run themselves ------------------------------------------------


def stream_events(client: openai.OpenAI, content: str = "go", **extra) -> list:
    messages = [{"role": "user", "content": content}]
    return list(client.chat.completions.create(model="fake-model", messages=messages, stream=True, **extra))


def test_llama_cpp_python_refuses_json_schema_with_a_500_naming_response_format(fake_llm):
    fake_llm.behaves_like = "llama-cpp-python"
    fake_llm.load({"*": ["ok"]})
    schema = {"name": "r", "schema": {"type": "object"}}

    with pytest.raises(openai.InternalServerError) as caught:
        sdk(fake_llm.base_url).chat.completions.create(
            model="fake-model",
            messages=[{"role": "user", "content": "go"}],
            response_format={"type": "json_schema", "json_schema": schema},
        )

    assert "response_format" in caught.value.message and "'text' or 'json_object'" in caught.value.message
    assert fake_llm.remaining() == {"*": 1}  # the reply waits for a request it takes


def test_llama_cpp_python_never_sends_usage_while_streaming(fake_llm):
    fake_llm.behaves_like = "llama-cpp-python"
    fake_llm.load({"*": ["ok"]})

    chunks = stream_events(sdk(fake_llm.base_url), stream_options={"include_usage": True})

    assert all(chunk.usage is None for chunk in chunks)


def test_llama_cpp_python_streams_nothing_for_a_prompt_over_its_context(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-cpp-python", 1
    fake_llm.load({"*": ["ok"]})

    assert stream_events(sdk(fake_llm.base_url), "go on and on") == []


def test_llama_server_says_its_context_and_refuses_a_longer_prompt_with_the_numbers(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 2
    fake_llm.load({"*": ["ok"]})

    props = http_json(f"{fake_llm.root_url}/props")
    with pytest.raises(openai.BadRequestError) as caught:
        stream_events(sdk(fake_llm.base_url), "go on and on")

    assert props["default_generation_settings"]["n_ctx"] == 2
    assert "exceeds the available context size (2 tokens)" in caught.value.message


def test_a_reply_past_the_context_edge_is_cut_with_finish_reason_length(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 3  # "go" is 1 token: 8 characters left
    fake_llm.load({"*": ["0123456789abcdef"]})

    chunks = stream_events(sdk(fake_llm.base_url))

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "01234567"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


@pytest.mark.parametrize(
    ("server", "path", "field"),
    [("vllm", "/v1/models", "max_model_len"), ("ollama", "/api/ps", "context_length")],
)
def test_vllm_and_ollama_list_each_models_context(fake_llm, server, path, field):
    fake_llm.behaves_like, fake_llm.context_size = server, 4096

    listing = http_json(f"{fake_llm.root_url}{path}")

    entries = listing.get("data") or listing.get("models")
    assert [entry[field] for entry in entries] == [4096]


def test_lm_studio_says_the_loaded_context_of_a_model(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "lmstudio", 4096

    models = http_json(f"{fake_llm.root_url}/api/v1/models")["models"]

    assert [m["loaded_instances"][0]["config"]["context_length"] for m in models] == [4096]


def test_a_stall_of_empty_deltas_sends_chunks_without_content(fake_llm):
    stall = {"content": "ab", "stall_after_chars": 0, "stall_s": 0.3, "stall_with": "empty_deltas"}
    fake_llm.load({"*": [stall]})

    chunks = stream_events(sdk(fake_llm.base_url))

    empty = [c for c in chunks if c.choices and c.choices[0].delta.content == ""]
    assert len(empty) >= 4  # the opening role chunk, then one every 0.05 s


def test_an_error_event_mid_stream_reaches_the_sdk_with_the_servers_words(fake_llm):
    fake_llm.load(
        {"*": [{"content": "abcdefgh", "error_event": "output does not match the expected format"}]}
    )

    with pytest.raises(openai.APIError, match="output does not match the expected format"):
        stream_events(sdk(fake_llm.base_url))


def test_an_empty_200_is_a_stream_with_no_event(fake_llm):
    fake_llm.load({"*": [{"content": "abcdefgh", "empty_200": True}]})

    assert stream_events(sdk(fake_llm.base_url)) == []
    assert fake_llm.remaining() == {"*": 1}


def test_an_unknown_server_is_refused():
    from fakellm.server import FakeLLMServer

    with pytest.raises(ValueError, match="behaves_like must be one of"):
        FakeLLMServer(behaves_like="mystery")


def test_one_at_a_time_a_second_request_ends_the_reply_streaming_without_a_finish_reason(fake_llm):
    fake_llm.one_at_a_time = True
    fake_llm.load({"*": [{"content": "a long first reply", "chunk_size": 1, "delay_s": 0.2}, "second"]})
    client = sdk(fake_llm.base_url)
    first = client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "go"}], stream=True
    )
    chunks = iter(first)
    next(chunks)  # the first reply is streaming

    assert ask(client, None) == "second"
    rest = list(chunks)
    text = "".join(c.choices[0].delta.content or "" for c in rest if c.choices)
    assert len(text) < len("a long first reply")
    assert all(c.choices[0].finish_reason is None for c in rest if c.choices)
