"""Golden messages of the shapes module for inputs given as lists (JSON
gives lists): a renaming is read as a tuple, and named as one."""

from __future__ import annotations

import pytest

from verified.cases.shapes import relabel


def test_a_renaming_given_as_a_list_is_read_and_named_as_a_tuple():
    assert relabel((1, 0, 0), [2, 0, 1]) == relabel((1, 0, 0), (2, 0, 1)) == (2, 2, 0)
    with pytest.raises(ValueError) as e:
        relabel((0, 1), [0, 0])
    assert str(e.value) == ("a renaming of 2 registers must list each of 0..1 exactly once "
                            "(perm[i] is register i's new name), not (0, 0)")
