"""The location transfer graph (RTG) of a parallel move and its windmills.

Edge ``src -> dst`` for every non-loop move.  Destinations are distinct, so
every location has in-degree <= 1; a connected component with V locations
and E edges therefore has E <= V and at most one cycle (E == V): a
**windmill**, whose cycle is the axle and whose trees are the blades.

"At most one cycle per component" is checked here (``analyse`` asserts it
from the edge/vertex count *and* from the cycles actually found), not assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

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
    source_of = {d: s for d, s in moves}
    groups = components(moves)
    group_of = {loc: i for i, locs in enumerate(groups) for loc in locs}
    group_moves: list[list[tuple[Location, Location]]] = [[] for _ in groups]
    for d, s in moves:
        group_moves[group_of[d]].append((d, s))

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


def components(edges: Iterable[tuple[Location, Location]]) -> list[list[Location]]:
    """Connected components of the graph with these edges (union-find with
    path halving), each listed in first-seen order."""
    parent: dict[Location, Location] = {}

    def find(x: Location) -> Location:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in edges:
        parent.setdefault(u, u)
        parent.setdefault(v, v)
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
    groups: dict[Location, list[Location]] = {}
    for x in parent:
        groups.setdefault(find(x), []).append(x)
    return list(groups.values())


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
