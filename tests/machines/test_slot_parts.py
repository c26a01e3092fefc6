"""Parts and overlap of slots (issue 23, ``docs/machines.md``): a stack
slot may be an alias over narrower slots, so that naming the narrow slot
names that part of the wide one, and two wide slots sharing a part overlap.
The oracle's verdicts are pinned in ``test_golden.py`` (the corpus's
``x64-frame`` requests) and its mutants in ``test_mutants.py``; here: the
reference resolver against the search on a small frame, the resolver on the
whole ``x64-frame`` machine, a constant written by parts, the optimum's
search counting those writes, and the small machine keeping the overlap."""

from __future__ import annotations

import collections
import itertools
import json
import random
from pathlib import Path

import pytest

from verified.algorithms import machine_optimum as O, resolve as R
from verified.cases.machines import small_machine
from verified.core import machine as M
from verified.core.semantics import PreconditionError

from .test_resolve import judge_against_the_search, random_move, random_typed_move

FRAME = json.loads((Path(__file__).resolve().parents[2] / "mutants" / "data"
                    / "x64-frame.json").read_text())

#: a frame of 5 units: two GPRs (one unit each, 8-bit units), three
#: one-unit slots and two two-unit slots over them, mq0 = m0:m1 and
#: mq1 = m1:m2 (overlapping in m1); the wide slots take no immediate, their
#: parts do; no register is as wide as a wide slot, so a wide slot-to-slot
#: move must go by halves
SMALL_FRAME = {"name": "small-frame", "unit_bits": 8,
               "classes": {"gpr": {"registers": ["a", "b"]}},
               "stack": [{"names": ["m0", "m1", "m2"]},
                         {"names": ["mq0", "mq1"], "width": 2, "immediate": False}],
               "aliases": {"mq0": ["m0", "m1"], "mq1": ["m1", "m2"]},
               "immediate_to": ["reg", "mem"]}
NARROW, WIDE = ("a", "b", "m0", "m1", "m2"), ("mq0", "mq1")


def small_frame(swap: list[str]) -> M.Machine:
    return M.machine({**SMALL_FRAME, "swap": swap})


def frame_requests(m: M.Machine, max_moves: int):
    """Every move of at most ``max_moves`` moves over the small frame: each
    location unused or given a location of its width or a constant (7 for
    one unit, 258 = pieces 2, 1 for two); destinations overlapping through
    a shared part are bad input and left out."""
    sites = NARROW + WIDE
    options = [[None, {"imm": 7}, *NARROW] if s in NARROW else [None, {"imm": 258}, *WIDE]
               for s in sites]
    for choice in itertools.product(*options):
        moves = [[d, c] for d, c in zip(sites, choice) if c is not None]
        if len(moves) <= max_moves:
            try:
                yield M.MachineMove.make(m, moves)
            except PreconditionError:
                continue


def against_the_search(swap: list[str], max_moves: int) -> collections.Counter:
    """Resolver vs search, both contracts: 0 wrong, a refusal exactly when
    the search proves there is no sequence, never below the optimum."""
    out: collections.Counter = collections.Counter()
    for mm in frame_requests(small_frame(swap), max_moves):
        judge_against_the_search(mm, out)
    return out


#: golden, as ``test_resolve.EXACT_COSTS``: an answer that grows longer or a
#: refusal that appears changes a count
FRAME_COSTS = {
    ("swaps", 2): {"gap 0": 917, "gap 1": 68, "gap 2": 20, "gap 3": 5},
    ("noswap", 2): {"gap 0": 926, "gap 1": 3, "unsolvable": 81},
    ("swaps", 3): {"gap 0": 5365, "gap 1": 716, "gap 2": 360, "gap 3": 119, "gap 4": 54,
                   "gap 5": 10, "gap 8": 2},
}
SWAPS = {"swaps": ["reg-reg", "reg-mem"], "noswap": []}


@pytest.mark.parametrize("swap", ["swaps", "noswap"])
def test_resolver_against_the_search_on_a_small_frame(swap):
    assert dict(against_the_search(SWAPS[swap], 2)) == FRAME_COSTS[(swap, 2)]


@pytest.mark.slow
def test_resolver_against_the_search_on_a_small_frame_three_moves():
    assert dict(against_the_search(SWAPS["swaps"], 3)) == FRAME_COSTS[("swaps", 3)]


def test_a_wide_slot_moved_onto_itself_by_halves():
    """mq1 = m1:m2 <- mq0 = m0:m1 with one free GPR and no wide register:
    the high half is read before the low half's store overwrites it."""
    m = small_frame(SWAPS["swaps"])
    mm = M.MachineMove.make(m, [["mq1", "mq0"]], ["a"])
    ops = R.resolve(mm)
    assert [op.to_json() for op in ops] == [["mov", "a", "m0"], ["swap", "a", "m1"],
                                            ["mov", "m2", "a"]]
    assert M.implements(mm, ops).ok and O.search(mm) == (3, None)


@pytest.mark.parametrize("moves, want", [
    ([["mq0", {"imm": 258}]], [["mov", "m0", {"imm": 2}], ["mov", "m1", {"imm": 1}]]),
    # a negative constant: the high piece is all ones, written as -1
    ([["mq1", {"imm": -2}]], [["mov", "m1", {"imm": -2}], ["mov", "m2", {"imm": -1}]]),
])
def test_a_constant_is_written_by_parts_where_the_wide_slot_takes_none(moves, want):
    """The wide slot takes no immediate, its parts do: the constant's pieces,
    each as a constant of its own (the wire has no piece offsets), and the
    optimum's search counts those writes (it would otherwise prove "no
    sequence" on a request that has one)."""
    m = small_frame([])
    mm = M.MachineMove.make(m, moves)
    ops = R.resolve(mm)
    assert [op.to_json() for op in ops] == want
    # what a client would send back, read from JSON, passes
    assert M.implements(mm, M.read_machine_sequence(m, want)).ok
    assert O.search(mm) == (2, None)


def test_x64_frame_constants_by_parts_and_a_typed_piece():
    m = M.machine(FRAME)
    for moves, want in [
        ([["mq0", {"imm": 7}, "v128"]], [["mov", "m0", {"imm": 7}], ["mov", "m1", {"imm": 0}]]),
        ([["mq1", {"imm": -2}, "f64"]], [["mov", "m1", {"imm": -2}]]),
    ]:
        mm = M.MachineMove.make(m, moves, ["r10", "xmm15"])
        ops = R.resolve(mm)
        assert [op.to_json() for op in ops] == want
        assert M.implements(mm, M.read_machine_sequence(m, want)).ok


@pytest.mark.parametrize("typed", [False, True], ids=["untyped", "typed"])
def test_resolver_random_on_x64_frame(typed):
    """Random moves over the whole frame (parts and overlapping wide slots
    named together), scratch temporaries declared: always solved, right."""
    m = M.machine(FRAME)
    rng = random.Random(f"frame-{typed}")
    both = 0
    for i in range(150):
        mm = (random_typed_move if typed else random_move)(m, rng, rng.randrange(1, 7))
        preserve = "all" if i % 2 else "loops"
        ops = R.resolve(mm, preserve=preserve)
        assert M.implements(mm, ops, preserve).ok, (mm.to_json(), ops)
        names = {x for mv in mm.to_json()["moves"] for x in mv[:2] if isinstance(x, str)}
        both += bool(names & {"m1", "m2"}) and bool(names & {"mq0", "mq1", "mq2"})
    assert both > 20  # a part and a wide slot over it in one request, often


def test_small_machine_keeps_the_overlap():
    """conform's small machine of x64-frame: the first two slots of each
    group and every part a kept wide slot lies over (mq1 brings m2), with
    the aliases."""
    small, temps = small_machine(M.machine(FRAME))
    assert small.slots() == ("m0", "m1", "m2", "mq0", "mq1")
    assert small.aliases == (("mq0", ("m0", "m1")), ("mq1", ("m1", "m2")))
    assert temps == ("r10", "xmm15")
    # the presets' small machines are what they were
    assert small_machine(M.preset("armv7-vfp"))[0].slots() == (
        "m0", "m1", "md0", "md1", "mq0", "mq1")
