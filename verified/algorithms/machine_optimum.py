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

import functools
import heapq
import itertools

from ..core import machine as M
from ..core.machine import MachineOptimum, MachineRequest
from ..core.semantics import PreconditionError

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


def stack_operations(mm: M.MachineMove) -> list:
    """Every push and pop the search tries: a push of every register or
    slot the machine pushes and of each of the request's immediates, a pop
    into every register or slot it pops into; untyped, and typed with each
    type the request's moves name."""
    m = mm.machine
    if not (m.push or m.pop):
        return []
    singles = [M.Place((n,)) for n in m.names()]
    imms = [s for _, s, _ in mm.typed_moves() if isinstance(s, M.Imm)]
    ops: list = []
    for typ in (None, *sorted({t for t in mm.types if t})):
        for p in [*singles, *imms]:
            op = M.MPush(p, typ)
            if M.illegal(m, op) is None and op not in ops:
                ops.append(op)
        for p in singles:
            op = M.MPop(p, typ)
            if M.illegal(m, op) is None:
                ops.append(op)
    return [op for op in ops if M.reserved_write(m, op) is None]


#: a value no goal wants: every such value is the same to the search (an
#: operation copies values without looking at them, and the goals name
#: only wanted ones), so states that differ only there are one state
JUNK = None


def search(mm: M.MachineMove, preserve: str = "all",
           max_states: int = SEARCH_STATES) -> tuple[int | None, str | None]:
    """(minimum cost, None), or (None, why): no sequence exists (the search
    exhausted every reachable state), or the state cap was hit, or (with
    push/pop) no sequence whose stack stays within the depth searched."""
    best, why, _ = search_sequence(mm, preserve, max_states)
    return best, why


def stack_depth(m: M.Machine, cost: int) -> int | None:
    """The stack depth (words) the search must allow so that no sequence
    costing at most ``cost`` is cut off: a sequence whose stack ever holds
    more than D words pushes, and pops, at least ceil((D + 1) / W) times
    (W: the most words one push moves), so it costs at least that many
    times push + pop; None when push + pop is free (no depth bounds it)."""
    per = m.cost.push + m.cost.pop
    if per <= 0:
        return None
    w = max([1] + [M.width(m, M.Place((n,))) for n in m.names()])
    # k: the fewest pushes whose price with their pops exceeds ``cost``;
    # a stack deeper than (k - 1) * w words needs at least k pushes
    k = cost // per + 1
    return (k - 1) * w


def search_sequence(mm: M.MachineMove, preserve: str = "all",
                    max_states: int = SEARCH_STATES) -> tuple[int | None, str | None, list]:
    """``search`` with one optimal sequence (empty when there is none).

    With push and pop the state is the units and the stack's words, and
    the stack is unbounded, so the search runs with a depth cap D and
    checks afterwards that no sequence deeper than D could have been
    cheaper (``stack_depth``); it deepens until that holds.  An exhausted
    search with push/pop proves only that no sequence keeps its stack
    within D words (said in the note), never that none exists."""
    m = mm.machine
    if not (m.push or m.pop):
        return _search(mm, preserve, max_states, None)
    # a shallow stack first (most answers push a word or two), deepened
    # until no deeper sequence could be cheaper; found nothing: once more
    # as deep as the machine has units
    depth, widest = min(2, len(m.units())), len(m.units())
    while True:
        best, why, path = _search(mm, preserve, max_states, depth)
        if best is None:
            if why == NO_SEQUENCE and depth < widest:
                depth = widest
                continue
            if why == NO_SEQUENCE:
                why = (f"not computed: no sequence whose stack holds at most {depth} words "
                       f"(push/pop: a deeper stack is not searched, so this does not prove "
                       f"that none exists)")
            return best, why, path
        need = stack_depth(m, best)
        if need is None:
            return None, ("not computed: push and pop cost nothing on "
                          f"{m.name}, so no stack depth bounds the search"), []
        if need <= depth:
            return best, why, path
        depth = need


def _search(mm: M.MachineMove, preserve: str, max_states: int,
            depth: int | None) -> tuple[int | None, str | None, list]:
    """Dijkstra / A* over states (the units' values, then the stack's words
    when the machine has push/pop; ``depth``: the most words the stack may
    hold)."""
    m = mm.machine
    units = list(m.units())
    index = {u: i for i, u in enumerate(units)}
    goal = goals(mm, preserve)
    want = [(index[u], v) for u, v in goal.items()]
    wanted = set(goal.values())
    #: goal values only a unit's original value can give (no operation makes them)
    originals = {v for v in wanted if v in index}
    keep = (lambda v: v if v in wanted else JUNK)  # noqa: E731
    start = tuple(keep(u) for u in units)
    ops = operations(mm) + (stack_operations(mm) if depth is not None else [])
    # each op as (cost, its effects on unit indices): the oracle's own
    # semantics (``core.machine.effects``), compiled once
    compiled = []
    for op in ops:
        writes = []
        for kind, pairs in M.effects(m, op):
            if kind == "set":
                writes.append(("set", [(index[u], keep(v)) for u, v in pairs]))
            elif kind == "push":
                writes.append(("push", [(None if u is None else index[u],
                                         None if u is not None else keep(v))
                                        for u, v in pairs]))
            elif kind == "pop":
                writes.append(("pop", [index[u] for u in pairs]))
            else:
                writes.append((kind, [(index[x], index[y]) for x, y in pairs]))
        compiled.append((M.op_cost(m, op), writes))
    if not compiled:
        cheapest, widest = 1, 1
    else:
        cheapest = min(c for c, _ in compiled)
        widest = max(sum(len(p) * (2 if k == "swap" else 1) for k, p in w if k != "push")
                     for _, w in compiled)
        widest = max(widest, 1)

    def estimate(state: tuple) -> int:
        wrong = sum(1 for i, v in want if state[i] != v)
        return -(-wrong // widest) * cheapest

    def alive(state: tuple, stack: tuple) -> bool:
        """Is every goal value that only an original unit gives still held?"""
        if not originals:
            return True
        held = set(state)
        held.update(stack)
        return originals <= held

    def apply(state: tuple, stack: tuple, writes) -> tuple | None:
        s = list(state)
        for k, pairs in writes:
            if k == "set":
                for i, v in pairs:
                    s[i] = v
            elif k == "copy":
                vals = [s[j] for _, j in pairs]
                for (i, _), v in zip(pairs, vals):
                    s[i] = v
            elif k == "push":
                pushed = [s[i] if i is not None else v for i, v in pairs]
                stack = stack + tuple(reversed(pushed))
                if len(stack) > depth:
                    return None
            elif k == "pop":
                if len(stack) < len(pairs):
                    return None  # an underflow is a wrong sequence
                for n, i in enumerate(pairs):
                    s[i] = stack[-1 - n]
                stack = stack[:len(stack) - len(pairs)]
            else:
                va = [s[i] for i, _ in pairs]
                vb = [s[j] for _, j in pairs]
                for (i, j), x, y in zip(pairs, va, vb):
                    s[i], s[j] = y, x
        return tuple(s), stack

    first = (start, ())
    best = {first: 0}
    came: dict = {}
    tick = itertools.count()
    heap = [(estimate(start), next(tick), 0, first)]
    while heap:
        _, _, g, node = heapq.heappop(heap)
        if best.get(node, g) < g:
            continue
        state, stack = node
        if not stack and all(state[i] == v for i, v in want):
            path = []
            while node in came:
                node, k = came[node]
                path.append(ops[k])
            return g, None, path[::-1]
        if len(best) > max_states:
            return None, (f"not computed: the search stopped after {max_states:,} machine "
                          "states"), []
        for k, (c, writes) in enumerate(compiled):
            nxt = apply(state, stack, writes)
            if nxt is None or not alive(*nxt):
                continue
            ng = g + c
            if ng < best.get(nxt, ng + 1):
                best[nxt] = ng
                came[nxt] = (node, k)
                heapq.heappush(heap, (ng + estimate(nxt[0]), next(tick), ng, nxt))
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


# ---------------------------------------------------------------------------
# 3. Large machines: a proof of impossibility, and the sub-machine
# ---------------------------------------------------------------------------


def no_free_unit(mm: M.MachineMove, preserve: str) -> str | None:
    """Why no sequence exists, by the *no free unit* lemma, or None when it
    does not apply.  It applies on a machine of any size when (1) the
    contract is "all" and every unit has a goal (no temporary, no typed
    destination's free rest), (2) every unit's original value is some
    goal's value, (3) the machine has no swap and no push, and (4) the
    request is not already done.

    *Proof.*  Initially every unit holds its own value, all distinct.
    Without swap and push the operations are movs (a pop with nothing
    pushed is a wrong sequence).  Take the first operation that changes the
    state: it overwrites some unit u with another value (a typed mov's rest
    becomes undefined: also another value).  Every earlier operation
    changed nothing, so u's original value was held by u alone, and no
    operation makes a unit's original value (a mov copies, an immediate is
    a constant): it is lost, and by (2) a goal needs it.  So every sequence
    that implements the move changes nothing, and by (4) such a sequence
    does not implement it."""
    m = mm.machine
    if preserve != "all" or _has_swap(m) or m.push:
        return None
    goal = goals(mm, preserve)
    units = m.units()
    if len(goal) != len(units) or not set(units) <= set(goal.values()):
        return None
    if all(goal[u] == u for u in units):
        return None
    return (f"every unit of {m.name} must keep or pass on its value (preserve all, no "
            f"temporary, every destination's old value read elsewhere) and {m.name} has no "
            f"swap and no push, so the first operation that changes anything overwrites the "
            f"only copy of a value the move needs (the no-free-unit lemma, "
            f"verified/algorithms/machine_optimum.py)")


def _reach(starts, edges) -> set:
    """Every node reachable from ``starts`` along ``edges`` (node -> its
    successors), ``starts`` included."""
    seen, todo = set(starts), list(starts)
    while todo:
        for w in edges.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _closure(m: M.Machine, names: set[str]) -> set[str]:
    """``names`` with their alias parts, and every name of ``m`` whose
    units all belong to them (``d0`` once ``s0`` and ``s1`` are in)."""
    out = _reach(names, dict(m.aliases))
    have = {u for n in out for u in m.lookup(n).units}
    return out | {n for n in m.names() if set(m.lookup(n).units) <= have}


def sub_request(mm: M.MachineMove, spares: int = 1) -> tuple[M.MachineMove, tuple[str, ...]]:
    """The request on the **sub-machine** of ``mm``: the locations its moves
    and temporaries name (with their alias parts), plus ``spares`` spare
    registers of each class and ``spares`` spare slots of each stack group
    whose width is the width of a location the request names (the
    profile's scratch first, then registers without alias parts, then the
    first ones; never a reserved register), every other field of the
    machine kept.  A spare's units keep
    their values under "all" like the whole machine's other units, so a
    sequence found there is one of the whole machine (its other units are
    never named).  Returns the request and the spares' names."""
    m = mm.machine
    named: set[str] = set()
    for d, s in mm.moves:
        named.update(d.parts)
        if isinstance(s, M.Place):
            named.update(s.parts)
    for t in mm.temps:
        named.update(t.parts)
    keep = _closure(m, named)
    used = {u for n in keep for u in m.lookup(n).units}
    chosen: list[str] = []

    def take(candidates) -> None:
        nonlocal keep, used
        got = 0
        ordered = sorted(candidates, key=lambda r: (r not in m.scratch,
                                                    bool(dict(m.aliases).get(r))))
        for r in ordered:
            if got == spares:
                return
            more = _closure(m, {r})
            units = {u for n in more for u in m.lookup(n).units}
            if r in keep or units & used or more & set(m.reserved):
                continue
            keep |= more
            used |= units
            chosen.append(r)
            got += 1

    widths = {m.lookup(n).width for n in named}
    # the widest classes first: a spare q register brings its d and s
    # halves along, where a spare s or d taken first would leave no q free
    for c in sorted(m.classes, key=lambda c: -c.width):
        if c.width in widths:
            take(c.registers)
    for g in m.stack:
        if g.width in widths:
            take(g.names)
    full = m.to_json()
    classes = {}
    for name, entry in full["classes"].items():
        regs = [r for r in entry["registers"] if r in keep]
        if regs:
            classes[name] = {**entry, "registers": regs}
    obj = {**full, "name": f"{m.name}/sub", "classes": classes,
           "aliases": {a: p for a, p in full.get("aliases", {}).items() if a in keep}}
    if "stack" in full:
        obj["stack"] = [{**g, "names": [x for x in g["names"] if x in keep]}
                        for g in full["stack"] if any(x in keep for x in g["names"])]
    if "types" in full:
        obj["types"] = {t: {**e, "classes": [c for c in e["classes"] if c in classes]}
                        for t, e in full["types"].items()
                        if e["stack"] or any(c in classes for c in e["classes"])}
    for key in ("reserved", "scratch"):
        if key in full:
            obj[key] = [r for r in full[key] if r in keep]
    if "pair_moves" in full:
        obj["pair_moves"] = [p for p in full["pair_moves"]
                             if p["pair"] in classes and p["with"] in (*classes, "mem")]
    sub = M.machine_from_json(obj)
    req = mm.to_json()
    return M.MachineMove.make(sub, req["moves"], req["temps"]), tuple(chosen)


@functools.lru_cache(maxsize=16)
def _universe(m: M.Machine) -> tuple:
    """Every legal single-location operation of ``m`` that writes no
    reserved register: mov and swap between two registers or slots,
    untyped and typed with each of the machine's types, push and pop, and
    a constant write (the constant 0 stands for any: 0 always fits where
    one does).  A list operation is these in sequence; pair moves are
    not here (``_flow`` and ``_enterable`` over-approximate them)."""
    singles = [M.Place((n,)) for n in m.names()]
    ops: list = []
    types = (None, *(t.name for t in m.types))
    for typ in types:
        for a, b in itertools.permutations(singles, 2):
            ops.append(M.MMov(a, b, typ))
            ops.append(M.MSwap(a, b, typ))
        for p in singles:
            ops += [M.MPush(p, typ), M.MPop(p, typ), M.MMov(p, M.Imm(0), typ)]
        ops.append(M.MPush(M.Imm(0), typ))
    out = []
    for op in ops:
        try:
            if M.illegal(m, op) is not None or M.reserved_write(m, op) is not None:
                continue
        except PreconditionError:   # an operation that does not split: none
            continue
        out.append(op)
    return tuple(out)


def _post(m: M.Machine, op: M.MOperation) -> dict:
    """What ``op`` leaves in each unit it writes, in terms of the state
    before it: ("unit", u) (u's old value), "const", "undefined", or
    "stack" (a popped word); a unit left as it was is not listed."""
    post: dict = {}
    for kind, pairs in M.effects(m, op):
        if kind == "copy":
            got = [post.get(s, ("unit", s)) for _, s in pairs]
            for (w, _), v in zip(pairs, got):
                post[w] = v
        elif kind == "swap":
            for a, b in pairs:
                post[a], post[b] = post.get(b, ("unit", b)), post.get(a, ("unit", a))
        elif kind == "set":
            for u, v in pairs:
                post[u] = "undefined" if v == M.UNDEFINED else "const"
        elif kind == "pop":
            for u in pairs:
                post[u] = "stack"
    return {u: v for u, v in post.items() if v != ("unit", u)}


def _lost(post: dict) -> int:
    """How many units' old values an operation leaves nowhere."""
    kept = {v[1] for v in post.values() if isinstance(v, tuple)}
    return sum(1 for u in post if u not in kept)


@functools.lru_cache(maxsize=64)
def _flow(m: M.Machine, limit: int | None = None) -> tuple[dict, frozenset]:
    """The value-flow graph of ``m`` (``unreachable_goal``): unit -> the
    units some legal operation copies it into, over ``_universe`` (push/pop
    through the node "^stack") and pair moves (over-approximated: every
    unit of the single side to and from every unit of the pair's class);
    and the units a legal constant write can set.  With ``limit`` (the
    capacity lemma, ``over_capacity``): only the operations that leave at
    most ``limit`` units' old values nowhere (a pair move loses the width
    of the side it writes, which is the single side's width)."""
    edges: dict = {}
    marked: set = set()
    for op in _universe(m):
        if limit is not None and _lost(_post(m, op)) > limit:
            continue
        for kind, pairs in M.effects(m, op):
            if kind == "copy":
                for w, u in pairs:
                    edges.setdefault(u, set()).add(w)
            elif kind == "swap":
                for a, b in pairs:
                    edges.setdefault(a, set()).add(b)
                    edges.setdefault(b, set()).add(a)
            elif kind == "set" and isinstance(op, M.MMov) and isinstance(op.src, M.Imm):
                marked.update(u for u, v in pairs if v != M.UNDEFINED)
            elif kind == "push":
                for u, _ in pairs:
                    if u is None:
                        marked.add("^stack")
                    else:
                        edges.setdefault(u, set()).add("^stack")
            elif kind == "pop":
                edges.setdefault("^stack", set()).update(pairs)
    for pm in m.pair_moves:
        side, other = _pair_sides(m, pm, limit)
        for u in side:
            edges.setdefault(u, set()).update(other)
        for u in other:
            edges.setdefault(u, set()).update(side)
    return edges, frozenset(marked)


def _pair_sides(m: M.Machine, pm: M.PairMove, limit: int | None = None) -> tuple[list, list]:
    """The units of a pair move's two sides: every register of the pair's
    class, and every single location it may meet (of at most ``limit``
    units; none of either side when there is no such location)."""
    ones = [n for n in (m.slots() if pm.other == "mem" else m.registers(pm.other))
            if limit is None or m.lookup(n).width <= limit]
    if not ones:
        return [], []
    side = [u for n in m.registers(pm.pair) for u in m.lookup(n).units]
    return side, [u for n in ones for u in m.lookup(n).units]


def unreachable_goal(mm: M.MachineMove, preserve: str) -> str | None:
    """Why no sequence exists by **value flow**, or None: some goal unit can
    never receive its goal value, whatever the order of operations.

    *Proof.*  ``_flow`` draws an edge u -> w when some legal operation of
    the machine can carry the value of unit u into unit w (a mov, a swap
    both ways, a pushed unit into any popped one, a pair move: an
    over-approximation), and marks every unit a constant write can set.
    In any sequence, a unit's value at any time came along a path of such
    edges from the unit that held it first, or, for a piece of a constant,
    from a marked unit: each step of the value's history is one legal
    operation's copy.  So a goal value with no such path to its goal unit
    is never there at the end.  (A piece of a constant is a bit pattern:
    any constant may produce it, hence every marked unit.)"""
    what = _unreachable(mm, None)
    if what is None:
        return None
    return (f"no legal operation of {mm.machine.name}, in any order, can carry {what} "
            f"(value flow over every legal operation, verified/algorithms/machine_optimum.py, "
            f"unreachable_goal)")


def _unreachable(mm: M.MachineMove, limit: int | None) -> str | None:
    """The first goal unit no path of ``_flow(machine, limit)`` brings its
    goal value to (``unreachable_goal``), said as "the original value of X
    into Y", or None."""
    m = mm.machine
    units = set(m.units())
    reached = _reached(m, limit)
    # the destinations' values only (what any contract adds is a unit
    # keeping its own value, which needs no path) (issue 20: the whole goal map
    # was built for each declined case of a conform run)
    for u, v in sorted(mm.expected().items()):
        if u == v:
            continue
        start = v if v in units else _MARKED
        ok = reached.get(start)
        if ok is None:
            edges, marked = _flow(m, limit)
            ok = reached[start] = frozenset(_reach({v} if v in units else marked, edges))
        if u not in ok:
            what = f"the original value of {m.owner(v)}" if v in units else f"the piece {v}"
            return f"{what} into {m.owner(u)}"
    return None


#: ``_reached``'s key of the units reachable from the marked ones (a piece
#: of a constant: any constant write may produce it)
_MARKED = ("marked",)


@functools.lru_cache(maxsize=64)
def _reached(m: M.Machine, limit: int | None) -> dict:
    """What ``_reach`` finds on ``_flow(m, limit)`` from one unit (or from
    the marked units, ``_MARKED``), remembered per machine: conform asks the
    same few dozen of them for every declined case (issue 20)."""
    return {}


def over_capacity(mm: M.MachineMove, preserve: str) -> str | None:
    """Why no sequence exists by **capacity and value flow**, or None.

    *Proof.*  Let K be the original values some goal wants and F = (units
    of the machine) - |K|.  Without push no operation puts a value on a
    stack, and no operation makes a unit's original value (a mov copies, a
    constant is a constant), so in any sequence that implements the move
    every value of K is held by some unit at every moment (else it is lost,
    and a goal needs it at the end).  An operation whose effect leaves the
    old values of more than F units nowhere (``_lost``: units it writes
    that it does not also read into another unit) leaves at most (units -
    that many) < |K| units holding an original value that was there
    before, so it loses a value of K: no such sequence ever runs it.  So
    the value flow (``unreachable_goal``) over the remaining operations
    alone bounds where values can go; a goal value with no path to its
    goal unit is never there at the end."""
    m = mm.machine
    if m.push:
        return None
    units = set(m.units())
    free = len(units) - len({v for v in goals(mm, preserve).values() if v in units})
    if free >= max(len(m.lookup(n).units) for n in m.names()):
        return None   # no operation loses more than ``free`` units: plain value flow
    what = _unreachable(mm, free)
    if what is None:
        return None
    return (f"at most {free} unit(s) of {m.name} can hold anything but a value the move "
            f"needs (no push, no temporary beyond that), so an operation that overwrites more "
            f"loses one; with the others alone no order can carry {what} (the capacity "
            f"lemma, verified/algorithms/machine_optimum.py, over_capacity)")


@functools.lru_cache(maxsize=16)
def _pair_ops(m: M.Machine) -> tuple | None:
    """Every legal pair move of ``m`` with a list of two registers (both
    directions), or None when one could have a longer list (then
    ``_enterable`` takes any pair move as possible)."""
    out = []
    for pm in m.pair_moves:
        ones = m.slots() if pm.other == "mem" else m.registers(pm.other)
        regs = [M.Place((r,)) for r in m.registers(pm.pair)]
        for one in ones:
            w = m.lookup(one).width
            narrow = min(m.lookup(r.parts[0]).width for r in regs)
            if w > 2 * narrow:
                return None   # a list of three or more could match it
            if w < 2 * narrow:
                continue      # no list of two matches it
            single = M.Place((one,))
            for a, b in itertools.permutations(regs, 2):
                pair = M.Place((a.parts[0], b.parts[0]), True)
                for op in (M.MMov(pair, single), M.MMov(single, pair)):
                    if M.illegal(m, op) is None and M.reserved_write(m, op) is None:
                        out.append(op)
    return tuple(out)


def _enterable(m: M.Machine, goal: dict, region: set) -> bool:
    """Can one legal operation take a state whose ``region`` misses some
    goal to one where every unit of ``region`` holds its goal (the test
    ``no_last_write`` runs, over-approximated: True unless proved not)?"""
    units = set(m.units())
    pairs = _pair_ops(m)
    if pairs is None:
        return True
    need = {v for v in goal.values() if v in units}
    for op in (*_universe(m), *pairs):
        post = _post(m, op)
        hit = [w for w in post if w in region and w in goal]
        if hit and all(_fits(goal, region, units, post, w) for w in hit) and (
                m.push or _room(goal, region, units, post) >= len(need)):
            return True
    return False


def _room(goal: dict, region: set, units: set, post: dict) -> int:
    """At most how many distinct original values the units can hold right
    after the operation whose ``post`` this is, when every unit of
    ``region`` holds its goal then: a unit it copies from a unit it does
    not write holds that unit's value (one value for both), units of
    ``region`` with one goal hold one value, a constant or undefined unit
    holds no original value."""
    parent = {u: u for u in units}

    def find(u):
        while parent[u] != u:
            u = parent[u]
        return u

    for w, got in post.items():
        if isinstance(got, tuple) and got[1] not in post:
            parent[find(w)] = find(got[1])
    by_goal: dict = {}
    for u in sorted(region):
        if u in goal:
            if goal[u] in by_goal:
                parent[find(u)] = find(by_goal[goal[u]])
            else:
                by_goal[goal[u]] = u
    dead = {find(w) for w, got in post.items() if got in ("const", "undefined")}
    dead |= {find(u) for u in region if u in goal and goal[u] not in units}
    return len({find(u) for u in units} - dead)


def _fits(goal: dict, region: set, units: set, post: dict, w) -> bool:
    """Can ``w`` hold its goal right after the operation whose ``post`` this
    is, with every unit of ``region`` holding its goal then?"""
    got = post[w]
    if got == "undefined":
        return False
    if got == "const":
        return goal[w] not in units          # any constant's piece, never an original
    if got == "stack":
        return True
    s = got[1]
    # w now holds what s held before; s, unless written too, still holds it
    return s in post or s not in region or s not in goal or goal[s] == goal[w]


def no_last_write(mm: M.MachineMove, preserve: str) -> str | None:
    """Why no sequence exists by the **last-write lemma**, or None.

    *Proof.*  Take a set R of units that has a unit whose goal is not its
    own value (so the start misses R's goals).  Any sequence that
    implements the move ends with every unit of R at its goal, so some
    operation of it takes a state X that misses R's goals to a state Y
    that meets them (take the last one that does; a list operation is its
    parts in sequence, so one of its parts does: look at that part).  That
    operation writes a unit w of R that has a goal (X and Y differ only in
    what it writes).  In Y, each such w holds its goal: if the operation
    copied w from a unit s it did not also write, s still holds that value
    in Y, so s's goal (when s is in R and has one) is w's goal; an
    undefined rest (a typed write) is nobody's goal; a constant piece is
    never an original value.  Without push, Y also holds every original
    value some goal wants (none is ever made again, and the stack holds
    none), so Y's units, merged where Y forces one value (a copy and its
    unwritten source, units of R with one goal) and less those holding a
    constant or nothing defined, must be at least that many (``_room``).
    ``_enterable`` checks every legal operation (``_universe``, and pair
    moves with a list of two registers, ``_pair_ops``; a machine whose pair
    moves may take longer lists is passed) this way.  When no operation
    passes, no sequence exists.  R: every unit, the units the moves name,
    and for each unit u whose
    goal is not its own value, the units from which a value can flow into u
    (``_flow`` backwards): there the sources are in R, which is what makes
    the check bite."""
    m = mm.machine
    goal = goals(mm, preserve)
    todo = [u for u, v in sorted(goal.items()) if u != v]
    if not todo:
        return None
    units = set(m.units())
    edges, _ = _flow(m)
    back: dict = {}
    for u, ws in edges.items():
        for w in ws:
            back.setdefault(w, set()).add(u)
    named = {u for d, s in mm.moves for x in (d, s) if isinstance(x, M.Place)
             for u in M.units(m, x)}
    regions: list = [(units, None), (named, "named")]
    for u in todo:
        r = _reach({u}, back) & units
        if all(r != q for q, _ in regions):
            regions.append((r, u))
    for r, u in regions:
        if _enterable(m, goal, r):
            continue
        names = sorted({m.owner(x) for x in r}, key=m.names().index)
        where = ("every unit" if u is None else
                 f"every unit the moves name" if u == "named" else
                 f"every unit a value can flow from into {m.owner(u)} ({len(r)} units: "
                 f"{', '.join(names[:6])}{', ...' if len(names) > 6 else ''})")
        return (f"no legal operation of {m.name} can be the one after which {where} holds "
                f"its goal (each one that writes a goal unit there copies it from a unit "
                f"with another goal, leaves it undefined, or leaves fewer units than the "
                f"values the move needs; the last-write lemma, "
                f"verified/algorithms/machine_optimum.py, no_last_write)")
    return None
