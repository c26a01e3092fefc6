"""Mutants of the machine resolver (``verified/algorithms/resolve.py``):
each one small edit of the real code (the engine in ``mutants/__init__.py``)
that reintroduces a bug class of real resolvers (``docs/machines.md``,
"Resolver").  ``witness`` is a machine request (JSON text, so a mutant is
hashable) on which the mutated resolver is caught by a verdict, never by a
crash: its sequence is rejected by the machine oracle
(``core.machine.implements``: ``ok`` false), or it answers "no sequence
exists" (``Unsolvable``, which ``verified solve`` turns into an error line)
where the search of ``machine_optimum`` finds one.  ``tests/machines/test_resolve_mutants.py`` checks each one,
and that the exhaustive small-machine run also rejects it.
"""

from __future__ import annotations

import json

from . import Mutant

RESOLVE = "verified.algorithms.resolve"


def _r(name: str, scope: str, old: str, new: str, why: str, witness: dict,
       z3: str | None = None) -> Mutant:
    return Mutant(name, RESOLVE, old, new, why, family="resolve", entry="greedy",
                  scope=scope, model="machine", z3=z3, witness=json.dumps(witness))


MUTANTS = [
    _r("scratch_unchecked", "_Run.try_job",
       "            if self.legal(load) and self.legal(store) and self.attempt(\n"
       "                    [(load, \"scratch load\"), (store, \"scratch store\")]):",
       "            if self.legal(load) and self.legal(store) and [\n"
       "                    self.emit(load, \"scratch load\"), self.emit(store, \"scratch store\")]:",
       "a slot-to-slot move takes a scratch register without asking whether it holds a "
       "parked value (the JIT bug); the resolver's own bookkeeping then finds the value "
       "gone and gives up on a request that has a sequence (a declined solvable case)",
       {"machine": {"name": "tiny", "classes": {"gpr": {"registers": ["a", "b", "t"]}},
                    "stack": {"names": ["m0", "m1"]}},
        "moves": [["m0", "m1"], ["m1", "m0"]], "temps": ["t"]},
       z3="no_held_check"),
    _r("finished_unit_broken", "_Run._unfinished",
       "        return self.cur[u] == g and u not in allow",
       "        return False",
       "a finished register may be used as scratch without a restore job (a live "
       "register clobbered: its value had a copy, but nothing gives it back)",
       {"machine": "aarch64", "moves": [["m0", "m1"], ["m2", "x0"]]},
       z3="no_finished_check"),
    _r("pair_moved_at_once", "_split_pair",
       '    if dst.kind != "list" and src.kind != "list":\n        return [(dst, src)]',
       "    return [(dst, src)]",
       "a register pair is one job, emitted as one list mov (low half first): a "
       "shifted pair a0:a1 -> a1:a2 loses the high half",
       {"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]]}),
    _r("immediate_first", "_Run.try_job",
       "        if job.imm is not None:\n            return False",
       "        if job.imm is not None:\n            self.ops.append((\"mov\", job.dst, "
       "job.imm))\n            return False",
       "a constant is written as soon as its job is seen, before its register is read "
       "(and the bookkeeping does not notice)",
       {"machine": "x86-64", "moves": [["rax", {"imm": 1}], ["rbx", "rax"]]}),
    _r("swap_without_legality", "_Run.break_cycle",
       "                if self.legal(op) and not undo and self.feasible([op]):",
       "                if not undo and self.feasible([op]):",
       "a cycle is broken by swapping its two places whatever they are: xchg of two "
       "stack slots on x86-64",
       {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]]}),
    _r("imm_piece_offset_lost", "imm_piece",
       "    wire = (value >> (at * bits)) & ((1 << (units * bits)) - 1)",
       "    wire = value",
       "a wide constant built on the stack piece by piece writes the whole constant for "
       "every piece (the piece's offset lost between the resolver and the operation): "
       "its high word holds 7 instead of 0",
       {"machine": "armv7-vfp", "moves": [["d0", {"imm": 7}]]}),
]

BY_NAME = {m.name: m for m in MUTANTS}

#: mutants of the fall-back (``resolve._fall_back``, entry ``_resolve_machine``:
#: the greedy steps are stuck on each witness, the real fall-back answers it
#: with a sequence the oracle accepts); ``tests/machines/test_resolve_mutants.py``
#: catches each one by a verdict: it declines, or says "no sequence exists",
#: on a request the real resolver answers correctly
FALL_BACK_MUTANTS = [
    Mutant("fall_back_deleted", RESOLVE,
           "        return _fall_back(mm, preserve, trace, str(stuck))", "        raise",
           "the greedy steps' word is final: a stuck request is declined though a "
           "sequence exists (issue 22: aarch64 m0 <-> m1, m2 <-> m3 with temp x0)",
           family="resolve", entry="_resolve_machine", scope="_resolve_machine",
           model="machine", witness=json.dumps(
               {"machine": "aarch64", "moves": [["m0", "m1"], ["m1", "m0"], ["m2", "m3"],
                                                ["m3", "m2"]], "temps": ["x0"]})),
    Mutant("borrowed_not_given_back", RESOLVE,
           "            ops = saves + body + restores",
           "            ops = saves + body",
           "the registers freed for a stuck request are never given back (the saved d "
           "register and the pushed core registers): the joined sequence is wrong, the "
           "oracle check drops it, and a solvable case is declined",
           family="resolve", entry="_resolve_machine", scope="_through_borrowed",
           model="machine", witness=json.dumps({"machine": "v8-arm", "moves": [["md0", "md1"]]})),
    Mutant("refusal_unproved", RESOLVE,
           "             or O.over_capacity(mm, preserve) or O.no_last_write(mm, preserve))",
           "             or O.over_capacity(mm, preserve) or O.no_last_write(mm, preserve) or why)",
           "a stuck request on a large machine is called impossible without a proof (the "
           "greedy steps' reason taken for one)",
           family="resolve", entry="_resolve_machine", scope="_fall_back",
           model="machine", witness=json.dumps(
               {"machine": "aarch64", "moves": [["m0", "m1"], ["m1", "m0"], ["m2", "m3"],
                                                ["m3", "m2"]], "temps": ["x0"]})),
]

#: mutants of the optimum (``verified/algorithms/machine_optimum.py``): the
#: closed form and the search check each other
#: (``tests/machines/test_machine_optimum.py``)
OPTIMUM = "verified.algorithms.machine_optimum"
OPTIMUM_MUTANTS = [
    Mutant("closed_form_forgets_bare_cycles", OPTIMUM, "    return c * (n + bare)",
           "    return c * n", "closed form T without the extra copy of a bare cycle",
           family="machine_optimum", entry="closed_form", scope="closed_form"),
    Mutant("closed_form_ignores_swaps", OPTIMUM,
           "    if c is None or _has_swap(m) or mm.types:",
           "    if c is None or mm.types:",
           "closed form T applied to a machine with swaps: a register swap through a "
           "temporary priced 3 where one xchg costs 1 (issue 22)",
           family="machine_optimum", entry="optimum", scope="closed_form"),
    Mutant("search_estimate_overshoots", OPTIMUM,
           "        return -(-wrong // widest) * cheapest", "        return wrong * 10 * cheapest",
           "the A* estimate is not admissible (each wrong unit priced ten operations): the search "
           "returns a cost above the optimum", family="machine_optimum", entry="search",
           scope="_search"),
]

#: mutants of the refusal lemmas of ``machine_optimum`` (``over_capacity``,
#: ``no_last_write``): each one makes its lemma fire on small requests that
#: have a sequence, which ``tests/machines/test_refusal_lemmas.py`` catches
#: as a verdict (the lemma says "no sequence exists", the search finds one)
LEMMA_MUTANTS = [
    Mutant("capacity_without_temporaries", OPTIMUM,
           "    free = len(units) - len({v for v in goals(mm, preserve).values() if v in units})",
           "    free = 0",
           "the capacity lemma counts a temporary (and a dead destination) as needed: a "
           "sequence that parks a value there is ruled out",
           family="machine_optimum", entry="over_capacity", scope="over_capacity"),
    Mutant("last_write_constant_never_fits", OPTIMUM,
           "        return goal[w] not in units          # any constant's piece, never an original",
           "        return False",
           "the last-write lemma forgets that a constant write can finish a destination: "
           "every request with a constant is called impossible",
           family="machine_optimum", entry="no_last_write", scope="_fits"),
]
