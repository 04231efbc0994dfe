"""replay layer (see DESIGN.md §1)."""
