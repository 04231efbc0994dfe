"""A whole Round inside a real ipykernel: the session runs where the magic runs it, on the kernel's own
shell, talking HTTP to the loopback LLM server in this test process."""

from __future__ import annotations

import ast
import json
import os
import textwrap
from pathlib import Path

import pytest
from support.session_script import one_step

pytestmark = pytest.mark.slow

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"

ROUND_IN_KERNEL = """
import ast
import json
from pathlib import Path
from twnb.kernel import LiveShellExecutor
from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.config import ResolvedSettings, Settings
from twnb.session import build_session

workdir = Path.cwd()
folder = workdir / ".twnb"
executor = LiveShellExecutor(get_ipython(), workdir, folder / "artifacts", session_dir=folder)
client = OpenAIChatClient(api_key="test-key", base_url={base_url!r}, limits=ClientLimits(max_retries=0))
resolved = ResolvedSettings(Settings(model="fake-model"), {{}}, workdir)
session = build_session(resolved, executor, client=client, session_dir=workdir / ".twnb")
twnb_round = session.run_round("Count the rows and plot them")
twnb_report = json.dumps({{
    "state": twnb_round.state,
    "posts": [[p.send_from, p.send_to] for p in twnb_round.post_list],
    "artifacts": [a.content for p in twnb_round.post_list for a in p.attachment_list
                  if a.type.value == "artifact_paths"],
    "autosaved": sorted(p.name for p in session.autosave_dir.glob("*.yaml")),
}})
"""


def _execute(kc, code: str, expressions: dict[str, str] | None = None) -> dict:
    msg_id = kc.execute(code, user_expressions=expressions or {}, allow_stdin=False)
    while True:
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


def test_whole_round_on_the_kernels_own_shell(fake_llm, tmp_path: Path):
    from twnb.kernel import UnixSocketKernelManager

    code = "import pandas as pd\nrows = pd.DataFrame({'n': range(5)})\nrows.plot()\nlen(rows)"
    fake_llm.load(one_step(code, "There are 5 rows."))
    km = UnixSocketKernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path), env={**os.environ, "MPLBACKEND": INLINE_BACKEND})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = _execute(
            kc,
            textwrap.dedent(ROUND_IN_KERNEL.format(base_url=fake_llm.base_url)),
            {"report": "twnb_report", "rows": "len(rows)"},
        )
        assert reply["status"] == "ok", reply
        report = json.loads(ast.literal_eval(reply["user_expressions"]["report"]["data"]["text/plain"]))
        assert report["state"] == "finished"
        assert report["posts"][-1] == ["Planner", "User"]
        assert reply["user_expressions"]["rows"]["data"]["text/plain"] == "5"
        assert any(path.endswith(".png") for paths in report["artifacts"] for path in paths)
        assert len(report["autosaved"]) == 1
        assert _execute(kc, "1 + 1")["status"] == "ok"  # the kernel lives on
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
