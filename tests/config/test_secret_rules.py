"""The one set of secret rules: each shape it must catch, and the near-misses it must leave alone."""

from __future__ import annotations

import random
import re

import pytest

from twnb.config import secret_rules
from twnb.config.redaction import Redactor
from twnb.config.secret_rules import (
    REDACTED,
    has_secret_shape,
    is_secret_name,
    mentions_secret_name,
    redact_shapes,
)
from twnb.kernel.capture.secret_screen import SecretScreen

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAv3Jq0vPm\nq8L2hX9Zk1Y\n-----END RSA PRIVATE KEY-----"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "apiKey",
        "DB_CREDENTIALS",
        "DB_CREDENTIAL",
        "GITHUB_TOKEN",
        "client-secret",
        "dbPassword",
        "MYSQL_PASSWD",
        "X_AUTH",
        "HTTPAuthHeader",
        "SERVICE_APIKEY",
    ],
)
def test_names_with_a_credential_part_are_secret(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "DBPASSWORD",
        "dbpassword",
        "MYSQLPASSWD",
        "GITHUBTOKEN",
        "CLIENTSECRET",
        "SERVICEAPIKEY",
        "AWSCREDENTIAL",
        "AWSCREDENTIALS",
        "APP_DBPASSWORD",
    ],
)
def test_names_ending_with_a_long_secret_word_are_secret_without_a_separator(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "MONKEY",  # KEY and AUTH count only as parts: short words end ordinary names
        "TURKEYSANDWICH",
        "KEYBOARD_LAYOUT",
        "OAUTHOR",
        "AUTHOR",
        "TOKENIZERS_PARALLELISM",
        "MAX_TOKENS",  # TOKENS is not TOKEN: the number of tokens is a setting, not a secret
        "MAXTOKENS",
        "PASSWORDLESS",
        "SECRETARY",
        "TOKENIZER_PATH",
    ],
)
def test_names_that_only_contain_a_secret_word_are_not_secret(name):
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["AUTHOR", "MAX_TOKENS", "MONKEY", "keyring", "HOME", "PASSWORDLESS", "TOKENIZER_PATH", "authority"],
)
def test_names_whose_parts_are_not_credentials_are_not_secret(name):
    assert not is_secret_name(name)


def test_a_secret_name_inside_a_repr_is_noticed():
    assert mentions_secret_name("{'user': 'ann', 'password': 'hunter2'}")


def test_an_author_inside_a_repr_is_not_a_secret_name():
    assert not mentions_secret_name("{'author': 'ann', 'title': 'Notes'}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("url postgresql://user:pw@host/db", f"url postgresql://user:{REDACTED}@host/db"),
        ("'postgres://u:Pw-9x!@db.example.com:5432/x'", f"'postgres://u:{REDACTED}@db.example.com:5432/x'"),
        ("redis://:s3cr3t@cache:6379/0", f"redis://:{REDACTED}@cache:6379/0"),
        (f"key:\n{PEM}\nend", f"key:\n{REDACTED}\nend"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut", REDACTED),
        (f"token={JWT};", f"token={REDACTED};"),
        ("sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz_0123", REDACTED),
        ("0123456789abcdef0123456789abcdef", REDACTED),
        ("AKIAIOSFODNN7EXAMPLE", REDACTED),
        ("ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", REDACTED),
        ("gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", REDACTED),
        ("github_pat_11ABCDEFGHIJKLMNOPQRSTUV_0123", REDACTED),
        ("ASIAIOSFODNN7EXAMPLE", REDACTED),
        ("hf_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", REDACTED),
        ("AIzaSyA-1234567890abcdefghijklmnopqrstu", REDACTED),
        ("xoxb-1234567890-abcdefghij", REDACTED),
        ("Authorization: Bearer abc.def-ghi_jkl", f"Authorization: Bearer {REDACTED}"),
    ],
)
def test_each_secret_shape_is_replaced(text, expected):
    assert redact_shapes(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "https://user@example.com/db",  # user info without a password
        "https://example.com:8443/path",  # a port is not a password
        "http://host:8080/a@b",  # "@" after the path
        "build0123456789abcdef0123456789abcdefx",  # 32 hex digits inside a word
        "0123456789abcdef0123456789abcde",  # 31 hex digits
        "sha256 " + "0123456789abcdef" * 4,  # a 64-digit digest
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",  # public, not a private key
        "eyJhbGciOiJIUzI1NiJ9 alone",  # a base64 header is not a token
        "flask-abcdefghijklmnopqrstuvwxyz",
        "The Bearer of bad news",
    ],
)
def test_near_misses_are_left_alone(text):
    assert redact_shapes(text) == text


def test_the_kernel_screen_and_the_redactor_agree_on_a_url_password():
    text = "conn = 'postgres://u:Pw0rd@host/db'"
    assert SecretScreen(()).looks_secret_value(text)
    assert "Pw0rd" not in Redactor(environ={}).redact(text)


def test_the_kernel_screen_and_the_redactor_agree_on_credential_named_environment_values():
    environ = {"DB_CREDENTIAL": "cred-value-1234", "AUTHOR": "Ada Lovelace"}
    screen = SecretScreen.from_environment(environ)
    assert screen.redact("cred-value-1234 by Ada Lovelace") == "[hidden] by Ada Lovelace"
    redacted = Redactor(environ=environ).redact("cred-value-1234 by Ada Lovelace")
    assert redacted == f"{REDACTED} by Ada Lovelace"


def test_has_secret_shape_is_false_for_ordinary_text():
    assert not has_secret_shape("df.groupby('region').amount.sum() at https://example.com/x")


@pytest.mark.parametrize(
    "key",
    [f"gh{kind}_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" for kind in "pousr"]
    + [f"A{kind}IAIOSFODNN7EXAMPLE" for kind in "KS"]
    + [f"xox{kind}-1234567890-abcdefghij" for kind in "abposr"],
)
def test_every_variant_of_a_key_shape_is_replaced_in_a_long_text(key):
    text = "x = 1\n" * 1000 + f"key = {key}\n"
    assert redact_shapes(text) == "x = 1\n" * 1000 + f"key = {REDACTED}\n"


_KEY_PIECES = ("AKIA", "AIza", "ASIA", "xox", "xoxb-", "sk-", "mask-", "ghp_", "github_pat_", "hf_")
_FILLER = (" ", "-", "_", "Z9", "abcdefghij", "0123456789ABCDEF", "é", "\n")


def test_a_key_right_after_a_word_ending_like_a_key_start_is_replaced():
    assert redact_shapes("task-sk-proj-AbCdEfGhIjKlMnOpQrSt") == f"task-{REDACTED}"


def test_keys_are_replaced_where_the_shapes_regex_after_a_word_end_finds_them():
    """Shapes are matched only where a key's first literal is (a regex scan costs a try at every
    position): in texts where keys, near misses and their starts overlap, the result is what one scan
    of the shapes' regex with a word-end lookbehind gives."""
    scan = re.compile(r"(?<![A-Za-z0-9_])(?:" + secret_rules._KEY_SHAPES().pattern + ")")
    rng = random.Random(7)
    replaced = 0
    for _ in range(3000):
        text = "".join(rng.choice(_KEY_PIECES + _FILLER) for _ in range(rng.randint(1, 30)))
        expected = scan.sub(REDACTED, text)
        assert secret_rules._redact_key_shapes(text, REDACTED) == expected, text
        replaced += expected.count(REDACTED)
    assert replaced > 500  # the texts held keys


def test_a_credential_field_named_in_mixed_case_is_replaced():
    assert redact_shapes("{'PassWord': 'hunter22', 'ApiKEY': \"k-1\"}") == (
        f"{{'PassWord': '{REDACTED}', 'ApiKEY': \"{REDACTED}\"}}"
    )
