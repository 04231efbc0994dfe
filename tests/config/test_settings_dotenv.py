"""The .env layer: parsed like a shell would source it, never loaded into os.environ."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from twnb.config.dotenv import parse_dotenv, read_dotenv
from twnb.config.resolution import resolve_settings

CANARY = "sk-dotenv-canary-0123456789abcdef"


def test_export_prefix_quotes_and_comments():
    text = "\n".join(
        [
            "# a comment line",
            "",
            "export TWNB_MODEL=gpt-4o-mini",
            "PLAIN = value with spaces   # trailing comment",
            "URL=http://host/path#fragment",
            "SINGLE='kept # literally \\n'",
            'DOUBLE="line1\\nline2 \\"quoted\\""  # comment',
            "EMPTY=",
        ]
    )
    assert parse_dotenv(text) == {
        "TWNB_MODEL": "gpt-4o-mini",
        "PLAIN": "value with spaces",
        "URL": "http://host/path#fragment",
        "SINGLE": "kept # literally \\n",
        "DOUBLE": 'line1\nline2 "quoted"',
        "EMPTY": "",
    }


def test_later_assignments_win():
    assert parse_dotenv("A=1\nA=2\n") == {"A": "2"}


def test_a_bad_line_is_skipped_with_a_warning_naming_the_line_but_not_its_text(caplog):
    with caplog.at_level(logging.WARNING, logger="twnb.config.dotenv"):
        values = parse_dotenv(f"GOOD=1\nthis is {CANARY}\nBAD='unclosed\n", source="/x/.env")
    assert values == {"GOOD": "1"}
    assert "/x/.env:2" in caplog.text and "/x/.env:3" in caplog.text
    assert CANARY not in caplog.text


def test_a_missing_file_is_empty(tmp_path: Path):
    assert read_dotenv(tmp_path / ".env") == {}


def test_settings_read_dotenv_without_touching_os_environ(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("TWNB_DOTENV_PROBE_KEY", raising=False)
    (tmp_path / ".env").write_text(
        f"export OPENAI_API_KEY='{CANARY}'\nTWNB_MODEL=\"from-dotenv\"\nTWNB_DOTENV_PROBE_KEY=abcdefgh123\n"
    )
    before = dict(os.environ)
    resolved = resolve_settings(workdir=tmp_path, home=tmp_path, environ={})
    assert resolved.settings.model == "from-dotenv"
    assert resolved.settings.api_key == CANARY
    assert resolved.sources["api_key"].describe() == f"OPENAI_API_KEY in {tmp_path / '.env'}"
    assert dict(os.environ) == before
    assert "TWNB_DOTENV_PROBE_KEY" not in os.environ


def test_secret_looking_dotenv_values_are_handed_to_the_redactor(tmp_path: Path):
    (tmp_path / ".env").write_text("HF_TOKEN=hf-token-value-123\nSHORT_KEY=abc\nNAME=not-a-secret-value\n")
    resolved = resolve_settings(workdir=tmp_path, home=tmp_path, environ={})
    assert resolved.dotenv_secrets == ("hf-token-value-123",)
    assert "hf-token-value-123" not in repr(resolved)


def test_dotenv_secrets_follow_the_redactors_rule_for_secret_names(tmp_path: Path):
    # The redactor treats PASSWD like PASSWORD in the live environment; a .env value must not differ.
    (tmp_path / ".env").write_text("DB_PASSWD=correct-horse-battery\n")
    resolved = resolve_settings(workdir=tmp_path, home=tmp_path, environ={})
    assert resolved.dotenv_secrets == ("correct-horse-battery",)
