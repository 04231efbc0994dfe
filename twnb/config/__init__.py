"""Configuration shared by every layer above the data model: the settings table and the secret rules.

Imports only the standard library, pyyaml and `twnb.memory`, so the kernel, LLM and session layers can
all read it (docs/architecture.md).
"""
