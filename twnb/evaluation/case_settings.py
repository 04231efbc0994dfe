"""What a case asks of the agent, in twnb's terms: its settings, and whether twnb can run it at all.

TaskWeaver's `config_var` keys are mapped to twnb settings where twnb has one (the case's notebook
sets them with `%config TaskWeaverMagics.NAME = VALUE`, so a reader sees them). Keys twnb has no
setting for are named in the case's notes and otherwise ignored. A case is skipped, with why, when it
needs what twnb does not have: a role other than the Planner and the CodeInterpreter (web search,
document retrieval, ...), TaskWeaver's container mode in an unconfined run (a confined kernel stands in
for the container), or a Python package that is not installed
(`dependencies`). Shell commands to run first (`pre_command`) are run as TaskWeaver runs them
(pre_command.py). The plugins of the case's `app_dir`
(`app_dir/plugins`) are the case notebook's `plugin_dirs`; TaskWeaver's plugin-only role is twnb's
`plugin_only` setting.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from twnb.evaluation.case_file import EvalCase
from twnb.evaluation.code_prefix import prefix_problem
from twnb.memory import load_yaml_file

__all__ = ["CaseSetup", "case_setup", "missing_dependencies", "setting_lines"]

# TaskWeaver key -> twnb setting. (`code_verification.code_verification_on` is how one of TaskWeaver's
# own cases spells the first.) TaskWeaver's verification is added to twnb's, never put in its place:
# twnb's own `verify` stays on whatever the case says.
MAPPED: dict[str, str] = {
    "code_interpreter.code_verification_on": "taskweaver_verification",
    "code_verification.code_verification_on": "taskweaver_verification",
    "code_interpreter.allowed_modules": "taskweaver_allowed_modules",
    "code_interpreter.blocked_functions": "taskweaver_blocked_functions",
    "code_interpreter.max_retry_count": "max_retries",
    "session.max_internal_chat_round_num": "max_posts",
}

# The roles twnb has, by TaskWeaver's names for them (its plugin-only CodeInterpreter is the
# plugin_only setting).
ROLES = frozenset({"planner", "code_interpreter", "code_interpreter_plugin_only"})

# What TaskWeaver's other roles are, for the reason a case needing one is skipped.
ROLE_NEEDS = {
    "web_search": "a web search service",
    "web_explorer": "a web browser",
    "document_retriever": "a document index",
    "code_interpreter_cli_only": "a command-line-only code interpreter",
    "image_reader": "an image-reading role",
    "recepta": "TaskWeaver's Recepta role",
    "echo": "TaskWeaver's Echo role",
}

# Keys twnb has no setting for, with what twnb does instead (anything else: "not a twnb setting").
EXPLAINED: dict[str, str] = {
    "planner.prompt_compression": "twnb condenses older Rounds in every prompt by itself",
    "code_generator.prompt_compression": "twnb condenses older Rounds in every prompt by itself",
    "code_generator.auto_plugin_selection_topk": "past six plugins twnb describes the five the request's "
    "words match best",
    "llm.model": "the model comes from --model",
    "llm.api_base": "the server comes from twnb's settings",
    "llm.api_type": "the server comes from twnb's settings",
}


@dataclass
class CaseSetup:
    """The twnb settings the case's notebook sets, notes on what was not mapped, and why it cannot
    run (empty: it can)."""

    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skip_reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # notes said on the console too
    code_prefix: str = ""  # TaskWeaver's code_interpreter.code_prefix (code_prefix.py)

    def warn(self, text: str) -> None:
        self.notes.append(text)
        self.warnings.append(text)


def case_setup(case: EvalCase, *, confined: bool = False) -> CaseSetup:
    """`confined`: the case's kernel is twnb's confined kernel, which stands in for TaskWeaver's
    container (both keep the agent's code away from the machine it runs on)."""
    setup = CaseSetup()
    for key, value in case.config_var.items():
        _map_setting(str(key), value, setup, confined)
    folder = _plugins_folder(case)
    if case.app_dir and _app_folder(case) is None:
        setup.warn(
            f"its app_dir {case.app_dir} was not found beside the case file or one or two folders up "
            f"(from {case.folder}): that project's plugins are not loaded; copy the project folder there "
            "to load them"
        )
    if folder is not None:
        setup.settings["plugin_dirs"] = [str(folder)]
        named = _plugins_named(case, folder)
        if named:
            setup.notes.append(
                f"the TaskWeaver plugins of its app_dir are loaded; it names {', '.join(named)}"
            )
    setup.skip_reasons.extend(missing_dependencies(case.dependencies))
    if case.unknown_keys:
        setup.notes.append(f"unknown case keys ignored: {', '.join(case.unknown_keys)}")
    return setup


def _map_setting(key: str, value: Any, setup: CaseSetup, confined: bool) -> None:
    if key == "execution_service.kernel_mode":
        if str(value) == "container" and confined:
            setup.notes.append("TaskWeaver's container mode: its code runs in twnb's confined kernel")
        elif str(value) != "local":
            setup.skip_reasons.append(
                f"it runs code in TaskWeaver's {value} mode, which twnb gives only in its confined kernel"
                " (this run is unconfined: --no-confine, or this system cannot confine a kernel)"
            )
        return
    if key == "session.roles":
        roles = [str(role) for role in value] if isinstance(value, list) else [str(value)]
        missing = [role for role in roles if role not in ROLES]
        if "code_interpreter_plugin_only" in roles:
            setup.settings["plugin_only"] = True
        for role in missing:
            need = ROLE_NEEDS.get(role, "a role twnb does not have")
            setup.skip_reasons.append(f"it needs the role {role} ({need})")
        if not missing and "planner" not in roles:
            setup.notes.append("session.roles without a planner: twnb always plans with its Planner")
        return
    if key == "code_interpreter.code_prefix":
        prefix = "" if value is None else str(value)
        problem = prefix_problem(prefix)
        if problem is not None:
            setup.skip_reasons.append(problem)
        elif prefix.strip():
            setup.code_prefix = prefix
            setup.notes.append(f"{key} is honoured as TaskWeaver's harness runs it: {prefix.strip()}")
        return
    if key == "code_generator.enable_auto_plugin_selection":
        if value:
            setup.notes.append(f"{key}: past six plugins twnb chooses by the request's words; ignored")
        return
    setting = MAPPED.get(key)
    if setting is None:
        prefix = key.split(".", 1)[0]
        why = EXPLAINED.get(key) or (
            f"for the role {prefix}" if prefix in ROLE_NEEDS else "not a twnb setting"
        )
        setup.notes.append(f"{key}: not mapped ({why}); ignored")
        return
    try:
        setup.settings[setting] = _coerce(setting, value)
    except ValueError as error:
        setup.skip_reasons.append(f"config_var {key}: {error}")
        return
    if setting == "taskweaver_verification" and setup.settings[setting]:
        setup.notes.append(f"{key}: TaskWeaver's verification rules are checked on top of twnb's")
    if setting == "taskweaver_blocked_functions":
        # Dotted names (os.remove) are twnb's way of naming a function: its guard refuses them too.
        setup.settings["block_functions"] = list(setup.settings[setting])


def _coerce(setting: str, value: Any) -> Any:
    if setting == "taskweaver_verification":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"expected true or false, got {value!r}")
    if setting in ("max_retries", "max_posts"):
        if isinstance(value, bool) or not str(value).strip().lstrip("-").isdigit():
            raise ValueError(f"expected a whole number, got {value!r}")
        return int(str(value).strip())
    items = value if isinstance(value, list) else str(value).split(",")
    names = [str(item).strip() for item in items if str(item).strip()]
    if not all(re.fullmatch(r"[A-Za-z_][\w.]*", name) for name in names):
        raise ValueError(f"expected names such as os.remove, got {value!r}")
    return names


def setting_lines(settings: Mapping[str, Any]) -> list[str]:
    """`%config` lines that set `settings` in the case's kernel (values as Python literals)."""
    return [f"%config TaskWeaverMagics.{name} = {value!r}" for name, value in settings.items()]


def missing_dependencies(dependencies: tuple[str, ...]) -> list[str]:
    """Why each dependency is not met in this Python (the case's kernel runs on it); [] when all are."""
    reasons = []
    for spec in dependencies:
        try:
            requirement = Requirement(spec)
        except InvalidRequirement:
            reasons.append(f"its dependency {spec!r} is not a requirement pip understands (e.g. numpy>=1.24)")
            continue
        try:
            installed = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            reasons.append(f"it needs {requirement.name}, which is not installed (pip install '{spec}')")
            continue
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            reasons.append(f"it needs {spec}, and {requirement.name} {installed} is installed")
    return reasons


def _app_folder(case: EvalCase) -> Path | None:
    """The case's TaskWeaver project folder (app_dir), looked for as _plugins_folder says."""
    if not case.app_dir:
        return None
    return next(
        (
            (base / case.app_dir).resolve()
            for base in (case.folder, case.folder.parent, case.folder.parent.parent)
            if (base / case.app_dir).is_dir()
        ),
        None,
    )


def _plugins_folder(case: EvalCase) -> Path | None:
    """The case's TaskWeaver project's plugin folder (app_dir/plugins), if it has one.

    TaskWeaver resolves app_dir from the folder its evaluation runs in (the one holding cases/), so it
    is looked for beside the case file, then one and two folders up."""
    if not case.app_dir:
        return None
    return next(
        (
            (base / case.app_dir / "plugins").resolve()
            for base in (case.folder, case.folder.parent, case.folder.parent.parent)
            if (base / case.app_dir / "plugins").is_dir()
        ),
        None,
    )


def _plugins_named(case: EvalCase, plugins_folder: Path) -> list[str]:
    """Plugins of `plugins_folder` that the case's task or scoring points name."""
    names = []
    for spec in sorted(plugins_folder.glob("*.yaml")):
        try:
            data = load_yaml_file(spec)
        except (OSError, ValueError):
            continue
        name = data.get("name") if isinstance(data, Mapping) else None
        if isinstance(name, str) and name:
            names.append(name)
    text = "\n".join([case.task_description, *(point.score_point for point in case.scoring_points)])
    # The name as a word, not part of a file name or path (`anomaly_detection.db`, `./sql_pull_data`).
    return [name for name in names if re.search(rf"(?<![\w./-]){re.escape(name)}(?!\.?\w)", text)]
