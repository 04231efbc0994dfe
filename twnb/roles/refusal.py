"""What verification refuses, as data: one `Refusal` per problem, naming the rule, the line and the fix.

The CodeInterpreter decides from these (which modules the user could allow, whether the code runs) and
shows them to the model as text (`str(refusal)`), one line each: `Line N: <the line> -> <why> <fix>`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class Rule(StrEnum):
    """Which check refused the code (stable names: they are saved and may be matched on)."""

    SYNTAX = "syntax"
    MODULE_NOT_ALLOWED = "module-not-allowed"  # not on the allow-list: the user may allow it
    BLOCKED_MODULE = "blocked-module"  # refused whatever is allowed
    RELATIVE_IMPORT = "relative-import"
    STAR_IMPORT = "star-import"
    BLOCKED_FUNCTION = "blocked-function"
    SHADOWED_BUILTIN = "shadowed-builtin"  # a name like `exec` bound by the code
    DUNDER = "dunder"
    INTROSPECTION = "introspection"  # frames and their globals (`gi_frame.f_globals`)
    BLOCKED_NAME = "blocked-name"  # `__builtins__` and the like
    MODULE_AS_VALUE = "module-as-value"  # a module passed around where the checks cannot follow it
    DYNAMIC_IMPORT = "dynamic-import"  # importlib.import_module(name) and kin, with a name not written out
    IPYTHON_SHELL = "ipython-shell"  # get_ipython() and the shell's own methods
    SHELL = "shell"  # `!cmd`, `%%bash`
    INSTALL = "install"  # `!pip`, `%pip`, `%conda`
    MAGIC = "magic"  # a magic not on the allowed list
    PLUGIN_ONLY = "plugin-only"  # plugin-only mode: anything but plugin calls and their results
    TASKWEAVER = "taskweaver"  # TaskWeaver's own rules, which a case asked for (taskweaver_verification.py)


@dataclass(frozen=True)
class Refusal:
    """One problem verification found. `line` counts from 1 in the code as the model wrote it;
    `source` is that line (stripped); `subject` is what was refused (a module, a function, a magic);
    `message` says why, `hint` what to do instead."""

    rule: Rule
    line: int
    source: str
    message: str
    hint: str = ""
    subject: str = ""

    @property
    def problem(self) -> str:
        """Where and why, without the hint (which is addressed to the model)."""
        return f"Line {self.line}: {self.source} -> {self.message}"

    def __str__(self) -> str:
        return f"{self.problem} {self.hint}" if self.hint else self.problem

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rule": str(self.rule)}


def allowable_modules(refusals: Iterable[Refusal]) -> list[str]:
    """The top-level modules refused only for not being on the allow-list (the user may allow them;
    a blocked module stays refused whatever is allowed), in order, once each."""
    found = [r.subject.split(".")[0] for r in refusals if r.rule is Rule.MODULE_NOT_ALLOWED]
    return list(dict.fromkeys(found))
