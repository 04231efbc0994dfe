"""twnb.base.clipping: the one way text is clipped, whole or as it is written, the cut always said."""

from twnb.base import BoundedText, clip


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


def test_ends_keeps_the_start_and_the_end_around_a_note_of_what_was_cut():
    text = "start-" + "m" * 100 + "-end"
    cut = clip(text, 52, keep="ends", what="output")
    assert cut == "star\n[... 102 characters of output omitted ...]\n-end"


def test_ends_never_exceeds_the_limit():
    cut = clip("x" * 10_000, 300, keep="ends")
    assert len(cut) <= 300 and "omitted" in cut


def test_ends_gives_the_start_its_share_of_what_stays():
    cut = clip("a" * 500 + "z" * 500, 200, keep="ends", head_share=0.9)
    head, _, tail = cut.partition("\n[...")
    assert set(head) == {"a"} and len(head) > 8 * len(tail.rpartition("]\n")[2])


def test_written_text_keeps_its_head_and_tail_and_counts_everything():
    text = BoundedText(head_chars=5, tail_chars=3)
    for chunk in ["abc", "defgh", "ijklmnop"]:
        text.write(chunk)
    assert text.total == 16
    assert text.text() == "abcde\n[... 8 characters of output omitted ...]\nnop"
