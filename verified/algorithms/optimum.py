"""The optimum: the minimum number of operations that implement a parallel
move in a model, by closed forms (cross-checked by a breadth-first search
over machine states in the tests and by bounded synthesis in
``proofs/optimality.py``).

It lives with the algorithms, not in the oracle, because the permi model's
optimum *is* an algorithm (the copy-set dynamic program of
``verified/algorithms/copyset.py``); the oracle (``verified/core``) decides
correctness and imports nothing above it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.graph import CycleCounts, cycle_counts
from ..core.oracle import check_contract
from ..core.semantics import ParallelMove, check_model


@dataclass(frozen=True)
class Optimum:
    """The minimum sequence length for a request, or why there is none."""

    length: int | None
    #: when length is None: why (no sequence exists, or not computed)
    note: str | None = None


def optimum(pm: ParallelMove, model: str, preserve: str = "all") -> Optimum:
    """Minimum number of operations of ``model`` that implement ``pm``.

    * ``swap``: non-loop moves - cycles (each k-cycle takes k-1 swaps, each
      other move one mov).
    * ``temp``: non-loop moves + bare cycles, provided there is scratch room
      to break a bare cycle (a declared temporary, a destination outside
      every cycle, which is free until it is written, or under "loops" a
      dead location); without any, no sequence exists.
    * ``permi``: the copy-set dynamic program (``copyset.optimal_length``).
    * ``spill``: not computed.
    """
    check_model(model)
    check_contract(preserve)
    # the counts, not the windmills: a move over 2^20 registers stays small
    g = cycle_counts(pm)
    if model == "swap":
        return Optimum(g.non_loop_moves - g.cycles)
    if model == "temp":
        if g.bare_cycles == 0 or _has_scratch(pm, g, preserve):
            return Optimum(g.non_loop_moves + g.bare_cycles)
        return Optimum(
            None,
            "no sequence exists: the move has a cycle without blades and "
            "there is no location to break it with; declare a temporary "
            '(e.g. "temps": ["t"])',
        )
    if model == "permi":
        # imported here: the copy-set program brings the registry and every
        # permi algorithm, which a swap or temp optimum never needs
        from . import copyset
        return Optimum(copyset.optimal_length(pm, preserve))
    return Optimum(None, f"the optimum is not computed for the {model} model")


def _has_scratch(pm: ParallelMove, g: CycleCounts, preserve: str) -> bool:
    if pm.temps:
        return True
    # a destination outside every cycle: each location on a cycle is the
    # destination of exactly one non-loop move, so there is one iff the
    # non-loop moves outnumber the locations on cycles
    if g.non_loop_moves > g.on_cycle:
        return True
    if preserve == "loops":  # a dead location of the file: not a destination
        return pm.file_size() > len(pm.source_of)
    return False


# ---------------------------------------------------------------------------
# The closed forms as length bounds of the algorithms (registry ``bound=``)
# ---------------------------------------------------------------------------
# Each counts over flat arrays (``cycle_counts``), not the windmills: the
# bound is checked on every call, a huge request's too (the windmills of a
# 2^20-register cycle took 400 MB).


def moves_minus_cycles(pm: ParallelMove, _preserve: str = "all") -> int:
    """Non-loop moves - cycles: the swap model's optimum."""
    g = cycle_counts(pm)
    return g.non_loop_moves - g.cycles


def moves_plus_cycles(pm: ParallelMove, _preserve: str = "all") -> int:
    """Non-loop moves + cycles: one temporary copy per cycle."""
    g = cycle_counts(pm)
    return g.non_loop_moves + g.cycles


def moves_plus_bare_cycles(pm: ParallelMove, _preserve: str = "all") -> int:
    """Non-loop moves + bare cycles: the temp model's optimum (when a
    sequence exists)."""
    g = cycle_counts(pm)
    return g.non_loop_moves + g.bare_cycles
