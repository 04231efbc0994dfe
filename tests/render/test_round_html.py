"""text/html of a finished Round: self-contained, themed by Pygments classes, untrusted text escaped."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

from support.nb_rounds import HOSTILE, analysis_round

from twnb.memory import Attachment, AttachmentType, Post, Round
from twnb.render import MIME_TYPE, plan_from_round, round_bundle


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text, as a browser would parse them."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def named(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == name]


def _html(round: Round, **kwargs) -> str:
    return round_bundle(round, session_id="s", plan=plan_from_round(round), **kwargs)["text/html"]


def _interrupted_round() -> Round:
    round = analysis_round()
    round.post_list = round.post_list[:3]  # stopped before the answer
    round.change_round_state("failed")
    round.extra["failure_reason"] = "Interrupted by the user while CodeInterpreter's code was running."
    return round


def test_html_has_no_script_no_style_block_and_no_external_stylesheet():
    tags = _Tags(_html(analysis_round(message=HOSTILE + "<script>alert(1)</script><style>*{}</style>")))
    names = {tag for tag, _ in tags.tags}
    assert not names & {"script", "style", "link", "iframe", "object", "embed"}


def test_html_uses_no_jupyterlab_css_variables_for_anything():
    assert "var(--" not in _html(analysis_round())


def test_code_is_highlighted_with_pygments_classes_not_inline_colours():
    tags = _Tags(_html(analysis_round()))
    assert any(attrs.get("class") == "highlight" for attrs in tags.named("div"))
    classes = {attrs.get("class") for attrs in tags.named("span")}
    assert {"kn", "nn"} <= classes  # `import statistics`: keyword and module name


def test_code_wraps_no_span_around_plain_names_or_whitespace_no_theme_colours():
    html = _html(analysis_round())
    code = re.search(r'<div class="highlight".*?</pre></div>', html, flags=re.S)
    assert code is not None
    tags = _Tags(code.group(0))
    assert not [attrs for attrs in tags.named("span") if attrs.get("class") in ("n", "w", None)]
    assert "m = statistics.mean([1, 2, 3])" in "".join(tags.text)  # the code reads as it was
    assert "statistics.mean" in "".join(tags.text)


def test_llm_html_in_a_message_is_shown_as_text():
    html = _html(analysis_round(message=HOSTILE + " and <b>bold</b>"))
    tags = _Tags(html)
    assert not tags.named("img")  # no preview in this Round, so any <img> came from the message
    assert HOSTILE in "".join(tags.text)
    assert "<b>bold</b>" in "".join(tags.text)


def test_message_markdown_is_rendered_with_code_and_safe_links_only():
    text = "Saved `weeks` to [weeks.csv](weeks.csv); see [x](javascript:alert(1)) and ![i](https://e/x.png)"
    tags = _Tags(_html(analysis_round(message=text)))
    # The answer in the main view (its post in the folded conversation points at it).
    assert [a["href"] for a in tags.named("a")] == ["weeks.csv"]
    assert "weeks" in [t for t in tags.text]  # the code span's text
    assert "code" in [name for name, _ in tags.tags]
    assert not tags.named("img")


def test_each_post_is_a_foldable_details_section_titled_from_to_in_the_conversation():
    round = analysis_round()
    html = _html(round)
    assert len(_Tags(html).named("details")) >= len(round.post_list)
    conversation = html.split("<b>Conversation (4 posts)</b>")[1]
    titles = re.findall(r"<summary[^>]*><b>([^<]*)</b>", conversation)
    assert titles == [
        "User → Planner",
        "Planner → CodeInterpreter",
        "CodeInterpreter → Planner",
        "Planner → User",
    ]


def test_the_main_view_shows_the_code_and_the_answer_and_the_conversation_folds():
    html = _html(analysis_round())
    opened = re.findall(r"<details( open)?[^>]*><summary[^>]*><b>([^<]*)</b>", html)
    assert [title for flag, title in opened if flag] == ["Code (1 block, 1 ran)"]
    assert next(title for flag, title in opened if not flag) == "Conversation (4 posts)"
    main = html.split("<b>Conversation (")[0]
    assert 'class="twnb-answer"' in main and 'class="highlight"' in main


def test_header_gives_request_state_time_and_tokens():
    text = "".join(_Tags(_html(analysis_round())).text)
    assert "What is the mean of [1, 2, 3]?" in text
    assert "finished" in text
    assert "time 3.2 s · tokens 1,500 in / 120 out" in text


def test_plan_checklist_shows_the_init_plan_steps_with_their_states_and_inline_code():
    round = analysis_round()
    for post in (round.post_list[1], round.post_list[3]):
        post.attachment_list[0].content = "1. Load `orders.csv`\n2. Report it <interactively depends on 1>"
    html = re.sub(r"<(\w+) [^>]*>", r"<\1>", _html(round))  # tags without their styles
    assert "<li>☑ Load <code>orders.csv</code> <small>(done)</small></li>" in html
    assert "<li>☑ Report it <small>(done)</small></li>" in html


def test_plan_texts_show_once_per_round_in_the_planner_notes():
    html = _html(analysis_round())
    # Both Planner posts restate "1. compute the mean\n2. report it" as their plan.
    assert html.count("1. compute the mean\n2. report it") == 2  # the init_plan and the plan, once each


def test_interrupted_round_shows_the_step_in_progress_as_abandoned():
    round = _interrupted_round()
    bundle = round_bundle(round, session_id="s", plan=plan_from_round(round))
    steps = bundle[MIME_TYPE]["twnb"]["plan"]["subtasks"]
    assert [s["state"] for s in steps] == ["abandoned", "todo"]
    assert "✗ compute the mean" in bundle["text/html"]
    text = " ".join("".join(_Tags(bundle["text/html"]).text).split())
    assert "interrupted" in text
    assert "Round interrupted: by the user" in text


def test_a_failed_step_error_is_shown_in_the_round():
    round = analysis_round()
    coder = round.post_list[2]
    coder.attachment_list[3].content = "FAILURE"
    coder.add_attachment(Attachment.create(AttachmentType.code_error, "KeyError: 'sales'"))
    main = _html(round).split("<b>Conversation (")[0]  # seen without unfolding the conversation
    text = "".join(_Tags(main).text)
    assert "KeyError: 'sales'" in text
    assert "raised" in text  # the code block's outcome


def _png_bytes() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + b"\x80" * 6 + b"\x00" + b"\x80" * 6)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _round_with_artifact(folder, relative: str) -> tuple[Round, list[dict]]:
    from twnb.render import artifact_previews

    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_png_bytes())
    round = analysis_round()
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.artifact_paths, [str(path)]))
    return round, artifact_previews(round, folder)


def test_artifact_preview_is_an_inline_data_uri_image_within_the_cap(tmp_path):
    round, previews = _round_with_artifact(tmp_path, "twnb-artifacts/round-1-figure.png")
    html = _html(round, previews=previews, base_dir=tmp_path)
    (image,) = _Tags(html).named("img")
    src = str(image["src"])
    assert src.startswith("data:image/png;base64,")
    assert len(base64.b64decode(src.split(",", 1)[1])) <= 256 * 1024
    assert "max-width:320px" in str(image["style"])


def test_artifact_link_is_relative_and_labelled_by_its_file_name(tmp_path):
    round, previews = _round_with_artifact(tmp_path, "twnb-artifacts/round-1-figure.png")
    html = _html(round, previews=previews, base_dir=tmp_path)
    (link,) = [a for a in _Tags(html).named("a") if "figure" in str(a["href"])]  # in the main view only
    assert link["href"] == "twnb-artifacts/round-1-figure.png"
    assert ">round-1-figure.png</a>" in html
    assert "text-decoration:underline" in str(link["style"])
    assert str(tmp_path) not in html


def test_an_artifact_in_a_hidden_folder_is_named_but_not_linked(tmp_path):
    round, previews = _round_with_artifact(tmp_path, ".twnb/artifacts/post-20261201-154849-display-1.png")
    html = _html(round, previews=previews, base_dir=tmp_path)
    assert not [a for a in _Tags(html).named("a") if ".twnb" in str(a["href"])]
    assert "<code>post-20261201-154849-display-1.png</code>" in re.sub(r"<code [^>]*>", "<code>", html)
    assert len(_Tags(html).named("img")) == 1  # the preview still shows


def test_prompt_delimiters_never_show():
    from twnb.memory import PromptUtil

    marked = PromptUtil.wrap_text_with_delimiter("big table", PromptUtil.DELIMITER_TEMPORAL)
    html = _html(analysis_round(message=f"Here: {marked}"))
    assert all(mark not in html for pair in PromptUtil.get_all_delimiters() for mark in pair)
    assert "big table" in html


def test_a_post_cut_off_by_a_failure_says_so():
    round = Round.create("q")
    post = Post.create("partial", "Planner", "Unknown")
    post.extra = {"incomplete": "the connection dropped"}
    round.add_post(post)
    round.change_round_state("failed")
    text = "".join(_Tags(_html(round)).text)
    assert "reply cut off: the connection dropped" in text


def test_a_link_into_a_hidden_folder_stays_text():
    tags = _Tags(_html(analysis_round(message="See [fig.png](.twnb/artifacts/fig.png) and [ok](out/ok.csv)")))
    assert [a["href"] for a in tags.named("a")] == ["out/ok.csv"]  # the answer
    assert "[fig.png](.twnb/artifacts/fig.png)" in "".join(tags.text)


def test_code_results_and_tracebacks_name_a_monospace_font_inline_and_keep_their_whitespace():
    round = analysis_round(message="Run `statistics.mean` again.")
    coder = round.post_list[2]
    for attachment in coder.attachment_list:
        if attachment.type.value == "execution_status":
            attachment.content = "FAILURE"
        if attachment.type.value == "execution_result":
            attachment.content = "Traceback (most recent call last):\n    m = mean(x)\n        ^^^^\nError"
    html = _html(round)
    pre_and_code = re.findall(r"<(?:pre|code)\b[^>]*>", html)
    assert len(pre_and_code) >= 3  # the code, the traceback, the inline code of the answer
    for tag in pre_and_code:  # nbconvert's, nbviewer's, VS Code's and GitHub's pages use their own font
        assert "monospace" in tag, tag
    assert all("white-space:pre-wrap" in tag for tag in pre_and_code if tag.startswith("<pre"))
    assert "<style" not in html
