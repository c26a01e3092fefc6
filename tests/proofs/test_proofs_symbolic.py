"""The symbolic whole-algorithm proofs (proofs/xchg.py section 3,
proofs/parmove.py section 3) model the algorithms' steps in Z3.  Here the
real Python algorithms run (exhaustively on small n, on random inputs
beyond) through their ``trace=`` hooks: the Python twin of each invariant
holds at every step, the Z3 invariant holds on the same concrete states,
and the Z3 step relation maps each state to exactly the next state of the
real run (states compared, not only the emitted operations).  Mutants of
the algorithms' steps and of the hooks' labels are rejected (a list of
problems, not an exception).  Leroy's refinement is
tests/proofs/test_leroy_refinement.py."""

from __future__ import annotations

import random

import pytest
import z3

import mutants
from mutants.core import BY_NAME as CORE
from mutants.traces import TRACE_WINDMILL, TRACE_XCHG
from proofs import COUNTEREXAMPLE, PROVED
from proofs import xchg as px
from verified.algorithms import xchg
from verified.cases.moves import register_maps
from verified.core.semantics import ParallelMove


def _random_srcs(rng, n):
    kind = rng.random()
    if kind < 0.3:  # a permutation: cycles only
        srcs = list(range(n))
        rng.shuffle(srcs)
        return srcs
    return [rng.randrange(n) for _ in range(n)]


def _xchg_run(srcs, fn=xchg.xchg):
    steps: list = []
    out = fn(ParallelMove.from_map(srcs), trace=steps)
    return out, steps


def test_xchg_real_run_agrees_with_z3_at_every_step():
    rng = random.Random(5)
    inputs = [list(m) for n in range(1, 4) for m in register_maps(n)]
    inputs += [_random_srcs(rng, rng.randint(4, 7)) for _ in range(50)]
    steps, memo = 0, {}
    for srcs in inputs:
        out, trace = _xchg_run(srcs)
        assert px.agrees(srcs, trace, out, memo) == [], srcs
        steps += len(trace)
    assert steps > 600


def test_xchg_trace_changes_nothing():
    for n in range(1, 5):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs)
            assert xchg.xchg(pm, trace=[]) == xchg.xchg(pm)


def test_xchg_python_invariant_can_fail():
    srcs = [1, 2, 0]
    out, trace = _xchg_run(srcs)
    st = px.snapshot(srcs, trace[0], out, 0)
    st = dict(st, cur=[1, 1, 2])            # pending r0 does not hold its own value
    assert "K3" in px.invariant_py(srcs, st)
    walk = [px.snapshot(srcs, t, out, 0) for t in trace if t.label == "walk" and t.alias]
    st = dict(walk[0], alias={})           # forget the alias update
    assert px.invariant_py(srcs, st)


def _xchg_rejected(fn):
    for n in range(1, 5):
        for srcs in register_maps(n):
            out, trace = _xchg_run(list(srcs), fn)
            problems = px.agrees(list(srcs), trace, out)
            assert isinstance(problems, list)
            if problems:
                return srcs, problems
    return None


@pytest.mark.parametrize("name", ["xchg_no_alias_update", "xchg_alias_off_by_one",
                                  "xchg_swap_on_tree_edge", "xchg_move_in_cycle",
                                  "xchg_release_early"])
def test_xchg_agreement_rejects_wrong_steps(name):
    assert _xchg_rejected(mutants.run(CORE[name])), name


@pytest.mark.parametrize("mutant", TRACE_XCHG, ids=lambda m: m.name)
def test_xchg_agreement_rejects_wrong_trace_labels(mutant):
    fn = mutants.run(mutant)
    for srcs in register_maps(3):  # the output is unchanged: only the trace lies
        assert fn(ParallelMove.from_map(srcs)) == xchg.xchg(ParallelMove.from_map(srcs))
    assert _xchg_rejected(fn), mutant.name


def test_xchg_symbolic_small_n_and_mutants():
    assert px.xchg_symbolic(4)[0] == PROVED
    assert px.xchg_symbolic(3, mutant="no_alias_update")[0] == COUNTEREXAMPLE
    assert px.xchg_symbolic(3, mutant="release_early")[0] == COUNTEREXAMPLE


# -- windmill -------------------------------------------------------------------

from proofs import parmove as px_wm  # noqa: E402
from verified.algorithms import windmill as parmove  # noqa: E402


def _wm_run(srcs, fn):
    steps: list = []
    out = fn(ParallelMove.from_map(srcs, temps=[len(srcs)]), trace=steps)
    return out, steps


@pytest.mark.parametrize("name", ["windmill", "mincopy"])
def test_windmill_real_run_agrees_with_z3_at_every_step(name):
    reuse = name == "mincopy"
    fn = getattr(parmove, name)
    rng = random.Random(7)
    inputs = [list(m) for n in range(1, 5) for m in register_maps(n)]
    inputs += [_random_srcs(rng, rng.randint(5, 7)) for _ in range(60)]
    steps = blade_saves = 0
    memo: dict = {}
    for srcs in inputs:
        out, trace = _wm_run(srcs, fn)
        assert px_wm.windmill_agrees(srcs, trace, out, reuse, memo) == [], srcs
        steps += len(trace)
        blade_saves += sum(1 for t in trace if t.label == "start" and t.saved != len(srcs))
    assert steps > 1000
    assert (blade_saves > 0) == reuse  # mincopy's blade-copy path is exercised


def test_windmill_trace_changes_nothing():
    for n in range(1, 5):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs, temps=[n])
            for fn in (parmove.windmill, parmove.mincopy):
                assert fn(pm, trace=[]) == fn(pm)


def test_windmill_python_invariant_can_fail():
    srcs = [1, 2, 0]
    out, trace = _wm_run(srcs, parmove.windmill)
    label, st = px_wm.windmill_snapshot(srcs, trace[0], out)
    assert label[0] == "start"
    assert "A1" in px_wm.windmill_invariant_py(srcs, dict(st, cur=[0, 1, 2, 1]))


def _wm_rejected(fn, reuse):
    for n in range(1, 5):
        for srcs in register_maps(n):
            out, trace = _wm_run(list(srcs), fn)
            problems = px_wm.windmill_agrees(list(srcs), trace, out, reuse)
            assert isinstance(problems, list)
            if problems:
                return srcs, problems
    return None


@pytest.mark.parametrize("name", [m.name for m in CORE.values()
                                  if m.family in ("windmill", "mincopy")])
def test_windmill_agreement_rejects_wrong_steps(name):
    m = CORE[name]
    assert _wm_rejected(mutants.run(m), m.family == "mincopy"), name


@pytest.mark.parametrize("mutant", TRACE_WINDMILL, ids=lambda m: m.name)
def test_windmill_agreement_rejects_wrong_trace_labels(mutant):
    fn, real = mutants.run(mutant), getattr(parmove, mutant.entry)
    for srcs in register_maps(3):  # the output is unchanged: only the trace lies
        pm = ParallelMove.from_map(srcs, temps=[3])
        assert fn(pm) == real(pm)
    assert _wm_rejected(fn, mutant.entry == "mincopy"), mutant.name


def test_windmill_symbolic_small_n_and_mutants():
    assert px_wm.windmill_symbolic(4)[0] == PROVED
    assert px_wm.windmill_symbolic(3, mutant="no_save")[0] == COUNTEREXAMPLE
    assert px_wm.windmill_symbolic(3, mutant="restore_from_axle")[0] == COUNTEREXAMPLE
    mc = dict(algorithm="mincopy")
    assert px_wm.windmill_symbolic(4, **mc)[0] == PROVED
    assert px_wm.windmill_symbolic(3, mutant="copy_is_source", **mc)[0] == COUNTEREXAMPLE
    assert px_wm.windmill_symbolic(3, mutant="restore_from_axle", **mc)[0] == COUNTEREXAMPLE


# -- the encodings checked at concrete states (proofs.common.holds_at) ----------

def _perturbed(rng, st, n, cur_len):
    """st and a copy with a cur entry, a P bit, A, b or the ghost count
    changed: states where the invariants fail as well as hold."""
    v = dict(st, cur=list(st["cur"]))
    v["cur"][rng.randrange(cur_len)] = rng.randrange(cur_len)
    if rng.random() < .5:
        v["P"] = set(st["P"]) ^ {rng.randrange(n)}
    if "A" in st and st["mode"] != "kahn" and rng.random() < .5:
        v["A"] = set(st["A"]) ^ {rng.randrange(n)}
    if "b" in st and st["mode"] != "kahn" and rng.random() < .3:
        v["b"] = rng.randrange(n + 1)
    if "ops" in st and rng.random() < .3:
        v["ops"] = st["ops"] + 1
    return [st, v]


def _verdict(term) -> bool:
    t = z3.simplify(term)
    assert z3.is_true(t) or z3.is_false(t), t
    return z3.is_true(t)


def test_holds_at_is_the_verdict_of_the_term_built_on_the_values():
    """agrees and windmill_agrees check the Z3 invariants (and xchg's ghost
    count) at every traced state through holds_at: the term built once per
    phase over constants, the state's values substituted.  On every state
    of the real runs on 1..3 registers, and perturbed copies, its verdict
    is that of the term built on the values themselves, true and false."""
    rng = random.Random(3)
    seen, memo = {True: 0, False: 0}, {}
    for srcs in (list(m) for n in range(1, 4) for m in register_maps(n)):
        n = len(srcs)
        out, trace = _xchg_run(srcs)
        sv = [z3.BitVecVal(x, px._iw(n)) for x in srcs]
        walks = 0
        for step in trace:
            st = px.snapshot(srcs, step, out, walks)
            walks += step.label == "walk" and step.at not in step.pending
            for v in _perturbed(rng, st, n, n):
                S = px.to_state(srcs, v)
                for fn in (px.invariant, px.ghost_count):
                    want = _verdict(fn(S, sv, n))
                    assert px._holds(fn, S, sv, n, memo) == want, (srcs, v, fn.__name__)
                    seen[want] += 1
        w = max(1, n.bit_length())
        sv = [z3.BitVecVal(s, w) for s in srcs]
        for fn in (parmove.windmill, parmove.mincopy):
            out, trace = _wm_run(srcs, fn)
            for step in trace:
                for v in _perturbed(rng, px_wm.windmill_snapshot(srcs, step, out)[1], n, n + 1):
                    P = [z3.BoolVal(y in v["P"]) for y in range(n)]
                    cur = [z3.BitVecVal(c % (1 << w), w) for c in v["cur"]]
                    if v["mode"] == "kahn":
                        term = px_wm.wm_inv_kahn(P, cur, sv, n)
                    else:
                        A = [z3.BoolVal(y in v["A"]) for y in range(n)]
                        b = v["b"] if v["b"] == n else z3.BitVecVal(v["b"], w)
                        term = px_wm.wm_inv_axle(P, A, cur, sv, n, v["c0"], v["x"], b)
                    want = _verdict(term)
                    assert px_wm._wm_inv_holds(v, P, cur, sv, n, w, memo) == want, (srcs, v)
                    seen[want] += 1
    assert seen == {True: 737, False: 439}, seen
