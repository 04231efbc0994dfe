"""twnb.memory.clip: the one way text is clipped, the cut always said."""

from twnb.memory.clip import clip


def test_text_within_the_limit_is_unchanged():
    assert clip("short  text", 20) == "short  text"


def test_no_limit_keeps_the_whole_text():
    assert clip("x" * 5000, None) == "x" * 5000


def test_a_cut_ends_in_an_ellipsis_within_the_limit():
    assert clip("abcdefghij", 5) == "abcd…"


def test_trailing_space_before_the_ellipsis_goes():
    assert clip("abc defghij", 5) == "abc…"


def test_one_line_collapses_whitespace_before_measuring():
    assert clip("a\n\n  b\tc", 10, one_line=True) == "a b c"


def test_count_keeps_the_limit_and_says_how_much_more_there_was():
    assert clip("abcdefghij", 4, count=True) == "abcd\n… (6 more characters)"


def test_ends_keeps_the_start_and_the_end():
    assert clip("start-middle-end", 8, keep="ends") == "star\n... (clipped) ...\n-end"
