"""memory layer (see DESIGN.md §1)."""
