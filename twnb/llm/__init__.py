"""llm layer (see DESIGN.md §1)."""
