"""roles layer: Planner, CodeInterpreter, translator, verification, prompts (docs/architecture.md).
`__all__` is the layer's public API."""

from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.planner import Planner
from twnb.roles.translator import PostTranslator

__all__ = ["CodeInterpreter", "Planner", "PostTranslator"]
