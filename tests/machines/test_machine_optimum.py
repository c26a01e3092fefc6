"""The optimum on a machine (``verified/algorithms/machine_optimum.py``):
the search (ground truth) and closed form T checked against each other on
every small request where T applies, the answers of ``optimum``, and the
two mutants of ``mutants/resolve.py`` (``OPTIMUM_MUTANTS``) caught by that
cross-check."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import mutants
from mutants.resolve import OPTIMUM_MUTANTS
from verified.algorithms import machine_optimum as O
from verified.core import machine as M

from .resolve_cases import requests, small

#: the variants where closed form T can apply (no swap, every cost 1)
T_VARIANTS = [dict(swap="noswap", m2m=False, imm_mem=False, temp="none"),
              dict(swap="noswap", m2m=False, imm_mem=True, temp="treg"),
              dict(swap="noswap", m2m=True, imm_mem=True, temp="tslot")]


def cross_check(v: dict, closed=O.closed_form, search=O.search) -> tuple[int, int, list]:
    """(requests where T applies, of which the search agrees, disagreements)."""
    applies = agree = 0
    bad = []
    for mm in requests(small(**v), v["temp"]):
        for preserve in ("all", "loops"):
            t = closed(mm)
            if t is None:
                continue
            applies += 1
            best, why = search(mm, preserve)
            if best == t:
                agree += 1
            else:
                bad.append((str(mm), preserve, t, best))
    return applies, agree, bad


#: how many small requests closed form T covers per variant (pinned: a change
#: in either side shows here)
T_COUNTS = {"noswap-False-False-none": 992, "noswap-False-True-treg": 1760,
            "noswap-True-True-tslot": 1590}


@pytest.mark.parametrize("v", T_VARIANTS, ids=lambda v: "-".join(map(str, v.values())))
def test_closed_form_agrees_with_the_search_on_every_small_request(v):
    applies, agree, bad = cross_check(v)
    assert bad == []
    assert applies == agree == T_COUNTS["-".join(map(str, v.values()))]


@pytest.mark.parametrize("mutant", OPTIMUM_MUTANTS, ids=lambda m: m.name)
def test_optimum_mutants_are_caught_by_the_cross_check(mutant):
    fn = mutants.run(mutant)
    v = T_VARIANTS[1]   # a temporary register: bare cycles are covered
    if mutant.entry == "optimum":
        # the closed form on a machine with swaps: the search must disagree
        v = dict(swap="swaps", m2m=False, imm_mem=True, temp="treg")
        bad = [str(mm) for mm in requests(small(**v), v["temp"])
               if fn(M.MachineRequest(mm)).cost != O.search(mm, "all")[0]]
        assert bad, f"{mutant.name} survived"
        return
    if mutant.entry == "closed_form":
        _, _, bad = cross_check(v, closed=fn)
    else:
        _, _, bad = cross_check(v, search=lambda mm, p: fn(mm, p))
    assert bad, f"{mutant.name} survived"


def test_optimum_answers():
    m = small(swap="noswap", m2m=False, imm_mem=False, temp="none")
    req = lambda moves, temps=(): M.MachineRequest(M.MachineMove.make(m, moves, list(temps)))
    # a register cycle with a free temporary... there is none: the search decides
    assert O.optimum(req([["a", "b"], ["b", "a"]])) == M.MachineOptimum(
        None, O.NO_SEQUENCE)
    assert O.optimum(req([["a", "b"], ["m0", "a"]])) == M.MachineOptimum(2)
    # a preset too large for the search, with swaps: not computed, and says why
    x86 = M.MachineRequest(M.MachineMove.make(M.preset("x86-64"), [["rax", "rbx"]]))
    assert O.optimum(x86) == M.MachineOptimum(
        None, "not computed: x86-64 has 64 units; the search covers machines of at most "
              "8 units and the closed form does not apply to this request")
    # riscv64: every width 1, no swap, costs 1: closed form T applies
    rv = M.MachineRequest(M.MachineMove.make(M.preset("riscv64"),
                                             [["a0", "a1"], ["a1", "a0"], ["m0", "a0"]]))
    assert O.optimum(rv) == M.MachineOptimum(3)   # blade m0 opens the cycle: 3 moves
    rv = M.MachineRequest(M.MachineMove.make(M.preset("riscv64"),
                                             [["a0", "a1"], ["a1", "a0"]], ["t0"]))
    assert O.optimum(rv) == M.MachineOptimum(3)   # bare cycle through t0: 2 + 1
    # x86-64 has xchg: closed form T (no swap) must not answer 3 for a
    # register swap that one xchg does (issue 22); too large for the search
    x86 = M.MachineRequest(M.MachineMove.make(M.preset("x86-64"),
                                              [["rax", "rbx"], ["rbx", "rax"]], ["r11"]))
    assert O.closed_form(x86.move) is None
    assert O.optimum(x86).cost is None


def test_check_cli_reports_the_optimum():
    line = {"machine": "riscv64", "moves": [["a0", "a1"], ["a1", "a0"]], "temps": ["t0"],
            "sequence": [["mov", "t0", "a0"], ["mov", "a0", "a1"], ["mov", "a1", "t0"]]}
    p = subprocess.run([sys.executable, "-m", "verified.cli", "check"], input=json.dumps(line),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"ok": True, "length": 3, "cost": 3, "optimal": 3}


# ---------------------------------------------------------------------------
# push/pop: the search takes them (issue 23 item 1)
# ---------------------------------------------------------------------------

def _with_push() -> tuple[M.Machine, M.Machine]:
    """The no-swap small machine (immediates to registers only, no
    temporary: where closed form T applies) and the same machine with
    push and pop of registers and slots."""
    plain = small(swap="noswap", m2m=False, imm_mem=False, temp="none")
    obj = dict(plain.to_json(), name="small-noswap-immreg-push", push=["reg", "mem"],
               pop=["reg", "mem"])
    return plain, M.machine(obj)


#: over the 1,296 requests (preserve all): (solvable without push, of them
#: cheaper with push, solvable only with push); and the resolver's cost
#: minus the search's on the push machine (it never refuses there)
PUSH_COUNTS = (1070, 90, 226)
PUSH_RESOLVER_GAPS = {0: 929, 1: 164, 2: 154, 3: 28, 4: 14, 5: 7}


def test_push_pop_search_is_checked_against_the_plain_search_and_the_resolver():
    """Adding push and pop never raises the optimum (every sequence of the
    plain machine is one of the push machine), and on the plain machine the
    search agrees with closed form T (above): so the push search is never
    above a proved optimum.  It finds the stack's sequences: 226 requests
    have none without push (e.g. a slot copy with both registers live:
    ``push m1; pop m0``), 90 get cheaper.  The resolver's answers on the
    push machine are correct and never below the search's optimum."""
    from verified.algorithms import resolve as R
    plain, pm = _with_push()
    solvable = cheaper = only_push = 0
    gaps: dict = {}
    for mm in requests(plain):
        a, _ = O.search(mm, "all")
        mp = M.MachineMove.make(pm, mm.to_json()["moves"], [])
        b, why = O.search(mp, "all")
        assert b is not None, why
        if a is not None:
            assert b <= a, (str(mm), a, b)
            solvable += 1
            cheaper += b < a
        else:
            only_push += 1
        verdict = M.implements(mp, R.resolve(mp))
        assert verdict.ok, (str(mm), verdict.reason)
        gaps[verdict.cost - b] = gaps.get(verdict.cost - b, 0) + 1
    assert (solvable, cheaper, only_push) == PUSH_COUNTS
    assert gaps == PUSH_RESOLVER_GAPS


def test_push_pop_optimum_answers():
    """A slot copy with every register live: none without push, push +
    pop with it; a slot swap: four stack operations."""
    plain, pm = _with_push()
    copy = [["m0", "m1"], ["a", "a"], ["b", "b"]]
    assert O.search(M.MachineMove.make(plain, copy), "all")[0] is None
    best, _, path = O.search_sequence(M.MachineMove.make(pm, copy), "all")
    assert (best, [op.to_json() for op in path]) == (2, [["push", "m1"], ["pop", "m0"]])
    swap = M.MachineMove.make(pm, [["m0", "m1"], ["m1", "m0"]])
    assert O.search(swap, "all")[0] == 4
