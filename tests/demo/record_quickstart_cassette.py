"""Re-record twnb/demo/quickstart.cassette.yaml (or another demo notebook's) from the hand-written
scripted replies.

    python -m tests.demo.record_quickstart_cassette [bigger-than-memory]   # from the repository's root

Serves twnb/demo/scripted_replies.yaml from the loopback fake LLM server, runs the quickstart live
against it with recording on, and copies the cassette the session wrote into the package. Run it
after changing the prompts, the quickstart notebook or the scripted replies: the cassette holds the
prompts too, and a replay warns when they drift.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from tests.fakellm.server import FakeLLMServer
from twnb.demo.demo_notebook import DEMO_MODEL, DemoNotebook
from twnb.demo.runner import DEMO_NOTEBOOKS, run_demo


def fake_server_script(demo: DemoNotebook) -> dict[str, list[str]]:
    replies = yaml.safe_load(demo.scripted_replies.read_text(encoding="utf-8"))
    return {
        role: [json.dumps({"response": r}, ensure_ascii=False) for r in items]
        for role, items in replies.items()
    }


def main(argv: list[str]) -> int:
    demo = DEMO_NOTEBOOKS[argv[0] if argv else "quickstart"]
    with (
        FakeLLMServer(fake_server_script(demo), models=(DEMO_MODEL,)) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        os.environ.update(
            {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "recording-key", "TWNB_MODEL": DEMO_MODEL}
        )
        result = run_demo(Path(tmp) / "demo", live=True, record=True, demo=demo)
        if not result.ok:
            print("not every Round finished: " + "; ".join(result.failures), file=sys.stderr)
            return 1
        left = {role: n for role, n in server.remaining().items() if n}
        if left:
            print(f"scripted replies left unused: {left}", file=sys.stderr)
            return 1
        recorded = result.conversation.with_suffix(".cassette.yaml")
        shutil.copyfile(recorded, demo.cassette)
    print(f"wrote {demo.cassette} (from {demo.conversation_file})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
