"""notebook layer (see DESIGN.md §1)."""
