"""A lazy front door (twnb/base/front_door.py): each public name is written once, under
`if TYPE_CHECKING:`, and its module loads when the name is first used."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FRONT_DOOR = """
from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from shop.heavy import Basket as Basket
    from shop.light import price as price
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)


def open_shop() -> str:
    return "open"
"""


def run_in_fresh_python(tmp_path: Path, code: str) -> str:
    shop = tmp_path / "shop"
    shop.mkdir(exist_ok=True)
    (shop / "__init__.py").write_text(FRONT_DOOR)
    (shop / "heavy.py").write_text("class Basket:\n    pass\n")
    (shop / "light.py").write_text("def price() -> int:\n    return 3\n")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_importing_the_package_loads_none_of_its_modules(tmp_path):
    assert (
        run_in_fresh_python(
            tmp_path, "import sys, shop; print(sorted(m for m in sys.modules if 'shop.' in m))"
        )
        == "[]"
    )


def test_a_name_loads_its_own_module_and_no_other(tmp_path):
    code = "import sys, shop; print(shop.price(), sorted(m for m in sys.modules if 'shop.' in m))"
    assert run_in_fresh_python(tmp_path, code) == "3 ['shop.light']"


def test_all_is_the_lazy_names_and_what_the_front_door_defines(tmp_path):
    assert (
        run_in_fresh_python(tmp_path, "import shop; print(shop.__all__)")
        == "['Basket', 'open_shop', 'price']"
    )


def test_a_star_import_brings_every_public_name(tmp_path):
    assert run_in_fresh_python(tmp_path, "from shop import *; print(Basket.__name__, price())") == "Basket 3"


def test_dir_lists_the_lazy_names_before_they_are_loaded(tmp_path):
    assert (
        run_in_fresh_python(tmp_path, "import shop; print({'Basket', 'price'} <= set(dir(shop)))") == "True"
    )


def test_a_name_the_front_door_does_not_have_is_an_attribute_error(tmp_path):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_in_fresh_python(tmp_path, "import shop; shop.Cart")
    assert "AttributeError: module 'shop' has no attribute 'Cart'" in failed.value.stderr
