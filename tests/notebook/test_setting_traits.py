"""The %config traitlets of TaskWeaverMagics are the settings table's traitlet rows, typed by kind."""

from __future__ import annotations

import pytest
from nb_shell import magics
from traitlets import TraitError

from twnb.config.table import SETTINGS


def test_every_traitlet_row_of_the_table_is_a_config_trait_and_nothing_else(shell):
    traits = magics(shell).class_traits(config=True)
    assert set(traits) == {row.name for row in SETTINGS if row.traitlet}


def test_the_api_key_row_is_no_trait(shell):
    secret_rows = [row.name for row in SETTINGS if row.kind == "secret"]
    assert secret_rows and not set(secret_rows) & set(magics(shell).class_traits())


def test_each_trait_carries_its_rows_help(shell):
    traits = magics(shell).class_traits(config=True)
    for row in SETTINGS:
        if row.traitlet:
            assert traits[row.name].help.startswith(row.help)


def test_a_count_setting_refuses_text_through_config(shell):
    with pytest.raises(TraitError):
        magics(shell).max_posts = "many"


def test_every_trait_starts_unset_so_lower_layers_apply(shell):
    instance = magics(shell)
    assert all(getattr(instance, row.name) is None for row in SETTINGS if row.traitlet)
