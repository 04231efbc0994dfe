"""Rules learned anywhere hold everywhere: every evasion found in the tests of one consumer of the
analysis of code (verification's corpus, risk grades, undo's estimate), run against every consumer
it applies to.

An evasion is a way of writing an action so that its spelling hides it: an import alias, a module
bound to a name, a chain through another module, a from-import under another name, a name bound in
a branch, a loop or comprehension variable, a function's parameter, a walrus, the body of `%time`
(or of `%timeit` after its options), a module passed around as a value, a star import, a builtin
under another name.
Each is written here around one action per consumer: deleting `sales.csv` with `shutil.rmtree` (which
verification refuses and risky step mode pauses on), and changing the user's DataFrame `df` or list
`rows` in place (which undo's estimate must copy first and risky step mode pauses on). Plugin-only
mode refuses all of them (it allows plugin calls and nothing else).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from twnb.kernel import estimate_in_place
from twnb.roles.plugin_only import check_plugin_only
from twnb.roles.risk_grades import RiskPlace, grade_code
from twnb.roles.verification import verify_code

# -- deleting a file through a module (`shutil.rmtree`), written to hide the module or the function --
MODULE_EVASIONS: list[tuple[str, str]] = [
    ("import shutil\nshutil.rmtree('sales.csv')", "spelled out"),
    ("import shutil as s\ns.rmtree('sales.csv')", "import alias"),
    ("import shutil\nx = shutil\nx.rmtree('sales.csv')", "module bound to another name"),
    ("import shutil\nx = shutil\ny = x\ny.rmtree('sales.csv')", "module bound through two names"),
    ("from shutil import rmtree as gone\ngone('sales.csv')", "from-import under another name"),
    ("import shutil\ngone = shutil.rmtree\ngone('sales.csv')", "function bound to a name"),
    ("import tempfile\ntempfile._shutil.rmtree('sales.csv')", "module reached through another module"),
    ("from tempfile import _shutil as s\ns.rmtree('sales.csv')", "from-import of a module attribute"),
    (
        "import shutil\nif flag:\n    x = shutil\nelse:\n    x = None\nx.rmtree('sales.csv')",
        "bound in a branch",
    ),
    ("import shutil\ndef f():\n    shutil.rmtree('sales.csv')\nf()", "inside the code's own function"),
    ("import shutil\nfor _ in range(1):\n    shutil.rmtree('sales.csv')", "inside a loop"),
    ("import shutil\n[shutil.rmtree('sales.csv') for _ in range(1)]", "inside a comprehension"),
    ("import shutil\nif (x := shutil):\n    x.rmtree('sales.csv')", "bound by a walrus"),
    ("import shutil\n%time shutil.rmtree('sales.csv')", "in a %time body"),
    ("import shutil as s\n%time s.rmtree('sales.csv')", "an alias used in a %time body"),
    ("import shutil\n%timeit -n1 -r1 shutil.rmtree('sales.csv')", "in a %timeit body after its options"),
]

# -- the same deletion where the module is passed around, as verification's corpus hides `os.system`:
# no reading of the code can say what is called; verification refuses, risky mode pauses as unfollowed
UNFOLLOWABLE_EVASIONS: list[tuple[str, str]] = [
    ("import shutil\n[shutil][0].rmtree('sales.csv')", "module inside a list"),
    ("import shutil\ndef f(m):\n    return m.rmtree\nf(shutil)('sales.csv')", "module passed to a function"),
    ("import shutil\nclass A:\n    m = shutil\nA.m.rmtree('sales.csv')", "module as a class attribute"),
    ("import shutil\nfor m in [shutil]:\n    m.rmtree('sales.csv')", "module as a loop variable"),
    ("import shutil\ng = lambda: shutil\ng().rmtree('sales.csv')", "module returned by a lambda"),
    ("import shutil\ngetattr(shutil, 'rmtree')('sales.csv')", "getattr with a constant string"),
    ("import operator, shutil\noperator.methodcaller('rmtree', 'sales.csv')(shutil)", "methodcaller"),
    ("import shutil\nshutil.__dict__['rmtree']('sales.csv')", "module __dict__ lookup"),
    ("from shutil import *\nrmtree('sales.csv')", "star import"),
]

# -- overwriting sales.csv with the builtin `open` under another name (verification allows `open`)
OPEN_EVASIONS: list[tuple[str, str]] = [
    ("open('sales.csv', 'w')", "spelled out"),
    ("o = open\no('sales.csv', 'w')", "bound to another name"),
    ("from builtins import open as o\no('sales.csv', 'w')", "imported from builtins under another name"),
]

# -- changing the user's objects in place, through other names --------------------------------------
OBJECT_EVASIONS: list[tuple[str, str, str]] = [
    ("df.drop(columns='a', inplace=True)", "df", "spelled out"),
    ("alias = df\nalias.drop(columns='a', inplace=True)", "df", "bound to another name"),
    ("a = df\nb = a\nb.loc[0, 'a'] = 9", "df", "bound through two names"),
    ("if flag:\n    x = df\nelse:\n    x = other\nx['b'] = 1", "df", "bound in a branch"),
    ("if flag:\n    df = other\ndf['b'] = 1", "df", "rebound where it may not run"),
    ("from random import shuffle as mix\nmix(rows)", "rows", "a from-import under another name"),
    ("import random\nmix = random.shuffle\nmix(rows)", "rows", "a function bound to a name"),
    ("s = setattr\ns(df, 'b', 1)", "df", "a builtin bound to another name"),
    ("e = enumerate\nfor i, row in e(rows):\n    row.append(0)", "rows", "a builtin's result looped over"),
    ("for row in rows:\n    row.append(0)", "rows", "a loop variable"),
    ("[row.append(0) for row in rows]", "rows", "a comprehension variable"),
    ("def clean(d):\n    d.dropna(inplace=True)\nclean(df)", "df", "a function's parameter"),
    ("def f():\n    df['b'] = 1\nf()", "df", "inside the code's own function"),
    ("if (x := df) is not None:\n    x['b'] = 1", "df", "bound by a walrus"),
    ("%time df.drop(columns='a', inplace=True)", "df", "in a %time body"),
    ("alias = df\n%time alias['b'] = 1", "df", "an alias used in a %time body"),
    ("%timeit -n1 -r1 df.drop(columns='a', inplace=True)", "df", "in a %timeit body after its options"),
]


@pytest.fixture
def place(tmp_path: Path) -> RiskPlace:
    (tmp_path / "sales.csv").write_text("a\n1\n")
    values = {"df": pd.DataFrame({"a": [1.0, 2.0]}), "rows": [[1], [2]], "other": pd.DataFrame()}
    return RiskPlace(tmp_path, None, values)


@pytest.mark.parametrize("code", [c for c, _ in MODULE_EVASIONS], ids=[w for _, w in MODULE_EVASIONS])
def test_verification_refuses_the_deletion_however_it_is_written(code: str) -> None:
    refusals = verify_code(code)
    assert refusals, "verification let it through"


@pytest.mark.parametrize("code", [c for c, _ in MODULE_EVASIONS], ids=[w for _, w in MODULE_EVASIONS])
def test_risky_mode_pauses_on_the_deletion_however_it_is_written(code: str, place: RiskPlace) -> None:
    found = [(f.key, f.subject) for f in grade_code(code, place)]
    assert ("delete", "sales.csv") in found


@pytest.mark.parametrize(
    "code", [c for c, _ in UNFOLLOWABLE_EVASIONS], ids=[w for _, w in UNFOLLOWABLE_EVASIONS]
)
def test_verification_refuses_a_module_passed_around(code: str) -> None:
    assert verify_code(code)


@pytest.mark.parametrize(
    "code", [c for c, _ in UNFOLLOWABLE_EVASIONS], ids=[w for _, w in UNFOLLOWABLE_EVASIONS]
)
def test_risky_mode_pauses_on_a_module_passed_around(code: str, place: RiskPlace) -> None:
    assert "unfollowed" in [f.key for f in grade_code(code, place)]


@pytest.mark.parametrize("code", [c for c, _ in OPEN_EVASIONS], ids=[w for _, w in OPEN_EVASIONS])
def test_risky_mode_pauses_on_the_overwrite_however_open_is_named(code: str, place: RiskPlace) -> None:
    assert ("overwrite", "sales.csv") in [(f.key, f.subject) for f in grade_code(code, place)]


@pytest.mark.parametrize(
    ("code", "name"), [(c, n) for c, n, _ in OBJECT_EVASIONS], ids=[w for _, _, w in OBJECT_EVASIONS]
)
def test_undo_copies_the_object_changed_in_place_however_it_is_reached(
    code: str, name: str, place: RiskPlace
) -> None:
    assert place.values is not None
    targets = estimate_in_place(code, place.values, budget_mb=100).targets
    assert name in [t.name for t in targets]


@pytest.mark.parametrize(
    ("code", "name"), [(c, n) for c, n, _ in OBJECT_EVASIONS], ids=[w for _, _, w in OBJECT_EVASIONS]
)
def test_risky_mode_pauses_on_the_change_in_place_however_it_is_reached(
    code: str, name: str, place: RiskPlace
) -> None:
    assert ("in_place", name) in [(f.key, f.subject) for f in grade_code(code, place)]


EVERY_EVASION = [c for c, _ in [*MODULE_EVASIONS, *UNFOLLOWABLE_EVASIONS]] + [
    c for c, _, _ in OBJECT_EVASIONS
]


@pytest.mark.parametrize("code", EVERY_EVASION)
def test_plugin_only_mode_refuses_every_evasion(code: str) -> None:
    assert check_plugin_only(code, ["plugin"]) != []
