"""render layer: a Round (or its MIME JSON) as static HTML, Markdown and text, with bounded previews.

Pure functions, no IPython and no widgets, so the notebook's final output, `%taskweaver show`,
exported notebooks and the applications share one renderer (layers: docs/architecture.md).
"""

from twnb.render.bundle import bundle_from_payload, round_bundle, terminal_bundle
from twnb.render.cell_images import IN_CELL_NOTE, with_images_from_cell
from twnb.render.decisions import decision_line, without_decision_words
from twnb.render.highlighted_code import code_html, preformatted_html
from twnb.render.html import failure_html, note_html, plan_html, round_html, state_badge
from twnb.render.labels import (
    PLANNER_NOTES,
    attachment_label,
    autosave_note,
    incomplete_reason,
    is_no_error,
    is_shown,
    post_title,
    sections_kept_open,
    spent_tokens,
    state_label,
    summary_line,
    tokens_label,
)
from twnb.render.links import artifact_label, artifact_url, display_path
from twnb.render.markdown_escape import FENCE_OPEN, escape_markdown, escape_markdown_inline
from twnb.render.markdown_to_html import LINK_STYLE, markdown_html
from twnb.render.payload import MIME_TYPE, SCHEMA_VERSION, plan_from_round, plan_to_dict, round_payload
from twnb.render.plain import round_text
from twnb.render.previews import PREVIEW_CAP_BYTES, THUMBNAIL_SIDE, artifact_previews, displayed_images
from twnb.render.replay_note import replay_summary
from twnb.render.summary import round_summary_markdown, round_summary_text
from twnb.render.text import clean_text, clip_middle, plain_text, shorten
from twnb.render.timeline import timeline_html
from twnb.render.view import HELD_BACK_CELLS

__all__ = [
    "FENCE_OPEN",
    "HELD_BACK_CELLS",
    "IN_CELL_NOTE",
    "LINK_STYLE",
    "MIME_TYPE",
    "PLANNER_NOTES",
    "PREVIEW_CAP_BYTES",
    "SCHEMA_VERSION",
    "THUMBNAIL_SIDE",
    "artifact_label",
    "artifact_previews",
    "artifact_url",
    "attachment_label",
    "autosave_note",
    "bundle_from_payload",
    "clean_text",
    "clip_middle",
    "code_html",
    "decision_line",
    "display_path",
    "displayed_images",
    "escape_markdown",
    "escape_markdown_inline",
    "failure_html",
    "incomplete_reason",
    "is_no_error",
    "is_shown",
    "markdown_html",
    "note_html",
    "plain_text",
    "plan_from_round",
    "plan_html",
    "plan_to_dict",
    "post_title",
    "preformatted_html",
    "replay_summary",
    "round_bundle",
    "round_html",
    "round_payload",
    "round_summary_markdown",
    "round_summary_text",
    "round_text",
    "sections_kept_open",
    "shorten",
    "spent_tokens",
    "state_badge",
    "state_label",
    "summary_line",
    "terminal_bundle",
    "timeline_html",
    "tokens_label",
    "with_images_from_cell",
    "without_decision_words",
]
