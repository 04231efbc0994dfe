"""Where the roles' prompt texts and few-shot examples come from: YAML files in the package (plus
example folders the user adds).

Prompt files hold plain text with `{name}` slots. Slots are filled by `fill`, which replaces only the
names it is given, so the JSON schemas inside the prompts keep their braces.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.memory import Conversation, load_yaml_file

PROMPTS_DIR = Path(__file__).parent / "prompts"
EXAMPLES_DIR = Path(__file__).parent / "examples"


def fill(template: str, **values: str) -> str:
    """`template` with each `{name}` of `values` replaced (other braces untouched)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def parse_schema(text: str, source: str) -> dict[str, Any]:
    """A role's response JSON schema (shown to the model as text) as data, for `response_format`."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: response_json_schema is not valid JSON: {error}") from None
    if not isinstance(schema, dict):
        raise ValueError(f"{source}: response_json_schema must be a JSON object")
    return schema


@dataclass(frozen=True)
class PromptTemplates:
    """One role's prompt file: `text(key)` raises a clear error for a missing key."""

    texts: Mapping[str, Any]
    source: str

    def text(self, key: str) -> str:
        value = self.texts.get(key)
        if not isinstance(value, str):
            raise ValueError(f"{self.source}: the prompt text '{key}' is missing (or not text)")
        return value.rstrip("\n")

    def fill(self, key: str, **values: str) -> str:
        return fill(self.text(key), **values)


def load_prompts(role_file: str, path: str | os.PathLike[str] | None = None) -> PromptTemplates:
    """The package's `prompts/<role_file>.yaml`, or the file at `path` (a customised copy)."""
    source = Path(path) if path is not None else PROMPTS_DIR / f"{role_file}.yaml"
    data = load_yaml_file(source)
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a prompt file is a mapping of names to texts")
    return PromptTemplates(texts=dict(data), source=str(source))


def load_examples(folders: Iterable[str | os.PathLike[str]], role_set: set[str]) -> list[Conversation]:
    """Enabled example conversations (`*.yaml`, file-name order, folders in the order given) whose
    roles all belong to `role_set` (as TaskWeaver filters them). A missing folder is an error that
    names it; an unreadable example names its file."""
    examples: list[Conversation] = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"example folder {folder} does not exist")
        for path in sorted(folder.glob("*.yaml")):
            conversation = Conversation.from_yaml(path)
            if conversation.enabled and set(conversation.all_roles()) <= role_set:
                examples.append(conversation)
    return examples
