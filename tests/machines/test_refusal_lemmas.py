"""The refusal lemmas of ``machine_optimum`` that the resolver's fall-back
raises ``Unsolvable`` with on machines too large for the search
(``over_capacity``: capacity and value flow; ``no_last_write``: no
operation can be the last one): on every request of the small machines
where the search is complete, a lemma that fires is right (the search
finds no sequence), and each fires (pinned counts: not vacuous); each
planted mutant of them (``mutants/resolve.py``, ``LEMMA_MUTANTS``) fires
on a request that has a sequence.  Then the refusals on the presets that
only these lemmas prove, with their exact texts."""

from __future__ import annotations

import collections

import pytest

import mutants
from mutants.resolve import LEMMA_MUTANTS
from verified.algorithms import machine_optimum as O, resolve as R
from verified.core import machine as M

from .resolve_cases import VARIANTS, requests, small

LEMMAS = {"over_capacity": O.over_capacity, "no_last_write": O.no_last_write}


def judge(v: dict, lemmas: dict) -> tuple[collections.Counter, list]:
    """Per lemma, how often it fires on the variant's requests (both
    contracts), and the requests where it fires but the search finds a
    sequence (a wrong proof)."""
    fired: collections.Counter = collections.Counter()
    wrong = []
    for mm in requests(small(**v), v["temp"]):
        for preserve in ("all", "loops"):
            said = [name for name, f in lemmas.items() if f(mm, preserve) is not None]
            if not said:
                continue
            fired.update(said)
            best, why = O.search(mm, preserve)
            if not (best is None and why == O.NO_SEQUENCE):
                wrong.append((mm.to_json(), preserve, said))
    return fired, wrong


#: how often each lemma fires on the 2,592 requests of each variant
FIRED = {"swaps-False-True-none": {},
         "noswap-False-False-none": {"over_capacity": 72, "no_last_write": 333},
         "noswap-False-False-treg": {},
         "noswap-True-True-tslot": {},
         "regswap-False-True-none": {"over_capacity": 67, "no_last_write": 5}}


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: "-".join(map(str, v.values())))
def test_lemmas_fire_only_where_the_search_finds_no_sequence(v):
    fired, wrong = judge(v, LEMMAS)
    assert wrong == []
    assert dict(fired) == FIRED["-".join(map(str, v.values()))]


@pytest.mark.parametrize("mutant", LEMMA_MUTANTS, ids=lambda m: m.name)
def test_lemma_mutants_are_caught_against_the_search(mutant):
    lemma = mutants.run(mutant)
    # the assertion is that some request catches it: judging stops at the
    # first variant (in order, then the wide machine) that has one
    caught = any(judge(v, {mutant.entry: lemma})[1] for v in VARIANTS) \
        or judge_wide({mutant.entry: lemma})[1]
    assert caught, f"{mutant.name} survived"


#: a small machine with a two-unit register and slot, a pair move (two
#: one-unit registers to and from a two-unit slot, as aarch64's LDP/STP),
#: no swap and no push: 7 units, within the search's reach
WIDE = {"name": "small-wide", "unit_bits": 8,
        "classes": {"gpr": {"registers": ["a", "b"]},
                    "vec": {"registers": ["v"], "width": 2, "immediate": False}},
        "stack": [{"names": ["m0"], "width": 1},
                  {"names": ["mw"], "width": 2, "immediate": False}],
        "immediate_to": ["reg"], "pair_moves": [{"pair": "gpr", "with": "mem"}]}


def wide_requests(temps: list):
    """Every move over the wide machine: v and mw each from v, mw, the
    constant 7 or nothing; a, b, m0 each from a, b, m0, 7 or nothing."""
    import itertools
    m = M.machine(WIDE)
    two, one = ("v", "mw"), ("a", "b", "m0")
    for c2 in itertools.product(range(4), repeat=2):
        for c1 in itertools.product(range(5), repeat=3):
            moves = [[d, two[c] if c < 2 else {"imm": 7}] for d, c in zip(two, c2) if c != 3]
            moves += [[d, one[c] if c < 3 else {"imm": 7}] for d, c in zip(one, c1) if c != 4]
            if any(d in temps for d, _ in moves) or any(s in temps for _, s in moves):
                continue
            yield M.MachineMove.make(m, moves, temps)


def judge_wide(lemmas: dict) -> tuple[collections.Counter, list]:
    fired: collections.Counter = collections.Counter()
    wrong = []
    for temps in ([], ["b"]):
        for mm in wide_requests(temps):
            said = [name for name, f in lemmas.items() if f(mm, "all") is not None]
            if not said:
                continue
            fired.update(said)
            best, why = O.search(mm, "all")
            if not (best is None and why == O.NO_SEQUENCE):
                wrong.append((mm.to_json(), said))
    return fired, wrong


#: how often each lemma fires on the wide machine's requests
WIDE_FIRED = {"over_capacity": 128, "no_last_write": 272}


def test_lemmas_on_a_machine_with_wide_places_and_pair_moves():
    fired, wrong = judge_wide(LEMMAS)
    assert wrong == []
    assert dict(fired) == WIDE_FIRED
