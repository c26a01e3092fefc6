"""``sorted_locations`` sorts registers alone or names alone by their own
order and falls back to its key when both are present (the slots of every
algorithm call are sorted this way): the same list, element for element
and type for type, as the key sort on every short mix of both kinds."""

from __future__ import annotations

import itertools

from verified.core.semantics import _sort_key, sorted_locations

POOL = [0, 1, 2, 3, 7, 10, "t", "a", "rax", "m0", "b", "r"]


def test_registers_first_then_names_alphabetically():
    assert sorted_locations([3, "t", 1, "a", 1, 10, "rax"]) == [1, 3, 10, "a", "rax", "t"]
    assert sorted_locations([10, 2, 2]) == [2, 10]
    assert sorted_locations(["t", "m0", "rax"]) == ["m0", "rax", "t"]
    assert sorted_locations([]) == []


def test_the_same_as_the_key_sort_on_every_short_mix():
    checked = 0
    for k in range(5):
        for locs in itertools.product(POOL, repeat=k):
            got = sorted_locations(locs)
            want = sorted(set(locs), key=_sort_key)
            assert got == want and list(map(type, got)) == list(map(type, want)), locs
            checked += 1
    assert checked == sum(len(POOL) ** k for k in range(5)) == 22_621
