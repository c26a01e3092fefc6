"""The Z3 step proofs of proofs/ssra_states.py: they pass on the real
allocator, and report a counterexample for a broken state case."""

from __future__ import annotations

import pytest

pytest.importorskip("z3")

import mutants  # noqa: E402
from mutants import ssra as M  # noqa: E402
from proofs import ssra_states as P  # noqa: E402
from verified import ssra  # noqa: E402


def test_every_state_claim_is_proved():
    rows = P.claims(quick=True)
    assert {"claim", "n", "result", "seconds"} <= set(rows[0])
    named = {s.name for s in ssra.TwoInputState}
    covered = {r["claim"].split()[2].rstrip(":") for r in rows}
    assert named <= covered
    bad = [r for r in rows if r["result"] != r["expect"]]
    assert not bad, bad
    assert [r["result"] for r in rows if "are among those with 2-3" in r["claim"]] == [
        "enumerated"]


def _shape(state: str):
    return sorted(P.collect_shapes(quick=True)[state])[0]


def test_broken_state_case_gives_a_counterexample():
    """R_MR: the lhs is stored to its slot before the op.  Move the STORE
    after the op (the output has overwritten the register by then): Z3 must
    find a counterexample."""
    arity, pre, post, snippet = _shape("R_MR")
    assert P.prove_shape((arity, pre, post, snippet))[0] == "proved"
    kinds = [o[0] for o in snippet]
    assert kinds == ["store", "op"]
    broken = (arity, pre, post, (snippet[1], snippet[0]))
    result, model = P.prove_shape(broken)
    assert result == "refuted" and model


def test_operands_swapped_gives_a_counterexample():
    arity, pre, post, snippet = next(
        sh for sh in sorted(P.collect_shapes(quick=True)["R_UU"]) if len(sh[3]) == 1)
    (kind, out, ins), = snippet
    broken = (arity, pre, post, ((kind, out, ins[::-1]),))
    assert P.prove_shape(broken)[0] == "refuted"


@pytest.mark.parametrize("name", ["store_after_op", "forgotten_load",
                                  "repeated_input_uu", "output_store_skipped"])
def test_mutant_allocator_gives_a_counterexample(name):
    """The same shape collection, run on a mutant allocator: some state's
    proof fails."""
    mutant = next(m for m in M.MUTANTS if m.name == name)
    cls = mutants.run(mutant)
    found = {}
    for n in (2, 3):
        try:
            for state, shape in P.local_steps(n, cls):
                found.setdefault(state, set()).add(shape)
        except Exception:     # a mutant may crash on some configuration
            pass
    results = {P.prove_shape(sh)[0] for shapes in found.values() for sh in shapes}
    assert "refuted" in results


def test_shapes_from_real_tapes_are_among_the_local_ones():
    local = P.collect_shapes(quick=True)
    known = {(s, sh) for s in local for sh in local[s]}
    seen = 0
    for text in list(P.small_tapes(4)) + list(P.random_tapes(300, seed=9, max_ops=14)):
        tape = ssra.parse_tape(text)
        for n in (2, 3, 4):
            for state, shape in P.shapes_of(tape, n):
                assert (state, shape) in known, (state, shape, text, n)
                seen += 1
    assert seen > 3000
