"""One redaction pass: configured secrets, secret-named environment values, key-shaped strings."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from twnb.config import REDACTED, RedactingFilter, Redactor
from twnb.config.resolution import resolve_settings

CANARY = "canary-secret-value-8a7b6c5d"


def test_a_configured_secret_is_replaced_wherever_it_appears():
    r = Redactor([CANARY], environ={})
    assert r.redact(f"key={CANARY}; again {CANARY}.") == f"key={REDACTED}; again {REDACTED}."


@pytest.mark.parametrize("name", ["MY_API_KEY", "GITHUB_TOKEN", "client_secret", "DB_PASSWORD", "apiKey"])
def test_environment_values_with_secret_names_are_replaced(name):
    r = Redactor(environ={name: CANARY})
    assert r.redact(f"env says {CANARY}") == f"env says {REDACTED}"


def test_environment_values_with_ordinary_names_are_kept():
    r = Redactor(environ={"HOME_DIRECTORY": "/home/someone-long"})
    assert r.redact("/home/someone-long/x") == "/home/someone-long/x"


def test_short_secret_values_are_not_replaced_so_ordinary_text_survives():
    r = Redactor(["abc"], environ={"USE_TOKEN": "1", "API_KEY_SET": "true"})
    assert r.redact("abc 1 true") == "abc 1 true"


def test_the_configured_key_is_replaced_from_4_characters_up_where_other_values_need_8():
    r = Redactor(api_key="k3y9", environ={"SHORT_TOKEN": "t0k3n"})
    assert r.redact("key k3y9, token t0k3n") == f"key {REDACTED}, token t0k3n"


def test_a_configured_key_under_4_characters_is_not_replaced():
    assert Redactor(api_key="k3y", environ={}).redact("k3y") == "k3y"


def test_a_short_configured_key_from_the_settings_is_replaced(tmp_path: Path):
    environ = {"OPENAI_API_KEY": "lm5x", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OTHER_KEY": "o7h3r"}
    resolved = resolve_settings(workdir=tmp_path, home=tmp_path, environ=environ)

    r = Redactor.from_settings(resolved, environ=environ)

    assert r.redact("printed lm5x and o7h3r") == f"printed {REDACTED} and o7h3r"


def test_with_secrets_keeps_a_short_configured_key():
    r = Redactor(api_key="k3y9", environ={}).with_secrets(CANARY)
    assert r.redact(f"k3y9 {CANARY}") == f"{REDACTED} {REDACTED}"


def test_the_environment_is_read_live():
    environ: dict[str, str] = {}
    r = Redactor(environ=environ)
    assert r.redact(CANARY) == CANARY
    environ["LATE_TOKEN"] = CANARY
    assert r.redact(CANARY) == REDACTED


def test_a_changed_environment_value_is_redacted_once_the_cached_read_is_older_than_its_ttl():
    import time

    from twnb.config.redaction import ENVIRONMENT_TTL_S

    environ = {"LATE_TOKEN": "first-value-123"}
    r = Redactor(environ=environ)
    assert r.redact("first-value-123") == REDACTED
    environ["LATE_TOKEN"] = "other-value-456"  # same number of variables: seen after the TTL
    time.sleep(ENVIRONMENT_TTL_S + 0.05)
    assert r.redact("other-value-456") == REDACTED


def test_a_secret_containing_another_is_replaced_whole():
    r = Redactor(["abcdefgh", "abcdefgh-longer-one"], environ={}, key_shapes=False)
    assert r.redact("x abcdefgh-longer-one y") == f"x {REDACTED} y"


@pytest.mark.parametrize(
    "shaped",
    [
        "sk-abcdefghijklmnopqrstuvwxyz012345",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz_0123-456",
        "0123456789abcdef0123456789abcdef",  # Azure: 32 hex digits
        "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "AKIAIOSFODNN7EXAMPLE",
        "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
    ],
)
def test_key_shaped_strings_are_replaced(shaped):
    assert Redactor(environ={}).redact(f"leaked: {shaped}!") == f"leaked: {REDACTED}!"


def test_bearer_tokens_keep_the_word_and_lose_the_token():
    text = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig"
    assert Redactor(environ={}).redact(text) == f"Authorization: Bearer {REDACTED}"


@pytest.mark.parametrize(
    "ordinary",
    [
        "skeleton sk-short task-force",
        "flask-abcdefghijklmnopqrstuvwxyz",  # "sk-" inside a word is not a key
        "a" * 64,
        "sha256 " + "0123456789abcdef" * 4,  # 64 hex digits: a digest, not an Azure key
        "post-20240101-abcdef12",
        "The Bearer of bad news",
    ],
)
def test_ordinary_text_is_left_alone(ordinary):
    assert Redactor(environ={}).redact(ordinary) == ordinary


def test_redact_data_walks_dicts_lists_and_tuples_and_keeps_other_values():
    r = Redactor([CANARY], environ={})
    data = {"messages": [{"role": "user", "content": f"x {CANARY}"}], "n": 3, "t": (CANARY, None), "ok": True}
    assert r.redact_data(data) == {
        "messages": [{"role": "user", "content": f"x {REDACTED}"}],
        "n": 3,
        "t": (REDACTED, None),
        "ok": True,
    }
    assert data["messages"][0]["content"] == f"x {CANARY}"  # the input is not changed


def test_redact_data_blanks_credential_fields_whatever_they_hold():
    r = Redactor(environ={})
    data = {
        "Authorization": "Basic dXNlcjpw",
        "api-key": "short",
        "access_token": "t",
        "max_tokens": 5,
        "sort_key": "name",
    }
    assert r.redact_data(data) == {
        "Authorization": REDACTED,
        "api-key": REDACTED,
        "access_token": REDACTED,
        "max_tokens": 5,
        "sort_key": "name",
    }


def test_from_settings_knows_the_configured_key_and_dotenv_secrets(tmp_path: Path):
    (tmp_path / ".env").write_text(f"MY_OWN_KEY={CANARY}\nSERVICE_TOKEN=svc-token-from-dotenv\n")
    resolved = resolve_settings(
        workdir=tmp_path, home=tmp_path, environ={}, traitlets={"api_key_env": "MY_OWN_KEY"}
    )
    r = Redactor.from_settings(resolved, environ={})
    assert r.redact(f"{CANARY} svc-token-from-dotenv") == f"{REDACTED} {REDACTED}"


def test_the_local_server_placeholder_is_not_treated_as_a_secret(tmp_path: Path):
    resolved = resolve_settings(
        workdir=tmp_path, home=tmp_path, environ={"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    )
    r = Redactor.from_settings(resolved, environ={})
    assert r.redact(resolved.settings.api_key) == resolved.settings.api_key


def test_redact_exception_names_the_type_and_hides_the_secret():
    r = Redactor([CANARY], environ={})
    assert r.redact_exception(ValueError(f"bad key {CANARY}")) == f"ValueError: bad key {REDACTED}"


@pytest.fixture
def captured_log():
    logger = logging.getLogger("twnb.test_redaction")
    records: list[str] = []

    class ListHandler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = ListHandler()
    handler.addFilter(RedactingFilter(Redactor([CANARY], environ={})))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield logger, records
    finally:
        logger.removeHandler(handler)
        logger.propagate = True


def test_the_log_filter_redacts_messages_and_their_arguments(captured_log):
    logger, records = captured_log
    logger.warning("calling with %s and %r", CANARY, {"k": CANARY})
    assert records == [f"calling with {REDACTED} and {{'k': '{REDACTED}'}}"]


def test_the_log_filter_redacts_tracebacks(captured_log):
    logger, records = captured_log
    try:
        raise RuntimeError(f"server said {CANARY}")
    except RuntimeError:
        logger.exception("call failed")
    assert len(records) == 1
    assert "RuntimeError: server said [redacted]" in records[0]
    assert CANARY not in records[0]


def test_a_text_redacted_before_a_secret_appeared_is_redacted_again_after():
    environ: dict[str, str] = {}
    r = Redactor(environ=environ)
    messages = [{"role": "user", "content": f"the value is {CANARY}"}]
    assert r.redact_data(messages) == messages
    environ["LATE_TOKEN"] = CANARY
    assert r.redact_data(messages) == [{"role": "user", "content": f"the value is {REDACTED}"}]


def test_a_text_redacted_again_gives_the_same_result():
    r = Redactor(environ={"SERVICE_TOKEN": CANARY})
    text = f"x {CANARY} y"
    assert r.redact(text) == r.redact(text) == f"x {REDACTED} y"


_PARAGRAPHS = [
    "An ordinary paragraph of prose, long enough to matter. " * 6,
    "Authorization: Bearer",
    "Authorization: BeArEr  ",
    "abcdefghijklmnopqrstuvwx and more",
    "the key sk-abcdefghijklmnopqrstuvwxyz012345",
    "mask-abcdefghijklmnopqrstuvwxyz012345 is a word",
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED",
    "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy\n-----END RSA PRIVATE KEY-----",
    "AKIAABCDEFGHIJKLMNOP",
    "0123456789abcdef0123456789abcdef",
    "postgres://user:pa55word@db.example.com/x",
    f"a secret {CANARY} in the middle",
    "line-one-secret",
    "line-two-secret ends here",
    "line-one-secret\n\nline-tw...",
    f"a cut secret {CANARY[:14]}... and {CANARY[:13]}\u2026",
    "...",
    f"{CANARY[:20]}",
    "netloc='analyst:hunter2pw@db:5432'",
    "analyst:hunter2pw",
    "@db.internal",
    "{'password': 'p@ss',",
    "'host': 'db'}",
    "password=",
    "'quoted'",
    "",
    "   ",
]


def _texts(count: int) -> list[str]:
    import random

    chooser = random.Random(7)
    separators = ["\n\n", "\n\n\n", "\n", " "]
    return [
        chooser.choice(separators).join(chooser.choices(_PARAGRAPHS, k=chooser.randint(2, 9)))
        for _ in range(count)
    ]


@pytest.mark.parametrize(
    "environ",
    [
        {"SERVICE_TOKEN": CANARY},
        {"MULTI_TOKEN": "line-one-secret\n\nline-two-secret"},
        {"DATABASE_URL": "postgres://user:pa55word@db.example.com/x"},
        {},
    ],
    ids=["plain secret", "secret across a blank line", "URL in the environment", "no secret"],
)
def test_a_long_text_redacted_by_paragraphs_gives_what_redacting_it_whole_gives(environ, monkeypatch):
    import twnb.config.redaction as redaction

    texts = [t for t in _texts(4000) if len(t) >= redaction.SPLIT_MIN_CHARS]
    remembering = Redactor(environ=environ)
    got = [remembering.redact(text) for text in texts]  # paragraphs seen before are looked up
    monkeypatch.setattr(redaction, "SPLIT_MIN_CHARS", 10**9)
    whole = [Redactor(environ=environ).redact(text) for text in texts]
    assert len(texts) > 200 and got == whole


def test_a_secret_holding_a_blank_line_is_redacted_in_a_long_text():
    r = Redactor(environ={"MULTI_TOKEN": "line-one-secret\n\nline-two-secret"})
    text = "An ordinary paragraph. " * 30 + "\n\nline-one-secret\n\nline-two-secret ends here"
    assert r.redact(text).endswith(f"\n\n{REDACTED} ends here")


def test_a_cut_secret_holding_a_blank_line_is_redacted_in_a_long_text():
    r = Redactor(environ={"MULTI_TOKEN": "line-one-secret\n\nline-two-secret"})
    text = "An ordinary paragraph. " * 30 + "\n\nline-one-secret\n\nline-tw... ends here"
    assert r.redact(text).endswith(f"\n\n{REDACTED} ends here")


def test_bearer_and_its_token_split_by_a_blank_line_in_a_long_text_lose_the_token():
    text = "An ordinary paragraph. " * 30 + "\n\nAuthorization: Bearer\n\nabcdefghijklmnop"
    assert "abcdefghijklmnop" not in Redactor(environ={}).redact(text)


def test_secrets_in_a_text_of_wide_characters_are_replaced_exactly():
    secret = "mot-de-passe-été-2026"
    text = f"🙂 日本 {secret} é {secret[:14]}… fin"
    assert Redactor([secret], environ={}).redact(text) == f"🙂 日本 {REDACTED} é {REDACTED} fin"
