"""Round MIME payloads (`application/vnd.twnb.round+json`, the shape docs/architecture.md gives) built
by hand, for notebooks that hold saved Rounds without running anything: odd schema versions, hundreds
of posts, hostile text."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import nbformat
from notebook_page import ROUND_MIME

from twnb.render import round_html
from twnb.render.view import round_view

# What the HTML fallback says, so a test can tell it is not what the page shows.
HTML_FALLBACK_TEXT = "static HTML fallback of this Round"


def attachment(type_: str, content: Any) -> dict[str, Any]:
    return {"id": f"atta-{type_}", "type": type_, "content": content, "extra": None}


def post(send_from: str, send_to: str, message: str, *attachments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"post-{send_from}-{send_to}",
        "message": message,
        "send_from": send_from,
        "send_to": send_to,
        "attachment_list": list(attachments),
        "extra": {"timing": {"duration_s": 0.4}, "usage": {"prompt_tokens": 100, "completion_tokens": 20}},
    }


def code_post(code: str, status: str, result: str, *artifacts: str) -> dict[str, Any]:
    """A CodeInterpreter post whose code ran with `status` (SUCCESS or FAILURE)."""
    return post(
        "CodeInterpreter",
        "Planner" if status == "SUCCESS" else "CodeInterpreter",
        f"The code {'ran successfully' if status == 'SUCCESS' else 'failed'}.",
        attachment("thought", "Scripted."),
        attachment("reply_type", "python"),
        attachment("reply_content", code),
        attachment("execution_status", status),
        attachment("execution_result", result),
        attachment("artifact_paths", list(artifacts)),
    )


def payload(
    request: str,
    posts: list[dict[str, Any]],
    *,
    steps: list[tuple[str, str]] = (),
    state: str = "finished",
    schema_version: int | None = 1,
    previews: list[dict[str, Any]] = (),
) -> dict[str, Any]:
    """A Round's payload: the `to_dict()` keys plus the `twnb` object with its view (`schema_version`
    None: no `twnb` object, as an older writer would leave it)."""
    data: dict[str, Any] = {
        "id": f"round-{abs(hash(request)) % 10**8:08d}",
        "user_query": request,
        "state": state,
        "post_list": [post("User", "Planner", request), *posts],
    }
    if schema_version is not None:
        data["twnb"] = {
            "schema_version": schema_version,
            "session_id": "20261201-000000-browser",
            "plan": {
                "name": request,
                "state": "done",
                "subtasks": [{"name": name, "state": step_state} for name, step_state in steps],
            },
            "timing": {"duration_s": 12.5},
            "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "calls": 3, "model": "fake-model"},
            "ledger": {},
            "previews": list(previews),
        }
        # The view twnb computes (the extension draws only that), as a Round saved today carries it.
        data["twnb"]["view"] = json.loads(json.dumps(round_view(data)))
    return data


def png_preview(path: str) -> tuple[bytes, dict[str, Any]]:
    """A small PNG (a red square) and its preview entry, as twnb writes one for an artifact."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (60, 40), (200, 30, 30)).save(out, format="PNG")
    raw = out.getvalue()
    return raw, {"path": path, "mime": "image/png", "size": len(raw), "data": base64.b64encode(raw).decode()}


def saved_notebook(*payloads: dict[str, Any]) -> nbformat.NotebookNode:
    """A notebook as a finished Round leaves it, one `%%taskweaver` cell per payload, each output the
    four-view bundle (the HTML a marker the extension must not show, but for a payload without a view);
    its kernel does not exist, so it opens with no kernel."""
    cells = []
    for count, data in enumerate(payloads, 1):
        cell = nbformat.v4.new_code_cell(f"%%taskweaver\n{data['user_query']}", execution_count=count)
        # A payload without a view (an older twnb) is shown by the page it was saved with: a real one.
        viewed = isinstance(data.get("twnb"), dict) and "view" in data["twnb"]
        bundle = {
            ROUND_MIME: data,
            "text/html": f"<p>{HTML_FALLBACK_TEXT}</p>" if viewed else round_html(data),
            "text/markdown": HTML_FALLBACK_TEXT,
            "text/plain": HTML_FALLBACK_TEXT,
        }
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    # A kernel no server has, and no language_info: the frontend asks, and the test picks No Kernel.
    nb.metadata["kernelspec"] = {"name": "twnb-no-kernel", "display_name": "none", "language": "twnb-none"}
    nbformat.validate(nb)
    return nb
