"""What a run shows and writes, recorded: outputs, displays, comms and threads that print later, each
redacted and with no active content, images saved as files, the files the code wrote, what looks
secret; the `ExecutionResult` built from them (`outcome.py`) and its text for a prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.capture.active_content import inert_bundle as inert_bundle
    from twnb.kernel.capture.ansi import strip_ansi as strip_ansi
    from twnb.kernel.capture.capture import STREAM_HEAD_CHARS as STREAM_HEAD_CHARS
    from twnb.kernel.capture.capture import STREAM_TAIL_CHARS as STREAM_TAIL_CHARS
    from twnb.kernel.capture.capture import OutputRecorder as OutputRecorder
    from twnb.kernel.capture.comm_redaction import comm_messages_redacted as comm_messages_redacted
    from twnb.kernel.capture.execution_text import execution_text_for_llm as execution_text_for_llm
    from twnb.kernel.capture.file_scan import DEFAULT_SCAN_LIMITS as DEFAULT_SCAN_LIMITS
    from twnb.kernel.capture.file_scan import DirectorySnapshot as DirectorySnapshot
    from twnb.kernel.capture.file_scan import FileChanges as FileChanges
    from twnb.kernel.capture.file_scan import ScanLimits as ScanLimits
    from twnb.kernel.capture.file_scan import changes_since as changes_since
    from twnb.kernel.capture.file_scan import scan_directory as scan_directory
    from twnb.kernel.capture.outcome import SYS_EXIT_NOTE as SYS_EXIT_NOTE
    from twnb.kernel.capture.outcome import ImageFiles as ImageFiles
    from twnb.kernel.capture.outcome import RunOutcome as RunOutcome
    from twnb.kernel.capture.outcome import RunTrace as RunTrace
    from twnb.kernel.capture.outcome import build_result as build_result
    from twnb.kernel.capture.outcome import late_refusal_note as late_refusal_note
    from twnb.kernel.capture.outcome import say_note as say_note
    from twnb.kernel.capture.outcome import time_limit_notes as time_limit_notes
    from twnb.kernel.capture.outcome import timed_out as timed_out
    from twnb.kernel.capture.outcome import traceback_text as traceback_text
    from twnb.kernel.capture.outcome import with_refusals as with_refusals
    from twnb.kernel.capture.output_redaction import HeldText as HeldText
    from twnb.kernel.capture.output_redaction import Redact as Redact
    from twnb.kernel.capture.output_redaction import redact_bundle as redact_bundle
    from twnb.kernel.capture.output_redaction import redact_value as redact_value
    from twnb.kernel.capture.recorded_run import RecordingExecutor as RecordingExecutor
    from twnb.kernel.capture.recorded_run import RecordLimits as RecordLimits
    from twnb.kernel.capture.recorded_run import RunCall as RunCall
    from twnb.kernel.capture.recorded_run import RunEnd as RunEnd
    from twnb.kernel.capture.recorded_run import RunRules as RunRules
    from twnb.kernel.capture.secret_screen import HIDDEN as HIDDEN
    from twnb.kernel.capture.secret_screen import SecretScreen as SecretScreen
    from twnb.kernel.capture.secret_screen import looks_secret_name as looks_secret_name
    from twnb.kernel.capture.secret_screen import mentions_secret_name as mentions_secret_name
    from twnb.kernel.capture.secret_screen import secret_variable_values as secret_variable_values
    from twnb.kernel.capture.shell_hooks import recorded_shell_output as recorded_shell_output
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
