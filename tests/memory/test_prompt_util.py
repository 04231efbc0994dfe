"""PromptUtil: every member, with TaskWeaver's test expectations."""

from twnb.memory import PromptUtil

S, E = PromptUtil.DELIMITER_TEMPORAL


def test_temporal_delimiter_is_taskweavers():
    assert PromptUtil.DELIMITER_TEMPORAL == ("{{DELIMITER_START_TEMPORAL}}", "{{DELIMITER_END_TEMPORAL}}")


def test_wrap_text_with_delimiter():
    assert PromptUtil.wrap_text_with_delimiter("T", PromptUtil.DELIMITER_TEMPORAL) == f"{S}T{E}"


def test_get_all_delimiters_lists_the_temporal_one():
    assert PromptUtil.get_all_delimiters() == [PromptUtil.DELIMITER_TEMPORAL]


def test_remove_parts_cuts_a_part_and_keeps_both_surrounding_spaces():
    assert PromptUtil.remove_parts(f"A. {S}T.{E} B.", PromptUtil.DELIMITER_TEMPORAL) == "A.  B."


def test_remove_parts_cuts_several_parts():
    text = f"a{S}1{E}b{S}2{E}c{S}3{E}"
    assert PromptUtil.remove_parts(text, PromptUtil.DELIMITER_TEMPORAL) == "abc"


def test_remove_parts_leaves_an_unmatched_start_marker_unchanged():
    text = f"A. {S}T. B."
    assert PromptUtil.remove_parts(text, PromptUtil.DELIMITER_TEMPORAL) == text


def test_remove_parts_stops_at_an_end_marker_before_a_start_marker():
    text = f"A {E} B {S} C"
    assert PromptUtil.remove_parts(text, PromptUtil.DELIMITER_TEMPORAL) == text


def test_remove_parts_cuts_matched_parts_before_an_unmatched_marker():
    text = f"a{S}1{E}b{S}c"
    assert PromptUtil.remove_parts(text, PromptUtil.DELIMITER_TEMPORAL) == f"ab{S}c"


def test_remove_parts_keeps_multi_line_text_around_a_part():
    text = f"line 1\n{S}big\ntable\n{E}\nline 3"
    assert PromptUtil.remove_parts(text, PromptUtil.DELIMITER_TEMPORAL) == "line 1\n\nline 3"


def test_remove_delimiter_strips_markers_keeping_text():
    assert PromptUtil.remove_delimiter(f"A {S}T{E} B", PromptUtil.DELIMITER_TEMPORAL) == "A T B"


def test_remove_all_delimiters_strips_an_unmatched_start_marker():
    assert PromptUtil.remove_all_delimiters(f"A. {S}T. B.") == "A. T. B."
