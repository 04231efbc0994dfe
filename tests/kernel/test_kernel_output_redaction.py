"""Generated code's outputs are redacted before the notebook shows them, in both executors.

The live shell is tested in a real ipykernel (what the calling cell is sent is what the notebook saves),
the separate-kernel executor on its own kernel; `HeldText`, which holds stream text back until a secret
split across writes can be recognised, on its own.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from twnb.config.redaction import Redactor
from twnb.kernel import KernelExecutor
from twnb.kernel.capture.output_redaction import HOLD_LIMIT, HOLD_TAIL, HeldText

SECRET = "canary-output-secret-4711"
SHAPED = "ghp_CanaryGitHub0123456789abcdefghijKLMNOP"
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEcanaryPemBody0123\n-----END PRIVATE KEY-----"
REDACT = Redactor([SECRET], environ={}).redact

LEAKY = f"""
import sys
from IPython.display import HTML, display
sys.stdout.write({SECRET[:9]!r}); sys.stdout.flush(); sys.stdout.write({SECRET[9:] + chr(10)!r})
print({SHAPED!r}, file=sys.stderr)
print({PEM!r})
display(HTML("<b>{SECRET}</b>"))
display({{"application/json": {{"token": "{SHAPED}"}}}}, raw=True)
class Framed:
    def _repr_html_(self):
        return "<td>{SECRET}</td>"
    def __repr__(self):
        return "0  {SHAPED}"
Framed()
"""
RAISING = f"raise ValueError('cannot log in with {SECRET}')"


def _leaked(text: str) -> list[str]:
    return [s for s in (SECRET, SHAPED, "MIIEcanaryPemBody0123") if s in text]


def _shown(shown: list) -> str:
    """What the calling cell was sent, without the echo of its source (which holds the secrets)."""
    return repr([(kind, content) for kind, content in shown if kind != "execute_input"])


def _outputs(record: dict) -> str:
    """The record without the code that was run (which holds the secrets as literals)."""
    return repr({k: v for k, v in record.items() if k != "code"})


# -- HeldText: secrets split across writes -------------------------------------------------------


def _fed(pieces: list[str]) -> str:
    held = HeldText(REDACT)
    return "".join(held.feed(piece) for piece in pieces) + held.drain()


def test_a_secret_written_in_two_pieces_is_redacted():
    assert _fed([f"key {SECRET[:6]}", f"{SECRET[6:]} done\n"]) == "key [redacted] done\n"


def test_held_text_is_let_out_at_each_line_end():
    held = HeldText(REDACT)
    assert held.feed("one\ntw") == "one\n"
    assert held.feed("o\rthr") == "two\r"


def test_what_is_held_at_the_end_is_let_out_by_drain():
    held = HeldText(REDACT)
    assert held.feed(f"no newline {SECRET}") == ""
    assert held.drain() == "no newline [redacted]"


def test_a_pem_block_written_line_by_line_is_redacted_whole():
    assert "MIIE" not in _fed([line + "\n" for line in PEM.splitlines()])


def test_a_line_longer_than_the_hold_limit_is_let_out_all_but_a_bounded_tail():
    held = HeldText(REDACT)
    text = "word " * (HOLD_LIMIT // 5 + 100)
    out = held.feed(text)
    assert len(text) - HOLD_TAIL - len("word ") <= len(out) <= len(text) - HOLD_TAIL
    assert out + held.drain() == text


# -- the live shell, in a real kernel ------------------------------------------------------------


@pytest.fixture(scope="module")
def live_run(live_kernel):
    record = live_kernel.run_case(LEAKY, redact_secrets=(SECRET,))
    return record, list(live_kernel.shown)


def test_the_live_shell_shows_no_secret_in_the_calling_cell(live_run):
    _record, shown = live_run
    assert any(kind == "stream" for kind, _ in shown)
    assert _leaked(_shown(shown)) == []


def test_the_live_shell_records_no_secret(live_run):
    record, _shown = live_run
    assert "[redacted]" in record["stdout"]
    assert _leaked(_outputs(record)) == []


def test_the_live_shell_keeps_the_order_of_streams_and_displays(live_run):
    record, _shown = live_run
    kinds = [o["output_type"] for o in record["outputs"]]
    assert kinds[:2] == ["stream", "stream"] and kinds[-1] == "execute_result"


def test_the_live_shell_redacts_a_raised_exception(live_kernel):
    record = live_kernel.run_case(RAISING, redact_secrets=(SECRET,))
    assert record["error"]["ename"] == "ValueError"
    assert _leaked(_outputs(record) + _shown(live_kernel.shown)) == []


def test_the_live_shell_without_redact_leaves_outputs_as_they_are(live_kernel):
    record = live_kernel.run_case(f"print({SECRET!r})")
    assert record["stdout"] == SECRET + "\n"


def test_the_users_own_cells_are_not_redacted(live_kernel):
    live_kernel.run_case("1", redact_secrets=(SECRET,))
    live_kernel.execute(f"print({SECRET!r})")
    assert live_kernel.shown_streams() == {"stdout": SECRET + "\n"}


# -- text written straight to descriptors 1 and 2 (os.write, C code), in a kernel as a notebook's --

DESCRIPTOR_LEAK = f"""
import os
os.write(1, {SECRET[:9].encode()!r})
os.write(1, {(SECRET[9:] + " via fd 1" + chr(10)).encode()!r})
os.write(2, {("on fd 2: " + SHAPED + chr(10)).encode()!r})
None
"""


@pytest.fixture(scope="module")
def descriptor_run(watched_kernel):
    record = watched_kernel.run_case(DESCRIPTOR_LEAK, redact_secrets=(SECRET,))
    return record, list(watched_kernel.shown)


def test_the_live_shell_shows_no_secret_written_straight_to_a_descriptor(descriptor_run):
    _record, shown = descriptor_run
    text = "".join(content.get("text", "") for kind, content in shown if kind == "stream")
    assert "[redacted] via fd 1" in text
    assert _leaked(_shown(shown)) == []


def test_what_code_writes_to_the_descriptors_is_recorded_as_its_streams(descriptor_run):
    record, _shown = descriptor_run
    assert record["stdout"] == "[redacted] via fd 1\n"
    assert record["stderr"] == "on fd 2: [redacted]\n"


# -- a thread the code left running, writing after its execution ended ------------------------------

LINGERING_ENV = "TWNB_TEST_LINGERING_KEY"


def _lingering(delay_s: float, label: str) -> str:
    """Code that leaves a thread behind which prints the secret (to sys.stdout and to descriptor 1)
    `delay_s` seconds later, after the execution has ended."""
    return f"""
import os, threading, time
def __later():
    time.sleep({delay_s})
    print("{label} print", os.environ["{LINGERING_ENV}"])
    os.write(1, ("{label} fd " + os.environ["{LINGERING_ENV}"] + chr(10)).encode())
threading.Thread(target=__later).start()
"""


def _later_stream_text(kernel, *needles: str, timeout: float = 20) -> str:
    """The stream text the kernel sends on iopub (to any cell) until every needle has arrived."""
    text = ""
    deadline = time.monotonic() + timeout
    while not all(needle in text for needle in needles) and time.monotonic() < deadline:
        try:
            msg = kernel.kc.get_iopub_msg(timeout=0.5)
        except queue.Empty:
            continue
        if msg["msg_type"] == "stream":
            text += msg["content"]["text"]
    return text


@pytest.fixture(scope="module")
def lingering_text(watched_kernel):
    watched_kernel.execute(f"import os; os.environ[{LINGERING_ENV!r}] = {SECRET!r}")
    record = watched_kernel.run_case(_lingering(0.5, "late"), redact_secrets=(SECRET,))
    assert record["status"] == "success", record
    return _later_stream_text(watched_kernel, "late print", "late fd")


def test_what_a_thread_left_running_prints_after_the_execution_is_redacted(lingering_text):
    assert "late print [redacted]" in lingering_text
    assert SECRET not in lingering_text


def test_what_a_thread_left_running_writes_to_descriptor_1_after_the_execution_is_redacted(lingering_text):
    assert "late fd [redacted]" in lingering_text
    assert SECRET not in lingering_text


def _wait_until_nothing_lingers(kernel, timeout: float = 20) -> None:
    """Until the watcher of the threads an execution left (the kernel's thread named
    `twnb-lingering-output`) has seen them end, put the streams back and ended itself."""
    watching = "any(t.name == 'twnb-lingering-output' for t in __import__('threading').enumerate())"
    deadline = time.monotonic() + timeout
    while kernel.evaluate(watching):
        assert time.monotonic() < deadline, f"the left threads' watcher still runs after {timeout:g} s"
        time.sleep(0.1)  # polling the kernel, not waiting a guessed time


def test_once_the_left_thread_ended_the_users_own_cells_print_as_before(watched_kernel, lingering_text):
    _wait_until_nothing_lingers(watched_kernel)
    watched_kernel.execute(f"print({SECRET!r})")
    assert watched_kernel.shown_streams()["stdout"] == SECRET + "\n"
    assert watched_kernel.evaluate("type(__import__('sys').stdout).__name__") == "OutStream"


def test_once_the_left_thread_ended_the_descriptors_write_where_they_did(watched_kernel, lingering_text):
    _wait_until_nothing_lingers(watched_kernel)
    watched_kernel.execute(f"import os; os.write(1, {('user fd ' + SECRET + chr(10)).encode()!r})")
    shown = "".join(watched_kernel.shown_streams().values())
    # a descriptor's output reaches iopub through ipykernel's pipe reader: it may come after the reply
    later = "" if "user fd" in shown else _later_stream_text(watched_kernel, "user fd")
    assert f"user fd {SECRET}" in shown + later


def test_while_a_thread_lingers_the_users_own_cell_shows_a_piece_of_a_line_at_once(
    watched_kernel, lingering_text
):
    """Threads a library leaves can live on for the session: the user's own output is not held back
    for its line's end (as redaction would) meanwhile, nor changed."""
    watched_kernel.run_case(_lingering(3, "long"), redact_secrets=(SECRET,))
    watched_kernel.execute(
        "import sys, time; print('piece', end=''); sys.stdout.flush(); time.sleep(1); "
        f"print(' rest', {SECRET!r})"
    )
    texts = [content["text"] for kind, content in watched_kernel.shown if kind == "stream"]
    assert texts[0] == "piece"  # sent before the second print, a second later
    assert "".join(texts).startswith(f"piece rest {SECRET}\n")
    assert "long print [redacted]" in _later_stream_text(watched_kernel, "long print", "long fd")


def test_an_execution_while_a_thread_lingers_records_its_own_output(watched_kernel, lingering_text):
    watched_kernel.run_case(_lingering(2, "slow"), redact_secrets=(SECRET,))
    record = watched_kernel.run_case(f"print('second', {SECRET!r})", redact_secrets=(SECRET,))
    assert record["stdout"] == "second [redacted]\n"
    text = _later_stream_text(watched_kernel, "slow print", "slow fd")
    assert "slow print [redacted]" in text and "slow fd [redacted]" in text
    assert SECRET not in text


# -- a separate kernel ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_executor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir: Path = tmp_path_factory.mktemp("redacted-kernel")
    with KernelExecutor(workdir, redact=REDACT) as executor:
        yield executor


@pytest.mark.slow
def test_the_kernel_executor_records_no_secret_from_streams_displays_and_results(kernel_executor):
    result = kernel_executor.run(LEAKY)
    assert result.status == "success"
    assert "[redacted]" in result.stdout
    assert _leaked(_outputs(result.to_dict())) == []


@pytest.mark.slow
def test_the_kernel_executor_redacts_a_raised_exception(kernel_executor):
    result = kernel_executor.run(RAISING)
    assert result.error is not None and result.error.ename == "ValueError"
    assert _leaked(_outputs(result.to_dict())) == []


@pytest.mark.slow
def test_the_kernel_executor_redacts_display_metadata(kernel_executor):
    code = (
        "from IPython.display import HTML, display\n" + f"display(HTML('x'), metadata={{'note': {SECRET!r}}})"
    )
    result = kernel_executor.run(code)
    (display,) = [o for o in result.to_dict()["outputs"] if o["output_type"] == "display_data"]
    assert display["metadata"] == {"note": "[redacted]"}
