"""The verification corpus: every attempt a model makes is refused or accepted as its entry says."""

from __future__ import annotations

import pytest

from tests.roles.verification_corpus import CORPUS
from twnb.roles.verification import verify_code


def test_the_corpus_is_large_and_names_each_case_once() -> None:
    whys = [why for _code, _refuse, why in CORPUS]
    assert len(CORPUS) >= 60 and len(set(whys)) == len(whys)
    assert sum(refuse for _code, refuse, _why in CORPUS) >= 40


@pytest.mark.parametrize(
    ("code", "must_refuse"), [(code, refuse) for code, refuse, _why in CORPUS], ids=[w for *_, w in CORPUS]
)
def test_verification_judges_the_attempt_as_the_corpus_says(code: str, must_refuse: bool) -> None:
    refusals = verify_code(code)
    assert refusals is not None
    if must_refuse:
        assert refusals, f"passed verification:\n{code}"
        assert all(r.line >= 1 and r.message for r in refusals)
    else:
        assert refusals == [], "\n".join(str(r) for r in refusals)
