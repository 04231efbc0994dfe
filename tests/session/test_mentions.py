"""What a request's @-mentions point at: variables, files in the notebook's folder, cells, Rounds; real
objects and files, the kernel's own namespace summary."""

from __future__ import annotations

import pandas as pd
import pytest

from twnb.config import Redactor
from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round
from twnb.session.mentions import MAX_MENTION_CHARS, MentionError, MentionResolver, find_mentions

SECRET = "sk-mention-abcdefghijklmnopqrstuvwxyz0123456789"


def resolver(tmp_path, namespace=None, conversation=None) -> MentionResolver:
    return MentionResolver(
        namespace or {}, tmp_path, conversation or Conversation.init(), Redactor([SECRET]).redact
    )


def test_mentions_are_found_in_prose_in_order_once_each():
    request = "Join @sales with @data/regions.csv, like @cell 4 and @round 2 did; then @sales again."
    assert find_mentions(request) == [
        ("@sales", "", "sales"),
        ("@data/regions.csv", "", "data/regions.csv"),
        ("@cell 4", "cell", "4"),
        ("@round 2", "round", "2"),
    ]


def test_email_addresses_and_code_are_not_mentions():
    request = (
        "Mail bob@example.com the plot, using `@property` style and\n"
        "```python\n@functools.cache\ndef f(): ...\n```\n"
    )
    assert find_mentions(request) == []


def test_a_frame_mention_adds_its_columns_with_dtypes_and_a_few_rows(tmp_path):
    sales = pd.DataFrame({"region": ["EMEA", "AMER", "APAC", "EMEA"], "revenue": [1.5, 2.0, 3.25, 4.0]})
    (mention,) = resolver(tmp_path, {"sales": sales}).resolve("Plot @sales by region")
    assert mention.kind == "variable"
    assert "shape (4, 2)" in mention.text
    assert "region (object)" in mention.text or "region (str)" in mention.text
    assert "revenue (float64)" in mention.text
    rows = mention.text.split("first rows:\n")[1].splitlines()
    assert len(rows) == 4  # the header and three rows
    assert "AMER" in rows[2] and "APAC" in rows[3]


def test_a_mentioned_variable_is_redacted_and_bounded(tmp_path):
    notes = pd.DataFrame({"note": [f"token {SECRET}"] * 3 + ["x" * 50_000]})
    (mention,) = resolver(tmp_path, {"notes": notes}).resolve("Clean @notes")
    assert SECRET not in mention.text
    assert len(mention.text) <= MAX_MENTION_CHARS + 100


def test_a_csv_file_mention_adds_its_kind_size_and_head(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "regions.csv").write_text("region,manager\nEMEA,Ana\nAMER,Bo\n")
    (mention,) = resolver(tmp_path).resolve("Use @data/regions.csv.")
    assert mention.kind == "file"
    assert mention.text.startswith("data/regions.csv: CSV, 32 bytes; first lines:\nregion,manager\nEMEA,Ana")


def test_an_image_mention_is_described_not_sent(tmp_path):
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    (mention,) = resolver(tmp_path).resolve("Redo @chart.png")
    assert mention.text == "chart.png: PNG image, 108 bytes (not sent; the code can open it)"


def test_a_file_outside_the_notebooks_folder_is_unknown(tmp_path):
    folder = tmp_path / "nb"
    folder.mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    with pytest.raises(MentionError, match=r"^@\.\./secret\.txt: no such variable, file"):
        resolver(folder).resolve("Read @../secret.txt")


def test_a_cell_mention_adds_its_code_and_result(tmp_path):
    namespace = {"In": ["", "x = 2", "x * 21"], "Out": {2: 42}}
    (mention,) = resolver(tmp_path, namespace).resolve("Explain @cell 2")
    assert mention.text == "cell [2]:\nx * 21\nits result:\n42"


def test_a_round_mention_adds_its_request_answer_and_variables(tmp_path):
    code_post = Post.create("ran", "CodeInterpreter", "Planner")
    result = Attachment.create(AttachmentType.execution_result, "ok")
    result.extra = {"variables": [{"name": "totals", "kind": "created"}, {"name": "df", "kind": "changed"}]}
    code_post.add_attachment(result)
    round = Round.create("Sum revenue", state="finished")
    round.add_post(code_post)
    round.add_post(Post.create("Total is 10.", "Planner", "User"))
    conversation = Conversation.init()
    conversation.add_round(round)
    (mention,) = resolver(tmp_path, conversation=conversation).resolve("As in @round 1, per region")
    assert mention.text == (
        "Round 1: the request: Sum revenue\nits answer: Total is 10.\nvariables it made: totals"
    )


def test_unknown_mentions_are_named_in_one_line(tmp_path):
    with pytest.raises(MentionError) as raised:
        resolver(tmp_path, {"sales": 1}).resolve("Plot @salez and @cell 9 with @sales")
    assert str(raised.value).startswith("@salez, @cell 9: no such variable")
    assert "\n" not in str(raised.value)
