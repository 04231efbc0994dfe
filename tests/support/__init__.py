"""Helpers shared by more than one test folder: Round builders, scripted replies, notebook runs and the
whole-Round fixtures. Importable as `support` from every test (pytest's `pythonpath` in pyproject.toml).
"""
