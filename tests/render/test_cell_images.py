"""A Round shown in the cell its code ran in refers to the images that cell already shows: each image
is saved once, and reading the cell back puts the bytes back in the Round."""

from __future__ import annotations

import base64
import html
import json
import random
from pathlib import Path

from support.nb_rounds import analysis_round

from twnb.memory import Attachment, AttachmentType, Post
from twnb.render import IN_CELL_NOTE, MIME_TYPE, artifact_previews, round_bundle, with_images_from_cell
from twnb.render.view import view_of


def _figure_png(path: Path) -> bytes:
    """A real, incompressible PNG (random pixels), so no thumbnail can look like its bytes."""
    from PIL import Image

    rng = random.Random(0)
    image = Image.frombytes("RGB", (200, 120), bytes(rng.getrandbits(8) for _ in range(200 * 120 * 3)))
    image.save(path)
    return path.read_bytes()


def _plot_round(folder: Path):
    """A Round whose code displayed fig.png (its captured output) and saved it as an artifact, and the
    cell's own output of that display."""
    data = base64.b64encode(_figure_png(folder / "fig.png")).decode("ascii")
    figure = {"image/png": data, "text/plain": "<Figure>"}
    output = {"output_type": "display_data", "data": figure, "metadata": {}}
    round = analysis_round()
    post = Post.create("made a figure", "CodeInterpreter", "Planner")
    result = Attachment.create(AttachmentType.execution_result, "The execution succeeded.")
    result.extra = {"outputs": [json.loads(json.dumps(output))]}
    post.add_attachment(result)
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, ["fig.png"]))
    round.add_post(post)
    return round, data, output


def _in_cell_bundle(round, folder: Path) -> dict:
    return round_bundle(round, session_id="s", previews=artifact_previews(round, folder), in_cell=True)


def test_a_bundle_in_its_cell_holds_none_of_the_displayed_images_bytes(tmp_path):
    round, data, _ = _plot_round(tmp_path)
    bundle = _in_cell_bundle(round, tmp_path)
    assert data[:100] not in json.dumps(bundle)
    assert "base64," not in bundle["text/html"]  # no thumbnail either: the figure is right below


def test_a_bundle_shown_elsewhere_still_carries_the_image(tmp_path):
    round, data, _ = _plot_round(tmp_path)
    bundle = round_bundle(round, session_id="s", previews=artifact_previews(round, tmp_path))
    assert data in json.dumps(bundle[MIME_TYPE])
    assert "base64," in bundle["text/html"]


def test_every_view_says_where_the_displayed_figure_is(tmp_path):
    round, _, _ = _plot_round(tmp_path)
    bundle = _in_cell_bundle(round, tmp_path)
    (artifact,) = view_of(bundle[MIME_TYPE])["artifacts"]
    assert (artifact["path"], artifact["preview"], artifact["omitted"]) == ("fig.png", None, IN_CELL_NOTE)
    page = html.unescape(bundle["text/html"])
    assert 'href="fig.png"' in page and IN_CELL_NOTE in page
    assert "](fig.png)" in bundle["text/markdown"] and "![" not in bundle["text/markdown"]


def test_reading_the_cell_back_puts_the_image_back_in_the_round(tmp_path):
    round, _, cell_output = _plot_round(tmp_path)
    payload = _in_cell_bundle(round, tmp_path)[MIME_TYPE]
    restored = with_images_from_cell(payload, [{"output_type": "display_data", "data": {}}, cell_output])
    recorded = round.to_dict()["post_list"][-1]["attachment_list"][0]["extra"]["outputs"]
    assert restored["post_list"][-1]["attachment_list"][0]["extra"]["outputs"] == recorded


def test_an_image_the_cell_no_longer_holds_stays_out_with_its_digest(tmp_path):
    round, _, _ = _plot_round(tmp_path)
    payload = _in_cell_bundle(round, tmp_path)[MIME_TYPE]
    restored = with_images_from_cell(payload, [])
    (output,) = restored["post_list"][-1]["attachment_list"][0]["extra"]["outputs"]
    assert "image/png" not in output["data"]
    assert set(output["metadata"]["twnb_in_cell"]) == {"image/png"}
