"""Code recorded elsewhere, checked before it runs again here.

A conversation file or a notebook may come from anyone, and `%taskweaver load --rerun` and `twnb export
--execute` run the code it records: the CodeInterpreter's code and the user's own cells alike. Both get
the verification generated code gets, under the same settings (`verify`, `allow_modules`); code it
refuses is not run, and the refusal says where and why; what it lets through runs under the runtime
guard, as generated code does (`run_recorded_cell` on the notebook's shell; `twnb export --execute` in
its kernel). `--no-verify` (or `verify: false`) runs it unchecked and unguarded, as a session would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from twnb.kernel import GuardRefusal, run_cell_guarded
from twnb.roles import VerificationConfig, allowable_modules, verify_code

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionResult as CellResult
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.config import Settings

RecordedCodeCheck = Callable[[str], "str | None"]


def recorded_code_check(settings: Settings | None = None, *, verify: bool = True) -> RecordedCodeCheck | None:
    """A check for recorded code (None: run it unchecked): the refusal as one text, or None when the
    code may run. `settings` (None for the defaults) gives `verify` and `allow_modules`; `verify=False`
    is `--no-verify`."""
    # lazy: twnb.session.factory (~50 ms, 33 modules: the session, the LLM client), for the check only
    from twnb.session.factory import verification_config

    config = verification_config(settings)
    if not verify or not config.enabled:
        return None
    return lambda code: refusal_text(code, config)


def refusal_text(code: str, config: VerificationConfig) -> str | None:
    refusals = verify_code(code, config)
    if not refusals:
        return None
    problems = "; ".join(refusal.problem for refusal in refusals)
    modules = allowable_modules(refusals)
    if modules:
        listed = ", ".join(repr(m) for m in modules)
        problems += f" (allow_modules = [{listed}] allows them)"
    return problems


def run_recorded_cell(
    shell: InteractiveShell, code: str, *, guarded: bool = True
) -> tuple[CellResult, list[GuardRefusal]]:
    """Run a piece of recorded code on the notebook's `shell` as generated code runs: under the runtime
    guard (refusing only with `guarded`), the user's namespace kept. IPython's ExecutionResult, and
    what the guard refused."""
    return run_cell_guarded(shell, code, refuse=guarded)
