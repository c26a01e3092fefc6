"""``proofs/machine.py``: the Z3 semantics of machines agrees with the
Python oracle (units, aliases, pairs, immediates, legality, verdicts), a
broken encoding is caught, every machine mutant that changes semantics or
legality (``z3`` set in ``mutants/machines.py``) is rejected by the
cross-check, and the bounded facts hold."""

from __future__ import annotations

import pytest

import mutants
from mutants.machines import MUTANTS
from proofs import machine as PM


def test_the_encoding_agrees_with_the_oracle():
    n, oks, bad, _ = PM.cross_check(300, seed=3)
    assert bad == [] and n == 300 and 0 < oks < n
    count, bad = PM.presets_agree(per_group=2)
    assert bad == [] and count > 500


def test_a_wrong_encoding_is_caught(monkeypatch):
    real = PM._step_concrete
    monkeypatch.setattr(PM, "_step_concrete", lambda lay, st, imm, k, a, b:
                        real(lay, st, imm, PM.MOV, a, b))  # every swap a mov
    assert PM.cross_check(200, seed=3)[2]
    monkeypatch.setattr(PM, "_step_concrete", real)
    monkeypatch.setattr(PM, "legal", lambda lay, op: PM.z3.BoolVal(True))
    assert PM.presets_agree(per_group=2)[1]


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.z3], ids=lambda m: m.name)
def test_the_cross_check_rejects_the_mutant(mutant):
    ns = mutants.load(mutant)
    # rejected by either check; the presets' check (1.7 s CPU) runs only
    # when the random cross-check (1 s) lets the mutant through
    # (docs/testing.md: today it catches every one)
    rejected = (PM.cross_check(300, seed=11, py=ns)[2]
                or PM.presets_agree(py=ns, per_group=2)[1])
    assert rejected, f"{mutant.name} survived the Z3 cross-check"


def test_claims_quick_results_evidence_and_result_words():
    """``PM.claims(quick=True)`` (5 s CPU of Z3; one test, not two sharing
    a module fixture, which pytest-xdist ran on both workers: the same
    assertions on the one run, docs/proofs.md, "Issue 20, sixth round"):
    every row as expected,
    each carrying its evidence and the right result word."""
    rows = PM.claims(quick=True)
    assert len(rows) == 9
    assert [r["result"] for r in rows] == [r["expect"] for r in rows], rows
    assert [r["result"] for r in rows[:2]] == ["enumerated", "tested"]
    assert rows[0]["evidence"]["enumerated"] > 500 and rows[1]["evidence"]["tested"] == 300
    for r in rows[2:]:
        assert r["result"] == "proved" and r["evidence"]["z3"]["proved"] == 1, r
    none_exists = [r for r in rows[2:] if "no sequence" in r["claim"]]
    assert len(none_exists) == 4
    for r in none_exists:
        assert "every operation can be the no-op mov x, x" in r["evidence"]["witnesses"]
    assert "every operation can be a legal swap mem, reg/gpr" in rows[2]["evidence"]["witnesses"]


def test_an_encoding_that_forbids_a_legal_shape_makes_the_fact_vacuous(monkeypatch):
    """Without the witnesses, a legality that forbade every swap would leave
    'no sequence of 2 exchanges m0, m1' proved (fewer sequences to refute)."""
    real = PM.legal
    monkeypatch.setattr(PM, "legal", lambda lay, op: PM.z3.And(real(lay, op), op[0] == PM.MOV))
    r = PM._fact("x86 no 2", PM.X86_FRAGMENT, PM.SLOT_SWAP, [], 2, False)
    assert r["result"] == "vacuous"
    assert r["evidence"]["vacuous_witnesses"] == [
        "every operation can be a legal swap reg/gpr, reg/gpr"]
    r = PM._fact("x86 3", PM.X86_FRAGMENT, PM.SLOT_SWAP, [], 3, True)
    assert r["result"] == "refuted" and r["detail"] == "no sequence found"
