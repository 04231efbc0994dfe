"""Hooking the live IPython shell for one execution: every output is recorded, and all but tracebacks
are still shown.

Each hook records, then calls the shell's own method, so the notebook shows what it would have. A bare
(terminal) shell prints displays and prompts to stdout; those prints are not the code's output, so the
recorder is quiet while the shell's own method runs.

Displays and results of the code are recorded without active content (active_content.py): JavaScript
and HTML that runs script are taken out, and shown as text unless `allow_active` (the user's
setting) lets the notebook show them as they were; `on_inert` hears the line saying what was taken.

A traceback is recorded only, never shown: the code that raised is an attempt the Round reports (and
usually revises). Shown, it would leave a red `error` output in the user's cell under a Round that
finished; the Round keeps it (the execution_result's outputs) and shows it inside its own display.
With `redact`, every output (stream text, display and result text, tracebacks) is redacted before
it is shown or recorded, text written straight to descriptors 1 and 2 included (descriptor_output.py),
and so is what threads the code left running write after it ended (lingering_output.py).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from twnb.kernel.capture.active_content import inert_bundle
from twnb.kernel.capture.capture import OutputRecorder, StreamTee
from twnb.kernel.capture.descriptor_output import DescriptorOutput
from twnb.kernel.capture.lingering_output import Lingering, take_over, threads_started_since
from twnb.kernel.capture.output_redaction import Redact, redact_bundle, redact_value

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


@contextlib.contextmanager
def _patched(obj: Any, name: str, replacement: Any) -> Iterator[None]:
    had_own = name in vars(obj)
    saved = vars(obj).get(name)
    setattr(obj, name, replacement)
    try:
        yield
    finally:
        if had_own:
            setattr(obj, name, saved)
        else:
            vars(obj).pop(name, None)


@contextlib.contextmanager
def recorded_shell_output(
    shell: InteractiveShell,
    recorder: OutputRecorder,
    redact: Redact | None = None,
    *,
    allow_active: bool = False,
    on_inert: Callable[[str], None] | None = None,
) -> Iterator[None]:
    display_pub = shell.display_pub
    displayhook = shell.displayhook
    original_publish = display_pub.publish
    original_clear: Callable[..., Any] = display_pub.clear_output
    original_write_format_data = displayhook.write_format_data
    original_write_output_prompt: Callable[[], Any] = displayhook.write_output_prompt
    original_finish_displayhook: Callable[[], Any] = displayhook.finish_displayhook
    saved_stdout, saved_stderr = sys.stdout, sys.stderr
    # Stand-ins an earlier execution left for its threads: this execution's tees replace them.
    lingering = take_over() if redact is not None else None
    if lingering is not None:
        saved_stdout, saved_stderr = lingering.streams_under(saved_stdout, saved_stderr)
    threads_before = set(threading.enumerate()) if redact is not None else set()
    lock = threading.RLock()
    tees = [
        StreamTee(saved_stdout, "stdout", recorder, redact, lock),
        StreamTee(saved_stderr, "stderr", recorder, redact, lock),
    ]

    def drain() -> None:
        for tee in tees:
            tee.drain()

    def shown(data: dict[str, Any]) -> dict[str, Any]:
        """`data` as it may be shown: held stream text goes first (the order stays), then redacted."""
        drain()
        return redact_bundle(data, redact) if redact is not None else data

    def inert(data: dict[str, Any]) -> dict[str, Any]:
        """`data` without active content (recorded so), the line saying so told to `on_inert`."""
        kept, line = inert_bundle(data)
        if line and on_inert is not None:
            on_inert(line)
        return kept

    def publish(data: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        data = shown(data)
        recorded = inert(data)
        if redact is not None:  # display(obj, metadata={...}): the notebook keeps it beside the output
            if args:
                args = (redact_value(args[0], redact), *args[1:])
            elif kwargs.get("metadata"):
                kwargs["metadata"] = redact_value(kwargs["metadata"], redact)
        metadata = kwargs.get("metadata", args[0] if args else None)
        transient = kwargs.get("transient") or {}
        recorder.display(recorded, metadata, transient.get("display_id"), bool(kwargs.get("update", False)))
        with recorder.quiet():
            return original_publish(data if allow_active else recorded, *args, **kwargs)

    def clear_output(*args: Any, **kwargs: Any) -> Any:
        recorder.clear(wait=bool(kwargs.get("wait", args[0] if args else False)))
        with recorder.quiet():
            return original_clear(*args, **kwargs)

    def write_format_data(format_dict: dict[str, Any], md_dict: dict[str, Any] | None = None) -> Any:
        format_dict = shown(format_dict)
        if redact is not None and md_dict:
            md_dict = redact_value(md_dict, redact)
        recorded = inert(format_dict)
        recorder.execute_result(recorded, md_dict)
        with recorder.quiet():
            return original_write_format_data(format_dict if allow_active else recorded, md_dict)

    def write_output_prompt() -> Any:
        with recorder.quiet():
            return original_write_output_prompt()

    def finish_displayhook() -> Any:
        with recorder.quiet():
            return original_finish_displayhook()

    def showtraceback(etype: type[BaseException], evalue: BaseException, stb: list[str]) -> None:
        drain()
        text = str(evalue)
        if redact is not None:
            text, stb = redact(text), [redact(line) for line in stb]
        recorder.error(getattr(etype, "__name__", str(etype)), text, stb)

    # ipykernel marks the *calling* cell failed when a traceback was shown by the display hook
    # (`_last_traceback_during_displayhook`); the code's failure is ours to report, not the cell's.
    # No traceback is shown now, but IPython may still note one on its way (a failing repr).
    saved_traceback_state = {
        name: vars(shell)[name]
        for name in ("_last_traceback", "_last_traceback_during_displayhook")
        if name in vars(shell)
    }
    with contextlib.ExitStack() as stack:
        stack.enter_context(_patched(display_pub, "publish", publish))
        stack.enter_context(_patched(display_pub, "clear_output", clear_output))
        stack.enter_context(_patched(displayhook, "write_format_data", write_format_data))
        stack.enter_context(_patched(displayhook, "write_output_prompt", write_output_prompt))
        stack.enter_context(_patched(displayhook, "finish_displayhook", finish_displayhook))
        stack.enter_context(_patched(shell, "_showtraceback", showtraceback))
        sys.stdout, sys.stderr = tees
        # What the code writes to descriptors 1 and 2 (os.write, C code, child processes) would
        # otherwise reach the notebook through ipykernel, unredacted; their last text still goes
        # through the tees before the drain.
        descriptors: DescriptorOutput | None = None
        if lingering is not None:
            lingering.drain()
            descriptors = lingering.descriptors
            if descriptors is not None:
                descriptors.hand_over({1: tees[0], 2: tees[1]})
        elif redact is not None:
            descriptors = DescriptorOutput({1: tees[0], 2: tees[1]}, redact)
        try:
            yield
        finally:
            # Threads the code (or an earlier execution) left running keep writing: redact that too.
            running = threads_started_since(threads_before) if redact is not None else []
            if lingering is not None:
                running += lingering.alive()
            if running and redact is not None:
                Lingering(shell, (saved_stdout, saved_stderr), redact, descriptors, running)
            else:
                if descriptors is not None:
                    descriptors.restore()
                sys.stdout, sys.stderr = saved_stdout, saved_stderr
            drain()
            for name, value in saved_traceback_state.items():
                setattr(shell, name, value)
