"""Re-record twnb/demo/quickstart.cassette.yaml from the hand-written scripted replies.

    python tests/demo/record_quickstart_cassette.py

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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fakellm.server import FakeLLMServer
from twnb.demo.quickstart import CASSETTE, CONVERSATION_FILE, DEMO_MODEL, SCRIPTED_REPLIES
from twnb.demo.runner import run_demo


def fake_server_script() -> dict[str, list[str]]:
    replies = yaml.safe_load(SCRIPTED_REPLIES.read_text(encoding="utf-8"))
    return {
        role: [json.dumps({"response": r}, ensure_ascii=False) for r in items]
        for role, items in replies.items()
    }


def main() -> int:
    with (
        FakeLLMServer(fake_server_script(), models=(DEMO_MODEL,)) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        os.environ.update(
            {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "recording-key", "TWNB_MODEL": DEMO_MODEL}
        )
        result = run_demo(Path(tmp) / "demo", live=True, record=True)
        if not result.ok:
            print("not every Round finished: " + "; ".join(result.failures), file=sys.stderr)
            return 1
        left = {role: n for role, n in server.remaining().items() if n}
        if left:
            print(f"scripted replies left unused: {left}", file=sys.stderr)
            return 1
        recorded = result.conversation.with_suffix(".cassette.yaml")
        shutil.copyfile(recorded, CASSETTE)
    print(f"wrote {CASSETTE} (from {CONVERSATION_FILE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
