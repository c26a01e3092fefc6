"""Every mutant of the machine oracle (``mutants/machines.py``) is caught by
a rejection: the golden suite's pinned answer for its witness differs from
the mutant's answer (the mutant accepts a wrong sequence or judges bad
input), and the mutant does not crash (a crash is not a catch).  The real
oracle gives the pinned answer on every witness."""

from __future__ import annotations

import json

import pytest

import mutants
from mutants.machines import MUTANTS
from tests.machines.corpus import BAD_INPUT, BUG_CLASSES, ILLEGAL
from verified.core import machine as real
from verified.core.semantics import PreconditionError


def respond(ns, obj: dict) -> dict:
    """The answer of the oracle in namespace ``ns`` (the real module or a
    mutant's): the verdict, or ``{"error": ...}`` for bad input.  Any other
    exception propagates: a crash, which the tests do not count as a catch."""
    try:
        req = ns.parse_machine_request(obj, need_sequence=True)
    except PreconditionError as e:
        return {"error": str(e)}
    return ns.check_machine_request(req).to_json()


def corpus() -> list[dict]:
    return ([{**r, "sequence": s} for _, r, s, _ in BUG_CLASSES] + [r for _, r in ILLEGAL]
            + [{**r, "sequence": []} for _, r in BAD_INPUT])


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_machine_mutant_is_rejected(mutant):
    ns = mutants.load(mutant)
    witness = json.loads(mutant.witness)
    want, got = respond(real, witness), respond(ns, witness)
    assert want != got, f"{mutant.name} survived its witness"
    # the golden suite (whose answers are the real oracle's, pinned in
    # test_golden.py) rejects it on some request of the corpus, and the
    # mutant is not simply broken: it agrees on most of the corpus
    agree = [respond(ns, obj) == respond(real, obj) for obj in corpus()]
    assert not all(agree), f"{mutant.name} survived the golden corpus"
    assert sum(agree) >= len(agree) // 2, (mutant.name, sum(agree))
    print(f"\n{mutant.name}: real {json.dumps(want)[:120]} / mutant {json.dumps(got)[:120]}")


def test_a_mutant_accepting_a_wrong_sequence_says_ok():
    """The catches are of the dangerous kind: most mutants say ok where the
    real oracle says wrong or refuses."""
    oks = [m.name for m in MUTANTS
           if respond(mutants.load(m), json.loads(m.witness)).get("ok") is True]
    assert len(oks) >= 10, oks


def test_mutants_are_distinct_edits():
    assert len({(m.old, m.new) for m in MUTANTS}) == len(MUTANTS)
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert all(m.module.startswith("verified.core.machine.") for m in MUTANTS)
