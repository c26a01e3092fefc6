"""Parallel moves on a machine (``docs/machines.md``): the one generator of
machine cases, for ``conform --machine``, ``vectors --machine``, the tests
and the benchmarks.

A case is a tuple of moves ``(dst, src)`` of ``verified.core.machine``
locations: a ``Place`` (a register, a stack slot, or a list of them for a
multi-register value) or, as a source only, an ``Imm``.  The generators
draw them from *sites*: every location a move may name, with its kind
(``"reg"``, ``"mem"``, ``"imm"``), its class (the register class, or the
stack group ``"stack/W"``), its shape (the widths of its parts) and its
units.  So destinations' units stay pairwise disjoint, a source has its
destination's shape (an xmm from an xmm or a wide slot, a pair from a
pair) or is the immediate, and shrinking keeps each location's kind and
class (a slot stays a slot, an xmm stays an xmm).

* ``small_machine``: the small machine derived from a machine (3 registers
  of its first class, 2 of every other class, 2 slots of every stack
  width) and its scratch registers, one per class;
* ``sites``: the sites of a machine (its first class's adjacent pairs
  included), the temporaries' units left out;
* ``exhaustive_cases`` / ``exhaustive_count``: every parallel move of at
  most K moves over a list of sites;
* ``random_case_stream``: seeded random moves over the sites of a machine;
* ``shrink_candidates``: the strictly smaller cases one step away.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

from ..core.machine import Imm, Machine, MLoc, Place, machine_from_json

#: The immediate of every case (one value is enough: the oracle tells a
#: constant's pieces apart from every original value).
IMMEDIATE = Imm(7)

#: Registers of the small machine: its first class (the integer registers
#: of every preset) gets one more, so that a register pair can shift by one
#: (``[r1, r2] <- [r0, r1]``).
PER_CLASS = 2
FIRST_CLASS = 3
SLOTS_PER_WIDTH = 2
#: Default bound on the moves of an exhaustive case: every bug class of
#: docs/machines.md needs at most 3 (a cycle and a slot-to-slot move).
MAX_MOVES = 3


@dataclass(frozen=True)
class Site:
    """One location a move may name, and what shrinking must keep."""

    loc: MLoc
    kind: str  # "reg", "mem" or "imm"
    cls: str  # register class, stack group "stack/W", or "imm"
    shape: tuple  # widths of its parts: (2,) an xmm, (1, 1) a pair, () an immediate
    units: frozenset


class MachineCase(NamedTuple):
    """One parallel move on a machine: ``(dst, src)`` pairs."""

    moves: tuple


def site(m: Machine, loc: MLoc) -> Site:
    if isinstance(loc, Imm):
        return Site(loc, "imm", "imm", (), frozenset())
    regs = [m.lookup(p) for p in loc.parts]
    kind = regs[0].kind
    cls = regs[0].cls if kind == "reg" else f"stack/{m.group_of(regs[0].name).width}"
    return Site(loc, kind, cls, tuple(r.width for r in regs),
                frozenset(u for r in regs for u in r.units))


def moves_json(case: MachineCase) -> list:
    return [[d.to_json(), s.to_json()] for d, s in case.moves]


def format_case(case: MachineCase) -> str:
    return "(" + ", ".join(f"{d} <- {s}" for d, s in case.moves) + ")"


# ---------------------------------------------------------------------------
# The small machine and the sites of a machine
# ---------------------------------------------------------------------------


def _alias_closed(m: Machine, name: str, chosen: set) -> bool:
    parts = dict(m.aliases).get(name)
    return parts is None or all(p in chosen for p in parts)


def scratch_registers(m: Machine, avoid: frozenset = frozenset()) -> tuple[str, ...]:
    """One scratch register per class: its last register whose units no
    earlier scratch (and nothing in ``avoid``) overlaps, the way a JIT
    reserves one (V8: r10 and xmm15 on x86-64)."""
    out: list[str] = []
    used = set(avoid)
    for c in m.classes:
        for r in reversed(c.registers):
            u = set(m.lookup(r).units)
            if not u & used:
                out.append(r)
                used |= u
                break
    return tuple(out)


def alias_shape(m: Machine, name: str) -> tuple:
    """A register's alias shape: its width and its parts' shapes (armv7-vfp:
    ``d0`` is (2, ((1, ()), (1, ()))), ``d16`` is (2, ()), ``q8`` is
    (4, ((2, ()), (2, ())))): the relation of a register to what it
    overlaps, whatever its name."""
    return (m.lookup(name).width,
            tuple(alias_shape(m, p) for p in dict(m.aliases).get(name, ())))


def _shape_representatives(m: Machine, registers: Sequence[str], want: int) -> list[str]:
    """The first register of each alias shape, at most ``want`` (none for a
    class without aliased registers: its first registers are taken)."""
    aliased = dict(m.aliases)
    if not any(r in aliased for r in registers):
        return []
    out: dict = {}
    for r in registers:
        out.setdefault(alias_shape(m, r), r)
    return list(out.values())[:want]


def small_machine(m: Machine, per_class: int = PER_CLASS, first_class: int = FIRST_CLASS,
                  slots: int = SLOTS_PER_WIDTH, temps: Sequence[str] | None = None
                  ) -> tuple[Machine, tuple[str, ...]]:
    """The small machine derived from ``m`` and its scratch registers.

    Registers: the first ``first_class`` of ``m``'s first class and the first
    ``per_class`` of every other class; in a class of aliased registers the
    first register of each alias shape (``alias_shape``) comes first and
    brings its parts (``armv7-vfp``: ``d0`` over ``s0:s1`` and ``d16``
    without ``s`` halves; ``q0`` over ``d0:d1``, which brings ``d1``, ``s2``,
    ``s3``, and ``q8`` over ``d16:d17``), so every alias relation of ``m``
    has a representative; plus the
    temporaries: ``temps`` (names of ``m``; they stay on the small machine),
    or by default one scratch register per remaining class, its last one
    not aliased to a missing part.  Slots: the first ``slots`` of every
    stack group.  Every other field (swaps, ``mem_to_mem``, immediates,
    ``cross_class``, costs) is ``m``'s.  Returns the machine and the
    temporaries."""
    first = m.classes[0].name
    chosen: set[str] = set()
    regs: dict[str, list[str]] = {}
    for c in sorted(m.classes, key=lambda c: c.width):
        want = first_class if c.name == first else per_class
        # a class of aliased registers: the first register of each alias
        # shape first (armv7-vfp: d0 over s halves and d16 without; q0 over
        # d0:d1 and q8 over d16:d17), then the first alias-closed ones
        got: list[str] = list(_shape_representatives(m, c.registers, want))
        for r in c.registers:
            if len(got) >= want:
                break
            if r not in got and _alias_closed(m, r, chosen | set(got)):
                got.append(r)
        chosen |= set(got)
        regs[c.name] = got
    todo = list(chosen)  # a representative pulls in its parts (q0: d1, then s2, s3)
    while todo:
        for p in dict(m.aliases).get(todo.pop(), ()):
            if p not in chosen:
                chosen.add(p)
                todo.append(p)
    full = m.to_json()
    # the scratch: the last register of the class not aliased to a missing part
    scratch: list[str] = []
    used_units = {u for r in chosen for u in m.lookup(r).units}
    if temps is not None:
        scratch = list(temps)
    else:
        for c in m.classes:
            if not regs[c.name]:
                continue
            for r in reversed(c.registers):
                u = set(m.lookup(r).units)
                if r not in chosen and _alias_closed(m, r, chosen) and not u & used_units:
                    scratch.append(r)
                    used_units |= u
                    break
    if temps is not None:  # a given temporary pulls in the parts it aliases
        todo = list(temps)
        while todo:
            r = todo.pop()
            if r not in chosen:
                chosen.add(r)
                todo += list(dict(m.aliases).get(r, ()))
    keep = chosen | set(scratch)
    classes = {}
    for name, entry in full["classes"].items():
        names = [r for r in entry["registers"] if r in keep]
        if names:
            classes[name] = {**entry, "registers": names}
    obj = {**full, "name": f"{m.name}/small",
           "source": f"{m.name}, reduced by verified.cases.machines.small_machine",
           "classes": classes,
           "aliases": {a: p for a, p in full["aliases"].items() if a in keep},
           "stack": [{**g, "names": [x for i, x in enumerate(g["names"])
                                      if i < slots or x in keep]} for g in full["stack"]]}
    # types and pair moves name classes: keep what the small machine still has
    if "types" in full:
        obj["types"] = {t: {**e, "classes": [c for c in e["classes"] if c in classes]}
                        for t, e in full["types"].items()
                        if e["stack"] or any(c in classes for c in e["classes"])}
    if "pair_moves" in full:
        obj["pair_moves"] = [p for p in full["pair_moves"]
                             if p["pair"] in classes and p["with"] in (*classes, "mem")]
    return machine_from_json(obj), tuple(scratch)


def sites(m: Machine, temps: Sequence[str] = (), pairs: bool = True) -> list[Site]:
    """Every location of ``m`` a move may name: registers (class order),
    with ``pairs`` the adjacent pairs of the first class (``[r0, r1]``,
    ``[r1, r2]``, ...), then slots, then the immediate.  A location that
    overlaps a temporary is left out (the moves may not touch one)."""
    avoid = {u for t in temps for u in m.lookup(t).units}
    out = [site(m, Place((r,))) for r in m.registers()]
    if pairs and m.classes:
        first = m.classes[0].registers
        out += [site(m, Place((a, b), True)) for a, b in zip(first, first[1:])]
    out += [site(m, Place((s,))) for s in m.slots()]
    out = [s for s in out if not s.units & avoid]
    return out + [site(m, IMMEDIATE)]


# ---------------------------------------------------------------------------
# Exhaustive: every assignment of sources to destinations
# ---------------------------------------------------------------------------


def _sources(places: Sequence[Site], dst: Site) -> list[Site]:
    """The sources a destination may get: every site of its shape and the
    immediate (it takes the width of where it is written)."""
    return [p for p in places if p.shape == dst.shape or p.kind == "imm"]


def _destinations(places: Sequence[Site]) -> list[Site]:
    return [p for p in places if p.kind != "imm"]


def exhaustive_cases(places: Sequence[Site], max_moves: int | None = MAX_MOVES
                     ) -> Iterator[MachineCase]:
    """Every parallel move over ``places`` of at most ``max_moves`` moves
    (None: no bound): each destination, in the order of ``places``, is
    unused or gets any source of its shape, destinations' units pairwise
    disjoint.  The empty move comes first; moves are listed in the order
    of ``places``."""
    dsts = _destinations(places)
    srcs = [_sources(places, d) for d in dsts]
    limit = len(dsts) if max_moves is None else max_moves

    def walk(i: int, used: frozenset, acc: tuple) -> Iterator[MachineCase]:
        if i == len(dsts) or len(acc) == limit:
            yield MachineCase(acc)
            return
        yield from walk(i + 1, used, acc)
        d = dsts[i]
        if used & d.units:
            return
        now = used | d.units
        for s in srcs[i]:
            yield from walk(i + 1, now, acc + ((d.loc, s.loc),))

    return walk(0, frozenset(), ())


def exhaustive_count(places: Sequence[Site], max_moves: int | None = MAX_MOVES) -> int:
    """``len(list(exhaustive_cases(places, max_moves)))``, without them."""
    dsts = _destinations(places)
    counts = [len(_sources(places, d)) for d in dsts]
    limit = len(dsts) if max_moves is None else max_moves

    @functools.lru_cache(maxsize=None)
    def count(i: int, used: frozenset, left: int) -> int:
        if i == len(dsts) or left == 0:
            return 1
        total = count(i + 1, used, left)
        if not used & dsts[i].units:
            total += counts[i] * count(i + 1, used | dsts[i].units, left - 1)
        return total

    return count(0, frozenset(), limit)


# ---------------------------------------------------------------------------
# Random: moves over every site of a machine
# ---------------------------------------------------------------------------


#: the most destinations of a random case: a parallel move at a block edge
#: or a call is rarely bigger, and shrinking starts from what fails
RANDOM_DESTINATIONS = 12


def random_case(rng: random.Random, places: Sequence[Site],
                imm_widths: frozenset = frozenset({1})) -> MachineCase:
    """A random parallel move over ``places`` of 1..12 destinations, drawn
    in a random order, each kept if its units are still free; half of the
    time each shape's destinations read a shuffle of themselves (register
    and slot cycles, a pair shifted onto its neighbour), else sources
    uniform over the sites of their shape (fan-out, chains); one source in
    ten becomes the immediate, where its parts' widths are in
    ``imm_widths`` (the widths of a class that takes an immediate: a
    constant for a wider one has no sequence on the presets, and would
    make the whole case one to decline)."""
    dsts = _destinations(places)
    imms = [p for p in places if p.kind == "imm"]
    want = rng.randint(1, min(RANDOM_DESTINATIONS, len(dsts)))
    chosen: list[Site] = []
    used: frozenset = frozenset()
    for d in rng.sample(dsts, len(dsts)):
        if len(chosen) == want:
            break
        if not used & d.units:
            chosen.append(d)
            used |= d.units
    by_shape: dict[tuple, list[Site]] = {}
    for d in chosen:
        by_shape.setdefault(d.shape, []).append(d)
    permute = rng.random() < 0.5
    moves = []
    for shape, ds in by_shape.items():
        if permute:
            ss = ds[:]
            rng.shuffle(ss)
        else:
            pool = [p for p in dsts if p.shape == shape]
            ss = [rng.choice(pool) for _ in ds]
        for d, s in zip(ds, ss):
            if imms and set(d.shape) <= imm_widths and rng.random() < 0.1:
                s = rng.choice(imms)
            moves.append((d.loc, s.loc))
    order = {p.loc: i for i, p in enumerate(places)}
    return MachineCase(tuple(sorted(moves, key=lambda mv: order[mv[0]])))


def immediate_widths(m: Machine) -> frozenset:
    """The widths of the classes of ``m`` that take an immediate."""
    return frozenset(c.width for c in m.classes if c.immediate)


def random_case_stream(places: Sequence[Site], seed: object, label: str = "",
                       imm_widths: frozenset = frozenset({1})) -> Iterator[MachineCase]:
    """An endless, reproducible stream of ``random_case`` (lazily)."""
    rng = random.Random(f"verified-conform-machine:{label}:{seed}")
    while True:
        yield random_case(rng, places, imm_widths)


def random_cases(places: Sequence[Site], k: int, seed: object, label: str = "",
                 imm_widths: frozenset = frozenset({1})) -> list[MachineCase]:
    return list(itertools.islice(random_case_stream(places, seed, label, imm_widths), k))


# ---------------------------------------------------------------------------
# Shrinking: fewer moves, fewer and earlier locations, kind and class kept
# ---------------------------------------------------------------------------


def size(case: MachineCase, places: Sequence[Site]) -> tuple:
    """What shrinking minimises: fewest moves, then fewest distinct
    locations, then the earliest sites (their indices in ``places``)."""
    index = {p.loc: i for i, p in enumerate(places)}
    named = {x for mv in case.moves for x in mv}
    return (len(case.moves), len(named),
            tuple(sorted(index.get(x, len(places)) for x in named)))


def shrink_candidates(case: MachineCase, places: Sequence[Site]) -> list[MachineCase]:
    """Strictly smaller valid cases one step away, smallest first: drop one
    move; drop every move that names one location; route around one
    destination k (its readers read k's own source, the move into k goes:
    a cycle or a chain one shorter); or rename one location to the earliest
    unused site of the same kind, class and shape (a slot stays a slot, an
    xmm an xmm, a pair a pair), when the destinations stay disjoint.  The
    remaining moves keep their order."""
    by_loc = {p.loc: p for p in places}
    moves = case.moves
    out: set[tuple] = set()
    for i in range(len(moves)):
        out.add(moves[:i] + moves[i + 1:])
    named = {x for mv in moves for x in mv}
    for k in named:
        out.add(tuple(mv for mv in moves if k not in mv))
    for k, s in moves:
        if k != s:
            out.add(tuple((d, s if src == k else src) for d, src in moves if d != k))
    for k in named:
        pk = by_loc[k]
        for p in places:
            if p.loc == k:
                break
            if (p.kind, p.cls, p.shape) != (pk.kind, pk.cls, pk.shape) or p.loc in named:
                continue
            renamed = tuple((p.loc if d == k else d, p.loc if s == k else s)
                            for d, s in moves)
            if _disjoint(renamed, by_loc):
                out.add(renamed)
            break
    mine = size(case, places)
    smaller = [MachineCase(ms) for ms in out if size(MachineCase(ms), places) < mine]
    return sorted(smaller, key=lambda c: (size(c, places), format_case(c)))


def _disjoint(moves: tuple, by_loc: dict) -> bool:
    used: set = set()
    for d, _ in moves:
        u = by_loc[d].units
        if used & u:
            return False
        used |= u
    return True
