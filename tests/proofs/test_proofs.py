"""Quick versions of the proofs (make test) and the checks that tie the Z3
encodings to the Python code.  The full runs are `make proofs` and
`make crosshair`."""

from __future__ import annotations

import random

import pytest
import z3

from proofs import COUNTEREXAMPLE, PROVED, Timer, optimality, prove, parmove, semantics_z3, shuf, xchg, xor_swap
from verified.algorithms.shuf import check_invariant as _check_invariant
from verified.algorithms.shuf import shuf as shuf_algorithm
from verified.cases.moves import register_maps
from verified.core.semantics import ParallelMove, execute

from tests.support import in_fresh_interpreter


# -- semantics ----------------------------------------------------------------


def test_z3_semantics_agrees_with_python_interpreter():
    oks, bad, _ = semantics_z3.cross_check(2000, seed=7)
    assert bad == []
    assert 50 < oks < 1950  # both verdicts are exercised


def test_cross_check_catches_a_wrong_encoding(monkeypatch):
    """The cross-check can fail: a swap encoded as a move is caught."""
    monkeypatch.setattr(semantics_z3, "_swap", lambda st, a, b: semantics_z3._mov(st, a, b))
    _, bad, _ = semantics_z3.cross_check(300, seed=1)
    assert bad


# -- shuf -----------------------------------------------------------------------


def _traced(srcs):
    """The real ``shuf`` on d <- srcs[d] through its ``trace=`` hook:
    (masks before, action, masks after) per action, and the invariant
    checked on every state (values from the emitted operations, run by the
    one interpreter)."""
    n = len(srcs)
    steps: list = []
    ops = shuf_algorithm(ParallelMove.from_map(srcs), trace=steps)
    assert steps[0].action is None and steps[0].slots == tuple(range(n))
    for k, step in enumerate(steps):
        st = execute(ops[:k])
        _check_invariant(list(step.forward), [st.get(x, x) for x in range(n)], srcs)
    st = execute(ops)
    assert [st.get(x, x) for x in range(n)] == list(srcs)
    assert not any(steps[-1].forward)
    return [(list(a.forward), b.action, list(b.forward)) for a, b in zip(steps, steps[1:])]


def test_python_invariant_holds_on_random_runs():
    rng = random.Random(3)
    for _ in range(400):
        n = rng.randint(1, 9)
        _traced([rng.randrange(n) for _ in range(n)])


def test_shuf_trace_changes_nothing():
    for n in range(1, 5):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs)
            assert shuf_algorithm(pm, trace=[]) == shuf_algorithm(pm)


def test_python_invariant_can_fail():
    with pytest.raises(AssertionError):
        _check_invariant([0b10, 0], [0, 1], [0, 1])  # bit 1 pending, but slot 1 is satisfied


def test_z3_shuf_encoding_agrees_with_python_step_by_step():
    """The Z3 model of shuf_next (walk + update), applied to the real
    run's masks before each action, gives the action the real ``shuf``
    took and the masks it left (states compared, through the hook); on the
    final masks the Z3 walk says done."""
    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(2, 6)
        srcs = [rng.randrange(n) for _ in range(n)]
        F = [z3.BitVec(f"F{r}", n) for r in range(n)]
        done, kind, i, nxt = shuf.bv_walk(F, n)
        cur = [z3.BitVec(f"c{r}", 4) for r in range(n)]
        F2, _ = shuf.bv_update(F, cur, kind, i, nxt, n)
        run = _traced(srcs)
        final = run[-1][2] if run else [0] * n
        for before, action, after in run + [(final, None, None)]:
            sub = [(F[r], z3.BitVecVal(before[r], n)) for r in range(n)]
            ev = lambda t: z3.simplify(z3.substitute(t, *sub))
            assert z3.is_true(ev(done))
            k = ev(kind).as_long()
            if action is None:
                assert k == 0
                continue
            assert (k, ev(i).as_long(), ev(nxt).as_long()) == (
                {"move": 1, "swap": 2}[action.kind], action.src, action.dst)
            assert [ev(x).as_long() for x in F2] == after


def shuf_lemma_results() -> list[tuple[str, str]]:
    """Each unbounded shuf lemma's result, then the false lemma's (the
    swap lemma of the no_mask_swap mutant on 3 slots)."""
    out = [(fn.__name__, shuf.run_lemma(fn))
           for fn in (shuf.lemma_init, shuf.lemma_move, shuf.lemma_swap, shuf.lemma_done,
                      shuf.lemma_walk)]
    return out + [("no_mask_swap", shuf.lemma_swap(shuf.finite_slots(3), Timer(),
                                                    "no_mask_swap"))]


def test_shuf_unbounded_lemmas_and_a_mutant():
    # in a fresh interpreter, as `python -m proofs` runs each module in a
    # process of its own: Z3's global context keeps the terms of every
    # earlier test of this pytest process, and after some of them the
    # MOVE-step lemma came out unknown after 65 s (3.4 s CPU alone)
    got = dict(in_fresh_interpreter(shuf_lemma_results))
    for name in ("lemma_init", "lemma_move", "lemma_swap", "lemma_done", "lemma_walk"):
        assert got[name] == PROVED, name
    # a false lemma reports a (finite, genuine) counterexample
    assert got["no_mask_swap"] == COUNTEREXAMPLE


def test_shuf_whole_algorithm_small_n_and_mutant():
    assert shuf.whole_algorithm(3)[0] == PROVED
    assert shuf.whole_algorithm(3, mutant="no_mask_swap")[0] == COUNTEREXAMPLE
    assert shuf.whole_algorithm(3, mutant="skip_slot0")[0] == COUNTEREXAMPLE


# -- parmove / xchg -------------------------------------------------------------


def test_parmove_bounded_and_mutants():
    for row in parmove.bounded_claims((3,)) + parmove.mutant_claims(3):
        assert row["result"] == row["expect"], row


def test_xchg_claims_quick():
    rows = xchg.claims(quick=True)
    assert all(r["result"] == r["expect"] for r in rows), rows
    published = [r for r in rows if r["claim"].startswith("xchg_as_published")]
    assert published and published[0]["result"] == COUNTEREXAMPLE


# -- optimality, xor ------------------------------------------------------------


def test_optimality_small_n_and_mutant():
    assert optimality.optimality(3, "swap")[0] == PROVED
    assert optimality.optimality(3, "temp")[0] == PROVED
    assert optimality.optimality(2, "swap", mutant="bound_too_high")[0] == COUNTEREXAMPLE


def test_xor_swap():
    rows = xor_swap.claims(quick=True)
    assert all(r["result"] == r["expect"] for r in rows), rows


# -- runner ---------------------------------------------------------------------


def test_runner_fails_on_an_unexpected_result(monkeypatch, capsys):
    from proofs import __main__ as runner

    monkeypatch.setattr(runner, "collect", lambda names, quick, moonshot=False, jobs=1: (
        [{"claim": "x", "n": 2, "result": "unknown", "seconds": 0.0, "expect": "proved",
          "module": "m"}], []))
    assert runner.main(["--quick"]) == 1
    from proofs.common import Ledger, row
    led = Ledger()
    prove(z3.Int("x") >= 0, [z3.Int("x") > 1], timer=led)
    monkeypatch.setattr(runner, "collect", lambda names, quick, moonshot=False, jobs=1: (
        [dict(row("x", 2, led), module="m")], []))
    assert runner.main(["--quick"]) == 0


def test_symbolic_execution_of_real_code_covers_every_path():
    """proofs.permi_claims.symbolic_paths runs a Python function on Z3
    integers: each branch is a path, and floor division is Python's."""
    import z3

    from proofs.permi_claims import greedy_length_claim, symbolic_paths

    def f(args):
        a, b = args
        if a > b:
            return a // 2
        return max(-(-b // 3), a)

    paths = symbolic_paths(f, ["a", "b"])
    assert len(paths) == 3
    a, b = z3.Ints("a b")
    for conds, res in paths:   # each path agrees with Python on a sample point
        for va, vb in ((5, 2), (-7, 3), (1, 9), (4, 4)):
            sub = [(a, z3.IntVal(va)), (b, z3.IntVal(vb))]
            if all(z3.is_true(z3.simplify(z3.substitute(c, *sub))) for c in conds):
                assert z3.simplify(z3.substitute(res, *sub)).as_long() == f((va, vb))
    assert greedy_length_claim()["result"] == "proved"
    # a floor where Lemma 3 has a ceiling: refuted, on the function given
    floor = lambda sig: sig[0] + max((sig[1] + sig[2]) // 2, -(-(sig[1] + 2 * sig[2]) // 3))
    assert greedy_length_claim(floor)["result"] == "refuted"


def test_shuf_values_at_are_the_values_of_the_terms_built_on_them():
    """agrees_on (the real Shuf next to the model) evaluates bv_init,
    bv_walk_body and bv_update through proofs.common.values_at: built once
    per n over constants, the values substituted.  On random values of
    1..5 slots (indices past the end included) each result is the value
    of the terms built on the values themselves; and agrees_on, one memo
    for every move of 1..3 slots, finds the real Shuf and the model agree."""
    from proofs.common import values_at
    rng, memo, compared = random.Random(4), {}, 0
    for n in range(1, 6):
        w, wv = shuf._w(n), max(1, (n - 1).bit_length())
        bv = lambda bits: z3.BitVecVal(rng.randrange(1 << bits), bits)  # noqa: E731
        for _ in range(10):
            want, F, cur = [bv(wv) for _ in range(n)], [bv(n) for _ in range(n)], \
                [bv(wv) for _ in range(n)]
            i, vis, kind, a, b = bv(w), bv(n), bv(2), bv(w), bv(w)
            for direct, key, build, values in (
                    (shuf.bv_init(want, n)[0], "bv_init", lambda c: shuf.bv_init(c, n)[0], want),
                    (shuf.bv_walk_body(F, n, i, vis), "bv_walk_body",
                     lambda c: list(shuf.bv_walk_body(c[:n], n, c[n], c[n + 1])), [*F, i, vis]),
                    (shuf.bv_update(F, cur, kind, a, b, n)[0], "bv_update",
                     lambda c: shuf.bv_update(c[:n], c[n:2 * n], c[2 * n], c[2 * n + 1],
                                              c[2 * n + 2], n)[0], [*F, *cur, kind, a, b])):
                want_values = [z3.simplify(t) for t in direct]
                got = values_at(memo, (key, n), build, values)
                assert all(z3.is_bv_value(x) or z3.is_true(x) or z3.is_false(x) for x in got)
                assert [x.sexpr() for x in got] == [x.sexpr() for x in want_values], (key, n)
                compared += 1
    assert compared == 150
    memo = {}
    assert all(shuf.agrees_on(list(m), memo) for n in range(1, 4) for m in register_maps(n))
    assert sorted(memo) == [(k, n) for k in ("bv_init", "bv_update", "bv_walk_body")
                            for n in (1, 2, 3) if (k, n) != ("bv_update", 1)]
