"""The Z3 semantics of machines (``verified/core/machine/``,
``docs/machines.md``): units, aliases, register pairs, immediates, and the
legality of every operation, encoded from a machine's JSON description and
cross-checked against the Python oracle.

The encoding is written from the description, not from the Python module's
derived tables: this file computes its own units (an alias is its parts'
units, recursively), its own place attributes, and states the legality
rules of ``docs/machines.md`` as a Z3 formula over an operation's (possibly
symbolic) operands.  Where the two could differ, the Python oracle is the
reference and the cross-checks below are how we know they agree:

* ``presets_agree``: every single-location ``mov`` and ``swap`` between
  representative places of every preset (immediates included), legality
  and per-unit effect (inputs enumerated, not a proof: "enumerated");
* ``cross_check``: random machines (classes of widths 1..2, aliases, stack
  groups, every flag) and random sequences with register pairs and
  immediates: per operation legality, the final state of every unit, and
  the verdict of ``implements`` against the Z3 contract (each Z3 verdict by
  ``proofs.common.decide_each``; a test, not a proof: "tested");
* ``claims``: bounded facts over **symbolic** sequences (every operation's
  kind and operands unknown, each operation legal by the Z3 legality) on
  small machine fragments, through ``proofs.common.prove`` / ``exists``:
  e.g. that x86's reg-mem ``xchg`` exchanges two slots in 3 operations
  with no free register and no sequence of 2 does, that on aarch64 no
  sequence of 12 operations can without a free register, and that with two
  scratch registers it takes 4 (load, load, store, store).  A "none
  exists" fact carries witnesses (``shape_witnesses``): every operation
  can be each shape of operation the Python oracle calls legal on the
  fragment, and a no-op ``mov x, x`` (so "none of exactly k" covers every
  shorter sequence); an encoding that forbade a legal shape would make the
  fact vacuous instead of proved.

Values: a unit's initial value is a distinct constant of the uninterpreted
sort ``MVal``; piece i of an immediate k is another distinct constant.  As
in ``proofs/semantics_z3.py``, operations only move values, so a sequence
that is correct for one injective assignment is correct for all.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from dataclasses import dataclass
from typing import Sequence

import z3

from verified.core import machine as PY
from verified.core.semantics import PreconditionError

from .common import (ENUMERATED, PROVED, REFUTED, TESTED, Ledger, decide_each, exists,
                     prove, row)

MVal = z3.DeclareSort("MVal")
MOV, SWAP = 0, 1


# ---------------------------------------------------------------------------
# The layout of a machine, from its JSON description
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceInfo:
    """A register, slot or immediate source, as the encoding sees it."""

    name: str
    kind: str              # "reg", "mem", "imm"
    cls: str | None
    width: int             # 0 for an immediate (it takes the destination's)
    units: tuple[int, ...]
    takes_imm: bool        # a register's class / a slot's group takes an immediate
    rr: bool               # reg-reg swap available (registers)
    rm: bool               # reg-mem swap available (registers)
    imm: int | None = None


@dataclass(frozen=True)
class Layout:
    """Units 0..U-1 and places 0..P-1 (registers, slots, then immediates)."""

    units: tuple[str, ...]
    places: tuple[PlaceInfo, ...]
    mem_to_mem: bool
    imm_reg: bool
    imm_mem: bool
    cross_class: bool
    max_width: int

    def index(self, name: str) -> int:
        return next(i for i, p in enumerate(self.places) if p.name == name)

    def class_id(self, cls: str | None) -> int:
        """A number per class (-1: no class)."""
        return -1 if cls is None else sorted({p.cls for p in self.places if p.cls}).index(cls)

    def imm_index(self, k: int) -> int:
        return next(i for i, p in enumerate(self.places) if p.imm == k)


def layout(desc: dict, immediates: Sequence[int] = ()) -> Layout:
    """The encoding's own reading of a (valid) machine description."""
    classes = desc["classes"]
    aliases = desc.get("aliases", {})
    swap = desc.get("swap", [])
    cls_of = {r: c for c, info in classes.items() for r in info["registers"]}
    unit_names: dict[str, None] = {}

    stack = desc.get("stack", [])
    groups = stack if isinstance(stack, list) else [stack]
    slot_width = {s: g.get("width", 1) for g in groups
                  for s in (g["names"] if "names" in g else [f"s{i}" for i in range(g["slots"])])}

    def units_of(name: str) -> list[str]:
        # an alias (a register over registers, or a slot over slots) is its parts
        if name in aliases:
            return [u for part in aliases[name] for u in units_of(part)]
        w = classes[cls_of[name]].get("width", 1) if name in cls_of else slot_width[name]
        return [name] if w == 1 else [f"{name}.{i}" for i in range(w)]

    raw: list[tuple] = []
    for c, info in classes.items():
        have = info.get("swap", swap)
        for r in info["registers"]:
            us = units_of(r)
            unit_names.update(dict.fromkeys(us))
            raw.append((r, "reg", c, len(us), us, info.get("immediate", True),
                        "reg-reg" in have, "reg-mem" in have))
    for g in groups:
        w = g.get("width", 1)
        names = g["names"] if "names" in g else [f"s{i}" for i in range(g["slots"])]
        for s in names:
            us = units_of(s)
            unit_names.update(dict.fromkeys(us))
            raw.append((s, "mem", None, w, us, g.get("immediate", True), False, False))
    index = {u: i for i, u in enumerate(unit_names)}
    places = [PlaceInfo(n, k, c, w, tuple(index[u] for u in us), ti, rr, rm)
              for n, k, c, w, us, ti, rr, rm in raw]
    places += [PlaceInfo(f"#{k}", "imm", None, 0, (), False, False, False, imm=k)
               for k in immediates]
    imm_to = desc.get("immediate_to", ["reg"])
    return Layout(tuple(unit_names), tuple(places), desc.get("mem_to_mem", False),
                  "reg" in imm_to, "mem" in imm_to, desc.get("cross_class", False),
                  max((p.width for p in places), default=1))


# ---------------------------------------------------------------------------
# Values, attributes at (possibly symbolic) places, legality, steps
# ---------------------------------------------------------------------------


def initial(lay: Layout, prefix: str = "u") -> list[z3.ExprRef]:
    return [z3.Const(f"{prefix}_{u}", MVal) for u in lay.units]


def pieces(lay: Layout) -> dict[tuple[int, int], z3.ExprRef]:
    """(place index of an immediate, i) -> the constant of its piece i."""
    return {(j, i): z3.Const(f"imm_{p.imm}_{i}", MVal)
            for j, p in enumerate(lay.places) if p.kind == "imm"
            for i in range(max(lay.max_width, len(lay.units)))}


def all_distinct(init, imm) -> z3.BoolRef:
    values = list(init) + list(imm.values())
    return z3.Distinct(*values) if len(values) > 1 else z3.BoolVal(True)


def _attr(lay: Layout, x, f):
    """``f(place)`` at place ``x`` (an int, or a Z3 Int: an If-chain)."""
    if isinstance(x, int):
        return f(lay.places[x])
    out = f(lay.places[-1])
    for i in range(len(lay.places) - 2, -1, -1):
        out = z3.If(x == i, f(lay.places[i]), out)
    return out


def _b(v) -> z3.BoolRef:
    return z3.BoolVal(v) if isinstance(v, bool) else v


def _in_range(lay: Layout, x) -> z3.BoolRef:
    return z3.BoolVal(True) if isinstance(x, int) else z3.And(x >= 0, x < len(lay.places))


def legal(lay: Layout, op) -> z3.BoolRef:
    """``docs/machines.md``'s rules for a single-location operation
    ``(kind, a, b)``, as a Z3 formula (operands may be symbolic)."""
    kind, a, b = op
    A = lambda x, f: _b(_attr(lay, x, f))  # noqa: E731
    is_imm = lambda x: A(x, lambda p: p.kind == "imm")  # noqa: E731
    is_reg = lambda x: A(x, lambda p: p.kind == "reg")  # noqa: E731
    is_mem = lambda x: A(x, lambda p: p.kind == "mem")  # noqa: E731
    width = lambda x: _attr(lay, x, lambda p: z3.IntVal(p.width))  # noqa: E731
    cls = lambda x: _attr(lay, x, lambda p: z3.IntVal(lay.class_id(p.cls)))  # noqa: E731
    cross = z3.Implies(z3.And(is_reg(a), is_reg(b), cls(a) != cls(b)),
                       z3.BoolVal(lay.cross_class))
    same_width = width(a) == width(b)
    mov = z3.And(
        z3.Not(is_imm(a)),
        z3.Implies(is_imm(b), z3.And(
            z3.Implies(is_reg(a), z3.And(z3.BoolVal(lay.imm_reg), A(a, lambda p: p.takes_imm))),
            z3.Implies(is_mem(a), z3.And(z3.BoolVal(lay.imm_mem), A(a, lambda p: p.takes_imm))))),
        z3.Implies(z3.Not(is_imm(b)), z3.And(
            same_width, cross,
            z3.Implies(z3.And(is_mem(a), is_mem(b)), z3.BoolVal(lay.mem_to_mem)))))
    if isinstance(a, int) and isinstance(b, int):
        overlap = z3.BoolVal(a != b and bool(set(lay.places[a].units) & set(lay.places[b].units)))
    else:
        pairs = [(i, j) for i, p in enumerate(lay.places) for j, q in enumerate(lay.places)
                 if i != j and set(p.units) & set(q.units)]
        overlap = z3.Or(*[z3.And(_eq(a, i), _eq(b, j)) for i, j in pairs]) \
            if pairs else z3.BoolVal(False)
    swap = z3.And(
        z3.Not(is_imm(a)), z3.Not(is_imm(b)), same_width, cross,
        z3.Not(z3.And(is_mem(a), is_mem(b))), z3.Not(overlap),
        z3.Implies(z3.And(is_reg(a), is_reg(b)),
                   z3.And(A(a, lambda p: p.rr), A(b, lambda p: p.rr))),
        z3.Implies(z3.And(is_reg(a), is_mem(b)), A(a, lambda p: p.rm)),
        z3.Implies(z3.And(is_mem(a), is_reg(b)), A(b, lambda p: p.rm)))
    body = (mov if kind == MOV else swap) if isinstance(kind, int) else z3.Or(
        z3.And(kind == MOV, mov), z3.And(kind == SWAP, swap))
    return z3.simplify(z3.And(_in_range(lay, a), _in_range(lay, b), body))


def _eq(x, i: int) -> z3.BoolRef:
    return z3.BoolVal(x == i) if isinstance(x, int) else x == i


def _step_concrete(lay: Layout, state, imm, kind: int, a: int, b: int) -> list:
    """One operation between two concrete places (equal widths assumed:
    an illegal operation's effect is not part of the semantics)."""
    new = list(state)
    pa, pb = lay.places[a], lay.places[b]
    if kind == MOV:
        vals = [imm[(b, i)] for i in range(len(pa.units))] if pb.kind == "imm" \
            else [state[u] for u in pb.units]
        for u, v in zip(pa.units, vals):
            new[u] = v
        return new
    va, vb = [state[u] for u in pa.units], [state[u] for u in pb.units]
    for u, v in zip(pa.units, vb):
        new[u] = v
    for u, v in zip(pb.units, va):
        new[u] = v
    return new


def step(lay: Layout, state, imm, op) -> list:
    """A single-location operation with possibly symbolic kind/operands:
    an If-chain over every concrete choice."""
    kind, a, b = op
    if all(isinstance(x, int) for x in op):
        return _step_concrete(lay, state, imm, kind, a, b)
    kinds = [kind] if isinstance(kind, int) else [MOV, SWAP]
    out = list(state)
    P = range(len(lay.places))
    for k, i, j in itertools.product(kinds, [a] if isinstance(a, int) else P,
                                     [b] if isinstance(b, int) else P):
        pa, pb = lay.places[i], lay.places[j]
        if pa.kind == "imm" or (pb.kind != "imm" and pa.width != pb.width) or (
                k == SWAP and pb.kind == "imm"):
            continue  # never legal: no effect to encode
        cond = z3.And(_eq(kind, k), _eq(a, i), _eq(b, j))
        new = _step_concrete(lay, state, imm, k, i, j)
        out = [z3.If(cond, n, o) for n, o in zip(new, out)]
    return out


# ---------------------------------------------------------------------------
# From the Python oracle's objects to the encoding
# ---------------------------------------------------------------------------


def split(lay: Layout, op) -> list[tuple[int, int, int]] | None:
    """A Python ``MMov``/``MSwap`` as single-location operations (a list
    operand part by part, low first; an immediate's pieces follow the
    parts), or None when it cannot be split (a list against a single
    location, lists of different lengths)."""
    kind = MOV if type(op).__name__ == "MMov" else SWAP
    x, y = (op.dst, op.src) if kind == MOV else (op.a, op.b)
    if type(y).__name__ == "Imm":
        if not x.is_list:
            return [(MOV, lay.index(x.parts[0]), lay.imm_index(y.value))]
        return None  # handled by split_imm
    if len(x.parts) != len(y.parts):  # a one-part list is its single location
        return None
    return [(kind, lay.index(p), lay.index(q)) for p, q in zip(x.parts, y.parts)]


def run_op(lay: Layout, state, imm, op) -> tuple[list, z3.BoolRef]:
    """(state after, legality) of a Python operation."""
    if type(op).__name__ == "MMov" and type(op.src).__name__ == "Imm" and op.dst.is_list:
        j = lay.imm_index(op.src.value)
        legal_all, offset = [], 0
        for p in op.dst.parts:
            i = lay.index(p)
            legal_all.append(legal(lay, (MOV, i, j)))
            vals = [imm[(j, offset + t)] for t in range(len(lay.places[i].units))]
            for u, v in zip(lay.places[i].units, vals):
                state = list(state)
                state[u] = v
            offset += lay.places[i].width
        return state, z3.simplify(z3.And(*legal_all))
    parts = split(lay, op)
    if parts is None:
        return state, z3.BoolVal(False)
    ok = []
    for part in parts:
        ok.append(legal(lay, part))
        state = step(lay, state, imm, part)
    return state, z3.simplify(z3.And(*ok))


def contract(lay: Layout, mm, final, init, imm, preserve: str) -> z3.BoolRef:
    """The oracle's contract over units: destinations hold their source's
    original units (or the immediate's pieces); under "all" every other
    unit that is no temporary's keeps its own value."""
    want: dict[int, z3.ExprRef] = {}
    for d, s in mm.moves:
        du = [u for p in d.parts for u in lay.places[lay.index(p)].units]
        if type(s).__name__ == "Imm":
            j = lay.imm_index(s.value)
            vals = [imm[(j, i)] for i in range(len(du))]
        else:
            vals = [init[u] for p in s.parts for u in lay.places[lay.index(p)].units]
        want.update(zip(du, vals))
    temps = {u for t in mm.temps for p in t.parts for u in lay.places[lay.index(p)].units}
    parts = [final[u] == v for u, v in want.items()]
    if preserve == "all":
        parts += [final[u] == init[u] for u in range(len(lay.units))
                  if u not in want and u not in temps]
    return z3.And(*parts) if parts else z3.BoolVal(True)


# ---------------------------------------------------------------------------
# Cross-checks
# ---------------------------------------------------------------------------


def _value_index(lay: Layout, init, imm, term) -> str:
    for u, v in enumerate(init):
        if z3.eq(term, v):
            return lay.units[u]
    for (j, i), v in imm.items():
        if z3.eq(term, v):
            k = lay.places[j].imm
            return f"#{k}" if i == 0 else f"#{k}.{i}"
    return f"?{term}"


def representatives(lay: Layout, per_group: int = 3) -> list[int]:
    """Places standing for all: legality depends only on a place's
    attributes (kind, class, width, immediates, swaps, whether it is an
    alias) and on overlap, so the first ``per_group`` places of each group
    of equal attributes (3: two distinct ones of a group and a third)."""
    seen: dict[tuple, int] = {}
    out = []
    for i, p in enumerate(lay.places):
        if p.kind == "imm":
            continue
        own = all(lay.units[u] == p.name or lay.units[u].startswith(p.name + ".")
                  for u in p.units)
        key = (p.kind, p.cls, p.width, p.takes_imm, p.rr, p.rm, own)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= per_group:
            out.append(i)
    return out


def presets_agree(py=PY, names: Sequence[str] = PY.PRESETS,
                  per_group: int = 3) -> tuple[int, list[str]]:
    """Every single-location mov and swap between representative places of
    each preset (``representatives``), and a mov of an immediate to each:
    Z3 legality == ``illegal(...) is None``, and for every legal one the
    per-unit effect == ``execute``."""
    count, bad = 0, []
    for name in names:
        desc = py.preset_json(name)
        m = py.machine(desc)
        lay = layout(desc, immediates=[7])
        init, imm = initial(lay), pieces(lay)
        regs = representatives(lay, per_group)
        k7 = lay.imm_index(7)
        ops = [(MOV, a, b) for a in regs for b in regs + [k7]] + \
              [(SWAP, a, b) for a in regs for b in regs]
        for kind, a, b in ops:
            pa, pb = lay.places[a], lay.places[b]
            src = {"imm": 7} if pb.kind == "imm" else pb.name
            pop = py.parse_op(m, ["mov" if kind == MOV else "swap", pa.name, src])
            z_legal = z3.is_true(legal(lay, (kind, a, b)))
            p_legal = py.illegal(m, pop) is None
            count += 1
            if z_legal != p_legal:
                bad.append(f"{name}: {py.format_mop(pop)}: z3 legal {z_legal}, "
                           f"python {py.illegal(m, pop)!r}")
                continue
            if p_legal:
                final = _step_concrete(lay, init, imm, kind, a, b)
                state = py.execute(m, [pop])
                for u, term in enumerate(final):
                    got = _value_index(lay, init, imm, term)
                    want = state.get(lay.units[u], lay.units[u])
                    if got != want:
                        bad.append(f"{name}: {py.format_mop(pop)}: unit {lay.units[u]}: "
                                   f"z3 {got}, python {want}")
                        break
    return count, bad


def random_machine(rng: random.Random) -> dict:
    """A small random description: 1..2 plain classes (widths 1..2), maybe
    an aliased class over the first (pairs), 0..2 stack groups, every flag
    random."""
    classes: dict = {}
    aliases: dict = {}
    for c in range(rng.randint(1, 2)):
        w = rng.choice([1, 1, 2])
        info: dict = {"registers": [f"c{c}r{i}" for i in range(rng.randint(1, 3))], "width": w}
        if rng.random() < 0.3:
            info["swap"] = rng.sample(["reg-reg", "reg-mem"], rng.randint(0, 2))
        if rng.random() < 0.3:
            info["immediate"] = False
        classes[f"c{c}"] = info
    base = classes["c0"]
    if rng.random() < 0.5 and len(base["registers"]) >= 2:
        pairs = len(base["registers"]) // 2
        w = 2 * base["width"]
        classes["wide"] = {"registers": [f"w{i}" for i in range(pairs)], "width": w}
        for i in range(pairs):
            aliases[f"w{i}"] = base["registers"][2 * i: 2 * i + 2]
    stack = [{"names": [f"g{g}m{i}" for i in range(rng.randint(1, 3))],
              "width": rng.choice([1, 1, 2]), **({"immediate": False} if rng.random() < 0.3 else {})}
             for g in range(rng.randint(0, 2))]
    narrow = [n for g in stack if g["width"] == 1 for n in g["names"]]
    if rng.random() < 0.4 and len(narrow) >= 2:
        # a frame (issue 23): two-unit slots over the one-unit ones, adjacent
        # pairs, so that two of them overlap when there are three parts
        wide = [narrow[i:i + 2] for i in range(len(narrow) - 1)][:2]
        stack.append({"names": [f"f{i}" for i in range(len(wide))], "width": 2})
        aliases.update({f"f{i}": parts for i, parts in enumerate(wide)})
    return {"name": "random", "classes": classes, "aliases": aliases, "stack": stack,
            "swap": rng.sample(["reg-reg", "reg-mem"], rng.randint(0, 2)),
            "mem_to_mem": rng.random() < 0.3,
            "immediate_to": rng.sample(["reg", "mem"], rng.randint(0, 2)),
            "cross_class": rng.random() < 0.5}


def _shifted_pair(rng: random.Random, m, names: list[str]):
    """``[b, c] <- [a, b]`` over three names of one kind and width, or None:
    the shape whose order matters (a pair shifted by one register)."""
    groups: dict = {}
    for n in names:
        r = m.lookup(n)
        groups.setdefault((r.kind, r.width), []).append(n)
    triples = [g for g in groups.values() if len(g) >= 3]
    if not triples:
        return None
    a, b, c = rng.sample(rng.choice(triples), 3)
    return [b, c], [a, b]


def _random_loc(rng: random.Random, m, names: list[str], imm_ok: bool):
    r = rng.random()
    if imm_ok and r < 0.15:
        return {"imm": rng.choice([1, 2])}
    if r < 0.3:
        kind = rng.choice(["reg", "mem"])
        pool = [n for n in names if m.lookup(n).kind == kind]
        if len(pool) >= 2:
            return rng.sample(pool, 2)
    return rng.choice(names)


def random_case(rng: random.Random, py=PY):
    """A random machine, move, contract and sequence (half of the
    operations legal single-location ones, the rest anything)."""
    while True:
        desc = random_machine(rng)
        try:
            m = py.machine_from_json(desc)
        except PreconditionError:
            continue
        names = list(m.names())
        break
    mm = None
    for _ in range(20):
        moves = [[_random_loc(rng, m, names, False), _random_loc(rng, m, names, True)]
                 for _ in range(rng.randint(0, 3))]
        temps = [rng.choice(names)] if rng.random() < 0.4 else []
        try:
            mm = py.MachineMove.make(m, moves, temps)
            break
        except PreconditionError:
            continue
    if mm is None:
        mm = py.MachineMove.make(m, [], [])
    ops = []
    for _ in range(rng.randint(0, 5)):
        kind = rng.choice(["mov", "mov", "swap"])
        raw = [kind, _random_loc(rng, m, names, False),
               _random_loc(rng, m, names, kind == "mov")]
        shifted = _shifted_pair(rng, m, names) if rng.random() < 0.15 else None
        if shifted:
            raw = [kind, *shifted]
        try:
            ops.append(py.parse_op(m, raw))
        except PreconditionError:  # lists with overlapping parts
            continue
    return desc, m, mm, rng.choice(["all", "all", "loops"]), ops


def cross_check(cases: int, seed: int = 0, py=PY) -> tuple[int, int, list[str], float]:
    """``cases`` random cases through both: per operation legality, the final
    value of every unit (legal sequences), and the verdict (Z3's through
    ``proofs.common.decide_each``).  ``py`` is the oracle module under test
    (the real one, or a mutant's namespace).  Returns (cases, correct
    sequences, disagreements, solver seconds)."""
    rng = random.Random(seed)
    oks, bad = 0, []
    checked, values = [], {}
    for _ in range(cases):
        desc, m, mm, preserve, ops = random_case(rng, py)
        lay = layout(desc, immediates=[1, 2])
        init, imm = initial(lay), pieces(lay)
        values.update({str(v): v for v in list(init) + list(imm.values())})
        state, legal_all = list(init), []
        for op in ops:
            state, ok = run_op(lay, state, imm, op)
            legal_all.append(ok)
            z_ok, p_ok = z3.is_true(ok), py.illegal(m, op) is None
            if z_ok != p_ok:
                bad.append(f"{json.dumps(desc)}: {py.format_mop(op)}: z3 legal {z_ok}, "
                           f"python {py.illegal(m, op)!r}")
        if all(z3.is_true(x) for x in legal_all):
            pstate = py.execute(m, ops)
            for u, term in enumerate(state):
                got = _value_index(lay, init, imm, z3.simplify(term))
                want = pstate.get(lay.units[u], lay.units[u])
                if got != want:
                    bad.append(f"{json.dumps(desc)}: {[py.format_mop(o) for o in ops]}: unit "
                               f"{lay.units[u]}: z3 {got}, python {want}")
                    break
        formula = z3.And(*legal_all, contract(lay, mm, state, init, imm, preserve))
        checked.append((desc, mm, preserve, ops, formula, py.implements(mm, ops, preserve).ok))
    # every case's values are constants named by unit (or immediate piece):
    # one distinctness hypothesis over all of them serves every case (an
    # uninterpreted sort: distinct extra constants change no validity)
    vals = list(values.values())
    led = Ledger()
    hyps = [z3.Distinct(*vals)] if len(vals) > 1 else []
    verdicts = decide_each((c[4] for c in checked), hyps, 60_000, led)
    for (desc, mm, preserve, ops, _, p_ok), r in zip(checked, verdicts):
        oks += p_ok
        if r not in (PROVED, REFUTED) or (r == PROVED) != p_ok:
            bad.append(f"verdict on {json.dumps(desc)} {mm} {preserve} "
                       f"{[py.format_mop(o) for o in ops]}: python {p_ok}, z3 {r}")
    return cases, oks, bad, led.seconds


# ---------------------------------------------------------------------------
# Bounded facts over symbolic sequences
# ---------------------------------------------------------------------------


@dataclass
class SymbolicSequence:
    """``length`` symbolic single-location operations on a fragment: the
    hypotheses (each operation legal by the Z3 legality, distinct initial
    values), "the sequence implements the move", and the witnesses."""

    lay: Layout
    ops: list
    hyps: list
    implements: z3.BoolRef
    witnesses: dict


def shape_witnesses(desc: dict, lay: Layout, ops) -> dict[str, z3.BoolRef]:
    """One witness per shape of operation (kind, and kind/class of both
    places) the PYTHON oracle calls legal between some two places of the
    fragment: "every operation can be of this shape".  Plus "every
    operation a no-op ``mov x, x``".  Legality is the hypothesis, so a Z3
    legality that forbade a shape the oracle allows makes the claim vacuous."""
    m = PY.machine(desc)
    shapes: dict[tuple, list[tuple[int, int]]] = {}
    for i, pa in enumerate(lay.places):
        for j, pb in enumerate(lay.places):
            for kind, word in ((MOV, "mov"), (SWAP, "swap")):
                if pa.kind == "imm" or (pb.kind == "imm" and kind == SWAP):
                    continue
                src = {"imm": pb.imm} if pb.kind == "imm" else pb.name
                try:
                    pop = PY.parse_op(m, [word, pa.name, src])
                except PreconditionError:
                    continue
                if PY.illegal(m, pop) is None:
                    key = (word, pa.kind, pa.cls, pb.kind, pb.cls)
                    shapes.setdefault(key, []).append((i, j))
    out = {}
    for (word, ka, ca, kb, cb), pairs in shapes.items():
        kind = MOV if word == "mov" else SWAP
        name = (f"every operation can be a legal {word} {ka}{'/' + ca if ca else ''}, "
                f"{kb}{'/' + cb if cb else ''}")
        out[name] = z3.And(*[z3.And(k == kind, z3.Or(*[z3.And(a == i, b == j) for i, j in pairs]))
                             for k, a, b in ops])
    out["every operation can be the no-op mov x, x"] = z3.And(
        *[z3.And(k == MOV, a == b) for k, a, b in ops])
    return out


def symbolic_sequence(desc: dict, moves, temps, length: int,
                      preserve: str = "all") -> SymbolicSequence:
    m = PY.machine(desc)
    mm = PY.MachineMove.make(m, moves, temps)
    imms = sorted({s.value for _, s in mm.moves if isinstance(s, PY.Imm)})
    lay = layout(desc, immediates=imms)
    init, imm = initial(lay), pieces(lay)
    ops = [(z3.Int(f"k{j}"), z3.Int(f"a{j}"), z3.Int(f"b{j}")) for j in range(length)]
    state = list(init)
    for op in ops:
        state = step(lay, state, imm, op)
    hyps = [*[legal(lay, op) for op in ops], all_distinct(init, imm)]
    return SymbolicSequence(lay, ops, hyps, contract(lay, mm, state, init, imm, preserve),
                     shape_witnesses(desc, lay, ops))


def decode(seq: SymbolicSequence, model) -> list:
    """The sequence a model of ``exists`` names, as request operations."""
    found = []
    for k, a, b in seq.ops:
        kind = model.eval(k, model_completion=True).as_long()
        pa = seq.lay.places[model.eval(a, model_completion=True).as_long()]
        pb = seq.lay.places[model.eval(b, model_completion=True).as_long()]
        src = {"imm": pb.imm} if pb.kind == "imm" else pb.name
        found.append(["mov" if kind == MOV else "swap", pa.name, src])
    return found


#: machine fragments for the bounded facts: one register and two slots
X86_FRAGMENT = {"name": "x86-64 fragment", "classes": {"gpr": {"registers": ["rax"]}},
                "stack": {"names": ["m0", "m1"]}, "swap": ["reg-reg", "reg-mem"],
                "immediate_to": ["reg", "mem"]}
A64_FRAGMENT = {"name": "aarch64 fragment", "classes": {"gpr": {"registers": ["x0", "x1"]}},
                "stack": {"names": ["m0", "m1"]}}
VFP_FRAGMENT = {"name": "armv7-vfp fragment",
                "classes": {"s": {"registers": ["s0", "s1", "s2", "s3", "s4"]},
                            "d": {"registers": ["d0", "d1"], "width": 2}},
                "aliases": {"d0": ["s0", "s1"], "d1": ["s2", "s3"]}}
SLOT_SWAP = [["m0", "m1"], ["m1", "m0"]]

NONE_EXISTS = ("(Z3: for all {k} symbolic operations, each legal by the Z3 legality, and "
               "distinct initial values, the contract fails; witnesses: every operation can "
               "be each shape the Python oracle calls legal here, and the no-op mov x, x, so "
               "no shorter sequence either)")
ONE_EXISTS = ("(Z3 exists: {k} symbolic operations, each legal by the Z3 legality, meeting "
              "the contract on distinct initial values; the sequence found is then passed "
              "by the Python oracle)")


def _fact(text: str, desc, moves, temps, length: int, expect_exists: bool,
          preserve: str = "all") -> dict:
    led = Ledger()
    seq = symbolic_sequence(desc, moves, temps, length, preserve)
    detail = ""
    if not expect_exists:
        prove(z3.Not(seq.implements), seq.hyps, timer=led, witnesses=seq.witnesses)
        text += " " + NONE_EXISTS.format(k=length)
    else:
        r, model = exists(seq.implements, seq.hyps, timer=led)
        if r == PROVED:
            found = decode(seq, model)
            req = {"machine": desc, "moves": moves, "temps": temps, "preserve": preserve,
                   "sequence": found}
            ok = PY.check_machine_request(PY.parse_machine_request(req, True)).ok
            detail = f"witness {json.dumps(found)}, python oracle ok={ok}"
            if not ok:  # Z3 and the oracle disagree: the fact is not established
                led.record(REFUTED)
        else:
            detail = "no sequence found"
        text += " " + ONE_EXISTS.format(k=length)
    return row(text, len(PY.machine(desc).units()), led, detail=detail)


def claims(quick: bool = False) -> list[dict]:
    t = time.perf_counter()
    count, bad = presets_agree()
    # no solver query: each legality formula is concrete and Z3 simplifies it
    led = Ledger(enumerated=count)
    if bad:
        led.record(REFUTED)
    rows = [row(f"enumerated (every attribute combination, not a proof): Z3 legality and "
                f"per-unit effect == Python illegal/execute on {count} single-location "
                f"mov/swap operations between 3 places of each kind/class/width/alias "
                f"group of the 4 presets (no solver query: concrete formulas simplified; "
                f"{time.perf_counter() - t:.1f} s wall)", "-", led, kind=ENUMERATED,
                detail="; ".join(bad[:3]))]
    cases = 300 if quick else 2000
    t = time.perf_counter()
    n, oks, bad, secs = cross_check(cases, seed=11)
    led = Ledger(seconds=secs, tested=n)
    if bad:
        led.record(REFUTED)
    rows.append(row(f"cross-check (a test, not a proof): Z3 units/legality/contract == "
                    f"Python on {n} random machines and sequences ({oks} correct), pairs, "
                    f"aliases, immediates; each Z3 verdict by proofs.common.decide_each "
                    f"({time.perf_counter() - t:.1f} s wall)", "-", led, kind=TESTED,
                    detail="; ".join(bad[:3])))
    rows.append(_fact("x86-64 {rax, m0, m1}: no sequence of 2 operations exchanges m0, m1 "
                      "with rax preserved", X86_FRAGMENT, SLOT_SWAP, [], 2, False))
    rows.append(_fact("x86-64 {rax, m0, m1}: a 3-operation sequence exchanges m0, m1 with rax "
                      "preserved", X86_FRAGMENT, SLOT_SWAP, [], 3, True))
    a64 = 4 if quick else 12
    rows.append(_fact(f"aarch64 {{x0, x1, m0, m1}}: no sequence of {a64} operations exchanges "
                      f"m0, m1 with x0, x1 preserved", A64_FRAGMENT, SLOT_SWAP, [], a64, False))
    rows.append(_fact("aarch64 {x0, x1, m0, m1}: with x0, x1 temporaries, no sequence of 3 "
                      "operations exchanges m0, m1", A64_FRAGMENT, SLOT_SWAP, ["x0", "x1"], 3,
                      False))
    rows.append(_fact("aarch64 {x0, x1, m0, m1}: with x0, x1 temporaries, 4 operations "
                      "exchange m0, m1", A64_FRAGMENT, SLOT_SWAP, ["x0", "x1"], 4, True))
    rows.append(_fact("armv7-vfp {s0..s4, d0, d1}: no sequence of 1 operation does d0 <- d1 "
                      "with s4 <- s1", VFP_FRAGMENT, [["d0", "d1"], ["s4", "s1"]], [], 1,
                      False))
    rows.append(_fact("armv7-vfp {s0..s4, d0, d1}: 2 operations do d0 <- d1 with s4 <- s1",
                      VFP_FRAGMENT, [["d0", "d1"], ["s4", "s1"]], [], 2, True))
    return rows
