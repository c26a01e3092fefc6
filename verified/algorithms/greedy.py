"""Optimal shuffle code with permutation instructions (the ``permi`` model).

Reference: S. Buchwald, M. Mohr, I. Rutter, "Optimal Shuffle Code with
Permutation Instructions", WADS 2015 (full version arXiv 1504.07073).
Facts taken from the paper are cited by its numbering (Lemma 3, Table 1,
...).

The model
=========

Operations: ``Mov(dst, src)`` (a copy) and ``Perm(pairs)``, any permutation
of at most 5 registers in one operation (the paper's permi5 and permi23 together
are exactly the permutations of <= 5 registers).

Register transfer graph (RTG).  A paper edge ``(u, v)`` ("u's content must end
in v") is our move ``[v, u]`` (dst v, src u).  A loop ``(u, u)`` is the move
``[u, u]``: u must keep its value.  In-degree <= 1 is the parallel move's
"distinct destinations" precondition.

Contracts:

* ``preserve="loops"`` (the paper's): only destinations must hold their
  values; every other register is dead and may be scratch.
* ``preserve="all"`` (CompCert's): every location of ``pm.locations()`` that
  is not a destination must keep its value.  We treat it as the RTG with a
  loop ``(u, u)`` added on each such location (``rtg`` below); declared
  temporaries get no loop (they are dead registers).  A loop on a location
  the moves do not name is an isolated cycle of size 1: it adds nothing to
  any signature and needs no operation, so ``rtg`` leaves those out and the
  RTG is linear in the moves, not in the register file (a sparse request
  over 2^20 registers costs what its moves cost).

Extra dead registers.  The RTG's vertex set is the register file
(``pm.locations()``) plus the declared temporaries.  A vertex with no edge is
a path of size 1 in every ``G - C``; it adds nothing to the signature, so the
optimum of this module does not depend on dead registers that the moves do
not name.  This agrees with the paper (the register file is the RTG's vertex
set V and Theorem 3 is stated for every V; by Lemma 5 merging a cycle with a
size-1 path never lowers GREEDY's cost) and it is checked by brute force:
``search_optimum`` below explores sequences over the whole register file and
the temporaries, and the tests compare it with ``optimal_length`` with and
without extra declared registers.  Our algorithms never touch a register the
RTG does not name.

GREEDY (out-degree-1 RTGs, Section 3)
=====================================

An out-degree-1 RTG is a disjoint union of directed paths and cycles.
1. complete every path into a cycle (the last vertex's content is dead and
   goes to the first vertex, which is no destination);
2. while a cycle of size >= 4 exists, one 5-register perm reduces it by 4
   (or resolves it when its size is 4 or 5);
3. resolve a 2-cycle and a 3-cycle together (one perm of 5 registers);
4. resolve pairs of 2-cycles (one perm of 4 registers), a last one alone;
5. resolve triples of 3-cycles with two perms (the first resolves one
   3-cycle and turns the second into a 2-cycle, the second resolves that
   2-cycle and the third 3-cycle); 1 or 2 leftover 3-cycles take one perm
   each.
With ``sig(G) = (X, a2, a3)`` (X = sum of floor(size/4) over paths and cycles,
a_i = number of paths and cycles of size = i mod 4), Lemma 3 gives
``X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3))`` operations and Theorem 2 says
that is optimal.  ``greedy`` checks both at run time.

The general case (the optimal copy set, Section 4) is in ``copyset.py``;
the brute-force ground truth in ``search.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence, Union

from ..core.oracle import check_contract
from ..core.semantics import (
    MAX_PERM,
    Location,
    Operation,
    ParallelMove,
    Perm,
    PreconditionError,
    loc_name,
    operation,
    sorted_locations,
)
from .registry import algorithm

Edge = tuple[Location, Location]

# ---------------------------------------------------------------------------
# Register transfer graphs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RTG:
    """A register transfer graph: ``edges`` the pairs (u, v) meaning "u's
    content must end in v" (loops (u, u) included), in a deterministic
    order; ``vertices`` the register file plus temporaries."""

    edges: tuple[Edge, ...]
    pm: ParallelMove = field(compare=False, repr=False)

    @property
    def vertices(self) -> tuple[Location, ...]:
        """The register file and the temporaries (built on demand: it is
        as large as the declared file)."""
        return tuple(self.pm.locations()) + tuple(self.pm.temps)

    def out_edges(self) -> dict[Location, list[Location]]:
        out: dict[Location, list[Location]] = {}
        for u, v in self.edges:
            out.setdefault(u, []).append(v)
        return out

    def copies(self) -> int:
        """Lemma 1 (v): sum over v of max(outdeg(v) - 1, 0)."""
        return sum(len(vs) - 1 for vs in self.out_edges().values())


def rtg(pm: ParallelMove, preserve: str = "loops") -> RTG:
    """The RTG of ``pm`` under the contract ``preserve``.

    Contract: edge (src, dst) for every move ``[dst, src]`` (``[u, u]`` is the
    loop (u, u)); under ``"all"`` a loop is added on every location of
    ``pm.locations()`` that is not a destination and that a move reads (on
    the others it would be an isolated size-1 cycle: no cost, no operation;
    module docstring).  O(moves), whatever the register file.  In-degree
    <= 1 holds by construction (asserted)."""
    check_contract(preserve)
    edges = [(s, d) for d, s in pm.moves]
    if preserve == "all":
        dsts = pm.source_of
        edges += [(u, u) for u in sorted_locations(s for _, s in pm.moves if s not in dsts)]
    indeg: dict[Location, int] = {}
    for _, v in edges:
        indeg[v] = indeg.get(v, 0) + 1
    assert all(k == 1 for k in indeg.values()), "an RTG has in-degree <= 1"
    return RTG(tuple(edges), pm)


def _as_edges(g: Union[ParallelMove, RTG, Iterable[Edge]], preserve: str) -> list[Edge]:
    if isinstance(g, ParallelMove):
        return list(rtg(g, preserve).edges)
    if isinstance(g, RTG):
        return list(g.edges)
    return [tuple(e) for e in g]  # type: ignore[misc]


def _check_out_degree_1(edges: Sequence[Edge]) -> None:
    out: dict[Location, Location] = {}
    for u, v in edges:
        if u in out:
            raise PreconditionError(
                f"GREEDY needs an out-degree-1 RTG, but {loc_name(u)} must go "
                f"to both {loc_name(out[u])} and {loc_name(v)}; use "
                f"permi-optimal (`verified solve -a permi-optimal`: it chooses "
                f"which edges become copies)"
            )
        out[u] = v


def _paths_and_cycles(edges: Sequence[Edge]) -> list[tuple[list[Location], bool]]:
    """Components of an out-degree-1 RTG with at least one edge, each as its
    vertices in data-flow order (content of c[i] goes to c[i+1]) and whether
    it is a cycle.  Isolated vertices (paths of size 1) are left out."""
    succ = {u: v for u, v in edges}
    pred = {v: u for u, v in edges}
    seen: set[Location] = set()
    comps: list[tuple[list[Location], bool]] = []
    for u, _ in edges:  # paths first, from their in-degree-0 start
        if u not in pred and u not in seen:
            path = [u]
            seen.add(u)
            while path[-1] in succ:
                nxt = succ[path[-1]]
                path.append(nxt)
                seen.add(nxt)
            comps.append((path, False))
    for u, _ in edges:
        if u not in seen:
            cyc = [u]
            seen.add(u)
            x = succ[u]
            while x != u:
                cyc.append(x)
                seen.add(x)
                x = succ[x]
            comps.append((cyc, True))
    return comps


def signature(
    g: Union[ParallelMove, RTG, Iterable[Edge]], preserve: str = "loops"
) -> tuple[int, int, int]:
    """Signature (X, a2, a3) of an out-degree-1 RTG (Section 3): X = sum of
    floor(size/4), a_i = number of paths and cycles whose size = i mod 4.

    ``g`` is a ParallelMove (read under ``preserve``), an RTG or an iterable
    of edges (u, v).  Precondition: out-degree <= 1 (PreconditionError)."""
    edges = _as_edges(g, preserve)
    _check_out_degree_1(edges)
    x = a2 = a3 = 0
    for comp, _ in _paths_and_cycles(edges):
        size = len(comp)
        x += size // 4
        a2 += size % 4 == 2
        a3 += size % 4 == 3
    return (x, a2, a3)


def greedy_length(sig: tuple[int, int, int]) -> int:
    """Lemma 3: GREEDY(G) = X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3))."""
    x, a2, a3 = sig
    return x + max(-(-(a2 + a3) // 2), -(-(a2 + 2 * a3) // 3))


# ---------------------------------------------------------------------------
# GREEDY
# ---------------------------------------------------------------------------


def _shift(cycle: Sequence[Location]) -> list[tuple[Location, Location]]:
    """Pairs (dst, src) moving the content of cycle[i] to cycle[i+1]."""
    k = len(cycle)
    return [(cycle[(i + 1) % k], cycle[i]) for i in range(k)]


def _perm(pairs: list[tuple[Location, Location]]) -> Operation:
    return operation(Perm(tuple(pairs)))


def greedy_edges(edges: Sequence[Edge]) -> list[Operation]:
    """GREEDY's perms for the out-degree-1 RTG given by ``edges`` (the
    paper's five steps).  Contract: afterwards every v with an edge (u, v)
    holds u's original content; exactly ``greedy_length(signature(edges))``
    operations.  Precondition: out-degree <= 1, in-degree <= 1."""
    _check_out_degree_1(edges)
    ops: list[Operation] = []
    twos: list[list[Location]] = []
    threes: list[list[Location]] = []
    # Step 1: every path becomes a cycle (its last content is dead and goes
    # to the path's first vertex, which is no destination).
    for cyc, _ in _paths_and_cycles(edges):
        # Step 2: cycles of size >= 4: one perm of 5 reduces the size by 4.
        while len(cyc) >= 4:
            if len(cyc) <= MAX_PERM:
                ops.append(_perm(_shift(cyc)))
                cyc = cyc[:1]
            else:
                head = cyc[:MAX_PERM]
                ops.append(_perm(_shift(head)))
                # c0 now holds c4's content, which must go to c5
                cyc = cyc[:1] + cyc[MAX_PERM:]
        if len(cyc) == 2:
            twos.append(cyc)
        elif len(cyc) == 3:
            threes.append(cyc)
    # Step 3: a 2-cycle and a 3-cycle together.
    while twos and threes:
        ops.append(_perm(_shift(twos.pop()) + _shift(threes.pop())))
    # Step 4: pairs of 2-cycles (and a last one alone).
    while len(twos) >= 2:
        ops.append(_perm(_shift(twos.pop()) + _shift(twos.pop())))
    if twos:
        ops.append(_perm(_shift(twos.pop())))
    # Step 5: triples of 3-cycles with two perms; leftovers one perm each.
    while len(threes) >= 2:
        a, b = threes.pop(), threes.pop()
        # resolve a; swap b0, b1 so b1 is done and b0 holds b1's content,
        # which must go to b2: b becomes the 2-cycle (b0 b2)
        ops.append(_perm(_shift(a) + [(b[1], b[0]), (b[0], b[1])]))
        two = [b[0], b[2]]
        if threes:
            ops.append(_perm(_shift(two) + _shift(threes.pop())))
        else:
            ops.append(_perm(_shift(two)))
    if threes:
        ops.append(_perm(_shift(threes.pop())))
    return ops


def lemma3_length(pm: ParallelMove, preserve: str = "loops") -> int:
    """GREEDY's exact length on ``pm`` (Lemma 3 on its RTG's signature)."""
    return greedy_length(signature(rtg(pm, preserve).edges))


@algorithm(
    "greedy", model="permi", preserve="loops", bound=lemma3_length,
    bound_text="X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3)) (Lemma 3)", optimal=True,
    proof="proofs/permi_claims.py",
    summary="GREEDY for out-degree-1 RTGs (Buchwald, Mohr, Rutter)",
    source="Buchwald, Mohr, Rutter, WADS 2015, Section 3 (Lemma 3, Theorem 2)")
def greedy(pm: ParallelMove, preserve: str = "loops") -> list[Operation]:
    """GREEDY (Buchwald, Mohr, Rutter, Section 3) in the permi model.

    Precondition: the RTG of ``pm`` under ``preserve`` (``rtg``: under
    "all" every non-destination location gets a loop) has out-degree <= 1,
    i.e. no source feeds two destinations (counting its own loop); else
    PreconditionError.
    Postcondition (the registry's): the sequence implements ``pm`` in the
    permi model under ``preserve``, and its length is Lemma 3's
    ``X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3))``, optimal by Theorem 2."""
    return greedy_edges(rtg(pm, preserve).edges)
