"""Machines, part 4: the per-unit interpreter.

The state maps each unit to the symbolic value it holds; ``step`` runs one
operation (a list operation part by part), ``execute`` a sequence.
"""

from __future__ import annotations

from typing import Iterable

from ..semantics import PreconditionError
from .description import Machine
from .locations import Place, units
from .operations import MMov, MOperation, parts

#: A machine state: unit -> the symbolic value it holds; a unit absent from
#: the mapping holds its own original value (its own name).
MState = dict


def step(m: Machine, state: MState, op: MOperation) -> None:
    """Run one operation on ``state`` in place (a list operation part by
    part, each part reading all its units before writing any).  The
    operation must split (``parts``); legality is not checked here."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    get = state.get
    for p in split:
        if isinstance(p, MMov):
            du = units(m, p.dst)
            vals = [get(u, u) for u in units(m, p.src)] if isinstance(
                p.src, Place) else [p.src.piece(i) for i in range(len(du))]
            for u, v in zip(du, vals):
                state[u] = v
        else:
            ua, ub = units(m, p.a), units(m, p.b)
            va, vb = [get(u, u) for u in ua], [get(u, u) for u in ub]
            for u, v in zip(ua, vb):
                state[u] = v
            for u, v in zip(ub, va):
                state[u] = v


def execute(m: Machine, ops: Iterable[MOperation], state: MState | None = None) -> MState:
    """The state after running ``ops`` from ``state`` (default: every unit
    holds its own name)."""
    state = {} if state is None else dict(state)
    for op in ops:
        step(m, state, op)
    return state
