"""The module names installed distributions declare as requirements (twnb/base/declared_imports.py), read
from real `*.dist-info` and `*.egg-info` folders as pip and setuptools write them."""

from __future__ import annotations

import os
from pathlib import Path

from twnb.base import DeclaredImports, importers_said
from twnb.base.declared_imports import declared_name, import_name

METADATA = """\
Metadata-Version: 2.1
Name: FakeFrames
Version: 2.2.3
Requires-Dist: numpy>=1.23
Requires-Dist: python-dateutil>=2.8.2
Requires-Dist: numexpr>=2.8.4; extra == "performance"
Requires-Dist: scikit-learn; extra == "ml" and python_version >= "3.10"
Requires-Dist: mock; extra == "test"
Requires-Dist: sphinx; extra == "docs"
Requires-Dist: fakeframes[performance]; extra == "all"
Provides-Extra: performance

Requires-Dist: a_name_in_the_description
"""


def _dist_info(site: Path, folder: str, metadata: str) -> None:
    (site / folder).mkdir(parents=True)
    (site / folder / "METADATA").write_text(metadata, encoding="utf-8")


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    _dist_info(site, "fakeframes-2.2.3.dist-info", METADATA)
    (site / "fakearrays.egg-info").mkdir()
    (site / "fakearrays.egg-info" / "requires.txt").write_text(
        "fakeframes\n\n[accel]\nbottleneck\n\n[:python_version < '3.12']\ntomli\n\n[testing]\npytest\n",
        encoding="utf-8",
    )
    return site


def test_requirements_extras_included_are_read_by_their_import_names(tmp_path):
    declared = DeclaredImports().read([str(_site(tmp_path))])
    assert declared["numexpr"] == ("FakeFrames",)
    assert declared["dateutil"] == ("FakeFrames",) and declared["sklearn"] == ("FakeFrames",)
    assert declared["bottleneck"] == ("fakearrays",) and declared["tomli"] == ("fakearrays",)
    assert declared["fakeframes"] == ("fakearrays",)


def test_development_extras_and_a_distribution_naming_itself_are_left_out(tmp_path):
    declared = DeclaredImports().read([str(_site(tmp_path))])
    for name in ("mock", "sphinx", "pytest"):
        assert name not in declared, name
    assert "FakeFrames" not in declared.get("fakeframes", ())


def test_only_the_metadata_headers_are_read(tmp_path):
    assert "a_name_in_the_description" not in DeclaredImports().read([str(_site(tmp_path))])


def test_a_folder_is_read_again_once_its_contents_change(tmp_path):
    site = _site(tmp_path)
    declared = DeclaredImports()
    assert "tables" not in declared.read([str(site)])
    _dist_info(site, "fakehdf-1.0.dist-info", "Name: fakehdf\nRequires-Dist: tables; extra == 'hdf5'\n")
    os.utime(site, ns=(1, os.stat(site).st_mtime_ns + 1_000_000))  # a coarse clock: a later time for sure
    assert declared.read([str(site)])["tables"] == ("fakehdf",)


def test_import_names_differing_from_the_distributions_come_from_one_table():
    assert import_name("PyYAML") == "yaml" and import_name("beautifulsoup4") == "bs4"
    assert import_name("Jinja2") == "jinja2" and import_name("zope.interface") == "zope_interface"
    assert declared_name('numexpr>=2.8.4; extra == "performance"') == "numexpr"
    assert declared_name('mock; extra == "test-extra"') == ""


def test_who_imports_a_name_is_said_by_name():
    assert importers_said(["pandas"]) == "pandas imports if it finds it"
    assert (
        importers_said(["xarray", "pandas"]) == "installed libraries import if they find it (pandas, xarray)"
    )
