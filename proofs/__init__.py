"""Machine-checked claims about the algorithms in ``verified/``.

One module per algorithm, under the same name as in ``verified/``, and
one shared harness:

* ``proofs/common.py``: ``prove`` (every Z3 query), the ``Ledger`` a row's
  result is computed from, witnesses, and the encoding helpers (``mux``,
  ``finite_sort``, ``run_lemma``); its own rows check that a timed-out
  vacuity check is unknown and an unsatisfiable witness vacuous;
* ``proofs/semantics_z3.py``: the Z3 encoding of the semantics (symbolic
  initial values; temp, swap and permi models) and its cross-check against
  the one Python interpreter ``verified.semantics.execute``;
* ``proofs/shuf.py``: ``verified.shuf`` (unbounded step lemma, bounded
  whole-algorithm proof by induction on the walk's actions);
* ``proofs/leroy.py``: ``verified.algorithms.leroy`` (Leroy's rule system
  for every n: rules, progress, final state; the refinement of leroy and
  leroy_iterative checked through their ``trace=`` hook; enumerated
  whole-algorithm proofs);
* ``proofs/parmove.py``: ``verified.algorithms.windmill`` (windmill and
  mincopy: the symbolic step system, enumerated whole-algorithm proofs);
* ``proofs/xchg.py``: ``verified.xchg`` (the corrected algorithm's step
  lemma and bounded proofs; the counterexample to the published one);
* ``proofs/optimality.py``: lower bounds by bounded synthesis, and the
  bound reached in the same encoding;
* ``proofs/permi_claims.py``: GREEDY's Lemmas 3 and 5 (Z3) and DP ==
  search (enumerated);
* ``proofs/ssra_states.py``: each allocator step shape, every N >= 2;
* ``proofs/machine.py``: the Z3 semantics of machines (units, aliases,
  pairs, immediates, legality; ``verified.core.machine``), its cross-check
  against the oracle, and bounded facts over symbolic sequences on machine
  fragments (n is the number of units);
* ``proofs/resolve.py``: ``verified.algorithms.resolve`` (step lemmas for
  any number of units; its outputs on small machines judged in Z3; with
  ``proofs/resolve_run.py``, the whole greedy run on a small machine,
  bounded, and the code's runs compared with it);
* ``proofs/xor_swap.py``: three XORs swap two 64-bit registers.

Every module exposes ``claims() -> list[dict]`` with dicts
``{"claim", "n", "result", "seconds", "expect", "evidence"}`` written by
``proofs.common.row`` / ``claim`` from a ``Ledger`` (``expect``: the result
the claim must have; a mutant's claim expects "refuted").  Every symbolic
claim's Z3 query goes through ``proofs.common.prove``; enumerations use
``prove_all`` and cross-checks ``decide_each`` (results: proved, refuted,
vacuous, unknown, enumerated, tested; see ``proofs/common.py``).
``python -m proofs`` collects them all and prints one table.

Words used in the claims: **unbounded** means over every register count
(locations are an uninterpreted Z3 sort of any cardinality, state is Z3
arrays); **n = k** means for every input on exactly k registers (bounded).
"""

from __future__ import annotations

# The harness lives in proofs/common.py; the names are re-exported here so
# that ``from proofs import prove, PROVED`` keeps working.
from .common import (  # noqa: F401
    COUNTEREXAMPLE, ENUMERATED, FAILURES, PROVED, REFUTED, TESTED, UNKNOWN, VACUOUS,
    Ledger, Timer, as_int, claim, combine, exists, finite_sort, mux, prove, prove_all,
    row, run_lemma,
)
