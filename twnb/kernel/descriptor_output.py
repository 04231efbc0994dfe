"""What generated code writes straight to file descriptors 1 and 2, brought back through sys.stdout and
sys.stderr for the length of one execution, so it is redacted, recorded and shown like `print`.

`os.write(1, ...)`, C extensions and child processes write to the descriptors, not to `sys.stdout`. In a
notebook, ipykernel turns what reaches them into cell output itself (a pipe and a thread of its own),
past `sys.stdout` and so past the executor's redaction: a secret written that way would be shown and
saved in the notebook. While the code runs, each descriptor points at a pipe of ours; a thread reads it
and writes the text to the stream given (the executor's `StreamTee`, which holds text by line,
redacts, records and shows it). Afterwards the descriptor is put back, and the thread reads the pipe
to its end (bounded wait: a child process the code left running may keep the pipe open; what it
writes later still goes through the stream).

A descriptor is left alone when the stream given itself writes to it (a terminal's `sys.stdout`):
reading back what we write would loop.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from typing import Any, TextIO

# How long the end of an execution waits for the pipe's last text (a child process still running may
# hold the pipe open for longer: its later output is still redacted, only no longer waited for).
DRAIN_WAIT_S = 1.0
_READ_SIZE = 65_536


def _writes_to(stream: TextIO, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
        return False


@functools.cache
def _c_library() -> Any:
    import ctypes  # lazy: only an execution with redaction needs it

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
    """Descriptor `fd` pointed at a pipe whose text a thread writes to `stream`."""

    def __init__(self, fd: int, stream: TextIO) -> None:
        self.fd = fd
        self.stream = stream
        read_end, write_end = os.pipe()
        try:
            self.saved = os.dup(fd)
        except OSError:
            os.close(read_end)
            os.close(write_end)
            raise
        os.dup2(write_end, fd)
        os.close(write_end)  # the descriptor is now the pipe's only writer in this process
        self.read_end = read_end
        self.thread = threading.Thread(target=self._pump, name=f"twnb-fd{fd}-output", daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := os.read(self.read_end, _READ_SIZE):
                if text := decoder.decode(chunk):
                    self.stream.write(text)
            if text := decoder.decode(b"", final=True):
                self.stream.write(text)
        except (OSError, ValueError):  # the stream was closed under us: nothing left to show it on
            pass
        finally:
            os.close(self.read_end)

    def restore(self) -> None:
        os.dup2(self.saved, self.fd)
        os.close(self.saved)
        self.thread.join(DRAIN_WAIT_S)


@contextlib.contextmanager
def descriptor_output_to(streams: dict[int, TextIO]) -> Iterator[None]:
    """While inside, what reaches each descriptor (1, 2) goes to its stream; everything written before
    leaving is written to the stream before this returns (see DRAIN_WAIT_S)."""
    pumps: list[_DescriptorPump] = []
    _flush_c_stdio()
    try:
        for fd, stream in streams.items():
            if not _writes_to(stream, fd):
                with contextlib.suppress(OSError):  # no such descriptor (an embedding closed it)
                    pumps.append(_DescriptorPump(fd, stream))
        yield
    finally:
        _flush_c_stdio()
        for pump in pumps:
            pump.restore()
