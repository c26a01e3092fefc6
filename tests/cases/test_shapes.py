"""verified.cases.shapes: every total parallel move up to renaming, once.

The checks are functions that return a list of problems (empty: pass), so
that the same checks run on the real module and on broken variants derived
from its source (the mutant engine, ``mutants/__init__.py``), where they must
reject.

Reference counts are OEIS data: A001372 (shapes), A000081 (rooted trees),
A002861 (connected shapes), all for n = 0..16.
"""

from __future__ import annotations

import array
import itertools
import random
import sys

import pytest

from verified.cases import shapes as shapes_mod
from verified.cases.shapes import (
    ORDERS,
    canonical,
    canonical_labelling,
    ordered_moves,
    random_relabelling,
    relabel,
    shape_count,
    shapes,
)

import mutants


def _mutant(name: str, scope: str, old: str, new: str):
    """The module verified.cases.shapes with one edit (see mutants/)."""
    return mutants.load(mutants.Mutant(
        name, "verified.cases.shapes", old, new, why=name, family="shapes", scope=scope))

A001372 = [1, 1, 3, 7, 19, 47, 130, 343, 951, 2615, 7318, 20491, 57903,
           163898, 466199, 1328993, 3799624]
A000081 = [0, 1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842, 4766, 12486,
           32973, 87811, 235381]
A002861 = [0, 1, 2, 4, 9, 20, 51, 125, 329, 862, 2311, 6217, 16949, 46350,
           127714, 353272, 981753]


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------


def count_problems(n: int, found: list) -> list[str]:
    if len(found) != A001372[n]:
        return [f"n = {n}: {len(found)} shapes, A001372 says {A001372[n]}"]
    return []


def form_problems(n: int, found: list, canon=canonical) -> list[str]:
    """Each shape a total map on n registers, its own canonical form, and
    no shape twice."""
    problems = []
    seen = set()
    for s in found:
        if len(s) != n or any(not 0 <= x < n for x in s):
            problems.append(f"{s} is not a total map on {n} registers")
        elif canon(s) != s:
            problems.append(f"{s} is not canonical: canonical gives {canon(s)}")
        if s in seen:
            problems.append(f"{s} appears twice")
        seen.add(s)
    return problems


def isomorphism_problems(n: int, found: list) -> list[str]:
    """Brute force, independent of ``canonical``: no renaming of one shape
    is another shape."""
    owner: dict[tuple, int] = {}
    problems = []
    for i, s in enumerate(found):
        for perm in itertools.permutations(range(n)):
            j = owner.setdefault(relabel(s, perm), i)
            if j != i:
                problems.append(f"{found[j]} and {s} are renamings of each other")
                break
    return problems


def coverage_problems(n: int, found: list, canon=canonical) -> list[str]:
    """Canonicalising all n^n maps lands exactly on the shapes."""
    reached = {canon(m) for m in itertools.product(range(n), repeat=n)}
    problems = [f"{s} is no map's canonical form" for s in set(found) - reached]
    problems += [f"canonical form {s} is not a shape" for s in reached - set(found)]
    return problems


def relabelling_problems(maps: list, rng: random.Random, canon=canonical) -> list[str]:
    """Random renamings of each map have the same canonical form, and that
    form is a fixed point."""
    problems = []
    for m in maps:
        c = canon(m)
        if canon(c) != c:
            problems.append(f"canonical({m}) = {c} is not a fixed point")
        for _ in range(5):
            perm = random_relabelling(len(m), rng)
            if canon(relabel(m, perm)) != c:
                problems.append(f"{m} renamed by {perm} canonicalises differently")
    return problems


def random_maps(n: int, rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Uniform maps (mostly one big component), permutations (many cycles,
    equal components) and maps with many self-moves (many small trees)."""
    maps = []
    for _ in range(count):
        maps.append(tuple(rng.randrange(n) for _ in range(n)))
        perm = list(range(n))
        rng.shuffle(perm)
        maps.append(tuple(perm))
        maps.append(tuple(d if rng.random() < 0.5 else rng.randrange(n) for d in range(n)))
    return maps


# ---------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------


def test_shape_count_is_a001372_up_to_16():
    assert [shape_count(n) for n in range(17)] == A001372


@pytest.mark.parametrize("n", range(15))
def test_enumeration_counts(n):
    assert count_problems(n, list(shapes(n))) == []


@pytest.mark.slow
@pytest.mark.parametrize("n", [15, 16])
def test_enumeration_counts_large(n):
    # distinctness by packed integers: a set of 3.8 million tuples is ~1 GB
    codes = array.array("Q")
    for s in shapes(n):
        assert len(s) == n
        v = 0
        for x in s:
            v = v * n + x
        codes.append(v)
    assert count_problems(n, codes) == []
    ordered = sorted(codes)
    assert all(a < b for a, b in zip(ordered, ordered[1:]))


@pytest.mark.parametrize("k", range(1, 17))
def test_tree_and_component_counts(k):
    e = shapes_mod._Enumerator()
    assert len(e.trees(k)) == A000081[k]
    if k <= 12:  # a million components at 16; the shape counts cover them
        assert sum(1 for _ in e.cycles(k)) == A002861[k]


# ---------------------------------------------------------------------------
# Exactly once, canonical
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(12))
def test_every_shape_is_canonical_and_distinct(n):
    assert form_problems(n, list(shapes(n))) == []


@pytest.mark.slow
@pytest.mark.parametrize("n", [12, 13])
def test_every_shape_is_canonical_and_distinct_large(n):
    assert form_problems(n, list(shapes(n))) == []


def test_shapes_at_16_sampled_are_canonical():
    # both kinds: a first component larger than n/2 (streamed) and shapes
    # whose components are all at most n/2 (listed), which come last
    head = list(itertools.islice(shapes(16), 3000))
    tail = list(itertools.islice(shapes_mod._Enumerator().forests(16, 0, 8, sys.maxsize), 3000))
    assert form_problems(16, head) == []
    assert form_problems(16, tail) == []


@pytest.mark.parametrize("n", range(7))
def test_no_two_shapes_are_isomorphic_brute_force(n):
    assert isomorphism_problems(n, list(shapes(n))) == []


@pytest.mark.parametrize("n", range(1, 7))
def test_every_map_canonicalises_onto_a_shape(n):
    assert coverage_problems(n, list(shapes(n))) == []


def test_random_relabellings_at_16_agree():
    rng = random.Random(2024)
    maps = random_maps(16, rng, 40)
    maps += list(itertools.islice(shapes(16), 0, 200000, 2000))
    assert relabelling_problems(maps, rng) == []


def test_random_relabellings_of_every_shape_at_9():
    rng = random.Random(9)
    for s in shapes(9):
        assert canonical(relabel(s, random_relabelling(9, rng))) == s


def test_canonical_labelling_is_the_renaming_canonical_applies():
    rng = random.Random(5)
    for m in random_maps(10, rng, 20):
        perm = canonical_labelling(m)
        assert sorted(perm) == list(range(10))
        assert relabel(m, perm) == canonical(m)


# ---------------------------------------------------------------------------
# Golden values: the labelling and the order are an interface
# ---------------------------------------------------------------------------


def test_shapes_3_golden():
    assert list(shapes(3)) == [
        (1, 2, 0),  # 3-cycle
        (1, 0, 1),  # 2-cycle, node 2 hangs off node 1
        (0, 0, 0),  # self-move at 0, two leaves on it
        (0, 0, 1),  # self-move at 0, a path of two
        (1, 0, 2),  # 2-cycle + self-move
        (0, 0, 2),  # (self-move + leaf) + self-move
        (0, 1, 2),  # three self-moves
    ]
    assert list(shapes(0)) == [()]
    assert list(shapes(1)) == [(0,)]


def test_canonical_golden():
    # 0 <- 2, 1 <- 2, 2 <- 0: a 2-cycle {0, 2} with 1 hanging off 2
    assert canonical((2, 2, 0)) == (1, 0, 1)
    assert canonical_labelling((2, 2, 0)) == (0, 2, 1)
    # two equal components: either order gives the same layout
    assert canonical((3, 2, 1, 0)) == (1, 0, 3, 2)
    # 4-cycle with one leaf: the leaf's root comes last in the rotation
    assert canonical((1, 2, 3, 0, 2)) == (1, 2, 3, 0, 3)


def test_enumeration_is_deterministic():
    assert list(shapes(8)) == list(shapes_mod._Enumerator().shapes(8))


# ---------------------------------------------------------------------------
# Renaming and move lists
# ---------------------------------------------------------------------------


def test_relabel():
    # register 0 becomes 2, 1 becomes 0, 2 becomes 1
    assert relabel((0, 0, 1), (2, 0, 1)) == (2, 0, 2)
    assert relabel((0, 0, 1), (0, 1, 2)) == (0, 0, 1)


def test_random_relabelling_is_seeded():
    assert random_relabelling(16, random.Random(1)) == random_relabelling(16, random.Random(1))
    assert sorted(random_relabelling(16, random.Random(1))) == list(range(16))
    assert random_relabelling(5, random.Random(3)) == (0, 2, 3, 4, 1)


def test_ordered_moves():
    srcs = (1, 2, 0, 3)
    assert ordered_moves(srcs, "sorted") == [(0, 1), (1, 2), (2, 0), (3, 3)]
    assert ordered_moves(srcs, "reversed") == [(3, 3), (2, 0), (1, 2), (0, 1)]
    shuffled = ordered_moves(srcs, "shuffled", random.Random(7))
    assert shuffled == [(3, 3), (1, 2), (0, 1), (2, 0)]
    assert shuffled == ordered_moves(srcs, "shuffled", random.Random(7))
    assert ORDERS == ("sorted", "reversed", "shuffled")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ordered_moves((0,), "random"),
         "unknown move order 'random'; use one of sorted, reversed, shuffled"),
        (lambda: ordered_moves((0,), "shuffled"),
         'order "shuffled" needs rng=random.Random(seed) so that the move '
         "list is reproducible"),
        (lambda: canonical((0, 2)),
         "srcs[1] = 2 is not a register 0..1: a total parallel move on 2 "
         "registers gives every register d the register srcs[d] it receives from"),
        (lambda: relabel((0, 1), (0, 0)),
         "a renaming of 2 registers must list each of 0..1 exactly once "
         "(perm[i] is register i's new name), not (0, 0)"),
        (lambda: shapes(-1),
         "the register count must be an integer >= 0, not -1"),
        (lambda: shape_count(True),
         "the register count must be an integer >= 0, not True"),
    ],
)
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# ---------------------------------------------------------------------------
# Mutants: each check above rejects a broken variant of the real source
# ---------------------------------------------------------------------------

E = "_Enumerator"

#: name -> (scope, old snippet, new snippet, the checks that must reject it)
ENUMERATOR_MUTANTS = {
    # the necklace rule dropped: non-least rotations are kept too
    "every_rotation": (E, "lo = max(period_rank, 0)", "lo = 0",
                       {"count", "form", "coverage", "isomorphism"}),
    # periodic sequences kept whatever their period
    "no_period_check": (E, "if t % p == 0:", "if True:",
                        {"count", "form", "coverage", "isomorphism"}),
    # the tree generator loses one tree (the 4-node star): what is left is
    # still canonical and pairwise distinct, so only counts and coverage see it
    "skip_a_tree": (E, "bodies.reverse()",
                    "bodies.reverse()\n        bodies = bodies[1:] if k == 4 else bodies",
                    {"count", "coverage"}),
    # components as sequences, not multisets
    "components_in_any_order": (E, "self.forests(rest, offset + s, s, i)",
                                "self.forests(rest, offset + s, s, _UNBOUNDED)",
                                {"count", "form", "coverage", "isomorphism"}),
}


@pytest.mark.parametrize("name", ENUMERATOR_MUTANTS)
def test_enumerator_mutant_is_rejected(name):
    scope, old, new, expected = ENUMERATOR_MUTANTS[name]
    broken = _mutant(name, scope, old, new)._Enumerator()
    found = {n: list(broken.shapes(n)) for n in range(1, 7)}
    checks = {
        "count": count_problems,
        "form": form_problems,
        "coverage": coverage_problems,
        "isomorphism": isomorphism_problems,
    }
    rejected_by = {
        name for name, check in checks.items()
        if any(check(n, shapes_n) for n, shapes_n in found.items())
    }
    assert rejected_by == expected


#: name -> (old snippet, new snippet, the checks that must reject it)
CANONICAL_MUTANTS = {
    # the cycle read from wherever the walk entered it: shapes stay fixed
    # points (their first root is the least rotation's) but renamings differ
    "no_least_rotation": ("k = _least_rotation(keys)", "k = 0",
                          {"coverage", "relabelling"}),
    # children in increasing order: a consistent labelling, but not the one
    # shapes yields, so only the fixed-point and coverage checks see it
    "children_ascending": ("key=code.__getitem__, reverse=True", "key=code.__getitem__",
                           {"form", "coverage"}),
    # components smallest first: likewise
    "components_ascending": ("components.sort(key=lambda comp: comp[0], reverse=True)",
                             "components.sort(key=lambda comp: comp[0])",
                             {"form", "coverage"}),
}


@pytest.mark.parametrize("name", CANONICAL_MUTANTS)
def test_canonical_mutant_is_rejected(name):
    old, new, expected = CANONICAL_MUTANTS[name]
    broken = _mutant(name, "canonical_labelling", old, new).canonical
    rng = random.Random(11)
    checks = {
        "form": form_problems(6, list(shapes(6)), canon=broken),
        "coverage": coverage_problems(5, list(shapes(5)), canon=broken),
        "relabelling": relabelling_problems(random_maps(8, rng, 30), rng, canon=broken),
    }
    assert {c for c, problems in checks.items() if problems} == expected


def test_shape_count_mutant_is_rejected():
    broken = _mutant("shape_count_without_phi", "shape_count", "Fraction(_phi(k), k)",
                     "Fraction(1, k)").shape_count
    assert [broken(n) for n in range(17)] != A001372
