"""LiteralScan: where words occur, in characters, whatever the text's characters."""

from __future__ import annotations

from twnb.config.literal_scan import LiteralScan


def _found(scan: LiteralScan, text: str) -> list[str]:
    return [text[start:end] for _, start, end in scan.find(text)]


def test_offsets_are_characters_in_ascii_text():
    assert LiteralScan(["sk-", "..."]).find("a sk- b ...") == [(0, 2, 5), (1, 8, 11)]


def test_offsets_are_characters_after_two_three_and_four_byte_characters():
    text = "é 日本 🙂 token … é token"
    assert _found(LiteralScan(["token", "…"]), text) == ["token", "…", "token"]


def test_a_text_holding_a_lone_surrogate_is_searched():
    text = "file-\udcff-name token"
    assert _found(LiteralScan(["token"]), text) == ["token"]


def test_of_two_words_starting_at_one_place_the_longest_is_found_when_asked():
    text = "pass password"
    assert _found(LiteralScan(["pass", "password"], longest=True), text) == ["pass", "password"]
    assert _found(LiteralScan(["pass", "password"]), text) == ["pass", "pass"]


def test_words_in_names_the_words_a_text_holds():
    assert LiteralScan(["@", "eyJ", "-----BEGIN "]).words_in("é 🙂 a@b eyJ") == {"@", "eyJ"}
