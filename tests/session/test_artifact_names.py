"""Readable names for the files twnb saves: the Round number and a slug of the request."""

from __future__ import annotations

import pytest

from twnb.session.artifact_names import SLUG_CHARS, artifact_stem, request_slug


def test_the_name_is_the_round_number_and_the_requests_words():
    assert artifact_stem(2, "Plot revenue by month") == "round-2-plot-revenue-by-month"


def test_filler_words_and_punctuation_are_left_out():
    assert request_slug("Load sales.csv and plot the revenue, please!") == "load-sales-csv-plot-revenue"


def test_the_slug_stops_at_a_word_boundary_within_its_length():
    slug = request_slug("How do iced drink sales relate to the temperature? Plot it per store.")
    assert slug == "how-do-iced-drink-sales-relate"
    assert len(request_slug(" ".join(["temperature"] * 20))) <= SLUG_CHARS


def test_accented_letters_become_ascii():
    assert request_slug("Überblick über Umsätze") == "uberblick-uber-umsatze"


@pytest.mark.parametrize("request_text", ["???", "", "的 图表"])
def test_a_request_without_usable_words_gives_the_round_number_alone(request_text):
    assert artifact_stem(3, request_text) == "round-3"
