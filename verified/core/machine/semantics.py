"""Machines, part 4: the per-unit interpreter.

The state maps each unit to the symbolic value it holds, and ``STACK`` to
the LIFO of hidden words that push and pop use (round 3); ``step`` runs one
operation (a list operation part by part), ``execute`` a sequence.
"""

from __future__ import annotations

from typing import Iterable

from ..semantics import PreconditionError
from .description import UNDEFINED, Machine
from .locations import Place, units
from .operations import MMov, MOperation, MPop, MPush, parts, words

#: A machine state: unit -> the symbolic value it holds; a unit absent from
#: the mapping holds its own original value (its own name).
MState = dict


#: The key of an ``MState`` that holds the LIFO of hidden words beside the
#: units (a tuple, top last; absent: empty).  Not a unit name (names start
#: with a letter or ``_``), so no unit ever reads it.
STACK = "^stack"
#: The key recording the first pop from an empty stack: (operation index,
#: words it takes, words there were); ``execute`` fills in the index.
UNDERFLOW = "^underflow"

#: One effect of an operation on the units: ("copy", [(dst unit, src unit)]),
#: ("set", [(unit, value)]) or ("swap", [(unit a, unit b)]); the pairs of one
#: effect read all their units before writing any.
Effect = tuple


def effects(m: Machine, op: MOperation) -> list[Effect]:
    """What ``op`` does to the units, in order: a list operation part by
    part; a typed part moves (or exchanges) the type's low units and sets
    the rest of its destination(s) to ``UNDEFINED``; an immediate sets its
    pieces.  The operation must split (``parts``); legality is not checked
    here.  ``step`` and the optimum's search both run these (one semantics).
    Remembered by the machine (``Memo``): the list is shared, so a
    caller reads it and never changes it."""
    return m.memo.ask(_effects, op, m, op)


def _effects(m: Machine, op: MOperation) -> list[Effect]:
    """``effects`` without the memo."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    out: list[Effect] = []
    if isinstance(op, (MPush, MPop)):
        return _stack_effects(m, op)
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


def _stack_effects(m: Machine, op: MOperation) -> list[Effect]:
    """("push", [(unit, None) or (None, constant piece)]): the words pushed,
    low first (the low one ends on top); ("pop", [unit, ...]): the units
    that take the top words, low first; then, typed, the rest of a popped
    destination set to ``UNDEFINED``."""
    n = words(m, op)
    if isinstance(op, MPush):
        if isinstance(op.src, Place):
            return [("push", [(u, None) for u in units(m, op.src)[:n]])]
        return [("push", [(None, op.src.piece(i, m.unit_bits)) for i in range(n)])]
    du = units(m, op.dst)
    out: list[Effect] = [("pop", list(du[:n]))]
    if n < len(du):
        out.append(("set", [(u, UNDEFINED) for u in du[n:]]))
    return out


def step(m: Machine, state: MState, op: MOperation) -> None:
    """Run one operation on ``state`` in place (its ``effects``, each
    reading all its units before writing any)."""
    apply_effects(state, effects(m, op))


def apply_effects(state: MState, effs: list[Effect]) -> None:
    """Run one operation's ``effects`` on ``state`` in place, each reading
    all its units before writing any (``step``; a caller that kept an
    operation's effects runs them here)."""
    get = state.get
    for kind, pairs in effs:
        if len(pairs) == 1 and kind == "copy":  # the usual one: one unit copied
            u, src = pairs[0]
            state[u] = get(src, src)
        elif len(pairs) == 1 and kind == "swap":  # and one unit swapped
            a, b = pairs[0]
            state[a], state[b] = get(b, b), get(a, a)
        elif kind == "set":
            for u, v in pairs:
                state[u] = v
        elif kind == "push":
            pushed = [get(u, u) if u is not None else v for u, v in pairs]
            state[STACK] = get(STACK, ()) + tuple(reversed(pushed))
        elif kind == "pop":
            stack = get(STACK, ())
            if len(stack) < len(pairs):  # a pop from an empty stack: recorded, judged
                state.setdefault(UNDERFLOW, (None, len(pairs), len(stack)))
                stack = (UNDEFINED,) * (len(pairs) - len(stack)) + stack
            for i, u in enumerate(pairs):
                state[u] = stack[-1 - i]
            state[STACK] = stack[:len(stack) - len(pairs)]
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
    return run_effects((effects(m, op) for op in ops), state)


def run_effects(effs: Iterable[list[Effect]], state: MState | None = None) -> MState:
    """``execute`` of the operations whose ``effects`` are ``effs``, in
    order: the state after them from ``state`` (default: every unit holds
    its own name), the first pop from an empty stack recorded with its
    operation's index."""
    state = {} if state is None else dict(state)
    for i, one in enumerate(effs):
        apply_effects(state, one)
        if state.get(UNDERFLOW, (0,))[0] is None:
            state[UNDERFLOW] = (i,) + state[UNDERFLOW][1:]
    return state
