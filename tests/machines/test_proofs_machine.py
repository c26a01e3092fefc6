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
    _, _, bad, _ = PM.cross_check(300, seed=11, py=ns)
    _, bad2 = PM.presets_agree(py=ns, per_group=2)
    assert bad or bad2, f"{mutant.name} survived the Z3 cross-check"


def test_claims_quick():
    rows = PM.claims(quick=True)
    assert len(rows) == 9
    assert [r["result"] for r in rows] == [r["expect"] for r in rows], rows
