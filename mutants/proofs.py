"""Bugs planted in the proofs (or in an algorithm the proofs must judge),
each of which ``python -m proofs`` must catch: run with the mutant
installed (``python -m proofs --mutant NAME --only ENTRY``), some claim of
the entry modules must come out refuted, vacuous or unknown, or be
rejected for a result its evidence does not back.  ``python -m proofs
--mutants`` runs them all, each in a fresh process; ``entry`` is the
comma-separated list of proof modules to run.

These are the planted bugs of a review of ``proofs/`` that the proofs
first missed; each names the claim that now catches it (``why``).
Leroy's "loop without its side condition, ghost counter decremented" and
the other bugs planted in Leroy's rule system live with it in
``mutants/leroy.py`` and are appended here.
"""

from __future__ import annotations

from . import Mutant


def _m(name: str, module: str, scope: str, entry: str, old: str, new: str,
       why: str, z3: str | None = None) -> Mutant:
    return Mutant(name, module, old, new, why, family="proofs", entry=entry, scope=scope,
                  z3=z3)


MUTANTS: list[Mutant] = [
    _m("proofs_shuf_range_cut", "proofs.shuf", "_vars", "shuf",
       "rng = [z3.ULT(x, n) for x in cur + want] if (1 << wv) != n else []",
       "rng = [z3.ULT(x, n - 1) for x in cur + want] if (1 << wv) != n else []",
       "the shuf proof's slot values range over 0..n-2 (n = 10, 11 in the full "
       "run; 3 in --quick): caught by the claim's domain query (refuted)"),
    _m("proofs_windmill_no_fanout", "proofs.parmove", "windmill_symbolic", "parmove",
       "rng = [z3.ULT(s, n) for s in srcs] if (1 << w) != n else []",
       "rng = ([z3.ULT(s, n) for s in srcs] if (1 << w) != n else []) + [\n"
       "        z3.Or(srcs[y] == y, srcs[z] == z, srcs[y] != srcs[z])\n"
       "        for y in range(n) for z in range(y + 1, n)]",
       "the windmill/mincopy proof assumes no fan-out (two moves never read the "
       "same register), so mincopy's blade-copy path is never exercised: caught by "
       "the claim's domain query (the declared domain 0..n-1 does not imply the "
       "narrowed range: refuted); the fan-out witnesses would be vacuous too"),
    _m("proofs_optimality_no_temp", "proofs.optimality", "_sequence", "optimality",
       "allowed = list(range(nlocs))", "allowed = list(range(n))",
       "the temporary removed from the optimality search space: 'no shorter' still "
       "holds, but the bound is no longer reachable (temp model, a cycle)"),
    _m("xchg_useless_swap", "verified.algorithms.xchg", "xchg", "xchg",
       "            if where(s) != d:\n", "            if True:\n",
       "xchg emits a useless 'swap d, d' when a cycle closes (correct, not optimal): "
       "caught by the enumerated claim's length check and, in the symbolic model "
       "(z3 'useless_swap'), by the ghost count of emitted operations",
       z3="useless_swap"),
    _m("shuf_mask_16_bits", "verified.algorithms.shuf", "Shuf.add", "shuf",
       "self.forward[src] |= 1 << dst",
       "self.forward[src] = (self.forward[src] | 1 << dst) & 0xFFFF",
       "shuf's masks cut to 16 bits: the symbolic proofs model n-bit masks, so the "
       "real Shuf is stepped against the Z3 step relation on 17..40 slots (a tested "
       "row), which refutes it"),
    _m("proofs_vacuity_timeout_proved", "proofs.common", "prove", "common",
       "            return ledger.record(UNKNOWN), None\n"
       "        if name != \"hypotheses satisfiable\"",
       "            continue\n"
       "        if name != \"hypotheses satisfiable\"",
       "a vacuity check that times out counts as passed: the harness's own claim "
       "'a proof whose vacuity check times out is unknown' catches it"),
    _m("proofs_dp_search_proved", "proofs.permi_claims", "exhaustive_claim", "permi_claims",
       "kind=ENUMERATED, detail=detail)",
       "kind=ENUMERATED, detail=detail) | {\"result\": PROVED, \"expect\": PROVED}",
       "'DP == search' (an exhaustive test) labelled proved: the runner rejects a "
       "'proved' row whose ledger holds no symbolic Z3 proof"),
    _m("proofs_machine_alias_own_units", "proofs.machine", "layout", "machine",
       "return [u for part in aliases[name] for u in units_of(part)]",
       "return [f\"{name}.{i}\" for i, _ in enumerate(\n"
       "                u for part in aliases[name] for u in units_of(part))]",
       "the machine encoding forgets alias overlap: an alias (armv7-vfp's d0 over "
       "s0, s1) gets fresh units of its own width, so writing d0 leaves s0, s1 "
       "alone and swap d0, s0 looks legal: the enumerated preset agreement "
       "(per-unit effect and legality vs the Python oracle) refutes it"),
]

# Round 4's planted bugs (issue 22), one per class of the audit's misses;
# each names the claim that catches it as a verdict
MUTANTS += [
    _m("proofs_leroy_loop_redirects_top", "proofs.leroy", "rule", "leroy",
       "Ss=O.store(st.Ss, 0, t))", "Ss=O.store(st.Ss, top, t))",
       "class 5 (a catch that was a crash): Leroy's loop rule redirects the top of "
       "sigma, not its bottom, to the temporary.  Written into proofs/leroy.py by hand, "
       "the edit also removes the text proofs_leroy_loop_ghost targets: the run used "
       "to abort ('occurs 0 times'); now 'Leroy rule loop' is refuted and the ghost "
       "mutant's row says 'mutant could not apply' (exit 2)"),
    # class 1: witnesses were single points ("the highest slot is a source")
    _m("proofs_shuf_cut_lowest", "proofs.shuf", "_vars", "shuf",
       "rng = [z3.ULT(x, n) for x in cur + want] if (1 << wv) != n else []",
       "rng = [z3.And(z3.ULT(x, n) if (1 << wv) != n else z3.BoolVal(True), x != 0)\n"
       "           for x in cur + want]",
       "class 1: the shuf proof's slot values exclude the LOWEST value 0 (the audit's "
       "form: it stayed proved at every n, the witness asking only for the highest "
       "value): the domain query (declared domain 0..n-1 => the range hypotheses) of "
       "the shuf_srcs claim refutes it, and the witness 'register 0 is the source of "
       "another' would be vacuous"),
    # class 2: "proved" rows were about a transcription, not the shipped code
    _m("greedy_length_floor", "verified.algorithms.greedy", "greedy_length", "permi_claims",
       "-(-(a2 + a3) // 2)", "(a2 + a3) // 2",
       "class 2: a ceil turned into a floor in the REAL greedy.greedy_length (the audit's "
       "form: every proof row passed, they proved a transcription): the symbolic "
       "execution of the real function refutes 'GREEDY Lemma 3 (code)'"),
    # class 3: --quick ran the first of the five small machines only
    _m("resolve_park_never_restored", "verified.algorithms.resolve", "_Run._borrow_park",
       "resolve",
       "                    self.jobs.append(self._restore_job(r))\n"
       "                    return self.try_job(job)",
       "                    return self.try_job(job)",
       "class 3: a register borrowed to park a blocked destination is never given back "
       "(no restore job); the first small machine (with swaps) never borrows that way, so "
       "--quick used to pass it: the enumerated resolve rows of the no-swap machines are "
       "refuted, in --quick too (every variant, the moves that leave b alone)"),
    # class 4: the harness's own claims, each with its twin
    _m("proofs_main_timeout_proved", "proofs.common", "prove", "common",
       "    if r != z3.unsat:\n        return ledger.record(UNKNOWN), None\n    checks",
       "    if r != z3.unsat:\n        return ledger.record(PROVED), None\n    checks",
       "class 4: a main query that times out counts as proved: caught by the harness "
       "claim 'a proof whose main query times out is unknown'"),
    _m("proofs_ledger_ignores_unknown", "proofs.common", "Ledger.result",
       "common", "for bad in (REFUTED, VACUOUS, UNKNOWN):", "for bad in (REFUTED, VACUOUS):",
       "class 4: Ledger.result ignores a timed-out query when others proved: caught by "
       "the harness claim 'a ledger with proved queries and one unknown'"),
    _m("proofs_runner_evidence_off", "proofs.__main__", "judge", "common",
       "problem = evidence_problem(r)", "problem = \"\"",
       "class 4: the runner's evidence check switched off (a hand-written 'proved' "
       "passes): caught by the harness claim 'a row labelled proved by hand ... is "
       "rejected by the runner' (it is not)"),
    _m("proofs_witness_unchecked", "proofs.common", "prove", "common",
       "        if rw == z3.unsat:\n", "        if rw == z3.unsat and not witnesses:\n",
       "class 4: an unsatisfiable witness no longer makes a claim vacuous: caught by the "
       "harness claim 'a proof with an unsatisfiable witness is vacuous'"),
]

# Leroy's planted bugs live with Leroy's model (mutants/leroy.py)
from .leroy import PROOF as _LEROY  # noqa: E402

MUTANTS += _LEROY

BY_NAME = {m.name: m for m in MUTANTS}
