"""Static checks on generated code before it runs on the user's kernel.

The threat model, plainly: verification is a guard against a model's *mistakes* and the workarounds a
model plausibly writes when its first try is refused; it is not a sandbox. The code runs in the user's
own kernel, as the user, beside their data and credentials: a model that calls `exit()` kills the
notebook's kernel, `!rm` or `shutil.rmtree` deletes real files, `%pip install` changes the environment
under a running session. These checks catch such slips before anything runs and tell the model what to
do instead. They do not make hostile code safe: Python has too many doors (C extensions, pickles, strings
evaluated by libraries, file writes that later run) for a syntax check to close them all, so never run
a model you do not trust on data you cannot lose.

What is refused (each as a `Refusal`, naming its line):
- imports outside the data-analysis list, and modules that run processes or reach around the checks
  (`subprocess`, `ctypes`, `pty`, `signal`, `importlib`, `builtins`, ...) even when every module is
  allowed; star imports from a module with blocked functions (`from os import *`);
- blocked builtins and functions under any name: `run = exec`, `def f(e=exec)`, `getattr` (with or
  without a constant string), `vars`, `globals`; binding such a name (`exec = ...`);
- attribute chains judged from the module they reach: `pathlib.os.system`, `shutil.os.system`,
  `os.sys.modules[...]`, `from os import sys`; a module passed around as a value (`[os][0]`);
- the notebook's shell: `get_ipython()`, `IPython.get_ipython()`, its `system`, `getoutput`,
  `run_line_magic` and `run_cell_magic`; `!cmd`, `%pip`, `%%bash` and magics off the allowed list;
- dunder attributes and keys (`__class__`, `__dict__`, `["__builtins__"]`) and frame attributes
  (`gi_frame.f_globals`); `exit`, `quit`, `os._exit`, `os.kill`, `sys.exit`.

What it cannot see (by design, kept cheap): calls on objects the code computes (`Path(p).unlink()`, a
method of a returned object), strings that libraries evaluate (`pandas.eval`, pickles), and whatever the
libraries the code calls do in turn. Removing single files (`os.remove`, `Path.unlink`) is allowed on
purpose: analysis code replaces its own outputs. Whole trees, processes, the shell and the kernel itself
are what the default rules protect. The time limit holds even for code verification did not see (see
twnb/kernel/guard/watchdog.py).

How: IPython's `transform_cell` first turns `%magic`, `!shell` and `%%cell` syntax into plain Python
(`get_ipython().run_line_magic(...)`, `.system(...)`), which `ast.parse` can read; then one walk over the
tree (`code_checker.py`) judges imports, names, attribute chains, subscripts and calls, by what the one
analysis of code (twnb/analysis) says each name holds; the Python an allowed magic runs as text (`%time`,
`%timeit`, `%%capture`) is judged the same way. `transform_cell` keeps one line per line, so every
refusal names the line of the code the model wrote.
"""

from __future__ import annotations

from twnb.roles.code_checker import check_code
from twnb.roles.refusal import Refusal, Rule, allowable_modules
from twnb.roles.taskweaver_verification import taskweaver_refusals
from twnb.roles.verification_policy import (
    BYPASS_FUNCTIONS,
    DEFAULT_ALLOWED_CELL_MAGICS,
    DEFAULT_ALLOWED_DUNDERS,
    DEFAULT_ALLOWED_LINE_MAGICS,
    DEFAULT_ALLOWED_MODULES,
    DEFAULT_BLOCKED_ATTRIBUTES,
    DEFAULT_BLOCKED_FUNCTIONS,
    DEFAULT_BLOCKED_MODULES,
    VerificationConfig,
)

__all__ = [
    "BYPASS_FUNCTIONS",
    "DEFAULT_ALLOWED_CELL_MAGICS",
    "DEFAULT_ALLOWED_DUNDERS",
    "DEFAULT_ALLOWED_LINE_MAGICS",
    "DEFAULT_ALLOWED_MODULES",
    "DEFAULT_BLOCKED_ATTRIBUTES",
    "DEFAULT_BLOCKED_FUNCTIONS",
    "DEFAULT_BLOCKED_MODULES",
    "Refusal",
    "Rule",
    "VerificationConfig",
    "allowable_modules",
    "verify_code",
]


def verify_code(code: str, config: VerificationConfig | None = None) -> list[Refusal] | None:
    """Check `code` against `config`. None when verification is off; else the refusals, each naming
    its line (an empty list means the code passed). TaskWeaver's rules, when the config carries them,
    are judged after twnb's own (and also when twnb's are off: a case asked for them)."""
    config = config or VerificationConfig()
    if not config.enabled and config.taskweaver is None:
        return None
    refusals = check_code(code, config) if config.enabled else []
    if config.taskweaver is not None:
        refusals += taskweaver_refusals(code, config.taskweaver)
    return refusals
