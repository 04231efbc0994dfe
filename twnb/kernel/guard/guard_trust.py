"""Trust inside the runtime guard: who is actually making an audited call while generated code runs.

Generated code calls code the user or twnb provided before the run (a plugin: a TaskWeaver plugin, a
notebook function marked `@twnb.plugin`, an MCP tool), and that code may do what generated code may
not (start a process). Trust is never a flag of the thread, which the code could set: it is read from
the stack at each audited action. A *trusted section* is opened by twnb's own entry point (a code
object registered before any run: `PluginFunction._call`) and names the plugin's code the entry calls.
An action inside it is trusted only when, between the action and the entry, no frame runs code that
generated code made, and the frame the entry called runs the plugin's registered code. So a lambda
the code hands a plugin, a library function it monkeypatched with its own, a `PluginFunction` it built
around its own callable, or the entry opened from its own frame, are all the generated code's actions.

Which code generated code made (`CodeOrigins`): a code object runs only through `exec`/`eval` (IPython
runs each cell so), a function made by `types.FunctionType`, or as a function defined in code that
ran; the first two raise audit events that hand over the code object. In an armed thread (outside a
trusted plugin), every code object that starts running so, and every code object nested in it, is the
code's, for the process's life (a function the code left in the namespace is still its code in the
next run), by identity: whatever file name it claims. The import system runs a module's code through
`exec` too: a module imported by the standard file loaders from a file that generated code did not
write is the library's (or the user's), not the code's. Replacing a function's `__code__`, the one
other way to run a code object, is refused.

What this cannot see: what is not Python code the code made. A C function the code hands a plugin
(`functools.partial(os.system, ...)` as a callback, or bound to a module attribute the plugin looks
up), library code it points a plugin at, the environment (`PATH`) or files the plugin reads, a
module's cached bytecode it rewrote, and the guard's and the import system's own state (which hostile
code in the same process can always change) stay with the plugin's trust.

Stdlib only: sent as source to kernels where twnb is not installed (kernel_guard.py).
"""

from __future__ import annotations

import os
import sys
import weakref
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from twnb.kernel.guard.guard_refusal import CODE

# Events that start code objects running, or swap one into a function: what the code runs is remembered.
CODE_EVENTS = frozenset({"exec", "function.__new__", "object.__setattr__"})


@dataclass(frozen=True)
class Section:
    """A trusted section of one thread: `entry` is the frame of twnb's entry point (None: a thread
    started inside a trusted section, trusted from its root), `code` what the entry must call directly
    (the plugin's own code; None: anything, for a target that is not Python code)."""

    entry: FrameType | None
    code: CodeType | None


ROOT = Section(None, None)


class CodeOrigins:
    """The code objects generated code ran (by identity, held weakly), and the files it wrote."""

    def __init__(self) -> None:
        self.generated: weakref.WeakValueDictionary[int, CodeType] = weakref.WeakValueDictionary()
        self.written: set[str] = set()
        self._import = _ImportSystem()

    def made_by_code(self, code: CodeType) -> bool:
        return self.generated.get(id(code)) is code

    def note(self, event: str, args: tuple[Any, ...], frame: FrameType | None) -> tuple[str, str, str] | None:
        """Remember the code an event starts running; (rule, subject, message) when it is refused."""
        if event in ("exec", "function.__new__"):
            code = args[0] if args else None
            if isinstance(code, CodeType) and not (
                event == "exec" and self._import.untouched_module(frame, self.written)
            ):
                self._remember(code)
        elif event == "object.__setattr__" and len(args) >= 2 and args[1] == "__code__":
            name = getattr(args[0], "__qualname__", "a function")
            message = f"replacing the code of {name} (__code__) is not allowed for generated code."
            return CODE, str(name), message
        return None

    @property
    def importing(self) -> _ImportSystem:
        return self._import

    def note_written_module(self, code: Any, frame: FrameType | None) -> None:
        """`exec` outside a run: a module a standard loader runs from a file generated code wrote is
        generated code, whoever imports it (a library choosing its backend) and whenever."""
        if isinstance(code, CodeType):
            path = self._import.loaded_file(frame)
            if path is not None and os.path.abspath(path) in self.written:
                self._remember(code)

    def _remember(self, code: CodeType) -> None:
        stack = [code]
        while stack:
            each = stack.pop()
            if self.generated.get(id(each)) is each:
                continue
            self.generated[id(each)] = each
            stack.extend(c for c in each.co_consts if isinstance(c, CodeType))


class _ImportSystem:
    """The standard file loaders' own code, taken when the guard starts (before any generated code)."""

    def __init__(self) -> None:
        external = sys.modules.get("_frozen_importlib_external")
        bootstrap = sys.modules.get("_frozen_importlib")
        self.ready = external is not None and bootstrap is not None
        if external is None or bootstrap is None:
            return
        self.passing = bootstrap._call_with_frames_removed.__code__
        self.exec_module = external._LoaderBasics.exec_module.__code__
        self.get_code = {
            external.SourceFileLoader: external.SourceFileLoader.get_code,
            external.SourcelessFileLoader: external.SourcelessFileLoader.get_code,
        }

    def untouched_module(self, frame: FrameType | None, written: set[str]) -> bool:
        """Whether `frame` (where `exec` was called) is a standard file loader running the code of a
        module it read from a file generated code never wrote (a library, or a module of the user's)."""
        path = self.loaded_file(frame)
        return path is not None and path not in written

    def loaded_file(self, frame: FrameType | None) -> str | None:
        """The file a standard file loader at `frame` (where `exec` was called) runs the module of
        (None: not such a loader; a loader of the code's own making runs what it likes)."""
        if not self.ready:
            return None
        f = frame
        if f is not None and f.f_code is self.passing:
            f = f.f_back
        if f is None or f.f_code is not self.exec_module:
            return None
        loader = f.f_locals.get("self")
        kind = type(loader)
        original = self.get_code.get(kind)
        if original is None or getattr(kind, "get_code", None) is not original:
            return None
        path = getattr(loader, "path", None)
        return path if isinstance(path, str) else None


class Trust:
    """The trusted entry points, each thread's open sections, and what generated code made."""

    def __init__(self) -> None:
        self.entries: set[CodeType] = set()
        self.sections: dict[int, list[Section]] = {}
        self.origins = CodeOrigins()

    def here(self, ident: int, frame: FrameType | None) -> bool:
        """Whether what the thread does at `frame` is done by trusted code (see the module docstring)."""
        sections = self.sections.get(ident)
        if not sections:
            return False
        section = sections[-1]
        generated = self.origins.generated
        child: FrameType | None = None
        f = frame
        while f is not None:
            if f is section.entry:
                return section.code is None or (child is not None and child.f_code is section.code)
            if generated.get(id(f.f_code)) is f.f_code:
                return False
            child = f
            f = f.f_back
        return section.entry is None
