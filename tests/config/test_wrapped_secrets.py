"""A long secret with spaces, wrapped over lines at its spaces by pprint or textwrap (line breaks,
indentation and quotes put where spaces were), is still found; its words alone in ordinary text are
not. The wrapping is made by the real pprint and textwrap."""

from __future__ import annotations

import pprint
import textwrap

import pytest

from twnb.config import REDACTED, Redactor

PASSPHRASE = "correct horse battery staple under the old mill bridge at dawn 42"


def _pieces(text: str) -> list[str]:
    """The words of the passphrase that the wrapped text still holds, three at a time."""
    words = PASSPHRASE.split()
    return [" ".join(words[i : i + 3]) for i in range(len(words) - 2) if " ".join(words[i : i + 3]) in text]


@pytest.mark.parametrize("width", [20, 30, 45, 60])
def test_pprint_of_a_long_secret_split_into_literals_is_redacted(width):
    wrapped = pprint.pformat({"settings": {"password": PASSPHRASE, "user": "ann"}}, width=width)
    assert "\n" in wrapped and PASSPHRASE not in wrapped  # wrapped, so no whole spelling is there
    redacted = Redactor(environ={"DB_PASSWORD": PASSPHRASE}).redact(wrapped)
    assert _pieces(redacted) == [] and "correct horse" not in redacted
    assert REDACTED in redacted and "'user': 'ann'" in redacted


@pytest.mark.parametrize("indent", ["", "    ", "\t\t"])
def test_textwrap_of_a_long_secret_is_redacted(indent):
    wrapped = textwrap.fill(f"The key is {PASSPHRASE}, keep it.", width=18, subsequent_indent=indent)
    redacted = Redactor([PASSPHRASE], environ={}).redact(wrapped)
    assert " ".join(redacted.split()) == f"The key is {REDACTED}, keep it."
    assert "horse" not in redacted and "mill" not in redacted


def test_the_words_of_a_secret_in_ordinary_text_are_kept():
    text = "The old mill bridge\nwas built at dawn; a battery staple holds it."
    assert Redactor([PASSPHRASE], environ={}).redact(text) == text


def test_redact_data_finds_it_in_nested_data():
    wrapped = pprint.pformat([PASSPHRASE], width=25)
    assert Redactor([PASSPHRASE], environ={}).redact_data({"out": [wrapped]}) == {"out": [f"[{REDACTED!r}]"]}
