"""The Round's waterfall in a notebook run by nbclient in a real kernel against the loopback LLM server:
the bars the widget drew, and those of the saved static HTML, are the ledger the saved Round carries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.nb_run import llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round, code

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

PRICES = {"fake-model": {"input": 3.0, "output": 15.0, "cached": 0.3}}
BAR = re.compile(
    r'<div style="[^"]*">(\w+) (\w+) · ([\d.]+) s[^<]*</div>'  # the line above the bar: what it says
    r'<div class="twnb-bar" data-kind="(\w+)" style="margin-left:([\d.]+)%;width:([\d.]+)%'
)


def test_the_drawn_bars_and_totals_are_the_saved_ledgers_figures(fake_llm, tmp_path: Path):
    script = answer_round("Done.", usage={"prompt_tokens": 2000, "completion_tokens": 100})
    script["CodeInterpreter"] = [code("import time\ntime.sleep(0.4)\nanswer = 6 * 7\nanswer")]
    fake_llm.load(script)
    env = {**llm_env(fake_llm, tmp_path), "TWNB_PRICES": json.dumps(PRICES)}
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"]
    nb, client = run_notebook(tmp_path, cells, env, frontend=True)

    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    ledger = payload["extra"]["ledger"]
    assert payload["twnb"]["ledger"] == ledger  # kept in both, as the ledger's contract says
    entries, duration = ledger["entries"], ledger["duration_s"]
    assert [(e["kind"], e["role"]) for e in entries] == [
        ("llm", "Planner"),
        ("llm", "CodeInterpreter"),
        ("code", "CodeInterpreter"),
        ("llm", "Planner"),
    ]
    assert entries[2]["duration_s"] >= 0.4

    (drawn,) = [v for v in client.html_values if 'class="twnb-timeline"' in v]
    bars = BAR.findall(drawn)
    assert len(bars) == len(entries)
    for (role, what, seconds, kind, left, width), entry in zip(bars, entries, strict=True):
        assert (role, kind) == (entry["role"], entry["kind"])
        assert what == {"llm": "LLM", "code": "code"}[kind]
        assert float(seconds) == pytest.approx(entry["duration_s"], abs=0.006)
        assert float(left) == pytest.approx(entry["start_s"] / duration * 100, abs=0.01)
        assert float(width) == pytest.approx(max(entry["duration_s"] / duration * 100, 0.3), abs=0.01)

    # The saved output, what a reopened notebook shows, draws the same bars.
    assert BAR.findall(output["data"]["text/html"]) == bars

    totals = ledger["totals"]
    first = entries[0]
    assert first["cost"] == pytest.approx((2000 * 3.0 + 100 * 15.0) / 1e6)
    assert totals["cost"] == pytest.approx(sum(e["cost"] for e in entries if e["kind"] == "llm"))
    assert f"cost {totals['cost']:.4f}" in drawn
    assert f"{totals['input_tokens']:,} in / {totals['output_tokens']:,} out" in drawn
    assert f"cost {totals['cost']:.4f}" in output["data"]["text/html"]
