"""Which module files would shadow an installed module (twnb/kernel/guard/shadowed_modules.py), without a
kernel: judged by where an import finds each name now, in the order an ipykernel and a script started in
the working folder look (the working folder first), never by a list of names.

Each test builds its own "installed" folder on `sys.path` (monkeypatched for the test only) holding a
module of a name no real package has, and a notebook folder as the working folder.
"""

from __future__ import annotations

import importlib.machinery
import sys
from pathlib import Path

import pytest

from twnb.kernel.guard.shadowed_modules import ModuleShadows

INSTALLED = "twnb_shadow_probe"


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """`site`: an installed folder at the end of sys.path holding INSTALLED; `nb`: the working folder
    (on sys.path as '' after the standard library, as in an ipykernel)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{INSTALLED}.py").write_text("VALUE = 1\n", encoding="utf-8")
    notebook = tmp_path / "nb"
    notebook.mkdir()
    monkeypatch.chdir(notebook)
    monkeypatch.setattr(sys, "path", [*sys.path, "", str(site)])
    return {"site": site, "nb": notebook, "tmp": tmp_path}


def _shadow(folder: Path, name: str, source: str = "") -> str:
    return ModuleShadows().shadow(str(folder.resolve()), name, source)


@pytest.mark.parametrize(
    "name",
    [f"{INSTALLED}.py", f"{INSTALLED}.pyc", INSTALLED + importlib.machinery.EXTENSION_SUFFIXES[0]],
    ids=["source", "sourceless", "extension"],
)
def test_a_module_named_as_an_installed_one_shadows_it_from_the_working_folder(places, name):
    said = _shadow(places["nb"], name)
    assert f"`{INSTALLED}`" in said and str(places["site"]) in said


def test_names_that_import_nothing_today_are_free(places):
    for name in ("helpers.py", f"{INSTALLED}.csv", f"{INSTALLED}.py.bak", "my-notes.py"):
        assert _shadow(places["nb"], name) == "", name


def test_a_package_shadows_when_its_init_is_written(places):
    package = places["nb"] / INSTALLED
    package.mkdir()
    assert _shadow(package, "__init__.py")
    assert _shadow(package, "core.py") == ""  # a namespace portion: the installed module still wins


def test_a_folder_moved_or_linked_under_an_installed_name_is_a_package(places):
    folder = places["nb"] / "work"
    folder.mkdir()
    assert _shadow(places["nb"], INSTALLED, source=str(folder))
    draft = places["nb"] / "draft.txt"
    draft.write_text("x", encoding="utf-8")
    assert _shadow(places["nb"], INSTALLED, source=str(draft)) == ""  # a data file without a suffix


def test_a_module_the_folder_already_provides_may_be_written_again(places):
    (places["nb"] / f"{INSTALLED}.py").write_text("VALUE = 2\n", encoding="utf-8")
    assert _shadow(places["nb"], f"{INSTALLED}.py") == ""


def test_a_folder_on_sys_path_shadows_only_what_later_folders_provide(places, monkeypatch):
    early, late = places["tmp"] / "early", places["tmp"] / "late"
    early.mkdir()
    late.mkdir()
    monkeypatch.setattr(sys, "path", [str(early), *sys.path, str(late)])
    assert _shadow(early, f"{INSTALLED}.py")
    assert _shadow(late, f"{INSTALLED}.py") == ""


def test_the_standard_library_is_shadowed_from_the_working_folder_only(places, monkeypatch):
    """A script started in the notebook's folder (`python script.py`, `-m`, `-c`) finds its `json.py`
    before the standard library's; an ipykernel's later folders do not."""
    assert _shadow(places["nb"], "json.py")
    late = places["tmp"] / "late"
    late.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(late)])
    assert _shadow(late, "json.py") == ""
    assert _shadow(places["nb"], "sys.py") == ""  # built in: found before any folder


def test_a_regular_package_shadows_a_namespace_package_wherever_it_is(places):
    (places["site"] / "twnb_shadow_space").mkdir()  # no __init__: a namespace portion
    package = places["nb"] / "twnb_shadow_space"
    package.mkdir()
    assert "namespace package" in _shadow(package, "__init__.py")


def test_a_change_of_sys_path_is_seen_at_the_next_write(places, monkeypatch):
    shadows = ModuleShadows()
    notebook = str(places["nb"].resolve())
    assert shadows.shadow(notebook, "twnb_shadow_later.py") == ""
    more = places["tmp"] / "more"
    more.mkdir()
    (more / "twnb_shadow_later.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(sys, "path", [*sys.path, str(more)])
    assert shadows.shadow(notebook, "twnb_shadow_later.py")


def test_the_folder_the_kernel_started_in_counts_after_the_code_moves_away(places, monkeypatch):
    shadows = ModuleShadows(started_in=[places["nb"]])
    elsewhere = places["tmp"] / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    shadows.stale()
    assert shadows.shadow(str(places["nb"].resolve()), f"{INSTALLED}.py")


# -- names an installed library imports if it finds it ---------------------------------------------------

OPTIONAL = "twnb_optional_probe"


@pytest.fixture
def declared(places):
    """The installed folder also holds a distribution declaring OPTIONAL as an extra's requirement (as
    pandas declares numexpr), and another only for its tests; no folder provides either module."""
    info = places["site"] / "fakeframes-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f'Name: fakeframes\nRequires-Dist: {OPTIONAL}>=2; extra == "performance"\n'
        'Requires-Dist: twnb_test_only_probe; extra == "test"\n',
        encoding="utf-8",
    )
    return places


@pytest.mark.parametrize(
    "name",
    [f"{OPTIONAL}.py", f"{OPTIONAL}.pyc", OPTIONAL + importlib.machinery.EXTENSION_SUFFIXES[0]],
    ids=["source", "sourceless", "extension"],
)
def test_a_module_an_installed_library_imports_if_it_finds_it_is_judged(declared, name):
    assert _shadow(declared["nb"], name) == f"`{OPTIONAL}`, which fakeframes imports if it finds it"


def test_a_package_or_folder_moved_under_such_a_name_is_judged(declared):
    package = declared["nb"] / OPTIONAL
    package.mkdir()
    assert "fakeframes" in _shadow(package, "__init__.py")
    work = declared["nb"] / "work"
    work.mkdir()
    assert "fakeframes" in _shadow(declared["nb"], OPTIONAL, source=str(work))


def test_such_a_name_is_judged_in_any_folder_an_import_looks_in(declared, monkeypatch):
    """Nothing provides it: a folder after site-packages is the first to."""
    late = declared["tmp"] / "late"
    late.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(late)])
    assert _shadow(late, f"{OPTIONAL}.py")
    assert _shadow(declared["tmp"], f"{OPTIONAL}.py") == ""  # no import looks there


def test_a_requirement_only_of_a_development_extra_is_free(declared):
    assert _shadow(declared["nb"], "twnb_test_only_probe.py") == ""
    assert _shadow(declared["nb"], "helpers.py") == ""


def test_a_plain_folder_under_such_a_name_is_free(declared):
    """It runs no code (pandas fails on a namespace package it takes for bottleneck, a nuisance), and
    `tables/` is a common output folder's name."""
    package = declared["nb"] / OPTIONAL
    package.mkdir()
    assert _shadow(package, "notes.py") == ""  # a namespace portion's module: imported as OPTIONAL.notes
