"""Markdown rendered to HTML the way nbviewer (nbconvert, mistune) renders a saved output."""

from __future__ import annotations

import pytest


def rendered(markdown: str) -> str:
    filters = pytest.importorskip(
        "nbconvert.filters.markdown_mistune",
        reason="nbconvert renders Markdown as nbviewer does (install the test extra)",
    )
    return filters.markdown2html_mistune(markdown)
