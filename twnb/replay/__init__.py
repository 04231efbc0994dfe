"""replay layer: conversation <-> notebook, re-execution in a fresh kernel (docs/architecture.md)."""
