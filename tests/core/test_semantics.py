"""The semantics and the oracle: preconditions, illegal sequences, the
contracts, and the optimum's closed forms against exhaustive search."""

from __future__ import annotations

import itertools
from collections import deque

import pytest

from verified import cases
from verified.core.graph import analyse
from verified.algorithms.optimum import optimum
from verified.core.oracle import implements, judge
from verified.core.semantics import (
    Load,
    Mov,
    ParallelMove,
    Perm,
    PreconditionError,
    Store,
    Swap,
    execute,
    location,
    operation,
    sequence,
)


# -- preconditions -----------------------------------------------------------


def test_repeated_destination_names_both_sources():
    with pytest.raises(PreconditionError) as e:
        ParallelMove.make([(1, 0), (2, 1), (1, 2)])
    msg = str(e.value)
    assert "r1 <- r0" in msg and "r1 <- r2" in msg and "distinct" in msg


def test_location_outside_register_file():
    with pytest.raises(PreconditionError, match=r"r4 .*outside the declared register file r0..r3"):
        ParallelMove.make([(4, 0)], registers=4)


def test_temporary_inside_a_move_is_rejected():
    with pytest.raises(PreconditionError, match=r"temporary t appears in the move r1 <- t"):
        ParallelMove.make([(1, "t")], temps=["t"])
    with pytest.raises(PreconditionError, match="inside the register file"):
        ParallelMove.make([(1, 0)], registers=4, temps=[2])


def test_preconditions_are_value_errors():
    assert issubclass(PreconditionError, ValueError)


@pytest.mark.parametrize("bad", [-1, True, 1.5, None, [], "", 2**40])
def test_bad_locations(bad):
    with pytest.raises(PreconditionError):
        location(bad)


def test_register_names_normalise():
    assert location("r3") == 3 and location("rax") == "rax" and location("r03") == "r03"
    pm = ParallelMove.make([("r1", 0)])
    assert pm.moves == ((1, 0),)


def test_perm_must_be_a_permutation_of_at_most_five():
    assert operation(["perm", [[0, 1], [1, 0]]]) == Perm(((0, 1), (1, 0)))
    with pytest.raises(PreconditionError, match="not a permutation"):
        operation(["perm", [[0, 1], [1, 1]]])
    with pytest.raises(PreconditionError, match="at most 5"):
        operation(["perm", [[i, (i + 1) % 6] for i in range(6)]])


@pytest.mark.parametrize(
    "bad",
    [["mov", 1], ["jmp", 1, 2], [], "mov", ["perm", 3], ["swap", 0, -2], [1, 2, 3]],
)
def test_bad_operations(bad):
    with pytest.raises(PreconditionError):
        sequence([bad])


# -- the interpreter ---------------------------------------------------------


def test_execute():
    state = execute([Mov(1, 0), Swap(0, 2), Perm(((3, 4), (4, 5), (5, 3)))])
    assert state == {1: 0, 0: 2, 2: 0, 3: 4, 4: 5, 5: 3}


# -- implements: every kind of wrong answer ---------------------------------


def test_implements_ok_and_counterexample():
    pm = ParallelMove.make([(1, 0), (0, 1)])
    assert implements(pm, [Swap(0, 1)], "swap").ok
    v = implements(pm, [Mov(1, 0), Mov(0, 1)], "temp")
    assert not v.ok and (v.location, v.expected, v.got) == (0, 1, 0)


def test_counterexample_in_process():
    """The README's wrong example (its transcript runs in
    tests/cli/test_readme.py), judged here by ``implements`` and the
    optimum: the same answer, field for field."""
    pm = ParallelMove.make([(1, 0), (2, 1)])
    verdict = implements(pm, sequence([["mov", 1, 0], ["mov", 2, 1]]), "temp")
    assert {**verdict.to_json(), "optimal": optimum(pm, "temp").length} == {
        "ok": False, "length": 2, "optimal": 2,
        "reason": "destination r2 must hold the original value of r1 but holds that of r0",
        "counterexample": {"location": 2, "expected": "r1", "got": "r0"}}


def test_swap_not_in_temp_model_and_perm_not_in_swap_model():
    pm = ParallelMove.make([(1, 0), (0, 1)])
    v = implements(pm, [Swap(0, 1)], "temp")
    assert not v.ok and v.op_index == 0 and "not available in the temp model" in v.reason
    v = implements(pm, [Perm(((0, 1), (1, 0)))], "swap")
    assert not v.ok and "not available in the swap model" in v.reason
    assert implements(pm, [Perm(((0, 1), (1, 0)))], "permi").ok


def test_write_to_undeclared_temporary():
    pm = ParallelMove.make([(1, 0), (0, 1)])
    ops = [Mov("t", 0), Mov(0, 1), Mov(1, "t")]
    v = implements(pm, ops, "temp")
    assert not v.ok and "writes t" in v.reason
    pm_t = ParallelMove.make([(1, 0), (0, 1)], temps=["t"])
    assert implements(pm_t, ops, "temp").ok


def test_clobbering_a_non_destination():
    pm = ParallelMove.make([(1, 0)], registers=3)
    v = implements(pm, [Mov(1, 0), Mov(2, 0)], "temp")
    assert not v.ok and v.location == 2 and "clobbered" in v.reason
    # under "loops", r2 is dead: the same sequence is fine
    assert implements(pm, [Mov(1, 0), Mov(2, 0)], "temp", "loops").ok


def test_loops_contract_keeps_self_moves():
    pm = ParallelMove.make([(1, 0), (0, 0)], registers=3)
    v = implements(pm, [Mov(1, 0), Mov(0, 2)], "temp", "loops")
    assert not v.ok and v.location == 0
    assert implements(pm, [Mov(1, 0), Mov(2, 0)], "temp", "loops").ok


def test_reading_a_temporary_before_writing_it_is_garbage():
    pm = ParallelMove.make([(1, 0)], temps=["t"])
    v = implements(pm, [Mov(1, "t")], "temp")
    assert not v.ok and v.got == "t"


def test_restoring_in_between_is_allowed():
    pm = ParallelMove.make([(1, 0)], registers=3)
    assert implements(pm, [Swap(0, 2), Swap(0, 2), Mov(1, 0)], "swap").ok


# -- the transfer graph ------------------------------------------------------


def test_windmills_of_the_seed_example():
    # (B, D, C, A) := (A, A, B, C): one windmill, axle A -> B -> C -> A, blade A -> D
    g = analyse(ParallelMove.make([("B", "A"), ("D", "A"), ("C", "B"), ("A", "C")]))
    (w,) = g.windmills
    assert set(w.cycle) == {"A", "B", "C"} and w.blades == (("D", "A"),)
    assert (g.non_loop_moves, g.cycles, g.bare_cycles) == (4, 1, 0)


def test_counts_on_all_maps_agree_with_a_brute_force_cycle_count():
    """cycles = components with as many edges as locations; brute force
    follows every location's source chain."""
    for n in range(1, 6):
        for want in cases.register_maps(n):
            g = analyse(ParallelMove.from_map(want))
            cyc = set()
            for start in range(n):
                seen, x = [], start
                while x not in seen:
                    seen.append(x)
                    x = want[x]
                loop = frozenset(seen[seen.index(x):])
                if len(loop) > 1:
                    cyc.add(loop)
            assert g.cycles == len(cyc)
            assert g.non_loop_moves == sum(d != s for d, s in enumerate(want))


# -- the optimum against breadth-first search -------------------------------


def bfs_optimum(pm: ParallelMove, model: str, preserve: str) -> int | None:
    """Shortest sequence of ``model`` operations over the register file and
    the temporaries, by breadth-first search over machine states (stepped by
    the one interpreter, judged by oracle.judge).  None: no sequence."""
    locs = pm.locations() + list(pm.temps)
    ops = [Mov(a, b) for a in locs for b in locs if a != b]
    if model == "swap":
        ops += [Swap(a, b) for a, b in itertools.combinations(locs, 2)]
    start = tuple(locs)
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        state, depth = frontier.popleft()
        as_dict = dict(zip(locs, state))
        if judge(pm, as_dict, preserve).ok:
            return depth
        for op in ops:
            new = execute([op], as_dict)
            key = tuple(new[loc] for loc in locs)
            if key not in seen:
                seen.add(key)
                frontier.append((key, depth + 1))
    return None


@pytest.mark.parametrize("preserve", ["all", "loops"])
@pytest.mark.parametrize("model,temps", [("swap", ()), ("temp", ("t",)), ("temp", ())])
def test_optimum_closed_forms_match_bfs(model, temps, preserve):
    """optimum() == BFS on every register map with n <= 3 (plus a few on 4):
    the closed forms (swap: non-loop - cycles; temp: non-loop + bare cycles,
    or no sequence) are what every algorithm's bound and `check` rely on."""
    checked = 0
    maps = [w for n in range(1, 4) for w in cases.register_maps(n)]
    maps += [(1, 0, 3, 2), (1, 2, 3, 0), (1, 0, 0, 2), (0, 0, 3, 2)]
    for want in maps:
        pm = ParallelMove.from_map(want, temps=temps)
        assert optimum(pm, model, preserve).length == bfs_optimum(pm, model, preserve), (
            want, model, temps, preserve)
        checked += 1
    assert checked == 1 + 4 + 27 + 4


def test_temp_model_without_scratch_has_no_sequence():
    pm = ParallelMove.make([(1, 0), (0, 1)])
    best = optimum(pm, "temp")
    assert best.length is None and "declare a temporary" in best.note
    # a destination outside the cycle is scratch until it is written
    pm = ParallelMove.make([(1, 0), (0, 1), (3, 2)])
    assert optimum(pm, "temp").length == 4


# -- the oracle's fast paths agree with its slow, wording paths ----------------

_LOCS = [0, 1, 2, 3, "t", "m0", "u", 9]


def _every_op():
    for a, b in itertools.product(_LOCS, repeat=2):
        yield from (Mov(a, b), Swap(a, b), Load(a, b), Store(a, b))
    yield Perm(((0, 1), (1, 0)))
    yield Perm(((2, "t"), ("t", 2)))


@pytest.mark.parametrize("registers, temps", [(3, ()), (3, ("t",)), (None, ("m0",)), (0, ())])
def test_the_declared_check_agrees_with_the_verdict_it_stands_for(registers, temps):
    """``_all_declared`` (no verdict built) says no exactly when
    ``_first_undeclared`` finds a problem, on every one- and two-operation
    sequence over registers, temporaries and undeclared names."""
    from verified.core import oracle
    from verified.core.semantics import MODELS
    pm = ParallelMove.make([(0, 1), (1, 0)] if registers != 0 else [], registers, temps)
    ops = list(_every_op())
    for model, allowed in MODELS.items():
        for seq in [[a] for a in ops] + [[a, b] for a in ops[::7] for b in ops[::5]]:
            fast = oracle._all_declared(pm, seq, allowed)
            if fast:
                with pytest.raises(AssertionError, match="disagree"):
                    oracle._first_undeclared(pm, seq, model, allowed)
            else:
                assert not oracle._first_undeclared(pm, seq, model, allowed).ok


def test_judge_sorts_only_to_name_the_first_clobbered_location():
    """``judge``'s quick scan (``_clobbered``) and its sorted scan agree: on
    every final state over four registers and a temporary, the verdict is
    ok exactly when no written non-destination of the file lost its value,
    and a failure names the lowest such location."""
    pm = ParallelMove.make([(0, 1)], registers=4, temps=["t"])
    for values in itertools.product([None, 0, 1, 2, 3, "t"], repeat=4):
        state = {loc: v for loc, v in zip([3, "t", 2, 1], values) if v is not None}
        state[0] = 1
        wrong = sorted(loc for loc, v in state.items()
                       if loc in (1, 2, 3) and v != loc)
        v = judge(pm, state, "all", 1)
        assert v.ok == (not wrong) and (v.ok or v.location == wrong[0])


def test_a_trusted_move_is_the_move_make_builds():
    for n in range(5):
        for want in cases.register_maps(n):
            for temps in ((), ("t",)):
                made = ParallelMove.from_map(want, temps=temps)
                trusted = ParallelMove.trusted(tuple(enumerate(want)), n, temps)
                assert trusted == made and trusted.source_of == made.source_of


@pytest.mark.parametrize("registers, temps", [(3, ()), (3, ("t",)), (3, (9,)), (4, ("t", "u")),
                                              (None, ("m0",)), (0, ())])
def test_judging_a_sequence_run_once_is_implements(registers, temps):
    """``implements_effect`` (conform's path: the sequence run once, judged
    against many moves) gives ``implements``'s verdict, field for field, on
    every one- and two-operation sequence over registers, temporaries and
    undeclared names, in every model and contract, against moves whose
    answers are right, wrong and clobbering."""
    from verified.core import oracle
    from verified.core.semantics import MODELS
    moves = [[(0, 1), (1, 0)], [(1, 0)], [(2, 0), (0, 2)]] if registers != 0 else [[]]
    pms = [ParallelMove.make(m, registers, temps) for m in moves]
    ops = list(_every_op())
    seqs = [[]] + [[a] for a in ops] + [[a, b] for a in ops[::11] for b in ops[::7]]
    judged = 0
    for seq in seqs:
        eff = oracle.effect(seq)
        for pm in pms:
            for model in MODELS:
                for preserve in ("all", "loops"):
                    want = implements(pm, seq, model, preserve)
                    assert oracle.implements_effect(pm, eff, model, preserve) == want
                    judged += want.ok
    assert judged >= 5  # right answers among them, not only refusals


def test_of_read_pairs_is_make_where_make_accepts_and_none_where_it_refuses():
    """``ParallelMove.of_read_pairs`` (``verified check``'s plain lines)
    builds exactly ``make``'s move from pairs already read, and refuses
    (None) exactly what ``make`` refuses: a destination twice, a location
    outside the declared file, an empty file."""
    import random as _random
    from verified.core.semantics import ParallelMove as PM, PreconditionError as PE, location
    rng = _random.Random(20)
    seen = {True: 0, False: 0}
    for _ in range(4000):
        n = rng.choice([None, 0, 1, 2, 3, 5, 8])
        top = (n or 3) + 1
        pairs = tuple((rng.choice([rng.randrange(top), "t", "r2"]),
                       rng.choice([rng.randrange(top), "t", "m0"]))
                      for _ in range(rng.randrange(top + 1)))
        try:
            want = PM.make(pairs, n)
        except PE:
            want = None
        got = PM.of_read_pairs(tuple((location(d), location(s)) for d, s in pairs), n)
        seen[want is None] += 1
        if want is None:
            assert got is None, (pairs, n)
        else:
            assert got == want and got.source_of == want.source_of, (pairs, n)
            assert got.moves == want.moves and type(got.moves) is tuple
    assert min(seen.values()) > 500  # both sides of the line are tried
