"""What judging the names installed libraries declare costs the runtime guard, beside today's judgement.

Each turn is a fresh process of this Python (nothing cached in it; the files themselves are in the
OS's cache after the first turn, as they are in a kernel that imported anything), working in an empty
folder, which times, in order:

- today's judgement at a run's first write: `ModuleShadows.shadow` of `yaml.py` (an installed name:
  every folder of sys.path listed, no declared name read);
- the first write of a name nothing installs (`helpers.py`): what the declared names add, read from
  the `*.dist-info/METADATA` headers once per process (twnb/base/declared_imports.py);
- a later write of such a name (`helpers2.py`): the per-write cost once read;
- the same names read through `importlib.metadata` (every distribution's `requires`), the way not
  taken, for the ratio;
- the warden's `planted.installed_modules` (its listing), and the declared names it reads only when
  the kernel left a module of a name not installed.

Medians over --repeat turns, with the ratios side by side.

    python bench/bench_declared_imports.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

TURN = """
import json, os, sys, time
from twnb.kernel.guard.shadowed_modules import ModuleShadows
from twnb.base import DeclaredImports
from twnb.config import planted
here = os.path.realpath(os.getcwd())
shadows = ModuleShadows(declared=DeclaredImports())
t0 = time.perf_counter(); assert shadows.shadow(here, "yaml.py")
t1 = time.perf_counter(); assert shadows.shadow(here, "helpers.py") == ""
t2 = time.perf_counter(); assert shadows.shadow(here, "helpers2.py") == ""
t3 = time.perf_counter()
assert shadows.shadow(here, "numexpr.py") or "numexpr" in sys.modules
import importlib.metadata
t4 = time.perf_counter()
requires = [r for d in importlib.metadata.distributions() for r in (d.requires or ())]
t5 = time.perf_counter()
names = planted.installed_modules([here])
t6 = time.perf_counter()
assert "numexpr" in names or "numexpr" in names.installed  # a kernel left numexpr.py: declared read
t7 = time.perf_counter()
declared = len(DeclaredImports().read([os.path.realpath(p) for p in sys.path if p]))
only_declared = sum(1 for v in names.values() if not v.startswith("would shadow"))
print(json.dumps({"listing": t1 - t0, "declared": t2 - t1, "warm": t3 - t2, "metadata": t5 - t4,
                  "warden": t6 - t5, "warden_declared": t7 - t6, "declared_names": declared,
                  "requires": len(requires), "refused_not_installed": only_declared}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    turns = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeat):
            done = subprocess.run(
                [sys.executable, "-c", TURN], cwd=folder, capture_output=True, text=True, check=True
            )
            turns.append(json.loads(done.stdout))

    def median_ms(key: str) -> float:
        return statistics.median(turn[key] for turn in turns) * 1000

    listing, declared, warm = median_ms("listing"), median_ms("declared"), median_ms("warm")
    metadata, warden, warden_declared = (
        median_ms("metadata"),
        median_ms("warden"),
        median_ms("warden_declared"),
    )
    last = turns[-1]
    print(
        f"{args.repeat} fresh processes; {last['declared_names']} names declared "
        f"({last['refused_not_installed']} that nothing installs), {last['requires']} requirement lines"
    )
    print(f"today's first write (sys.path listed)        {listing:8.2f} ms")
    print(
        f"+ declared names read (first unknown name)   {declared:8.2f} ms   "
        f"first write then {((listing + declared) / listing):.2f}x today's"
    )
    print(f"later write of an unknown name               {warm * 1000:8.1f} us")
    print(
        f"importlib.metadata for the same names        {metadata:8.2f} ms   "
        f"{metadata / declared:.1f}x the direct read"
    )
    print(
        f"warden's end: installed_modules {warden:.2f} ms, + declared names when a kernel left such a "
        f"module {warden_declared:.2f} ms"
    )


if __name__ == "__main__":
    main()
