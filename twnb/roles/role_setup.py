"""What a role is built from, beside its model: what it is told, how far it goes, what it sees.

The Planner and the CodeInterpreter take the same three groups (the CodeInterpreter's limits add the
size of run results); each is a frozen value whose defaults are the role's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from twnb.llm import ContextWindows
from twnb.memory import Conversation
from twnb.plugins import PluginOffers
from twnb.roles.prompt_library import PromptTemplates
from twnb.roles.response_schema import ResponseFormatChoice
from twnb.roles.round_digest import CondensePolicy

RESULT_CHARS = 4000  # the bounded execution text a prompt gets per run


@dataclass(frozen=True)
class RoleBrief:
    """What a role is told beyond the conversation.

    `prompts`: its templates (None: the package's). `examples` replaces the package's examples;
    `example_dirs` adds folders to them. `policy`: how older Rounds are condensed (None: the role's
    default). `response_format`: "json_schema" (the role's own schema, strict), "json_object", a dict
    sent as is, or None (see response_schema.py)."""

    prompts: PromptTemplates | None = None
    examples: Sequence[Conversation] | None = None
    example_dirs: Sequence[str | os.PathLike[str]] = ()
    policy: CondensePolicy | None = None
    response_format: ResponseFormatChoice = None


@dataclass(frozen=True)
class RoleLimits:
    """How far a role goes: `attempts` calls for one reply (LLMTurn), a reply stopped beyond
    `max_reply_chars`, `max_revisions` posts to itself (the CodeInterpreter's revisions per task, the
    Planner's self-corrections per Round), and `context`: what is known of the model's context, to
    fit prompts to it (prompt_fit.py)."""

    attempts: int = 3
    max_reply_chars: int | None = None
    max_revisions: int = 3
    context: ContextWindows | None = None


@dataclass(frozen=True)
class CodeLimits(RoleLimits):
    """The CodeInterpreter's limits: a role's, and `result_chars` of each run's text in its prompts."""

    result_chars: int = RESULT_CHARS


@dataclass(frozen=True)
class RoleSurroundings:
    """What a role sees of the notebook it works in: `namespace_summary` of the kernel's variables
    (called for each prompt), the `plugins` each Round offers (twnb/plugins/), and `workdir`, the
    code's working directory: artifact links in execution results are relative to it, where the code
    can open them (the Planner reads no execution results)."""

    namespace_summary: Callable[[], str] | None = None
    plugins: PluginOffers | None = None
    workdir: str | os.PathLike[str] | None = None


# The defaults, as values (a role built without a group gets the package's own).
PACKAGE_BRIEF = RoleBrief()
ROLE_LIMITS = RoleLimits()
CODE_LIMITS = CodeLimits()
NO_SURROUNDINGS = RoleSurroundings()
