"""descriptor_output_to: a descriptor's text goes to a stream while inside, and the descriptor is put
back as it was."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest

from twnb.kernel.capture.descriptor_output import DescriptorOutput, descriptor_output_to


class FilenoStream(io.StringIO):
    """A stream that says it writes to descriptor `fd` (as a terminal's sys.stdout does)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """(read end, write end) of a pipe: the write end stands for descriptor 1; closed afterwards."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    try:
        yield read_end, write_end
    finally:
        os.close(read_end)
        os.close(write_end)


def test_text_written_to_the_descriptor_inside_reaches_the_stream_before_leaving(pipe):
    _read_end, write_end = pipe
    sink = io.StringIO()
    with descriptor_output_to({write_end: sink}, str):
        encoded = "half a line, a character split in two: é\n".encode()
        os.write(write_end, encoded[:-2])  # cuts é's two bytes apart
        os.write(write_end, encoded[-2:])
    assert sink.getvalue() == "half a line, a character split in two: é\n"


def test_the_descriptor_writes_where_it_did_after_leaving(pipe):
    read_end, write_end = pipe
    with descriptor_output_to({write_end: io.StringIO()}, str):
        pass
    os.write(write_end, b"after")
    assert os.read(read_end, 100) == b"after"


def test_a_stream_that_writes_to_the_descriptor_itself_is_left_alone(pipe):
    read_end, write_end = pipe
    stream = FilenoStream(write_end)
    with descriptor_output_to({write_end: stream}, str):
        os.write(write_end, b"straight through")
    assert os.read(read_end, 100) == b"straight through"
    assert stream.getvalue() == ""


def test_the_text_is_echoed_redacted_to_where_the_descriptor_wrote_before(pipe):
    read_end, write_end = pipe

    def redact(text: str) -> str:
        return text.replace("secret-value", "[redacted]")

    with descriptor_output_to({write_end: io.StringIO()}, redact):
        os.write(write_end, b"log line with secret-")
        os.write(write_end, b"value in two writes\n")
    assert os.read(read_end, 1000) == b"log line with [redacted] in two writes\n"


def test_after_a_hand_over_the_descriptor_writes_to_the_new_stream_and_restore_puts_it_back(pipe):
    read_end, write_end = pipe
    first, second = io.StringIO(), io.StringIO()
    output = DescriptorOutput({write_end: first}, str)
    os.write(write_end, b"before\n")
    output.hand_over({write_end: second})
    os.write(write_end, b"after\n")
    output.restore()
    os.write(write_end, b"restored")
    assert (first.getvalue(), second.getvalue()) == ("before\n", "after\n")
    # each text echoed once to where the descriptor wrote before, then the descriptor's own
    assert os.read(read_end, 100) == b"before\nafter\nrestored"
