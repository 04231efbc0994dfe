"""render layer: a Round (or its MIME JSON) as static HTML, Markdown and text, with bounded previews.

Pure functions, no IPython and no widgets, so the notebook's final output, `%taskweaver show`,
exported notebooks and the applications share one renderer (layers: docs/architecture.md).
"""

from twnb.render.bundle import bundle_from_payload, round_bundle
from twnb.render.html import round_html
from twnb.render.links import artifact_label, artifact_url, display_path
from twnb.render.markdown import round_markdown
from twnb.render.payload import MIME_TYPE, SCHEMA_VERSION, plan_from_round, round_payload
from twnb.render.plain import round_text
from twnb.render.previews import PREVIEW_CAP_BYTES, THUMBNAIL_SIDE, artifact_previews

__all__ = [
    "MIME_TYPE",
    "PREVIEW_CAP_BYTES",
    "SCHEMA_VERSION",
    "THUMBNAIL_SIDE",
    "artifact_label",
    "artifact_previews",
    "artifact_url",
    "bundle_from_payload",
    "display_path",
    "plan_from_round",
    "round_bundle",
    "round_html",
    "round_markdown",
    "round_payload",
    "round_text",
]
