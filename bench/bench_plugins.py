"""What plugins cost: `%load_ext twnb` and the first Round with a folder of 50 TaskWeaver plugins
beside the notebook versus none, and one call of a plugin and of an MCP tool versus a plain function.

    python bench/bench_plugins.py [--repeat 7] [--calls 2000]

1. `import twnb` + `%load_ext twnb` in a fresh subprocess whose working directory holds `plugins/`
   with 50 plugins (a spec and a file each), versus an empty folder: medians (interleaved), their
   difference, and whether anything of the plugins layer was imported (target: nothing; the folder
   adds nothing).
2. The first Round in a fresh subprocess (an InteractiveShell, the live executor wrapped as a notebook
   wraps it, instant scripted replies, trivial code), with those 50 plugins versus no plugin folder:
   medians of the first Round's wall time and their difference (target: the folder adds < 50 ms), and
   of the second Round (the folder is read once).
3. One call, in microseconds (best of 5 batches of `--calls` calls): a plain function, the same body
   as a TaskWeaver plugin called by its name while a run's calls are recorded (and outside a run), and
   an MCP tool of a stdio server on this machine (tests/plugins/data/mcp_server.py; needs twnb[mcp]),
   each beside its ratio to the plain call.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

WORDS = [
    *("sales", "revenue", "inventory", "weather", "traffic", "salary", "churn", "forecast", "anomaly"),
    *("sentiment", "invoice", "shipping", "customer", "supplier", "energy", "rainfall", "population"),
    *("budget", "tickets", "latency"),
]

_LOAD = (
    "from IPython.core.interactiveshell import InteractiveShell\nip = InteractiveShell.instance()\n"
    "import time\nt0 = time.perf_counter()\nimport twnb\nip.run_line_magic('load_ext', 'twnb')\n"
    "t1 = time.perf_counter()\nimport sys\n"
    "print('RESULT', t1 - t0, int(any(m.startswith('twnb.plugins') for m in sys.modules)))\n"
)

_FIRST_ROUND = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {bench!r})
    from IPython.core.interactiveshell import InteractiveShell
    from bench_session import InstantClient
    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor
    from twnb.plugins import PluginCatalog, PluginExecutor
    from twnb.session import NotebookParts, build_session
    from twnb.session.factory import plugin_folders

    shell = InteractiveShell.instance()
    workdir = Path.cwd()
    resolved = ResolvedSettings(Settings(model="instant"), {{}}, workdir)
    session_dir = workdir / ".twnb"
    artifacts = workdir / "twnb-artifacts"
    catalog = PluginCatalog(
        folders=plugin_folders(resolved, workdir), artifacts_dir=artifacts, namespace=shell.user_ns,
        hidden=shell.user_ns_hidden,
    )
    live = LiveShellExecutor(shell, workdir, artifacts, session_dir=session_dir)
    session = build_session(
        resolved, PluginExecutor(live, catalog, artifacts), client=InstantClient(),
        session_dir=session_dir, notebook=NotebookParts(plugins=catalog),
    )
    times = []
    for n in range(2):
        t0 = time.perf_counter()
        round = session.run_round(f"Set variable number {{n}}")
        times.append(time.perf_counter() - t0)
        assert round.state == "finished", round.extra
    print("RESULT", times[0], times[1], len(catalog.available()))
    """
)


def write_plugins(folder: Path, count: int) -> None:
    """`count` small TaskWeaver plugins (a spec with two arguments and a file importing json)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        topic = f"{WORDS[n % len(WORDS)]} {WORDS[(n * 7 + 3) % len(WORDS)]}"
        (folder / f"plugin_{n:02d}.yaml").write_text(
            textwrap.dedent(
                f"""\
                name: plugin_{n:02d}
                enabled: true
                required: false
                description: plugin_{n:02d} summarises the {topic} figures of a table by a column.
                parameters:
                  - name: df
                    type: DataFrame
                    required: true
                    description: the table with the {topic} figures
                  - name: column
                    type: str
                    required: false
                    description: the column to group by
                returns:
                  - name: summary
                    type: str
                    description: a sentence about the {topic} figures
                """
            )
        )
        (folder / f"plugin_{n:02d}.py").write_text(
            textwrap.dedent(
                """\
                import json

                from taskweaver.plugin import Plugin, register_plugin


                @register_plugin
                class Summary(Plugin):
                    def __call__(self, df, column=None):
                        return json.dumps({"rows": len(df), "column": column})
                """
            )
        )


def _run(code: str, cwd: Path) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd)
    line = next(line for line in reversed(out.stdout.splitlines()) if line.startswith("RESULT "))
    return [float(part) for part in line.split()[1:]]


def bench_load(repeat: int, with_plugins: Path, without: Path) -> None:
    loaded, bare, imported = [], [], 0.0
    for _ in range(repeat):
        seconds, imported = _run(_LOAD, with_plugins)
        loaded.append(seconds)
        bare.append(_run(_LOAD, without)[0])
    a, b = statistics.median(loaded), statistics.median(bare)
    print(f"%load_ext twnb, 50 plugins beside the notebook: {a * 1000:.1f} ms (median of {repeat})")
    print(f"%load_ext twnb, no plugins:                     {b * 1000:.1f} ms (median of {repeat})")
    print(
        f"difference: {(a - b) * 1000:+.1f} ms; ratio {a / b:.2f}; plugins layer imported: {bool(imported)}"
    )


def bench_first_round(repeat: int, with_plugins: Path, without: Path) -> None:
    code = _FIRST_ROUND.format(bench=str(ROOT / "bench"))
    first, second, first_bare, second_bare, available = [], [], [], [], 0.0
    for _ in range(repeat):
        a1, a2, available = _run(code, with_plugins)
        b1, b2, _ = _run(code, without)
        first.append(a1)
        second.append(a2)
        first_bare.append(b1)
        second_bare.append(b2)
    f, fb = statistics.median(first), statistics.median(first_bare)
    s, sb = statistics.median(second), statistics.median(second_bare)
    print(f"first Round, {int(available)} plugins loaded: {f * 1000:.1f} ms; no plugins: {fb * 1000:.1f} ms")
    added = (f - fb) * 1000
    print(f"  the plugin folder adds {added:+.1f} ms to the first Round (ratio {f / fb:.2f}; target < 50 ms)")
    print(f"second Round: {s * 1000:.1f} ms versus {sb * 1000:.1f} ms ({(s - sb) * 1000:+.1f} ms)")


def _per_call(function: object, calls: int, **kwargs: object) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(calls):
            function(**kwargs)  # type: ignore[operator]
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1e6


def bench_calls(calls: int, folder: Path) -> None:
    import pandas as pd

    from twnb.plugins import PluginCatalog
    from twnb.plugins.calls import CallLog, open_call_log

    namespace: dict[str, object] = {}
    catalog = PluginCatalog(folders=[folder], artifacts_dir=folder / "artifacts", namespace=namespace)
    catalog.refresh()
    table = pd.DataFrame({"a": [1, 2, 3]})
    plugin = namespace["plugin_00"]
    import json

    def plain(df: object, column: object = None) -> str:
        return json.dumps({"rows": len(df), "column": column})  # type: ignore[arg-type]

    base = _per_call(plain, calls, df=table, column="a")
    outside = _per_call(plugin, calls, df=table, column="a")
    log = CallLog(folder / "artifacts", "bench", "exec-bench")
    with open_call_log(log):
        recorded = _per_call(plugin, calls, df=table, column="a")
    print(f"plain function call:                   {base:8.2f} us")
    print(f"plugin call, outside a run:            {outside:8.2f} us (ratio {outside / base:.2f})")
    print(f"plugin call, recorded in a run:        {recorded:8.2f} us (ratio {recorded / base:.2f})")
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("MCP tool call: skipped (pip install 'twnb[mcp]')")
        return
    from twnb.plugins.mcp_tools import McpTools

    server = ROOT / "tests" / "plugins" / "data" / "mcp_server.py"
    tools = McpTools(
        {"bench": {"command": sys.executable, "args": [str(server)]}},
        timeout=30,
        log_dir=folder / "mcp",
        cwd=folder,
    )
    try:
        add = next(s.function for s in tools.load() if s.name == "add")
        with open_call_log(log):
            remote = _per_call(add, max(calls // 20, 50), a=1, b=2)

        def plain_add(a: int, b: int) -> int:
            return a + b

        local = _per_call(plain_add, calls, a=1, b=2)
        ratio = remote / local
        print(f"MCP tool call (stdio, recorded):       {remote:8.2f} us (ratio {ratio:.0f} to a plain add)")
    finally:
        tools.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with_plugins, without = Path(tmp) / "with", Path(tmp) / "without"
        write_plugins(with_plugins / "plugins", 50)
        without.mkdir()
        bench_load(args.repeat, with_plugins, without)
        bench_first_round(args.repeat, with_plugins, without)
        bench_calls(args.calls, with_plugins / "plugins")


if __name__ == "__main__":
    main()
