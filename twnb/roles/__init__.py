"""roles layer (see DESIGN.md §1)."""
