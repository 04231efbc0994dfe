"""Which variables a recorded conversation made, so `%taskweaver load` can name the ones this kernel lacks.

A loaded conversation remembers analyses whose variables lived in another kernel. The execution record
(`execution_result` attachment `extra["variables"]`, the kernel layer's VariableChange dicts) is used
when present; otherwise the names are read from the successful code's top-level assignments.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twnb.memory import Conversation, Post

_MADE = {"created", "rebound", "changed"}


def variables_made(conversation: Conversation) -> list[str]:
    """Names the conversation's successful executions bound, in first-seen order (deleted ones dropped)."""
    names: dict[str, None] = {}
    for round in conversation.rounds:
        for post in round.post_list:
            for name, made in _post_variables(post):
                if made:
                    names[name] = None
                else:
                    names.pop(name, None)
    return list(names)


def missing_variables(conversation: Conversation, namespace: Mapping[str, Any]) -> list[str]:
    return [name for name in variables_made(conversation) if name not in namespace]


def _post_variables(post: Post) -> Iterable[tuple[str, bool]]:
    by_type: dict[str, list[Any]] = {}
    for attachment in post.attachment_list:
        by_type.setdefault(attachment.type.value, []).append(attachment)
    recorded = [
        change
        for attachment in by_type.get("execution_result", [])
        if isinstance(attachment.extra, Mapping)
        for change in attachment.extra.get("variables") or []
        if isinstance(change, Mapping) and change.get("name")
    ]
    if recorded:
        return [(str(change["name"]), change.get("kind") in _MADE) for change in recorded]
    status = " ".join(str(a.content) for a in by_type.get("execution_status", [])).strip()
    if status.upper() != "SUCCESS":  # TaskWeaver's SUCCESS | FAILURE | NONE
        return []
    if [str(a.content).strip() for a in by_type.get("reply_type", [])] == ["text"]:
        return []
    code = "\n".join(str(a.content) for a in by_type.get("reply_content", []) if isinstance(a.content, str))
    return [(name, True) for name in assigned_names(code)]


def assigned_names(code: str) -> list[str]:
    """Top-level names a piece of code binds (assignments, imports, defs, for/with targets)."""
    try:
        tree = ast.parse(_without_magics(code))
    except SyntaxError:
        return []
    names: dict[str, None] = {}
    for node in tree.body:
        for target in _targets(node):
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name) and not sub.id.startswith("_"):
                    names[sub.id] = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = None
    return list(names)


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [t for t in node.targets if not isinstance(t, (ast.Attribute, ast.Subscript))]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [] if isinstance(node.target, (ast.Attribute, ast.Subscript)) else [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _without_magics(code: str) -> str:
    # `%matplotlib inline` or `!ls` would make ast.parse fail; they bind nothing anyway.
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())
