"""The Python a magic runs as text, read once for every judge of code (twnb.analysis.magic_bodies)."""

from __future__ import annotations

import ast
import dataclasses

from IPython.core.inputtransformer2 import TransformerManager

from twnb.analysis import MagicBody, magic_body
from twnb.roles.verification import verify_code
from twnb.roles.verification_policy import DEFAULT_ALLOWED_LINE_MAGICS, VerificationConfig


def bodies(code: str) -> list[MagicBody]:
    tree = ast.parse(TransformerManager().transform_cell(code))
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    return [body for call in calls if (body := magic_body(call)) is not None]


def test_a_line_magic_body_is_on_the_line_of_the_call() -> None:
    assert bodies("x = 1\n%time y = x") == [MagicBody("time", "y = x", 1)]


def test_a_timeit_body_is_read_after_its_options() -> None:
    assert [b.text for b in bodies("%timeit -n1 -r 3 -q total = sum(rows)")] == ["total = sum(rows)"]


def test_a_cell_magic_body_starts_on_the_line_after_the_call() -> None:
    assert bodies("%%capture out\nprint(1)\n") == [MagicBody("capture", "print(1)\n", 1)]


def test_other_magics_and_computed_bodies_have_none() -> None:
    assert bodies("%matplotlib inline\nget_ipython().run_line_magic('time', code)") == []


def test_verification_checks_the_body_of_an_allowed_prun() -> None:
    allowed = DEFAULT_ALLOWED_LINE_MAGICS | {"prun"}
    config = dataclasses.replace(VerificationConfig(), allowed_line_magics=allowed)
    refusals = verify_code("%prun eval('1')", config)
    assert refusals is not None and [r.subject for r in refusals] == ["eval"]
