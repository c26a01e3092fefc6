"""The symbolic whole-algorithm proofs (proofs/xchg.py section 3,
proofs/parmove.py section 3) re-encode the algorithms in Z3.  Here the
real Python algorithms run on random inputs, step by step, next to the
re-encoding: the Python twin of each invariant holds at every step, the
Z3 invariant holds on the same concrete states, and the Z3 step relation
maps each state to the very next state of the Python run."""

from __future__ import annotations

import random

import z3

from proofs import COUNTEREXAMPLE, PROVED
from proofs import xchg as px
from verified.algorithms import xchg
from verified.core.semantics import ParallelMove


def _random_srcs(rng, n):
    kind = rng.random()
    if kind < 0.3:  # a permutation: cycles only
        srcs = list(range(n))
        rng.shuffle(srcs)
        return srcs
    return [rng.randrange(n) for _ in range(n)]


def test_xchg_trace_is_the_real_algorithm_and_agrees_with_z3():
    rng = random.Random(5)
    steps = 0
    for _ in range(50):
        n = rng.randint(1, 7)
        srcs = _random_srcs(rng, n)
        sv = [z3.BitVecVal(x, px._iw(n)) for x in srcs]
        trace = list(px.xchg_trace(srcs))
        # the instrumented run emits exactly what the real algorithm emits
        assert trace[-1][1]["ops"] == xchg.xchg(ParallelMove.from_map(srcs)), srcs
        for k, (label, st) in enumerate(trace):
            assert px.invariant_py(srcs, st) == [], (srcs, label, st)
            S = px.to_state(srcs, st)
            assert z3.is_true(z3.simplify(px.invariant(S, sv, n))), (srcs, label, st)
            if k:
                prev = trace[k - 1][1]
                S2 = px.z3_successor(srcs, prev, label)
                assert S2 is not None, (srcs, label, prev)
                assert px.same_state(srcs, S2, st), (srcs, label, prev, st)
                steps += 1
        last = trace[-1][1]
        assert last["mode"] == "between" and last["i"] == n
        assert z3.is_true(z3.simplify(px.done_goal(px.to_state(srcs, last), sv, n)))
    assert steps > 300


def test_xchg_python_invariant_can_fail():
    srcs = [1, 2, 0]
    _, st = next(iter(px.xchg_trace(srcs)))
    st = dict(st, cur=[1, 1, 2])            # pending r0 does not hold its own value
    assert "K3" in px.invariant_py(srcs, st)
    trace = list(px.xchg_trace(srcs))
    walk = [st for label, st in trace if st["mode"] == "walk" and st["alias"]]
    st = dict(walk[0], alias={})           # forget the alias update
    assert px.invariant_py(srcs, st)


def test_xchg_symbolic_small_n_and_mutants():
    assert px.xchg_symbolic(4)[0] == PROVED
    assert px.xchg_symbolic(3, mutant="no_alias_update")[0] == COUNTEREXAMPLE
    assert px.xchg_symbolic(3, mutant="release_early")[0] == COUNTEREXAMPLE


# -- windmill -------------------------------------------------------------------

from proofs import parmove as pp  # noqa: E402
from verified.algorithms import windmill as parmove  # noqa: E402


import pytest  # noqa: E402


@pytest.mark.parametrize("name", ["windmill", "mincopy"])
def test_windmill_trace_is_the_real_algorithm_and_agrees_with_z3(name):
    reuse = name == "mincopy"
    rng = random.Random(7)
    steps = 0
    for _ in range(60):
        n = rng.randint(1, 7)
        srcs = _random_srcs(rng, n)
        trace = list(pp.windmill_trace(srcs, reuse_blade=reuse))
        real = getattr(parmove, name)(ParallelMove.from_map(srcs, temps=[n]))
        assert (trace[-1][1]["ops"] if trace else []) == real
        w = max(1, n.bit_length())
        sv = [z3.BitVecVal(s, w) for s in srcs]
        prev = {"mode": "kahn", "P": {d for d in range(n) if srcs[d] != d}, "A": set(),
                "c0": 0, "x": 0, "b": n, "cur": list(range(n + 1))}
        for label, st in [("init", prev)] + trace:
            assert pp.windmill_invariant_py(srcs, st) == [], (srcs, label, st)
            P = [z3.BoolVal(y in st["P"]) for y in range(n)]
            cur = [z3.BitVecVal(c % (1 << w), w) for c in st["cur"]]
            if st["mode"] == "kahn":
                zinv = pp.wm_inv_kahn(P, cur, sv, n)
            else:
                A = [z3.BoolVal(y in st["A"]) for y in range(n)]
                b = st["b"] if st["b"] == n else z3.BitVecVal(st["b"], w)
                zinv = pp.wm_inv_axle(P, A, cur, sv, n, st["c0"], st["x"], b)
            assert z3.is_true(z3.simplify(zinv)), (srcs, label, st)
            if label != "init":
                assert pp.windmill_z3_agrees(srcs, prev, label, st, reuse), (
                    srcs, label, prev, st)
                steps += 1
            prev = st
        assert prev["mode"] == "kahn" and not prev["P"]
    assert steps > 150
    if reuse:  # some axles did start from a blade copy
        assert any(lbl[3] != len(srcs_) for srcs_, lbl in _starts(rng))


def _starts(rng):
    for _ in range(40):
        n = rng.randint(2, 6)
        srcs = _random_srcs(rng, n)
        for lbl, _ in pp.windmill_trace(srcs, reuse_blade=True):
            if isinstance(lbl, tuple) and lbl[0] == "start":
                yield srcs, lbl


def test_windmill_python_invariant_can_fail():
    srcs = [1, 2, 0]
    trace = list(pp.windmill_trace(srcs))
    label, st = trace[0]
    assert label[0] == "start"
    assert "A1" in pp.windmill_invariant_py(srcs, dict(st, cur=[0, 1, 2, 1]))


def test_windmill_symbolic_small_n_and_mutants():
    assert pp.windmill_symbolic(4)[0] == PROVED
    assert pp.windmill_symbolic(3, mutant="no_save")[0] == COUNTEREXAMPLE
    assert pp.windmill_symbolic(3, mutant="restore_from_axle")[0] == COUNTEREXAMPLE
    mc = dict(algorithm="mincopy")
    assert pp.windmill_symbolic(4, **mc)[0] == PROVED
    assert pp.windmill_symbolic(3, mutant="copy_is_source", **mc)[0] == COUNTEREXAMPLE
    assert pp.windmill_symbolic(3, mutant="restore_from_axle", **mc)[0] == COUNTEREXAMPLE
