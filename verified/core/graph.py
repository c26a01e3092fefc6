"""The location transfer graph (RTG) of a parallel move and its windmills.

Edge ``src -> dst`` for every non-loop move.  Destinations are distinct, so
every location has in-degree <= 1; a connected component with V locations
and E edges therefore has E <= V and at most one cycle (E == V): a
**windmill**, whose cycle is the axle and whose trees are the blades.

"At most one cycle per component" is checked here (``analyse`` asserts it
from the edge/vertex count *and* from the cycles actually found), not assumed.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .compact import Pairs
from .semantics import Location, ParallelMove


@dataclass(frozen=True)
class Windmill:
    """One connected component of the transfer graph."""

    locations: tuple[Location, ...]
    #: the moves of the component, as (dst, src), in the parallel move's order
    moves: tuple[tuple[Location, Location], ...]
    #: the axle as a list of locations c0, c1, ... with c_{i+1} <- c_i
    #: (and c0 <- c_last); empty when the component is a tree
    cycle: tuple[Location, ...]

    # the dataclass's __init__ written out (see semantics.Mov: the compiled
    # build compiles a written one); frozen as before
    def __init__(self, locations: tuple[Location, ...],
                 moves: tuple[tuple[Location, Location], ...],
                 cycle: tuple[Location, ...]) -> None:
        object.__setattr__(self, "locations", locations)
        object.__setattr__(self, "moves", moves)
        object.__setattr__(self, "cycle", cycle)

    @property
    def has_cycle(self) -> bool:
        return bool(self.cycle)

    @property
    def is_bare_cycle(self) -> bool:
        """A cycle with no blade: no cycle location feeds a destination
        outside the cycle (so breaking it costs one extra copy when only
        moves and one temporary are available)."""
        return self.has_cycle and len(self.moves) == len(self.cycle)

    @property
    def blades(self) -> tuple[tuple[Location, Location], ...]:
        """The tree moves hanging off the axle (all moves, for a tree)."""
        on_cycle = set(self.cycle)
        return tuple((d, s) for d, s in self.moves if d not in on_cycle)


@dataclass(frozen=True)
class TransferGraph:
    windmills: tuple[Windmill, ...]

    def __init__(self, windmills: tuple[Windmill, ...]) -> None:  # see Windmill
        object.__setattr__(self, "windmills", windmills)

    @property
    def non_loop_moves(self) -> int:
        return sum(len(w.moves) for w in self.windmills)

    @property
    def cycles(self) -> int:
        return sum(1 for w in self.windmills if w.has_cycle)

    @property
    def bare_cycles(self) -> int:
        return sum(1 for w in self.windmills if w.is_bare_cycle)


def analyse(pm: ParallelMove) -> TransferGraph:
    """Split the transfer graph of ``pm`` into windmills.

    Postcondition (raised as AssertionError if ever false): every component
    has at most one cycle, and the cycle found by walking sources is the only
    one (E - V + 1 cycles in a connected component with E edges, V nodes).
    """
    moves = pm.non_loop_moves
    source_of = dict(moves)  # the moves are (d, s) pairs
    groups = components(moves)
    group_of = {loc: i for i, locs in enumerate(groups) for loc in locs}
    group_moves: list[list[tuple[Location, Location]]] = [[] for _ in groups]
    for pair in moves:  # each move's own pair (d, s), not a copy of it
        group_moves[group_of[pair[0]]].append(pair)

    windmills = []
    for locs, comp_moves in zip(groups, group_moves):
        cycle = _find_cycle(locs, source_of)
        # The windmill postcondition, two ways: by counting and by walking.
        assert len(comp_moves) <= len(locs), "in-degree <= 1 violated"
        assert bool(cycle) == (len(comp_moves) == len(locs)), (
            "component has more than one cycle or a cycle was missed"
        )
        windmills.append(Windmill(tuple(locs), tuple(comp_moves), cycle))
    return TransferGraph(tuple(windmills))


@dataclass(frozen=True)
class CycleCounts:
    """What the closed-form optima need of the transfer graph, without the
    graph: the counts of ``analyse``'s TransferGraph (``non_loop_moves``,
    ``cycles``, ``bare_cycles``) and how many locations lie on a cycle.
    The tests compare the two on every small move."""

    non_loop_moves: int
    cycles: int
    bare_cycles: int
    on_cycle: int

    def __init__(self, non_loop_moves: int, cycles: int, bare_cycles: int,
                 on_cycle: int) -> None:  # written out: see Windmill
        object.__setattr__(self, "non_loop_moves", non_loop_moves)
        object.__setattr__(self, "cycles", cycles)
        object.__setattr__(self, "bare_cycles", bare_cycles)
        object.__setattr__(self, "on_cycle", on_cycle)


def cycle_counts(pm: ParallelMove) -> CycleCounts:
    """The cycles of ``pm``'s transfer graph, counted over flat arrays (a
    move of a million registers in megabytes, where ``analyse`` builds every
    windmill).  In-degree <= 1: the walk along sources from any location
    either leaves the graph or enters the one cycle of its component, and
    the first walk to enter a cycle closes it on itself.  A cycle is bare
    when each of its locations feeds exactly one move (its successor): a
    location feeding a second move roots a blade."""
    number: Callable[[Location], int]
    regs = pm.registers
    if type(pm.moves) is tuple:
        if regs is not None and regs <= 2 * len(pm.moves) + 8:
            # a small declared file (an exhaustive map's, most requests'):
            # every location is a register of it (make checks), numbered by
            # itself, with no numbering to build or call (the exhaustive
            # checks count the cycles of every map)
            return _register_counts(pm.moves, regs)
        if len(pm.moves) <= SMALL:  # a huge one: over arrays, below
            return _tuple_counts(pm.moves)
    if isinstance(pm.moves, Pairs):  # registers already: numbered by themselves
        size = max(pm.moves.values(), default=-1) + 1
        number = int
    else:
        ids: dict[Location, int] = {}
        for d, s in pm.moves:
            ids.setdefault(d, len(ids))
            ids.setdefault(s, len(ids))
        size, number = len(ids), ids.__getitem__
    source = _filled(-1, size)  # the location each one is moved from
    feeds = _filled(0, size)  # how many moves read each location
    non_loop = 0
    for d, s in pm.moves:
        if d != s:
            non_loop += 1
            si = number(s)
            source[number(d)] = si
            feeds[si] += 1
    return _walk(source, feeds, non_loop)


def _register_counts(moves: tuple, regs: int) -> CycleCounts:
    """``cycle_counts`` of moves over registers 0..regs-1, each register its
    own number: ``_walk``'s walk over lists typed as lists (the compiled
    build indexes a ``list[int]`` directly, a list-or-array through the
    generic protocol: a third of an exhaustive map's length bound)."""
    source = [-1] * regs
    feeds = [0] * regs
    non_loop = 0
    for d, s in moves:
        if d != s:
            non_loop += 1
            source[d] = s
            feeds[s] += 1
    walk = [-1] * regs  # which walk reached each register first
    cycles = bare = on_cycle = 0
    for start in range(regs):
        x = start
        while x != -1 and walk[x] == -1:
            walk[x] = start
            x = source[x]
        if x == -1 or walk[x] != start:
            continue  # left the graph, or met an earlier walk's registers
        cycles += 1
        length, all_single = _closed_cycle(x, source, feeds)
        on_cycle += length
        bare += all_single
    return CycleCounts(non_loop, cycles, bare, on_cycle)


def _walk(source: "list[int] | array[int]", feeds: "list[int] | array[int]",
          non_loop: int) -> CycleCounts:
    """The counts from the arrays: ``source`` (the number each location is
    moved from, -1 for none) and ``feeds`` (how many moves read each)."""
    size = len(source)
    walk = _filled(-1, size)  # which walk reached each location first
    cycles = bare = on_cycle = 0
    for start in range(size):
        x = start
        while x != -1 and walk[x] == -1:
            walk[x] = start
            x = source[x]
        if x == -1 or walk[x] != start:
            continue  # left the graph, or met an earlier walk's locations
        cycles += 1
        length, all_single = _closed_cycle(x, source, feeds)
        on_cycle += length
        bare += all_single
    return CycleCounts(non_loop, cycles, bare, on_cycle)


def _closed_cycle(x: Any, source: Any, feeds: Any) -> "tuple[int, bool]":
    """The cycle through ``x`` (a walk just closed it): its length, and
    whether it is bare (each location on it feeds one move).  ``source``
    and ``feeds`` are either walk's: arrays by number or dicts by location."""
    y, length, all_single = x, 0, True
    while True:
        length += 1
        all_single = all_single and feeds[y] == 1
        y = source[y]
        if y == x:
            return length, all_single


def _tuple_counts(moves: tuple) -> CycleCounts:
    """``cycle_counts`` of a move in tuple form (every request's, the
    exhaustive maps'), the same walk over dictionaries keyed by location:
    only the non-loop destinations are walked (a location that is no
    destination ends a walk), and no location is numbered first (a third
    of ``check``'s optimum went to numbering them)."""
    source: dict = {}
    feeds: dict = {}
    for d, s in moves:
        if d != s:
            source[d] = s
            feeds[s] = feeds.get(s, 0) + 1
    walk: dict = {}
    cycles = bare = on_cycle = 0
    for start in source:
        x = start
        while x in source and x not in walk:
            walk[x] = start
            x = source[x]
        if x not in walk or walk[x] != start:
            continue  # left the graph, or met an earlier walk's locations
        cycles += 1
        length, all_single = _closed_cycle(x, source, feeds)
        on_cycle += length
        bare += all_single
    # destinations are distinct: one non-loop move per key
    return CycleCounts(len(source), cycles, bare, on_cycle)


#: up to this many locations ``cycle_counts`` counts over lists (faster to
#: make and index than arrays: the exhaustive checks and ``check`` count
#: the cycles of small moves by the million); beyond, over arrays of
#: 8 bytes a location (a million registers in megabytes, not 8 times that)
SMALL = 1 << 12


def _filled(value: int, size: int) -> "list[int] | array[int]":
    return [value] * size if size <= SMALL else array("q", [value]) * size


def components(edges: Iterable[tuple[Location, Location]]) -> list[list[Location]]:
    """Connected components of the graph with these edges (union-find with
    path halving), each listed in first-seen order."""
    parent: dict[Location, Location] = {}
    for u, v in edges:
        parent.setdefault(u, u)
        parent.setdefault(v, v)
        ru, rv = _find(parent, u), _find(parent, v)
        if ru != rv:
            parent[ru] = rv
    groups: dict[Location, list[Location]] = {}
    for x in parent:
        groups.setdefault(_find(parent, x), []).append(x)
    return list(groups.values())


def _find(parent: dict[Location, Location], x: Location) -> Location:
    """The root of ``x`` in ``components``' forest, halving the path.  (A
    module function, not a closure: the compiled build calls it directly,
    and ``analyse`` runs on every map of the exhaustive checks.)"""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _find_cycle(
    locs: list[Location], source_of: dict[Location, Location]
) -> tuple[Location, ...]:
    """Follow sources backwards from any location of a component: with
    in-degree <= 1 the walk either leaves the graph (a tree) or enters the
    unique cycle.  Returned in data-flow order: c[i+1] <- c[i]."""
    x = locs[0]
    seen: dict[Location, int] = {}
    path: list[Location] = []
    while x in source_of and x not in seen:
        seen[x] = len(path)
        path.append(x)
        x = source_of[x]
    if x not in seen:
        return ()
    # path[seen[x]:] walks backwards along data flow: x <- path[i+1] ...
    backwards = path[seen[x]:]
    return tuple(reversed(backwards))
