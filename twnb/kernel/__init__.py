"""kernel layer (see DESIGN.md §1)."""
