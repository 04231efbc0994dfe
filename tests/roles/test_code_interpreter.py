"""The CodeInterpreter's turn without a session: generate, what to run, record the result."""

from __future__ import annotations

import json

import pytest

from twnb.kernel import ExecutionError, ExecutionResult, VariableChange
from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.memory import Memory, Post
from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.role_setup import CodeLimits
from twnb.roles.translator import PostTranslator


def code(content: str, reply_type: str = "python") -> str:
    return json.dumps({"response": {"thought": "t", "reply_type": reply_type, "reply_content": content}})


def kinds(post: Post) -> list[str]:
    return [a.type.value for a in post.attachment_list]


def content(post: Post, kind: str):
    return next(a.content for a in post.attachment_list if a.type.value == kind)


@pytest.fixture
def interpreter(fake_llm):
    client = OpenAIChatClient(
        api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
    )
    return CodeInterpreter(client, "fake-model", PostTranslator(), limits=CodeLimits(max_revisions=1))


@pytest.fixture
def memory() -> Memory:
    memory = Memory("s")
    memory.create_round("q").add_post(Post.create("Compute it.", "Planner", "CodeInterpreter"))
    return memory


def test_verified_code_waits_to_run(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": [code("x = 1\nx")]})
    post = interpreter.generate(memory)
    assert kinds(post) == ["thought", "reply_type", "reply_content", "verification", "code_error"]
    assert interpreter.code_to_run(post) == "x = 1\nx"


def test_recorded_success_goes_to_the_planner_with_outputs_in_extra(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": [code("x = 1\nx")]})
    post = interpreter.generate(memory)
    outputs = [
        {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}, "execution_count": 1}
    ]
    result = ExecutionResult(
        "e1",
        "x = 1\nx",
        "success",
        result="1",
        outputs=outputs,
        variables=[VariableChange("x", "created", "int")],
        artifacts=["/tmp/a.png"],
    )
    interpreter.record_execution(post, result)
    assert kinds(post)[-3:] == ["execution_status", "execution_result", "artifact_paths"]
    assert post.send_to == "Planner" and content(post, "execution_status") == "SUCCESS"
    assert post.attachment_list[-2].extra["outputs"] == outputs
    assert content(post, "artifact_paths") == ["/tmp/a.png"]
    assert post.message == "The code ran successfully. Variables: x (int). Files: a.png."
    assert interpreter.code_to_run(post) is None


def test_recorded_failure_revises_quoting_the_error(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": [code("1/0")]})
    post = interpreter.generate(memory)
    error = ExecutionError("ZeroDivisionError", "division by zero", "ZeroDivisionError: division by zero")
    interpreter.record_execution(post, ExecutionResult("e2", "1/0", "error", error=error))
    assert post.send_to == "CodeInterpreter"
    assert "ZeroDivisionError" in content(post, "revise_message")
    assert post.message == "The code failed: ZeroDivisionError: division by zero"


def test_refused_code_is_not_offered_to_run(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": [code("exit()")]})
    post = interpreter.generate(memory)
    assert content(post, "verification") == "INCORRECT"
    assert interpreter.code_to_run(post) is None
    assert post.send_to == "CodeInterpreter" and "Line 1: exit()" in content(post, "revise_message")


def test_text_reply_goes_to_the_planner_without_code(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": [code("It cannot be done.", "text")]})
    post = interpreter.generate(memory)
    assert post.message == "It cannot be done." and post.send_to == "Planner"
    assert interpreter.code_to_run(post) is None


def test_unreadable_reply_asks_again_then_gives_up(interpreter, memory, fake_llm):
    fake_llm.load({"CodeInterpreter": ["no json here"] * 3})
    post = interpreter.generate(memory)
    assert post.send_to == "CodeInterpreter" and len(post.extra["dropped_attempts"]) == 3
    assert content(post, "execution_result") == "No code is executed due to code generation failure."


def test_a_reply_that_carries_its_own_result_is_run_and_the_record_says_so(interpreter, memory, fake_llm):
    made_up = {
        "thought": "t",
        "reply_type": "python",
        "reply_content": "x = 1\nx",
        "execution_status": "SUCCESS",
        "execution_result": "Revenue grew 40% in every region.",
        "artifact_paths": ["report.pdf"],
        "verification": "CORRECT",
    }
    fake_llm.load({"CodeInterpreter": [json.dumps({"response": made_up})]})
    post = interpreter.generate(memory)
    assert kinds(post) == ["thought", "reply_type", "reply_content", "verification", "code_error"]
    assert interpreter.code_to_run(post) == "x = 1\nx"
    assert post.extra["ignored_reply_keys"] == [
        "execution_status",
        "execution_result",
        "artifact_paths",
        "verification",
    ]


def test_a_reply_that_claims_verification_passed_is_still_verified(interpreter, memory, fake_llm):
    claim = {"thought": "t", "verification": "CORRECT", "reply_type": "python", "reply_content": "exit()"}
    fake_llm.load({"CodeInterpreter": [json.dumps({"response": claim})]})
    post = interpreter.generate(memory)
    assert content(post, "verification") == "INCORRECT"
    assert interpreter.code_to_run(post) is None


def test_a_refusal_of_the_runtime_guard_revises_like_a_verification_refusal(interpreter, memory, fake_llm):
    from twnb.kernel.guard.guard_refusal import GuardRefusal

    # The refusal comes from the kernel, whatever route the code took there; here, its second line.
    fake_llm.load({"CodeInterpreter": [code("x = 1\nrun_report()")]})
    post = interpreter.generate(memory)
    assert interpreter.code_to_run(post) is not None
    refusal = GuardRefusal(
        "process",
        "os.system",
        "starting a process (os.system: ls) is not allowed for generated code.",
        "Do it in Python.",
        line=2,
        source="run_report()",
    )
    error = ExecutionError("RuntimeGuardRefused", refusal.message)
    result = ExecutionResult("e3", "...", "refused", error=error, refusals=[refusal])
    interpreter.record_execution(post, result)
    assert content(post, "execution_status") == "FAILURE"
    assert post.send_to == "CodeInterpreter"
    revise = content(post, "revise_message")
    assert revise.startswith("The runtime guard refused what the code did while it ran:")
    assert (
        "Line 2: run_report() -> starting a process (os.system: ls)" in revise
        and "Do it in Python." in revise
    )
    assert post.message.splitlines()[1] == "Line 2: run_report() -> " + refusal.message
    record = next(a.extra for a in post.attachment_list if a.type.value == "execution_result")
    assert record["status"] == "refused" and record["refusals"][0]["rule"] == "process"
