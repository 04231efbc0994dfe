"""What the starter makes of the supervisor's record (twnb/confine/refused_record.py): the program a
search along PATH would have run, once; a path the kernel's code chose, printed safely; the record
named to the confined launcher only."""

from __future__ import annotations

import shutil

from twnb.confine import RefusedStartsRecord, confined_kernel_argv, refused_programs
from twnb.confine.exec_supervisor import RECORD_OPTION, UNREAD_HIDDEN, unread_program
from twnb.confine.refused_record import RefusedStart


def test_a_search_along_path_counts_once_as_the_program_it_would_have_found() -> None:
    found = shutil.which("touch")
    assert found is not None
    tried = [RefusedStart(1.0, f"/nowhere-{n}/touch", 7) for n in range(3)] + [RefusedStart(1.0, found, 7)]
    assert refused_programs(tried) == [found]


def test_two_processes_trying_the_same_program_name_it_once() -> None:
    assert refused_programs([RefusedStart(1.0, "/bin/sh", 7), RefusedStart(2.0, "/bin/sh", 8)]) == ["/bin/sh"]


def test_a_path_with_control_characters_cannot_forge_a_report_line_or_move_the_terminal() -> None:
    (shown,) = refused_programs([RefusedStart(1.0, "/tmp/x\x1b[2J\n  reproduced: cell 3", 7)])
    assert shown.isprintable() and "\x1b" not in shown


def test_a_long_path_is_clipped() -> None:
    (shown,) = refused_programs([RefusedStart(1.0, "/" + "a" * 5000, 7)])
    assert len(shown) <= 200


def test_an_unreadable_program_is_named_as_one_whose_name_could_not_be_read_and_why() -> None:
    assert refused_programs([RefusedStart(1.0, None, 7, UNREAD_HIDDEN)]) == [unread_program(UNREAD_HIDDEN)]
    assert unread_program(UNREAD_HIDDEN).startswith("a program whose name could not be read (its path")


def test_a_start_whose_name_is_hidden_is_still_named_beside_a_readable_one() -> None:
    starts = [RefusedStart(1.0, "/bin/sh", 7), RefusedStart(2.0, None, 8, UNREAD_HIDDEN)]
    assert refused_programs(starts) == ["/bin/sh", unread_program(UNREAD_HIDDEN)]


def test_the_reason_a_name_could_not_be_read_is_read_back_from_the_record() -> None:
    with RefusedStartsRecord() as record:
        record.path.write_text('{"time": 1.0, "program": null, "pid": 7, "unread": "why"}\n')
        assert record.read_new() == [RefusedStart(1.0, None, 7, "why")]


def test_the_record_is_named_to_the_confined_launcher_only() -> None:
    with RefusedStartsRecord() as record:
        launcher = record.kernel_argv(confined_kernel_argv())
        plain = record.kernel_argv(["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    assert launcher[-2:] == [RECORD_OPTION, str(record.path)] and RECORD_OPTION not in plain


def test_only_complete_lines_are_read_and_each_once() -> None:
    with RefusedStartsRecord() as record:
        record.path.write_text('{"time": 1, "program": "/bin/sh", "pid": 5}\n{"time": 2, "prog')
        first = record.read_new()
        with record.path.open("a") as file:
            file.write('ram": "/bin/ls", "pid": 6}\n')
        second = record.read_new()
    assert ([s.program for s in first], [s.program for s in second]) == (["/bin/sh"], ["/bin/ls"])
