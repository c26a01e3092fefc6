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
    """The moves as JSON: ``[dst, src]``, or ``[dst, src, TYPE]`` for a typed
    move (a typed case's moves are ``(dst, src, type)`` triples)."""
    return [[mv[0].to_json(), mv[1].to_json(), *mv[2:]] for mv in case.moves]


def format_case(case: MachineCase) -> str:
    return "(" + ", ".join(f"{mv[0]} <- {mv[1]}" + (f" ({mv[2]})" if len(mv) > 2 else "")
                           for mv in case.moves) + ")"


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
    first = m.classes[0].name if m.classes else None
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
    # slots: the first ``slots`` of each group, and the parts a kept slot
    # lies over (a slot alias, issue 23: x64-frame's mq1 = m1:m2 brings m2)
    todo = [x for g in m.stack for x in g.names[:slots]] + [x for x in keep
                                                             if x in m.slots()]
    while todo:
        x = todo.pop()
        keep.add(x)
        todo += [p for p in dict(m.aliases).get(x, ()) if p not in keep]
    classes = {}
    for name, entry in full["classes"].items():
        names = [r for r in entry["registers"] if r in keep]
        if names:
            classes[name] = {**entry, "registers": names}
    obj = {**full, "name": f"{m.name}/small",
           "source": f"{m.name}, reduced by verified.cases.machines.small_machine",
           "classes": classes,
           "aliases": {a: p for a, p in full["aliases"].items() if a in keep},
           "stack": [{**g, "names": [x for x in g["names"] if x in keep]}
                     for g in full["stack"]]}
    # types and pair moves name classes: keep what the small machine still has
    if "types" in full:
        obj["types"] = {t: {**e, "classes": [c for c in e["classes"] if c in classes]}
                        for t, e in full["types"].items()
                        if e["stack"] or any(c in classes for c in e["classes"])}
    for key in ("reserved", "scratch"):   # a profile names only what is kept
        if key in full:
            obj[key] = [r for r in full[key] if r in keep or r in {
                x for g in obj["stack"] for x in g["names"]}]
    if "pair_moves" in full:
        obj["pair_moves"] = [p for p in full["pair_moves"]
                             if p["pair"] in classes and p["with"] in (*classes, "mem")]
    return machine_from_json(obj), tuple(scratch)


def sites(m: Machine, temps: Sequence[str] = (), pairs: bool = True) -> list[Site]:
    """Every location of ``m`` a move may name: registers (class order),
    with ``pairs`` the adjacent pairs of the first class (``[r0, r1]``,
    ``[r1, r2]``, ...), then slots, then the immediate.  A location that
    overlaps a temporary is left out (the moves may not touch one)."""
    avoid = {u for t in temps for u in m.lookup(t).units} | m.reserved_units()
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
    named = {x for mv in case.moves for x in mv[:2]}
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
    named = {x for mv in moves for x in mv[:2]}
    for k in named:
        out.add(tuple(mv for mv in moves if k not in mv[:2]))
    for k, s, *_ in moves:  # a typed case: k's readers have k's type (one a location)
        if k != s:
            out.add(tuple((mv[0], s if mv[1] == k else mv[1], *mv[2:])
                          for mv in moves if mv[0] != k))
    for k in named:
        pk = by_loc[k]
        for p in places:
            if p.loc == k:
                break
            if (p.kind, p.cls, p.shape) != (pk.kind, pk.cls, pk.shape) or p.loc in named:
                continue
            renamed = tuple((p.loc if mv[0] == k else mv[0], p.loc if mv[1] == k else mv[1],
                             *mv[2:]) for mv in moves)
            if _disjoint(renamed, by_loc):
                out.add(renamed)
            break
    mine = size(case, places)
    smaller = [MachineCase(ms) for ms in out if size(MachineCase(ms), places) < mine]
    return sorted(smaller, key=lambda c: (size(c, places), format_case(c)))


def _disjoint(moves: tuple, by_loc: dict) -> bool:
    used: set = set()
    for d, *_ in moves:
        u = by_loc[d].units
        if used & u:
            return False
        used |= u
    return True


# ---------------------------------------------------------------------------
# Typed cases: the moves a compiler emits on a machine with a types table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TypedSpace:
    """Which typed cases to generate on a machine with a ``"types"`` table
    (``docs/machines.md``, "Typed values"; ``conform --machine``).

    Each move is ``(dst, src, TYPE)``, and each location a case names holds
    one type in that case, as a source and as a destination (a slot keeps
    one type: no chain changes class through a shared slot).  A location
    may hold a type when the oracle says it can (``core.machine.holds``)
    and, unless ``cross_class``, a register only the types whose first
    class (their home: i64 in a GPR, f64 in an XMM register) is its own, so
    no move goes between two classes; a stack slot holds the types exactly
    its width (an f64 in an 8-byte slot, a v128 in a 16-byte one).  A
    register pair holds the type exactly its width whose home is its class
    (armv7-vfp's i64 in a core-register pair); where there is none (a
    128-bit value in two GPRs: the table has no i128), its moves stay
    untyped pairs ``(dst, src)`` of the pair's full width.  ``types`` are
    the types used (all the machine's by default); ``pairs`` and
    ``immediates`` keep those sites."""

    types: tuple[str, ...]
    cross_class: bool = False
    pairs: bool = True
    immediates: bool = True


def typed_space(m: Machine, types: Sequence[str] | None = None, cross_class: bool = False,
                pairs: bool = True, immediates: bool = True) -> TypedSpace | None:
    """The typed space on ``m`` (None: ``m`` has no types table, so its
    cases are untyped, as before).  ``types`` must name types of ``m``
    (``ValueError`` naming the valid ones otherwise)."""
    if not m.types:
        return None
    known = [t.name for t in m.types]
    chosen = tuple(known) if types is None else tuple(dict.fromkeys(types))
    bad = [t for t in chosen if t not in known]
    if bad:
        raise ValueError(f"{', '.join(bad)}: not a type of {m.name}; its types are "
                         f"{', '.join(known)}")
    return TypedSpace(chosen, cross_class, pairs, immediates)


def wide_immediate(m: Machine) -> Imm | None:
    """A constant one mov cannot write everywhere: 2^b for the narrowest
    ``immediate_bits`` limit b below the unit size (x86-64's ``mov m64,
    imm32``: 2^32 must be built in a register first), or None."""
    if m.unit_bits is None:
        return None
    limits = [b for _, b in m.immediate_bits if b < m.unit_bits]
    return Imm(1 << min(limits)) if limits else None


def typed_sites(m: Machine, space: TypedSpace, temps: Sequence[str] = ()) -> list[Site]:
    """The sites of a typed space: ``sites`` without reserved registers
    (a profile's ``"reserved"``), pairs only with ``space.pairs``, and the
    immediates #7 and ``wide_immediate`` only with ``space.immediates``."""
    reserved = {u for r in getattr(m, "reserved", ()) for u in m.lookup(r).units}
    out = [s for s in sites(m, temps, space.pairs) if not s.units & reserved]
    if not space.immediates:
        return [s for s in out if s.kind != "imm"]
    wide = wide_immediate(m)
    return out + ([site(m, wide)] if wide is not None else [])


def site_types(m: Machine, s: Site, space: TypedSpace) -> tuple:
    """The type labels site ``s`` may hold in ``space``: type names, or
    None for an untyped pair (see ``TypedSpace``); an immediate takes any."""
    if s.kind == "imm":
        return (*space.types, None)
    from ..core.machine import holds  # core: the oracle's own rule
    width = sum(s.shape)
    out = []
    for name in space.types:
        t = m.type(name)
        if holds(m, s.loc, t) is not None:
            continue
        if s.kind == "mem":
            if width == t.width:
                out.append(name)
            continue
        if s.loc.is_list and width != t.width:
            continue
        if space.cross_class or t.classes[0] == s.cls:
            out.append(name)
    if s.loc.is_list and not out:
        return (None,)
    return tuple(out)


def _typed_options(m: Machine, places: Sequence[Site], space: TypedSpace) -> list:
    """Per destination (in site order): the site and its ``(src, label)``
    choices, every source of a label both may hold (an untyped pair: a
    source of its shape)."""
    labels = {p.loc: site_types(m, p, space) for p in places}
    out = []
    for d in _destinations(places):
        choices = []
        for s in places:
            for t in labels[d.loc]:
                if t not in labels[s.loc] or (t is None and s.kind != "imm"
                                               and s.shape != d.shape):
                    continue
                if not space.cross_class and d.kind == s.kind == "reg" and d.cls != s.cls:
                    continue
                choices.append((s, t))
        out.append((d, choices))
    return out


def _fits(tmap: dict, loc: MLoc, t: object) -> bool:
    return isinstance(loc, Imm) or tmap.get(loc, t) == t


def _typed_move(d: Site, s: Site, t: object) -> tuple:
    return (d.loc, s.loc) if t is None else (d.loc, s.loc, t)


def typed_exhaustive_cases(m: Machine, places: Sequence[Site], space: TypedSpace,
                           max_moves: int | None = MAX_MOVES) -> Iterator[MachineCase]:
    """Every typed parallel move over ``places`` of at most ``max_moves``
    moves: each destination, in site order, unused or given a source and a
    type both may hold, every location keeping one type in the case,
    destinations' units disjoint.  The empty move first."""
    options = _typed_options(m, places, space)
    limit = len(options) if max_moves is None else max_moves

    def walk(i: int, used: frozenset, tmap: dict, acc: tuple) -> Iterator[MachineCase]:
        if i == len(options) or len(acc) == limit:
            yield MachineCase(acc)
            return
        yield from walk(i + 1, used, tmap, acc)
        d, choices = options[i]
        if used & d.units:
            return
        now = used | d.units
        last = len(acc) + 1 == limit  # the case's last move: walk would yield it at once
        for s, t in choices:
            if _fits(tmap, d.loc, t) and _fits(tmap, s.loc, t):
                if last:
                    yield MachineCase(acc + (_typed_move(d, s, t),))
                    continue
                more = dict(tmap)
                more[d.loc] = t
                if not isinstance(s.loc, Imm):
                    more[s.loc] = t
                yield from walk(i + 1, now, more, acc + (_typed_move(d, s, t),))

    return walk(0, frozenset(), {}, ())


def typed_exhaustive_bound(m: Machine, places: Sequence[Site], space: TypedSpace,
                           max_moves: int | None = MAX_MOVES) -> int:
    """An upper bound of ``typed_exhaustive_count`` that is cheap on any
    space: the count with every choice of source and type allowed (no
    location keeping one type)."""
    options = _typed_options(m, places, space)
    limit = len(options) if max_moves is None else max_moves

    @functools.lru_cache(maxsize=None)
    def count(i: int, used: frozenset, left: int) -> int:
        if i == len(options) or left == 0:
            return 1
        total = count(i + 1, used, left)
        d, choices = options[i]
        if not used & d.units:
            total += len(choices) * count(i + 1, used | d.units, left - 1)
        return total

    return count(0, frozenset(), limit)


def typed_exhaustive_count(m: Machine, places: Sequence[Site], space: TypedSpace,
                           max_moves: int | None = MAX_MOVES) -> int:
    """``len(list(typed_exhaustive_cases(...)))``, counted with the type
    map of the locations later destinations can still meet as state."""
    options = _typed_options(m, places, space)
    limit = len(options) if max_moves is None else max_moves

    @functools.lru_cache(maxsize=None)
    def count(i: int, used: frozenset, tmap: frozenset, left: int) -> int:
        if i == len(options) or left == 0:
            return 1
        total = count(i + 1, used, tmap, left)
        d, choices = options[i]
        if used & d.units:
            return total
        types = dict(tmap)
        for s, t in choices:
            if _fits(types, d.loc, t) and _fits(types, s.loc, t):
                if left == 1:  # the last move: each choice is one case (count(..., 0) == 1)
                    total += 1
                    continue
                more = dict(types)
                more[d.loc] = t
                if not isinstance(s.loc, Imm):
                    more[s.loc] = t
                total += count(i + 1, used | d.units, frozenset(more.items()), left - 1)
        return total

    return count(0, frozenset(), frozenset(), limit)


@dataclass
class RandomTables:
    """What ``random_typed_case`` reads of its machine, sites and space,
    worked out once per stream rather than per case (issue 20: the sites'
    labels alone were most of the CPU of ``conform --machine x86-64
    --random``): each site's ``site_types`` by location, the destinations
    that have one, the immediates, the sites' order, and (filled as asked)
    each group's pool of sources before the case's own type map, and
    whether a destination takes a constant of a label."""

    m: Machine
    labels: dict
    dsts: list
    imms: list
    order: dict
    pools: dict
    takes: dict

    @classmethod
    def of(cls, m: Machine, places: Sequence[Site], space: TypedSpace) -> "RandomTables":
        labels = {p.loc: site_types(m, p, space) for p in places}
        return cls(m, labels, [d for d in _destinations(places) if labels[d.loc]],
                   [p for p in places if p.kind == "imm"],
                   {p.loc: i for i, p in enumerate(places)}, {}, {})

    def pool(self, t: object, shape: tuple, cls: object) -> list:
        """The sources of a group (label ``t``, destinations' ``shape``,
        their class or None), in site order, any type map aside."""
        key = (t, shape, cls)
        if key not in self.pools:
            self.pools[key] = [p for p in self.dsts if t in self.labels[p.loc]
                               and (t is not None or p.shape == shape)
                               and (cls is None or p.kind != "reg" or p.cls == cls)]
        return self.pools[key]

    def takes_immediate(self, d: Site, t: object) -> bool:
        key = (d.loc, t)
        if key not in self.takes:
            self.takes[key] = _takes_immediate(self.m, d, t)
        return self.takes[key]


def random_typed_case(rng: random.Random, m: Machine, places: Sequence[Site],
                      space: TypedSpace, tables: RandomTables | None = None) -> MachineCase:
    """A random typed parallel move over ``places`` of 1..12 destinations
    (``random_case``'s shapes: half the time each group of destinations of
    one type and shape reads a shuffle of itself, register and slot cycles,
    a pair shifted onto its neighbour; else sources drawn among the
    locations that may hold the type), each location keeping one type, one
    source in ten the immediate where a class of the type's home takes one
    (a v128 constant has no sequence on the presets).  ``tables``: the
    ``RandomTables`` of ``m``, ``places`` and ``space``, when the caller
    has them."""
    tb = RandomTables.of(m, places, space) if tables is None else tables
    labels, dsts, imms = tb.labels, tb.dsts, tb.imms
    want = rng.randint(1, min(RANDOM_DESTINATIONS, len(dsts))) if dsts else 0
    chosen: list[tuple[Site, object]] = []
    used: frozenset = frozenset()
    for d in rng.sample(dsts, len(dsts)):
        if len(chosen) == want:
            break
        if not used & d.units:
            chosen.append((d, rng.choice(labels[d.loc])))
            used |= d.units
    tmap = {d.loc: t for d, t in chosen}
    groups: dict[tuple, list[Site]] = {}
    for d, t in chosen:
        key = (t, d.shape, None if space.cross_class or d.kind != "reg" else d.cls)
        groups.setdefault(key, []).append(d)
    permute = rng.random() < 0.5
    moves = []
    for (t, shape, cls), ds in groups.items():
        if permute:
            ss = ds[:]
            rng.shuffle(ss)
        else:
            pool = [p for p in tb.pool(t, shape, cls) if tmap.get(p.loc, t) == t]
            ss = []
            for _ in ds:
                s = rng.choice(pool)
                tmap[s.loc] = t
                ss.append(s)
        for d, s in zip(ds, ss):
            if imms and tb.takes_immediate(d, t) and rng.random() < 0.1:
                s = rng.choice(imms)
            moves.append(_typed_move(d, s, t))
    order = tb.order
    return MachineCase(tuple(sorted(moves, key=lambda mv: order[mv[0]])))


def _takes_immediate(m: Machine, d: Site, t: object) -> bool:
    """Has a constant of label ``t`` into ``d`` a sequence: some class of
    the type (an untyped pair: its parts' class) takes an immediate."""
    if t is None:
        return all(m.class_info(m.lookup(p).cls).immediate for p in d.loc.parts)
    return any(m.class_info(c).immediate for c in m.type(t).classes
               if any(k.name == c for k in m.classes))


def random_typed_case_stream(m: Machine, places: Sequence[Site], space: TypedSpace,
                             seed: object, label: str = "") -> Iterator[MachineCase]:
    """An endless, reproducible stream of ``random_typed_case``."""
    rng = random.Random(f"verified-conform-machine-typed:{label}:{seed}")
    tables = RandomTables.of(m, places, space)
    while True:
        yield random_typed_case(rng, m, places, space, tables)
