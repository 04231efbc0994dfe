"""What generated code writes straight to file descriptors 1 and 2, brought back through sys.stdout and
sys.stderr for the length of one execution, so it is redacted, recorded and shown like `print`.

`os.write(1, ...)`, C extensions and child processes write to the descriptors, not to `sys.stdout`. In a
notebook, ipykernel turns what reaches them into cell output itself (a pipe and a thread of its own),
past `sys.stdout` and so past the executor's redaction: a secret written that way would be shown and
saved in the notebook. While the code runs, each descriptor points at a pipe of ours; a thread reads it
and writes the text to the stream given (the executor's `StreamTee`, which holds text by line,
redacts, records and shows it). As ipykernel does, the text is also echoed, redacted, to where the
kernel's own output goes (the server's terminal or log). Afterwards the descriptor is put back, and the
thread reads the pipe to its end (bounded wait: a child process the code left running may keep the pipe
open; what it writes later still goes through the stream). `DescriptorOutput.hand_over` sends the text
to other streams instead, with no moment in between when it would pass unredacted (lingering_output.py
keeps the descriptors so while threads the code left running still live).

A descriptor is left alone when the stream given itself writes to it (a terminal's `sys.stdout`):
reading back what we write would loop.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from twnb.kernel.capture.output_redaction import HeldText, Redact

# How long the end of an execution waits for the pipe's last text (a child process still running may
# hold the pipe open for longer: its later output is still redacted, only no longer waited for).
DRAIN_WAIT_S = 1.0
_READ_SIZE = 65_536


class TextSink(Protocol):
    """Where a descriptor's text goes: a text stream (the executor's StreamTee)."""

    def write(self, text: str, /) -> int: ...


def _fileno(stream: TextSink) -> int | None:
    """The descriptor `stream` itself writes to, if it says."""
    try:
        return int(getattr(stream, "fileno")())  # noqa: B009  (a TextSink need not have one)
    except (OSError, ValueError, AttributeError, TypeError):  # io.UnsupportedOperation is an OSError
        return None


@functools.cache
def _c_library() -> Any:
    try:
        return ctypes.CDLL(None)
    except OSError:  # no C library to reach this way (not Linux or macOS)
        return None


def _flush_c_stdio() -> None:
    """Flush C's stdio buffers (printf's), so text written before a swap lands where it was meant."""
    library = _c_library()
    if library is not None:
        with contextlib.suppress(AttributeError):
            library.fflush(None)


class _DescriptorPump:
    """Descriptor `fd` pointed at a pipe whose text a thread writes to `stream` and, redacted, echoes."""

    def __init__(self, fd: int, stream: TextSink, redact: Redact, saved: int | None = None) -> None:
        """`saved`: the descriptor as it was, already copied (a pump handing over); else copied here."""
        self.fd = fd
        self.stream = stream
        self.redact = redact
        self.echo = HeldText(redact)
        read_end, write_end = os.pipe()
        try:
            self.saved = os.dup(fd) if saved is None else saved
        except OSError:
            os.close(read_end)
            os.close(write_end)
            raise
        # The echo goes to the terminal copy ipykernel keeps when it watches the descriptors itself,
        # else to the descriptor as it was.
        own = _fileno(stream)
        self.echo_fd, self.owns_echo = (own, False) if own is not None else (os.dup(self.saved), True)
        os.dup2(write_end, fd)
        os.close(write_end)  # the descriptor is now the pipe's only writer in this process
        self.read_end = read_end
        self.thread = threading.Thread(target=self._pump, name=f"twnb-fd{fd}-output", daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := os.read(self.read_end, _READ_SIZE):
                self._write(decoder.decode(chunk))
            self._write(decoder.decode(b"", final=True))
            self._echo(self.echo.drain())
        except (OSError, ValueError):  # the stream was closed under us: nothing left to show it on
            pass
        finally:
            os.close(self.read_end)
            if self.owns_echo:
                os.close(self.echo_fd)

    def _write(self, text: str) -> None:
        if text:
            self.stream.write(text)
            self._echo(self.echo.feed(text))

    def _echo(self, text: str) -> None:
        if text:
            with contextlib.suppress(OSError):  # a terminal gone is no reason to lose the cell's output
                os.write(self.echo_fd, text.encode("utf-8", "replace"))

    def restore(self) -> None:
        os.dup2(self.saved, self.fd)
        os.close(self.saved)
        self.thread.join(DRAIN_WAIT_S)

    def hand_over(self, stream: TextSink) -> _DescriptorPump | None:
        """A new pump, writing to `stream`, takes the descriptor over in one step (no moment when it
        writes past us); this one's thread reads its pipe to the end first (within DRAIN_WAIT_S)."""
        try:
            successor: _DescriptorPump | None = _DescriptorPump(self.fd, stream, self.redact, self.saved)
        except OSError:  # no descriptor left for a pipe: put it back, as when none could be made first
            self.restore()
            return None
        self.thread.join(DRAIN_WAIT_S)
        return successor


class DescriptorOutput:
    """Descriptors 1 and 2 pointed at pipes whose text goes to streams (see the module's docstring),
    until `restore()`; `hand_over()` sends what comes next to other streams, with no gap between."""

    def __init__(self, streams: Mapping[int, TextSink], redact: Redact) -> None:
        self._pumps: list[_DescriptorPump] = []
        _flush_c_stdio()
        try:
            for fd, stream in streams.items():
                if _fileno(stream) != fd:
                    with contextlib.suppress(OSError):  # no such descriptor (an embedding closed it)
                        self._pumps.append(_DescriptorPump(fd, stream, redact))
        except BaseException:
            self.restore()
            raise

    def hand_over(self, streams: Mapping[int, TextSink]) -> None:
        """From now on each descriptor's text goes to its stream in `streams`; everything written
        before reaches the former stream before this returns (within DRAIN_WAIT_S)."""
        _flush_c_stdio()
        successors = [pump.hand_over(streams[pump.fd]) for pump in self._pumps]
        self._pumps = [pump for pump in successors if pump is not None]

    def restore(self) -> None:
        """Put the descriptors back; everything written before reaches the stream before this returns
        (within DRAIN_WAIT_S)."""
        _flush_c_stdio()
        pumps, self._pumps = self._pumps, []
        for pump in pumps:
            pump.restore()


@contextlib.contextmanager
def descriptor_output_to(streams: Mapping[int, TextSink], redact: Redact) -> Iterator[None]:
    """While inside, what reaches each descriptor (1, 2) goes to its stream (and, redacted, to where it
    went before); everything written before leaving reaches the stream before this returns (within
    DRAIN_WAIT_S)."""
    output = DescriptorOutput(streams, redact)
    try:
        yield
    finally:
        output.restore()
