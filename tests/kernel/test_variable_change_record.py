"""A variable change as the `execution_result`'s `extra.variables` saves it: only the facts it has,
and records written with every field (older notebooks and YAML) read the same."""

from __future__ import annotations

import numpy as np

from twnb.kernel import VariableChange
from twnb.kernel.namespace.variables import namespace_signatures, variable_delta


def _changes(before: dict[str, object], after: dict[str, object]) -> list[VariableChange]:
    return variable_delta(namespace_signatures(before), namespace_signatures(after))


def test_a_created_name_is_written_without_the_fields_it_has_not():
    (change,) = _changes({}, {"fig": object()})
    assert change.to_dict() == {"name": "fig", "kind": "created", "type": "object"}


def test_a_changed_array_keeps_its_previous_type_and_shape():
    (change,) = _changes({"a": [1, 2]}, {"a": np.zeros((2, 3))})
    assert change.to_dict() == {
        "name": "a",
        "kind": "rebound",
        "type": "ndarray",
        "shape": [2, 3],
        "dtype": "float64",
        "previous_type": "list",
        "previous_shape": [2],
    }


def test_a_scalar_keeps_its_empty_shape():
    (change,) = _changes({}, {"x": np.float64(0.5)})
    assert change.to_dict()["shape"] == []  # a 0-d shape is a fact, not a missing one


def test_a_record_written_with_every_field_reads_as_the_short_one():
    old = {
        "name": "fig",
        "kind": "created",
        "type": "Figure",
        "shape": None,
        "dtype": None,
        "previous_type": None,
        "previous_shape": None,
    }
    short = {"name": "fig", "kind": "created", "type": "Figure"}
    assert (
        VariableChange.from_dict(old)
        == VariableChange.from_dict(short)
        == VariableChange("fig", "created", "Figure")
    )
    assert VariableChange.from_dict(short).to_dict() == short
