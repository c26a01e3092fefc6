"""Machines, part 4: the per-unit interpreter.

The state maps each unit to the symbolic value it holds; ``step`` runs one
operation (a list operation part by part), ``execute`` a sequence.
"""

from __future__ import annotations

from typing import Iterable

from ..semantics import PreconditionError
from .description import UNDEFINED, Machine
from .locations import Place, units
from .operations import MMov, MOperation, parts

#: A machine state: unit -> the symbolic value it holds; a unit absent from
#: the mapping holds its own original value (its own name).
MState = dict


#: One effect of an operation on the units: ("copy", [(dst unit, src unit)]),
#: ("set", [(unit, value)]) or ("swap", [(unit a, unit b)]); the pairs of one
#: effect read all their units before writing any.
Effect = tuple


def effects(m: Machine, op: MOperation) -> list[Effect]:
    """What ``op`` does to the units, in order: a list operation part by
    part; a typed part moves (or exchanges) the type's low units and sets
    the rest of its destination(s) to ``UNDEFINED``; an immediate sets its
    pieces.  The operation must split (``parts``); legality is not checked
    here.  ``step`` and the optimum's search both run these (one semantics)."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    out: list[Effect] = []
    for p in split:
        w = m.type(p.type).width if p.type else None
        if isinstance(p, MMov):
            du = units(m, p.dst)
            n = len(du) if w is None else w
            if isinstance(p.src, Place):
                out.append(("copy", list(zip(du[:n], units(m, p.src)[:n]))))
            else:
                out.append(("set", [(u, p.src.piece(i, m.unit_bits))
                                    for i, u in enumerate(du[:n])]))
            if w is not None:
                out.append(("set", [(u, UNDEFINED) for u in du[w:]]))
        else:
            ua, ub = units(m, p.a), units(m, p.b)
            n = len(ua) if w is None else w
            out.append(("swap", list(zip(ua[:n], ub[:n]))))
            if w is not None:
                out.append(("set", [(u, UNDEFINED) for u in ua[w:] + ub[w:]]))
    return out


def step(m: Machine, state: MState, op: MOperation) -> None:
    """Run one operation on ``state`` in place (its ``effects``, each
    reading all its units before writing any)."""
    get = state.get
    for kind, pairs in effects(m, op):
        if kind == "set":
            for u, v in pairs:
                state[u] = v
        elif kind == "copy":
            vals = [get(s, s) for _, s in pairs]
            for (u, _), v in zip(pairs, vals):
                state[u] = v
        else:
            va = [get(a, a) for a, _ in pairs]
            vb = [get(b, b) for _, b in pairs]
            for (a, b), x, y in zip(pairs, va, vb):
                state[a], state[b] = y, x


def execute(m: Machine, ops: Iterable[MOperation], state: MState | None = None) -> MState:
    """The state after running ``ops`` from ``state`` (default: every unit
    holds its own name)."""
    state = {} if state is None else dict(state)
    for op in ops:
        step(m, state, op)
    return state
