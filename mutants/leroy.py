"""Mutants of Leroy's proof (``proofs/leroy.py``) and of the ``trace=``
hook of ``verified/algorithms/leroy.py``: the two halves of the argument
that ``leroy`` is correct for every register count.

* ``PROOF``: bugs planted in the rule system.  ``python -m proofs`` runs
  each one (``proofs/leroy.py`` ``mutant_claims``: the mutated module is
  loaded through this engine and the named lemma re-run) and must report
  it refuted; ``mutants/proofs.py`` lists them too, so ``python -m proofs
  --mutant NAME --only leroy`` plants one in the running proofs and fails.
  ``proofs_leroy_loop_ghost`` is the planted bug of the
  review of ``proofs/``: the ``loop`` rule without its side condition and
  with the pending count decremented.  The old model's measure rested on a
  ghost counter that ``loop`` could decrement freely; here |mu| is the
  length of the pending list itself, so decrementing it drops a real move
  and the meaning lemma refutes it.
* ``TRACE``: the real algorithms with a wrong trace label or a wrong step;
  the refinement check (``proofs.leroy.refines``, run by
  ``tests/proofs/test_leroy_refinement.py``) must reject each (a list of
  problems, never an exception).  ``TRACE_STEPS`` names core mutants
  (``mutants/core.py``) whose changed step the refinement check rejects
  too.
"""

from __future__ import annotations

from . import Mutant

PROOF_MODULE = "proofs.leroy"
ALGORITHM = "verified.algorithms.leroy"


#: each proof mutant -> the lemma of proofs/leroy.py that refutes it (a rule
#: name, or "progress")
LEMMA: dict[str, str] = {}


def _proof(name: str, old: str, new: str, why: str, lemma: str,
           scope: str = "rule") -> Mutant:
    """``entry`` is the proof module to run (as in ``mutants/proofs.py``,
    whose catalogue includes these: ``python -m proofs --mutant NAME
    --only leroy``)."""
    LEMMA[name] = lemma
    return Mutant(name, PROOF_MODULE, old, new, why, family="proofs", entry="leroy",
                  scope=scope)


def _trace(name: str, old: str, new: str, why: str, entry: str = "leroy") -> Mutant:
    return Mutant(name, ALGORITHM, old, new, why, family="leroy", entry=entry, scope=entry,
                  model="temp")


PROOF: list[Mutant] = [
    _proof("proofs_leroy_loop_ghost",
           "side = [st.k > 0, st.Sd[top] == s0, O.Not(O.is_temp(s0))]\n"
           "        return side, replace(st, e=O.store(st.e, t, st.e[s0]), "
           "Ss=O.store(st.Ss, 0, t))",
           "side = [st.k > 0]\n"
           "        return side, replace(st, e=O.store(st.e, t, st.e[s0]), "
           "Ss=O.store(st.Ss, 0, t),\n"
           "                             m=st.m - 1)",
           "loop without its side condition (it can fire forever) and with the pending "
           "count decremented to make the measure drop: the count is mu's length, so a "
           "real move is lost", "loop"),
    _proof("proofs_leroy_loop_unguarded",
           "side = [st.k > 0, st.Sd[top] == s0, O.Not(O.is_temp(s0))]",
           "side = [st.k > 0]",
           "loop without its side condition: once the bottom reads a temporary, loop "
           "fires again without the measure dropping (the run need not terminate)", "loop"),
    _proof("proofs_leroy_pop_without_no_read",
           "side = [st.k >= 2, no_read(st, O, d1), d1 != st.Ss[0]]",
           "side = [st.k >= 2, d1 != st.Ss[0]]",
           "pop while a pending move still reads the destination it writes", "pop"),
    _proof("proofs_leroy_loop_saves_dst",
           "e=O.store(st.e, t, st.e[s0])", "e=O.store(st.e, t, st.e[st.Sd[0]])",
           "loop saves the bottom's destination, not its source, into the temporary",
           "loop"),
    _proof("proofs_leroy_no_loop",
           "goal = z3.Or(*[enabled(r, st, O) for r in RULES])",
           "goal = z3.Or(*[enabled(r, st, O) for r in RULES if r != \"loop\"])",
           "progress without loop: a cycle on sigma blocks every other rule", "progress",
           scope="progress_queries"),
]

TRACE: list[Mutant] = [
    _trace("leroy_trace_push_as_start",
           'note("push" if len(stack) > 1 else "start", i)', 'note("start", i)',
           "the hook calls every push a start"),
    _trace("leroy_trace_pop_as_last",
           'note("pop" if stack else "last", i)', 'note("last", i)',
           "the hook calls every pop a last"),
    _trace("leroy_trace_loop_wrong_move", 'note("loop", j)', 'note("loop", i)',
           "the hook reports the top, not the bottom it redirected, as loop's move"),
    _trace("leroy_trace_nop_unmarked",
           "            status[i] = MOVED\n            if trace is not None:\n"
           "                note(\"nop\", i)\n",
           "            if trace is not None:\n                note(\"nop\", i)\n",
           "a self-move left TO_MOVE after its nop (mu keeps it)"),
    _trace("leroy_iterative_trace_push_as_start",
           'note("push", j)', 'note("start", j)',
           "iterative twin: the hook calls a push a start", entry="leroy_iterative"),
    _trace("leroy_iterative_trace_pop_before_emit",
           "            out.append(Mov(dst[i], src[i]))\n            status[i] = MOVED\n"
           "            stack.pop()\n            if trace is not None:\n"
           "                note(\"pop\" if stack else \"last\", i)\n",
           "            status[i] = MOVED\n            stack.pop()\n"
           "            if trace is not None:\n"
           "                note(\"pop\" if stack else \"last\", i)\n"
           "            out.append(Mov(dst[i], src[i]))\n",
           "iterative twin: the step is reported before its move is emitted",
           entry="leroy_iterative"),
]

#: core mutants (mutants/core.py) whose wrong step the refinement check rejects
TRACE_STEPS = ("leroy_no_cycle", "leroy_no_redirect", "leroy_preorder",
               "leroy_temp_from_dst", "leroy_children_of_src",
               "leroy_iterative_no_redirect")

BY_NAME = {m.name: m for m in PROOF + TRACE}
