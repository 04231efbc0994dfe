"""One secret, all its spellings: the Redactor replaces a known value as ordinary output prints it."""

from __future__ import annotations

import html
import json
from urllib.parse import quote, quote_plus, urlparse

import pytest

from twnb.config.redaction import Redactor
from twnb.config.secret_rules import REDACTED, is_credential_variable

# A password with every character the encodings below change: \ " ' & < > @ / space and a non-ASCII one.
SECRET = "pa\\ss\"w'rd&<x>@/ é-Zq81"
REDACTOR_ENVIRON = {"WAREHOUSE_PASSWORD": SECRET}


def _redacted(text: str) -> str:
    return Redactor(environ=REDACTOR_ENVIRON).redact(text)


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param(repr(SECRET), id="repr (print(os.environ))"),
        pytest.param(str({"WAREHOUSE_PASSWORD": SECRET}), id="a dict's str"),
        pytest.param(json.dumps({"password_of_warehouse": SECRET}), id="json.dumps"),
        pytest.param(json.dumps(SECRET, ensure_ascii=False), id="json.dumps ensure_ascii=False"),
        pytest.param(repr(SECRET.encode()), id="bytes repr"),
        pytest.param(html.escape(SECRET), id="html.escape"),
        pytest.param(html.escape(SECRET, quote=False), id="pandas to_html escaping"),
        pytest.param(html.escape(repr(SECRET)), id="a repr inside HTML"),
        pytest.param(quote(SECRET, safe=""), id="percent-encoded"),
        pytest.param(quote_plus(SECRET), id="form-encoded"),
    ],
)
def test_each_ordinary_spelling_of_a_secret_is_replaced(spelling):
    text = f"value: {spelling} (end)"
    redacted = _redacted(text)
    assert REDACTED in redacted
    assert "Zq81" not in redacted and "pa\\" not in redacted.replace(REDACTED, "")


@pytest.mark.parametrize("ellipsis", ["...", "…"])
def test_a_display_cut_of_12_characters_or_more_followed_by_an_ellipsis_is_replaced(ellipsis):
    token = "tok-Aq9-ZXCVBNMasdfghjkl-0987"
    redactor = Redactor(environ={"SERVICE_TOKEN": token})
    for length in (12, 20, len(token) - 1):
        assert redactor.redact(f"| {token[:length]}{ellipsis} |") == f"| {REDACTED} |"


def test_a_pandas_cell_cut_to_46_characters_is_replaced_in_text_and_html():
    pandas = pytest.importorskip("pandas")
    token = "Secret&Value<" + "x9Y8z7" * 10
    frame = pandas.DataFrame({"setting": ["warehouse"], "value": [token]})
    redactor = Redactor(environ={"WAREHOUSE_TOKEN": token})
    for shown in (repr(frame), frame._repr_html_()):
        plain = shown.replace("&amp;", "&").replace("&lt;", "<")
        assert token not in plain and f"{token[:40]}" in plain  # pandas cut it
        redacted = redactor.redact(shown)
        assert "Secret&" not in redacted and "Secret&amp;" not in redacted and REDACTED in redacted


def test_of_two_secrets_sharing_a_beginning_the_longest_cut_before_an_ellipsis_is_replaced_whole():
    short, long = "tok-Aq9-ZXCVBNM", "tok-Aq9-ZXCVBNM-asdfghjkl"
    redactor = Redactor(environ={"SHORT_TOKEN": short, "LONG_TOKEN": long})
    assert redactor.redact(f"| {long[:20]}... |") == f"| {REDACTED} |"
    assert redactor.redact(f"| {long[: len(short)]}-as... |") == f"| {REDACTED} |"


def test_a_prefix_shorter_than_12_characters_before_an_ellipsis_is_kept():
    token = "tok-Aq9-ZXCVBNMasdfghjkl-0987"
    assert Redactor(environ={"SERVICE_TOKEN": token}).redact(f"{token[:11]}...") == f"{token[:11]}..."


def test_a_prefix_not_followed_by_an_ellipsis_is_kept():
    token = "tok-Aq9-ZXCVBNMasdfghjkl-0987"
    assert Redactor(environ={"SERVICE_TOKEN": token}).redact(f"{token[:20]} and") == f"{token[:20]} and"


def test_a_secret_popped_from_the_environment_stays_a_secret():
    environ = {"HF_TOKEN": "hf-value-Zx81Qa7-canary"}
    redactor = Redactor(environ=environ)
    hf_token = environ.pop("HF_TOKEN")
    assert redactor.redact(f"Authorization header: {hf_token}") == f"Authorization header: {REDACTED}"


def test_a_secret_renamed_in_the_environment_stays_a_secret(monkeypatch):
    import twnb.config.redaction as redaction

    monkeypatch.setattr(redaction, "ENVIRONMENT_TTL_S", 0.0)
    environ = {"DB_PASSWORD": "pw-value-Zx81Qa7"}
    redactor = Redactor(environ=environ)
    redactor.redact("read the environment")
    environ["DB_SETTING"] = environ.pop("DB_PASSWORD")
    assert redactor.redact("pw-value-Zx81Qa7") == REDACTED


def test_a_remembered_value_is_redacted_from_then_on():
    redactor = Redactor(environ={})
    assert redactor.redact("value-of-a-variable") == "value-of-a-variable"
    redactor.remember(["value-of-a-variable", "short"])
    assert redactor.redact("value-of-a-variable, short") == f"{REDACTED}, short"


def test_with_secrets_keeps_what_the_environment_held():
    environ = {"API_TOKEN": "api-token-value-123"}
    redactor = Redactor(environ=environ)
    environ.clear()
    assert redactor.with_secrets("another-secret-1").redact("api-token-value-123") == REDACTED


def test_the_password_of_a_url_in_the_environment_is_a_secret_wherever_it_appears():
    environ = {"DATABASE_URL": "postgresql://analyst:p%40ss-Zx81Qa7@db:5432/sales"}
    redactor = Redactor(environ=environ)
    password = urlparse(environ["DATABASE_URL"]).password
    assert redactor.redact(f"password={password}") == f"password={REDACTED}"
    assert redactor.redact("p@ss-Zx81Qa7") == REDACTED


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "ParseResult(scheme='postgresql', netloc='analyst:p%40ss@db:5432', path='/sales')",
            f"ParseResult(scheme='postgresql', netloc='analyst:{REDACTED}@db:5432', path='/sales')",
        ),
        ("connect analyst:hunter2pw@db.internal now", f"connect analyst:{REDACTED}@db.internal now"),
        ("postgresql://analyst:p@ss-word@db/sales", f"postgresql://analyst:{REDACTED}@db/sales"),
        (
            "{'drivername': 'postgresql', 'username': 'analyst', 'password': 'p@ss', 'host': 'db'}",
            f"{{'drivername': 'postgresql', 'username': 'analyst', 'password': '{REDACTED}', 'host': 'db'}}",
        ),
        ('URL(password="it\'s-secret")', f'URL(password="{REDACTED}")'),
        ('{"api_key": "ab\\"cd"}', f'{{"api_key": "{REDACTED}"}}'),
    ],
    ids=["urlparse repr", "bare netloc", "unencoded @ in a URL", "SQLAlchemy URL._asdict()", "kwarg", "json"],
)
def test_credentials_without_a_scheme_and_in_url_reprs_are_replaced(text, expected):
    assert Redactor(environ={}).redact(text) == expected


@pytest.mark.parametrize(
    "text",
    ["mailto:bob@example.com", "at 10:30@home", "user@example.com:8080", "max_tokens=5", "tokens: 'a'"],
)
def test_near_misses_of_the_credential_rules_are_kept(text):
    assert Redactor(environ={}).redact(text) == text


def test_a_sqlalchemy_url_never_shows_the_password_by_its_shape_alone():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    url = sqlalchemy.engine.make_url("postgresql://analyst:p%40ss-Zx81Qa7@db:5432/sales")
    shown = "\n".join([repr(url), str(url._asdict()), url.render_as_string(hide_password=False)])
    redacted = Redactor(environ={}).redact(shown)
    assert "Zx81Qa7" not in redacted and "analyst" in redacted


def test_a_sqlalchemy_url_from_the_environment_never_shows_the_password_even_as_a_bare_value():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    environ = {"DATABASE_URL": "postgresql://analyst:p%40ss-Zx81Qa7@db:5432/sales"}
    url = sqlalchemy.engine.make_url(environ["DATABASE_URL"])
    redacted = Redactor(environ=environ).redact(f"{tuple(url)} {url.password}")
    assert "Zx81Qa7" not in redacted and "analyst" in redacted


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("hf_token", "hfval-1234-abcd"),
        ("dbPassword", "Zx81!qa7w"),
        ("api_key", "k-123456789"),
        ("secret", "s3cr3t-v4lue"),
    ],
)
def test_a_credential_variable_is_one_the_redactor_keeps(name, value):
    assert is_credential_variable(name, value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("key", "customer_id"),  # `for key in columns:` leaves a column name
        ("sort_key", "order-date-2024"),
        ("api_key_env", "OPENAI_API_KEY"),  # names where the key is, is not one
        ("token", "tokenization"),  # `for token in text.split():` leaves a word
        ("password_length", "12345678"),
        ("db_password", "short"),
        ("secret", "a sentence with spaces in it"),
    ],
)
def test_a_loop_or_settings_variable_is_not_a_credential(name, value):
    assert not is_credential_variable(name, value)
