"""roles layer: Planner, CodeInterpreter, translator, verification, prompts (docs/architecture.md)."""
