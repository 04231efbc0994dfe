"""A plugin spec (TaskWeaver's plugin-YAML schema) made from a Python function: the notebook's own
functions (`@twnb.plugin`, `%taskweaver plugins add NAME`).

- description: the docstring's first paragraph (else "The notebook's function NAME.");
- parameters: the signature's, in order, each with its type hint (as written: `pd.DataFrame`,
  `list[str]`, `int | None`), required when it has no default, and its description from the
  docstring's argument section (Google `Args:`, NumPy `Parameters`, or reST `:param x:`);
- returns: the return type hint, described by the docstring's `Returns:` section.

`*args` and `**kwargs` are listed as such. Nothing is evaluated: annotations are read as the
function keeps them (a string under `from __future__ import annotations`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from twnb.memory import PluginEntry

__all__ = ["entry_from_function", "type_text"]

_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?)\s*:?\s*$"
)
_RST_PARAM = re.compile(r"^\s*:param\s+(?:[\w\[\], .|]+\s+)?(\w+)\s*:\s*(.*)$")
_RST_RETURN = re.compile(r"^\s*:returns?\s*:\s*(.*)$")
_GOOGLE_ARG = re.compile(r"^\s*\**(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_ARG = re.compile(r"^\s*\**(\w+)\s*(?::\s*(.*))?$")


def type_text(annotation: Any) -> str:
    """A type hint as a stub shows it: `int`, `DataFrame`, `list[str]`, `Any` when there is none."""
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return "Any"
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__name__
    return re.sub(r"\b(?:typing|builtins|collections\.abc)\.", "", str(annotation))


def entry_from_function(
    name: str,
    function: Callable[..., Any],
    *,
    description: str | None = None,
    required: bool = False,
    plugin_only: bool = False,
) -> PluginEntry:
    """The spec of `function` as the plugin `name` (ValueError when its signature cannot be read)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the signature of {name} cannot be read ({error})") from None
    doc = inspect.getdoc(function) or ""
    summary, arguments, doc_types, returns = _read_docstring(doc)
    parameters = []
    for parameter in signature.parameters.values():
        shown = parameter.name
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            shown = f"*{parameter.name}"
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            shown = f"**{parameter.name}"
        has_default = parameter.default is not inspect.Parameter.empty
        is_variadic = parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        parameters.append(
            {
                "name": shown,
                "type": type_text(parameter.annotation)
                if parameter.annotation is not inspect.Parameter.empty
                else doc_types.get(parameter.name, "Any"),
                "required": not has_default and not is_variadic,
                "description": arguments.get(parameter.name, ""),
            }
        )
    returned = []
    if signature.return_annotation is not inspect.Signature.empty or returns:
        returned.append(
            {"name": "result", "type": type_text(signature.return_annotation), "description": returns}
        )
    text = description if description is not None else summary
    return PluginEntry(
        name=name,
        description=text or f"The notebook's function {name}.",
        parameters=parameters,
        returns=returned,
        required=required,
        plugin_only=plugin_only,
    )


def _read_docstring(doc: str) -> tuple[str, dict[str, str], dict[str, str], str]:
    """(the first paragraph, argument name -> description, argument name -> type the docstring gives
    (NumPy style), the returns' description)."""
    lines = doc.splitlines()
    summary_lines: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line) or _RST_PARAM.match(line) or _RST_RETURN.match(line):
            break
        summary_lines.append(line.strip())
    arguments: dict[str, str] = {}
    types: dict[str, str] = {}
    returns: list[str] = []
    section = ""
    heading_indent = 0
    current: str | None = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if rst := _RST_PARAM.match(line):
            arguments[rst.group(1)] = rst.group(2).strip()
            current, section = rst.group(1), "rst"
            continue
        if rst_return := _RST_RETURN.match(line):
            returns.append(rst_return.group(1).strip())
            current, section = None, "returns"
            continue
        heading = _SECTION.match(line)
        if heading:
            word = heading.group(1).lower()
            section = (
                "args"
                if word.startswith(("arg", "param"))
                else "returns"
                if word.startswith("return")
                else ""
            )
            heading_indent, current = indent, None
            continue
        if not line.strip() or set(line.strip()) == {"-"}:
            continue
        if section == "args":
            google = _GOOGLE_ARG.match(line)
            numpy = _NUMPY_ARG.match(line)
            if indent == heading_indent and numpy:  # NumPy: `name : type`, its description below
                current = numpy.group(1)
                arguments.setdefault(current, "")
                if numpy.group(2):
                    types[current] = numpy.group(2).strip()
            elif (google and indent > heading_indent and current is None) or (
                google and current is not None and indent <= _indent_of(lines, current)
            ):
                current = google.group(1)
                arguments[current] = google.group(3).strip()
                if google.group(2):
                    types[current] = google.group(2).strip()
            elif current is not None:
                arguments[current] = f"{arguments[current]} {line.strip()}".strip()
        elif section == "returns":
            returns.append(line.strip())
        elif section == "rst" and current is not None:
            arguments[current] = f"{arguments[current]} {line.strip()}".strip()
    return " ".join(summary_lines), arguments, types, " ".join(returns).strip()


def _indent_of(lines: list[str], name: str) -> int:
    """The indent of the line that introduced argument `name` in a Google-style section."""
    for line in lines:
        match = _GOOGLE_ARG.match(line)
        if match and match.group(1) == name:
            return len(line) - len(line.lstrip())
    return 0
