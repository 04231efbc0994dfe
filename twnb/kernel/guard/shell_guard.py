"""The runtime guard's part in the IPython shell: the user's variables survive generated code.

Two routes to lost work raise no audit event, because they are plain Python on the shell's objects:
- `reset` (`InteractiveShell.instance().reset(new_session=False)`, `%reset -f`, reached through any
  object: every shell is an instance of the class), and `ask_exit` through the class (exit_guard.py
  covers the instance and the names `exit`/`quit`). Both are wrapped once on the shell's classes and
  refuse when the calling thread is armed (runtime_guard.py), before anything is done.
- the namespace itself: `get_ipython().user_ns.clear()`, `globals().clear()`, `del` in a loop,
  `%reset_selective`, `%xdel`, `shell.user_ns = {}`. A dict's methods cannot be wrapped, so the
  namespace is kept instead (`keeping`): a shallow snapshot (names and references, no copies) before
  the code runs, and after it every name the code removed that it did not make itself is put back,
  the same object, and the run records a refusal. Names generated code made (created or rebound by
  an earlier or this run, and not rebound by the user since) are its own to delete.

And the user's history: a cell generated code begins (`get_ipython().run_cell(..., store_history=True)`,
through the class or `run_cell_async` too) runs without history, so it takes no execution count and no
In/Out entry: IPython numbers the cells the user ran, and the code's are not among them. The cell that
runs the code itself starts unarmed (the guard arms inside it), so its own history is as asked.

Stdlib and the shell object only (no IPython import): sent as source to other kernels (kernel_guard.py).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from twnb.kernel.guard.guard_refusal import KERNEL_EXIT, NAMESPACE, GuardRefusal
from twnb.kernel.guard.runtime_guard import GuardedRun, RuntimeGuard

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionResult as CellResult
    from IPython.core.interactiveshell import InteractiveShell

_NAMESPACE_HINT = (
    "Never delete, clear or reset the user's variables: give your results new names, and leave the "
    "rest of the namespace as it is."
)
_MISSING = object()
_LISTED_NAMES = 8


class ShellGuard:
    """The guard's hold on one shell. `ShellGuard.for_shell(shell)` gives the shell's, made once."""

    _shells: ClassVar[weakref.WeakKeyDictionary[Any, ShellGuard]] = weakref.WeakKeyDictionary()

    def __init__(self, shell: InteractiveShell, guard: RuntimeGuard) -> None:
        self.shell = shell
        self.guard = guard
        # name -> id of the object generated code last bound to it (its own to delete)
        self._made_by_code: dict[str, int] = {}
        _wrap_shell_routes(type(shell), guard)

    @classmethod
    def for_shell(cls, shell: InteractiveShell, guard: RuntimeGuard | None = None) -> ShellGuard:
        found = cls._shells.get(shell)
        if found is None:
            found = cls._shells[shell] = cls(shell, guard or RuntimeGuard.installed())
        return found

    @contextlib.contextmanager
    def keeping(self, run: GuardedRun) -> Iterator[None]:
        """Put back whatever the block removes from the shell's namespace that generated code did not
        make; with `run.refuse`, record that as a refusal. Names the block creates or rebinds become
        generated code's own."""
        shell = self.shell
        namespace, module = shell.user_ns, getattr(shell, "user_module", None)
        global_namespace = getattr(shell, "user_global_ns", namespace)
        own = self._made_by_code
        kept = {n: v for n, v in namespace.items() if own.get(n) != id(v)}
        identities = {n: id(v) for n, v in namespace.items()}
        try:
            yield
        finally:
            swapped = self._restore_attributes(namespace, module)
            removed = [n for n in kept if n not in namespace] if run.refuse else []
            for name in removed:
                namespace[name] = kept[name]
            if global_namespace is not namespace and run.refuse:
                for name in [n for n in kept if n not in global_namespace and n in namespace]:
                    global_namespace[name] = kept[name]
            for name, value in namespace.items():
                if identities.get(name) != id(value):
                    own[name] = id(value)
            for name in [n for n in own if n not in namespace]:
                del own[name]
            if run.refuse and (removed or swapped):
                hidden = set(getattr(shell, "user_ns_hidden", ()) or ())
                run.refusals.append(_namespace_refusal(removed, swapped, hidden))

    def _restore_attributes(self, namespace: dict[str, Any], module: Any) -> list[str]:
        """Put the shell's namespace objects back if the code replaced them (`shell.user_ns = {}`)."""
        swapped = []
        shell = self.shell
        if shell.user_ns is not namespace:
            shell.user_ns = namespace
            swapped.append("user_ns")
        if module is not None and getattr(shell, "user_module", module) is not module:
            shell.user_module = module
            swapped.append("user_module")
        return swapped


def _namespace_refusal(removed: list[str], swapped: list[str], hidden: set[str]) -> GuardRefusal:
    visible = [n for n in removed if not n.startswith("_") and n not in hidden]
    parts = []
    if visible:
        listed = ", ".join(visible[:_LISTED_NAMES])
        more = f" and {len(visible) - _LISTED_NAMES} more" if len(visible) > _LISTED_NAMES else ""
        parts.append(f"removed the user's variables {listed}{more}")
    elif removed:
        parts.append(f"removed {len(removed)} of the shell's own names")
    if swapped:
        parts.append("replaced the shell's " + " and ".join(swapped))
    message = "The code " + " and ".join(parts) + "; twnb put them back."
    return GuardRefusal(NAMESPACE, "user_ns", message, _NAMESPACE_HINT, subject=", ".join(visible or swapped))


def _wrap_shell_routes(shell_class: type, guard: RuntimeGuard) -> None:
    """Wrap `reset` and `ask_exit` on every class of the shell that defines them (once), and its
    `run_cell` and `run_cell_async`, which keep no history for generated code."""
    routes = {
        "reset": (NAMESPACE, "resetting the shell would delete every variable of the user.", _NAMESPACE_HINT),
        "ask_exit": (
            KERNEL_EXIT,
            "asking the shell to exit would stop the notebook's kernel and lose every variable.",
            "Let the code end normally, or raise an exception to stop early.",
        ),
    }
    for cls in shell_class.__mro__:
        for name in ("run_cell", "run_cell_async"):
            original = vars(cls).get(name)
            if original is not None and not getattr(original, "_twnb_guarded", False):
                setattr(cls, name, _without_history_when_armed(original, guard))
        for name, (rule, message, hint) in routes.items():
            original = vars(cls).get(name)
            if original is None or getattr(original, "_twnb_guarded", False):
                continue
            setattr(
                cls, name, _refusing_route(original, f"{cls.__name__}.{name}", rule, message, hint, guard)
            )


def _refusing_route(
    original: Any, event: str, rule: str, message: str, hint: str, guard: RuntimeGuard
) -> Any:
    @functools.wraps(original)
    def route(*args: Any, **kwargs: Any) -> Any:
        run = guard.armed_run()
        if run is not None and run.refuse and not guard.trusted_here(sys._getframe(1)):
            guard.refuse(run, guard.refusal_here(run, rule, event, message, hint))
        return original(*args, **kwargs)

    route._twnb_guarded = True  # type: ignore[attr-defined]
    return route


def _without_history_when_armed(original: Any, guard: RuntimeGuard) -> Any:
    """`run_cell` or `run_cell_async` (`self, raw_cell, store_history, ...`), with `store_history`
    False when the calling thread runs generated code (armed, trusted or not)."""

    def without_history(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if guard.armed_run() is not None:
            if len(args) > 2:
                return (*args[:2], False, *args[3:])
            if "store_history" in kwargs:
                kwargs["store_history"] = False
        return args

    if inspect.iscoroutinefunction(original):
        # Named as the method it stands for: ipykernel runs a cell with top-level await as a task of
        # this coroutine, and kernel_guard.py knows the cell's task by its code's name.
        @functools.wraps(original)
        async def run_cell_async(*args: Any, **kwargs: Any) -> Any:
            return await original(*without_history(args, kwargs), **kwargs)

        run_cell_async._twnb_guarded = True  # type: ignore[attr-defined]
        return run_cell_async

    @functools.wraps(original)
    def route(*args: Any, **kwargs: Any) -> Any:
        return original(*without_history(args, kwargs), **kwargs)

    route._twnb_guarded = True  # type: ignore[attr-defined]
    return route


def run_cell_guarded(
    shell: InteractiveShell, code: str, *, refuse: bool = True
) -> tuple[CellResult, list[GuardRefusal]]:
    """Run `code` on `shell` (`run_cell`, no history) as generated code runs: under the runtime guard,
    the namespace kept. IPython's ExecutionResult and what the guard refused (with `refuse`; without it
    only files are recorded): for code read from elsewhere and run again (`%taskweaver load --rerun`)."""
    guard = RuntimeGuard.installed()
    run = GuardedRun(refuse=refuse, code_namespace=shell.user_global_ns)
    with ShellGuard.for_shell(shell, guard).keeping(run), guard.watching(run):
        result = shell.run_cell(code, store_history=False)
    return result, list(run.refusals)
