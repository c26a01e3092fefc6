"""Mutants for the proofs (``proofs/``) and for CrossHair
(``proofs/crosshair_run.py``).

The mutated algorithms themselves are the lead's, from
``tests/mutants/core_mutants.py`` (one snippet changed in the real source);
here they get the shapes the proof tools need:

* ``*_pm(pm)``: ParallelMove -> operations, for the enumerated bounded
  proofs in ``proofs/parmove.py`` and ``proofs/xchg.py``;
* ``*_srcs(srcs)``: the list-shaped entry points CrossHair handles well,
  with the same contract as the real entry points in ``verified/`` (the
  postcondition calls the real oracle ``implements``).  CrossHair must find
  a counterexample to each.

Every mutant here is expected to be caught; ``tests/test_proofs_crosshair.py``
and the proofs table check that it is.
"""

from __future__ import annotations

from typing import List, Tuple

from verified.oracle import implements
from verified.parmove import ops_to_triples, triples_to_ops
from verified.semantics import ParallelMove
from verified.shuf import actions_to_ops

from .core_mutants import MUTANTS

_BY_NAME = {m.name: m.run for m in MUTANTS}


def leroy_no_cycle_pm(pm: ParallelMove):
    return _BY_NAME["leroy_no_cycle"](pm)


def mincopy_wrong_blade_pm(pm: ParallelMove):
    """mincopy restoring the axle from the axle instead of the blade copy."""
    return _BY_NAME["mincopy_restore_from_axle"](pm)


def xchg_no_alias_update_pm(pm: ParallelMove):
    return _BY_NAME["xchg_no_alias_update"](pm)


def _temp_pm(srcs: List[int]) -> ParallelMove:
    return ParallelMove.from_map(srcs, temps=[len(srcs)])


def leroy_no_cycle_srcs(srcs: List[int]) -> List[Tuple[str, int, int]]:
    """MUTANT leroy_no_cycle (never saves into the temporary).

    pre: all(0 <= s < len(srcs) for s in srcs)
    post: implements(_temp_pm(srcs), triples_to_ops(__return__), "temp").ok
    """
    return ops_to_triples(_BY_NAME["leroy_no_cycle"](_temp_pm(srcs)))


def windmill_no_save_srcs(srcs: List[int]) -> List[Tuple[str, int, int]]:
    """MUTANT windmill_no_save (breaks an axle without saving a value).

    pre: all(0 <= s < len(srcs) for s in srcs)
    post: implements(_temp_pm(srcs), triples_to_ops(__return__), "temp").ok
    """
    return ops_to_triples(_BY_NAME["windmill_no_save"](_temp_pm(srcs)))


def xchg_no_alias_update_srcs(srcs: List[int]) -> List[Tuple[str, int, int]]:
    """MUTANT xchg_no_alias_update (forgets where a swapped value went).

    pre: all(0 <= s < len(srcs) for s in srcs)
    post: implements(ParallelMove.from_map(srcs), triples_to_ops(__return__), "swap").ok
    """
    return ops_to_triples(_BY_NAME["xchg_no_alias_update"](ParallelMove.from_map(srcs)))


def shuf_swap_as_move_srcs(srcs: List[int]) -> List[Tuple[str, int, int]]:
    """MUTANT shuf_swap_as_move (emits a move where the cycle needs a swap).

    pre: all(0 <= s < len(srcs) for s in srcs)
    post: implements(ParallelMove.from_map(srcs), triples_to_ops(__return__), "swap").ok
    """
    return ops_to_triples(_BY_NAME["shuf_swap_as_move"](ParallelMove.from_map(srcs)))


#: the CrossHair targets of this module (qualified names)
CROSSHAIR_MUTANTS = [
    "tests.mutants.proof_mutants.leroy_no_cycle_srcs",
    "tests.mutants.proof_mutants.windmill_no_save_srcs",
    "tests.mutants.proof_mutants.xchg_no_alias_update_srcs",
    "tests.mutants.proof_mutants.shuf_swap_as_move_srcs",
]

__all__ = ["implements", "actions_to_ops"]
