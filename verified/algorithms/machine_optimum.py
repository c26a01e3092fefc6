"""The optimum on a machine: the minimum total cost (``core.machine.cost``)
of any legal sequence that implements a machine request, or None with the
reason (no legal sequence exists, or it is not computed).
``verified check`` puts it in ``"optimal"`` (``docs/machines.md``).

Two ways, cross-checked on every small request by
``tests/machines/test_machine_optimum.py``:

1. **Search (the ground truth)**: Dijkstra over whole-machine states (one
   symbolic value per unit, ``core.machine.step``), from the state where
   every unit holds its own name, to any state the oracle's contract
   accepts; A* with the admissible estimate "each operation finishes at
   most as many units as the widest operation writes, at the cheapest
   price".  It runs when the machine has at most ``SEARCH_UNITS`` units
   and stops after ``SEARCH_STATES`` states (then: not computed).  An
   exhausted search proves that no legal sequence exists.  Operations
   searched: every legal ``mov``/``swap`` between two registers or slots
   (untyped, and typed with each type the request's moves name), and
   every legal ``mov`` of one of the request's immediates into a
   register or slot of the immediate's width or into one of the request's
   own list destinations (a list operation between registers is its parts
   in sequence, at the sum of their costs, so it is covered by the
   single-location ones).

2. **Closed form T** (for machines of any size, where it applies): on a
   machine whose every register and slot has width 1, that has no swap at
   all, and whose five costs are one number c, a request in which every
   unit move (a list is its parts) is one legal ``mov`` of its own
   (register<-register of a class, load, store, constant where the machine
   takes it; no slot<-slot), in which every *bare cycle* (a cycle of the
   transfer graph that no other destination reads) can be broken through a
   declared temporary register t (``mov t, x`` and ``mov pred(x), t``
   legal for a node x of the cycle), and in which every other cycle has a
   node x with a blade e (a destination outside the cycle reading x) such
   that ``mov pred(x), e`` is legal and not slot<-slot:

       optimum = c * (n + B)

   n = destination units whose value changes, B = bare cycles.

   *Proof.* Upper bound: write the acyclic part in reverse topological
   order (each move once, when no pending move reads its destination),
   which leaves exactly the cycles; a cycle with a blade e on node x is
   opened by the blade's copy (e holds x's value, so x is free once e is
   written; x's predecessor then reads the value from e, one legal mov in
   place of its own move: still one operation per destination); break each bare
   cycle with ``mov t, x``, walk it, ``mov pred(x), t``: n + B operations,
   each of price c.  Lower bound: without swaps every operation writes
   one unit.  Each of the n destinations needs a last write, a distinct
   operation each.  For a bare cycle K, look at the first operation that
   writes a unit of K, say d.  d's original value v_d is read by the
   cycle's predecessor of d, which is not finished yet, so v_d must
   already be held by another unit: an earlier operation copied v_d out,
   into a unit outside K (this is the first write into K).  That copy is
   not the last write of any destination e: then e's source would be d,
   so e is in K (excluded) or a blade of K (K is bare).  And it copies a
   value of K, so it is charged to K alone.  So every sequence has at
   least n + B operations, each of price c.  Nothing here depends on the
   contract ("all" only adds constraints; "loops" does not remove a
   destination).  The search confirms it on every small request of the
   test machines (counts in ``docs/machines.md``, "Optimum").

``optimum(request)`` tries the closed form, then the search; a request
neither covers gets None with a note.
"""

from __future__ import annotations

import heapq
import itertools

from ..core import machine as M
from ..core.machine import MachineOptimum, MachineRequest

#: the search runs on machines of at most this many units
SEARCH_UNITS = 8
#: and gives up (not computed) after this many states
SEARCH_STATES = 400_000

NO_SEQUENCE = ("no sequence exists: no legal sequence of this machine's operations "
               "implements the move (search over every machine state)")


def optimum(req: MachineRequest) -> MachineOptimum:
    """The minimum total cost of a legal sequence implementing ``req``
    (``docs/machines.md``): closed form T where it applies, else the search
    on a small machine, else None with the reason."""
    mm, preserve = req.move, req.preserve
    closed = closed_form(mm)
    if closed is not None:
        return MachineOptimum(closed)
    n = len(mm.machine.units())
    if n > SEARCH_UNITS:
        return MachineOptimum(None, f"not computed: {mm.machine.name} has {n} units; the "
                              f"search covers machines of at most {SEARCH_UNITS} units and "
                              "the closed form does not apply to this request")
    best, why = search(mm, preserve)
    if best is None:
        return MachineOptimum(None, why)
    return MachineOptimum(best)


# ---------------------------------------------------------------------------
# 1. The search
# ---------------------------------------------------------------------------


def goals(mm: M.MachineMove, preserve: str) -> dict:
    """unit -> the value it must hold at the end (the oracle's contract)."""
    out = dict(mm.expected())
    if preserve == "all":
        free = mm.temp_units() | mm.written()   # a typed destination's rest is free
        for u in mm.machine.units():
            if u not in out and u not in free:
                out[u] = u
    return out


def _piece_movs(m: M.Machine, d: M.Place, s: M.Imm, w: int) -> list:
    """The constant's pieces for each part of an aliased destination (a
    16-byte slot over two 8-byte ones, issue 23), each as the constant of
    its own that a mov writes (on a machine with ``unit_bits``), into any
    place of the part's width: a destination that takes no immediate may
    take one in each part (``resolve``'s ``_imm_by_parts``)."""
    parts = dict(m.aliases).get(d.parts[0], ()) if not d.is_list else ()
    if not m.unit_bits or not parts:
        return []
    out, k = [], 0
    for part in parts:
        n = m.lookup(part).width
        if k + n > w:
            break
        c = (s.value >> (k * m.unit_bits)) & ((1 << (n * m.unit_bits)) - 1)
        c -= (1 << (n * m.unit_bits)) if c >> (n * m.unit_bits - 1) else 0
        for p in m.names():
            op = M.MMov(M.Place((p,)), M.Imm(c))
            if m.lookup(p).width == n and M.illegal(m, op) is None:
                out.append(op)
        k += n
    return out


def operations(mm: M.MachineMove) -> list:
    """Every operation the search tries (see the module docstring)."""
    m = mm.machine
    names = m.names()
    singles = [M.Place((n,)) for n in names]
    ops: list = []
    # untyped operations, then typed ones for each type the request names
    # (a typed operation moves fewer units: it can be what an optimum needs)
    for typ in (None, *sorted({t for t in mm.types if t})):
        for a, b in itertools.permutations(singles, 2):
            if M.illegal(m, M.MMov(a, b, typ)) is None:
                ops.append(M.MMov(a, b, typ))
        for a, b in itertools.combinations(singles, 2):
            if M.illegal(m, M.MSwap(a, b, typ)) is None:
                ops.append(M.MSwap(a, b, typ))
    for d, s, typ in mm.typed_moves():
        if not isinstance(s, M.Imm):
            continue
        # the constant's width: its destination's, or its type's (written
        # untyped into a place that wide, or typed into any place holding it)
        w = M.width(m, d) if typ is None else m.type(typ).width
        targets = [(p, None) for p in singles if M.width(m, p) == w]
        if typ is not None:
            targets += [(p, typ) for p in singles]
        if d.is_list:
            targets.append((d, typ))
        for p, t in targets:
            op = M.MMov(p, s, t)
            if M.illegal(m, op) is None and op not in ops:
                ops.append(op)
        ops += [op for op in _piece_movs(m, d, s, w) if op not in ops]
    # a profile's reserved registers are never written
    return [op for op in ops if M.reserved_write(m, op) is None]


#: why the optimum is not computed on a machine with push or pop (a pushed
#: word is storage the search does not model: it could only under-report)
STACK_OPS_NOTE = ("not computed: {name} has push/pop, which the search does not "
                  "enumerate (docs/machines.md, Stack operations)")


def search(mm: M.MachineMove, preserve: str = "all",
           max_states: int = SEARCH_STATES) -> tuple[int | None, str | None]:
    """(minimum cost, None), or (None, why): no sequence exists (the search
    exhausted every reachable state), or the state cap was hit."""
    best, why, _ = search_sequence(mm, preserve, max_states)
    return best, why


def search_sequence(mm: M.MachineMove, preserve: str = "all",
                    max_states: int = SEARCH_STATES) -> tuple[int | None, str | None, list]:
    """``search`` with one optimal sequence (empty when there is none)."""
    m = mm.machine
    if m.push or m.pop:  # the search enumerates mov and swap only: it proves nothing here
        return None, STACK_OPS_NOTE.format(name=m.name), []
    units = list(m.units())
    index = {u: i for i, u in enumerate(units)}
    goal = goals(mm, preserve)
    want = [(index[u], v) for u, v in goal.items()]
    start = tuple(units)
    ops = operations(mm)
    # each op as (cost, its effects on unit indices): the oracle's own
    # semantics (``core.machine.effects``), compiled once
    compiled = []
    for op in ops:
        writes = []
        for kind, pairs in M.effects(m, op):
            if kind == "set":
                writes.append(("set", [(index[u], v) for u, v in pairs]))
            else:
                writes.append((kind, [(index[x], index[y]) for x, y in pairs]))
        compiled.append((M.op_cost(m, op), writes))
    if not compiled:
        cheapest, widest = 1, 1
    else:
        cheapest = min(c for c, _ in compiled)
        widest = max(sum(len(p) * (2 if k == "swap" else 1) for k, p in w)
                     for _, w in compiled)

    def estimate(state: tuple) -> int:
        wrong = sum(1 for i, v in want if state[i] != v)
        return -(-wrong // widest) * cheapest

    def apply(state: tuple, writes) -> tuple:
        s = list(state)
        for k, pairs in writes:
            if k == "set":
                for i, v in pairs:
                    s[i] = v
            elif k == "copy":
                vals = [s[j] for _, j in pairs]
                for (i, _), v in zip(pairs, vals):
                    s[i] = v
            else:
                va = [s[i] for i, _ in pairs]
                vb = [s[j] for _, j in pairs]
                for (i, j), x, y in zip(pairs, va, vb):
                    s[i], s[j] = y, x
        return tuple(s)

    best = {start: 0}
    came: dict = {}
    tick = itertools.count()
    heap = [(estimate(start), next(tick), 0, start)]
    while heap:
        _, _, g, state = heapq.heappop(heap)
        if best.get(state, g) < g:
            continue
        if all(state[i] == v for i, v in want):
            path = []
            while state in came:
                state, k = came[state]
                path.append(ops[k])
            return g, None, path[::-1]
        if len(best) > max_states:
            return None, (f"not computed: the search stopped after {max_states:,} machine "
                          "states"), []
        for k, (c, writes) in enumerate(compiled):
            nxt = apply(state, writes)
            ng = g + c
            if ng < best.get(nxt, ng + 1):
                best[nxt] = ng
                came[nxt] = (state, k)
                heapq.heappush(heap, (ng + estimate(nxt), next(tick), ng, nxt))
    return None, NO_SEQUENCE, []


# ---------------------------------------------------------------------------
# 2. Closed form T
# ---------------------------------------------------------------------------


def _uniform_cost(m: M.Machine) -> int | None:
    c = m.cost
    prices = {c.mov, c.load, c.store, c.swap, c.imm}
    return c.mov if len(prices) == 1 else None


def _has_swap(m: M.Machine) -> bool:
    return bool(m.swap) or any(cl.swap for cl in m.classes)


def closed_form(mm: M.MachineMove) -> int | None:
    """Closed form T (module docstring), or None when it does not apply."""
    m = mm.machine
    c = _uniform_cost(m)
    if c is None or _has_swap(m) or mm.types:
        return None  # typed moves: the search decides
    if m.push or m.pop:
        return None  # its proof counts mov and swap only
    if any(m.lookup(n).width != 1 for n in m.names()):
        return None
    # unit moves: dst unit -> (source unit or None for a constant, the op)
    src_of: dict = {}
    for d, s in mm.moves:
        parts = M.parts(m, M.MMov(d, s))
        if isinstance(parts, str):
            return None
        for p in parts:
            du = M.units(m, p.dst)[0]
            if isinstance(p.src, M.Imm):
                if M.illegal(m, p) is not None:
                    return None
                src_of[du] = None
                continue
            su = M.units(m, p.src)[0]
            if du == su:
                continue
            if M.illegal(m, p) is not None or M.classify(m, p) == "mem<-mem":
                return None  # not one operation of price c
            src_of[du] = su
    n = len(src_of)
    readers: dict = {}
    for d, s in src_of.items():
        if s is not None:
            readers.setdefault(s, []).append(d)
    bare = 0
    seen: set = set()
    temps = [t.parts[0] for t in mm.temps if m.lookup(t.parts[0]).kind == "reg"
             and not t.is_list]
    for start in src_of:
        if start in seen:
            continue
        # walk sources from start; a cycle is found when the walk returns
        path, x = [], start
        while x is not None and x in src_of and x not in seen and x not in path:
            path.append(x)
            x = src_of[x]
        seen.update(path)
        if x is None or x not in path:
            continue
        cycle = path[path.index(x):]
        pred_of = {src_of[d]: d for d in cycle}
        if any(len(readers.get(u, ())) > 1 for u in cycle):
            # a blade e reads node x: x is free once e is written, and its
            # predecessor reads x's value from e, which must be one legal mov
            if not any(_one_op(m, M.MMov(M.Place((m.owner(pred_of[x]),)),
                                         M.Place((m.owner(e),))))
                       for x in cycle for e in readers.get(x, ()) if e not in cycle):
                return None
            continue
        bare += 1
        node = cycle[0]
        pred = pred_of[node]
        if not any(M.illegal(m, M.MMov(M.Place((t,)), M.Place((m.owner(node),)))) is None
                   and M.illegal(m, M.MMov(M.Place((m.owner(pred),)), M.Place((t,)))) is None
                   for t in temps):
            return None
    return c * (n + bare)


def _one_op(m: M.Machine, op: M.MOperation) -> bool:
    """One legal operation of price c (a slot-to-slot mov costs two)."""
    return M.illegal(m, op) is None and M.classify(m, op) != "mem<-mem"
