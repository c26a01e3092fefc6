"""Optimal shuffle code with permutation instructions (the ``permi`` model).

Reference: S. Buchwald, M. Mohr, I. Rutter, "Optimal Shuffle Code with
Permutation Instructions", WADS 2015 (full version arXiv 1504.07073); seed
``/work/shared/seeds/002_f8b5fbdd0415ed96.txt``.  Facts taken from the paper
are cited by its numbering (Lemma 3, Table 1, ...).

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
  temporaries get no loop (they are dead registers).

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

The general case: the optimal copy set (Section 4)
=================================================

By Lemmas 1 and 2 an optimal code is: perms implementing ``G - C`` for a
*copy set* C (every vertex keeps exactly one of its outgoing edges, loops
included; the others form C), followed by one copy per edge of C.  The copy
for ``(u, v)`` in C is ``mov v, w`` where ``(u, w)`` is u's kept edge: after
the perms w holds u's original value.  Copy targets have their only incoming
edge in C, so no copy target is a copy source and the order of the copies
does not matter.  The length is ``|C| + GREEDY(G - C)``, ``|C| = sum over v
of max(outdeg(v) - 1, 0)`` is fixed, and we minimise GREEDY(G - C).

One table instead of two.  The paper keeps two tables (cost1 = X + a2/2 +
a3/2 for diff = a2 - a3 >= 0 and cost2 = X + a2/3 + 2*a3/3 for diff < 0,
Lemma 7).  Since 6*cost2 = 6*cost1 - diff, a single table
``T[d] = min 6*cost1(G - C)`` over copy sets with ``diff(G - C) = d`` gives
both: the optimum is ``|C| + min_d ceil((T[d] + max(0, -d)) / 6)``
(``ceil(max(a, b)) = max(ceil a, ceil b)``).  Everything is an integer.

Correction terms.  A signature-linear f (Definition 1) of a path of N
vertices is ``sum_{t < N} Delta(t mod 4)`` with ``Delta(t) = f(P_{t+1}) -
f(P_t)``.  For 6*cost1: f(P_1..P_4) = 0, 3, 3, 6, so Delta = (0, 3, 0, 3);
for diff: f(P_1..P_4) = 0, 1, -1, 0, so Delta = (0, 1, -2, 1).  A cycle of
size N has the signature of P_N.  Adding a vertex on top of a path of size
s adds Delta(s) (Lemma 8 (ii)); prepending m vertices adds
``D(s, m) = sum_{t=s}^{s+m-1} Delta(t mod 4)`` = (m div 4) * (sum of one
period: 6 and 0) + D(s, m mod 4).

Disconnected graphs (Lemma 10): tables of components combine by
``T[d] = min_{d'} T1[d'] + T2[d - d']`` (``_merge``).

Trees (Lemma 14): for a vertex v, ``R_v[d, s]`` is the best table entry of
the subtree G(v) whose root path (the component of v in G(v) - C) has size
= s mod 4.  A leaf has ``R_v[0, 1] = 0``.  If v keeps the edge to child
v_j, the other children's subtrees are separate components (their edges from
v go to C): with ``T_{-j}`` the merge of their tables (prefix and suffix
merges, so every ``T_{-j}`` costs one merge),
``R_v[d' + d'' + DeltaD(s''), s'' + 1] = T_{-j}[d'] + R_{v_j}[d'', s''] +
DeltaC(s'')``, minimised over j.  (The paper writes the correction at the
new size; ours is indexed by the child's root-path size s'', the size the new
vertex is put on top of, matching Lemma 8 (ii).)

Connected graphs with a cycle (the paper only sketches this; derivation).
The component is a cycle c_0 -> c_1 -> ... -> c_{L-1} -> c_0 (L = 1 for a
loop) with trees hanging off the cycle vertices (their *tree children*).
Every cycle vertex c_k either

* keeps its cycle edge (a *non-breaker*): all its tree edges are in C, its
  hanging subtrees are separate components, table ``H_k`` = the merge of
  their tables; or
* keeps a tree edge (a *breaker*, only if it has tree children): its cycle
  edge is in C and c_k is the top of a root path into its trees, table
  ``B_k[d, s]`` = the tree rule above applied at c_k over its tree children.

With no breaker, the cycle survives: cost ``merge(H_0..H_{L-1})`` plus f of
a size-L cycle, ``D(0, L)``.  Otherwise the breakers cut the cycle into
segments, each a run of m non-breakers followed by a breaker c_j; in G - C
that segment is one path: the m non-breakers on top of c_j's root path of
size s, so it adds ``D(s, m)`` to B_j's entry.  The segment that ends at the
first breaker c_{j0} wraps around: its run is the tail after the last breaker
(tau vertices) followed by c_0..c_{j0-1} (j0 vertices), on top of s.  Because
``D(s, j0 + tau) = D(s, j0) + D((s + j0) mod 4, tau)``, that segment is paid
in two halves: at c_{j0} we add D(s, j0) and remember ``r = (s + j0) mod 4``;
at the end we add D(r, tau).  The DP scans c_0..c_{L-1} once with states

* ``head``: no breaker yet (the run is exactly k vertices long);
* ``post[(r, m)]``: some breaker seen, r as above, m = length mod 4 of the
  run since the last breaker (one period's 6 is added each time m wraps);

non-breaker: every state merges with H_k, m += 1; breaker: head -> post[(s
+ k) mod 4, 0] with D(s, k) added, post[(r, m)] -> post[(r, 0)] with D(s, m)
added.  At the end: head + D(0, L) (no breaker) and post[(r, m)] + D(r, m).
Every copy set is counted once (by its breaker set) and every state
transition is the additive cost of exactly the components it closes, so the
minimum is the optimum.  The paper's own sketch (one tree instance per cycle
edge in C) is O(n^4); this scan is O(L * 20 * |table|^2), i.e. O(n^3)
overall, and with tables bounded by the number of vertices below, far less.

Witnesses.  Every table entry carries (as nested tuples, shared, O(1) per
entry) which out-edge each vertex keeps; the winner's witness is flattened
into the copy set (the paper's "backtracking in the tables").

Checks at run time: ``greedy`` asserts ``implements`` and Lemma 3's length;
``permi_optimal`` asserts ``implements``, ``|C|`` copies, and that its
length equals the DP's value.  ``search_optimum`` is the independent ground
truth (iterative-deepening search through ``semantics.step``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence, Union

from .graph import components
from .oracle import check_contract, implements
from .semantics import (
    MAX_PERM,
    Location,
    Mov,
    Operation,
    ParallelMove,
    Perm,
    PreconditionError,
    loc_name,
    operation,
    step,
)

__all__ = [
    "RTG",
    "rtg",
    "signature",
    "greedy_length",
    "greedy",
    "greedy_edges",
    "copy_set",
    "permi_optimal",
    "optimal_length",
    "search_optimum",
    "search_sequence",
]

Edge = tuple[Location, Location]


# ---------------------------------------------------------------------------
# Register transfer graphs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RTG:
    """A register transfer graph: ``vertices`` is the register file (plus
    temporaries), ``edges`` the pairs (u, v) meaning "u's content must end in
    v" (loops (u, u) included), in a deterministic order."""

    vertices: tuple[Location, ...]
    edges: tuple[Edge, ...]

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
    ``pm.locations()`` that is not a destination.  Vertices: the register file
    and the declared temporaries.  In-degree <= 1 holds by construction
    (asserted)."""
    check_contract(preserve)
    edges = [(s, d) for d, s in pm.moves]
    if preserve == "all":
        dsts = set(pm.source_of)
        edges += [(u, u) for u in pm.locations() if u not in dsts]
    indeg: dict[Location, int] = {}
    for _, v in edges:
        indeg[v] = indeg.get(v, 0) + 1
    assert all(k == 1 for k in indeg.values()), "an RTG has in-degree <= 1"
    vertices = list(pm.locations()) + [t for t in pm.temps]
    return RTG(tuple(vertices), tuple(edges))


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
                f"permi_optimal (it chooses which edges become copies)"
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


def greedy(pm: ParallelMove, preserve: str = "loops") -> list[Operation]:
    """GREEDY (Buchwald, Mohr, Rutter, Section 3) in the permi model.

    Precondition: the RTG of ``pm`` under ``preserve`` (``rtg``: under
    "all" every non-destination location gets a loop) has out-degree <= 1,
    i.e. no source feeds two destinations (counting its own loop); else
    PreconditionError.
    Postcondition (asserted): the sequence implements ``pm`` in the permi
    model under ``preserve``, and its length is Lemma 3's
    ``X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3))``, optimal by Theorem 2."""
    g = rtg(pm, preserve)
    ops = greedy_edges(g.edges)
    verdict = implements(pm, ops, "permi", preserve)
    assert verdict.ok, f"GREEDY is wrong on {pm}: {verdict.reason}"
    assert len(ops) == greedy_length(signature(g.edges)), "Lemma 3 violated"
    return ops


# ---------------------------------------------------------------------------
# The optimal copy set: dynamic programs
# ---------------------------------------------------------------------------

#: Correction terms Delta(t mod 4) (see the module docstring): adding a vertex
#: on top of a path of size t changes 6*cost1 by _DC[t % 4], diff by _DD[t % 4].
_DC = (0, 3, 0, 3)
_DD = (0, 1, -2, 1)
#: sum of one period of _DC (a full 4 vertices add one to X: 6 * 1) and _DD.
_PERIOD_C = 6
_PERIOD_D = 0


def _prepend(s: int, m: int) -> tuple[int, int]:
    """(6*cost1, diff) added by putting m vertices on top of a path of size
    s (mod 4): D(s, m) of the docstring."""
    c = (m // 4) * _PERIOD_C
    d = (m // 4) * _PERIOD_D
    for t in range(s, s + m % 4):
        c += _DC[t % 4]
        d += _DD[t % 4]
    return c, d


#: A table: diff -> (6*cost1, witness).  A witness is None (nothing), a leaf
#: (1, v, w) "v keeps its edge to w", or a union (0, w1, w2).
Table = dict
_ID: Table = {0: (0, None)}


def _put(out: dict, key, cost: int, wit) -> None:
    cur = out.get(key)
    if cur is None or cost < cur[0]:
        out[key] = (cost, wit)


def _merge(a: Table, b: Table) -> Table:
    """Lemma 10: T[d] = min_{d'} a[d'] + b[d - d']."""
    if b is _ID:
        return a
    if a is _ID:
        return b
    out: Table = {}
    for d1, (c1, w1) in a.items():
        for d2, (c2, w2) in b.items():
            _put(out, d1 + d2, c1 + c2, (0, w1, w2))
    return out


def _with_leaf(a: Table, leaf) -> Table:
    return {d: (c, (0, w, leaf)) for d, (c, w) in a.items()}


def _rooted(v: Location, children: list[Location], rt: dict, tt: dict) -> dict:
    """Lemma 14: R_v[(d, s)] from the children's R and T tables.  v keeps
    its edge to one child v_j; the other children's subtrees are separate
    components.  ``rt[c]``: (d, s) -> entry; ``tt[c]``: d -> entry."""
    if not children:
        return {(0, 1): (0, None)}
    k = len(children)
    prefix = [_ID]
    for c in children:
        prefix.append(_merge(prefix[-1], tt[c]))
    suffix = [_ID] * (k + 1)
    for j in range(k - 1, -1, -1):
        suffix[j] = _merge(tt[children[j]], suffix[j + 1])
    out: dict = {}
    for j, c in enumerate(children):
        rest = _merge(prefix[j], suffix[j + 1])
        leaf = (1, v, c)
        for (d2, s2), (c2, w2) in rt[c].items():
            s = (s2 + 1) % 4
            dd = d2 + _DD[s2]
            cc = c2 + _DC[s2]
            for d1, (c1, w1) in rest.items():
                _put(out, (d1 + dd, s), c1 + cc, (0, (0, w1, w2), leaf))
    return out


def _collapse(r: dict) -> Table:
    """Lemma 13: T[d] = min_s R[d, s]."""
    out: Table = {}
    for (d, _), (c, w) in r.items():
        _put(out, d, c, w)
    return out


def _shifted(tab: Table, dc: int, dd: int) -> Table:
    return {d + dd: (c + dc, w) for d, (c, w) in tab.items()}


def _into(out: dict, key, a: Table, b_entries: Iterable) -> None:
    """out[key] = min(out[key], merge(a, b)) for b given as (d, c, w)."""
    tab = out.setdefault(key, {})
    for d2, c2, w2 in b_entries:
        for d1, (c1, w1) in a.items():
            _put(tab, d1 + d2, c1 + c2, (0, w1, w2))


def _cycle_table(cycle: list[Location], tree_children: dict, rt: dict, tt: dict) -> Table:
    """The table of a connected component whose cycle is ``cycle`` (data
    flow order), by the scan derived in the module docstring."""
    L = len(cycle)
    head: Table = _ID
    post: dict[tuple[int, int], Table] = {}
    for k, ck in enumerate(cycle):
        kids = tree_children.get(ck, [])
        hk: Table = _ID
        for t in kids:
            hk = _merge(hk, tt[t])
        hk = _with_leaf(hk, (1, ck, cycle[(k + 1) % L]))
        bk = _rooted(ck, kids, rt, tt) if kids else None
        new_post: dict[tuple[int, int], Table] = {}
        # c_k is a non-breaker
        new_head = _merge(head, hk)
        for (r, m), tab in post.items():
            t = _merge(tab, hk)
            if m == 3:
                t = _shifted(t, _PERIOD_C, _PERIOD_D)
            nk = (r, (m + 1) % 4)
            if nk in new_post:
                for d, (c, w) in t.items():
                    _put(new_post[nk], d, c, w)
            else:
                new_post[nk] = dict(t)
        # c_k is a breaker
        if bk is not None:
            for s in range(4):
                entries = [(d, c, w) for (d, ss), (c, w) in bk.items() if ss == s]
                if not entries:
                    continue
                dc, dd = _prepend(s, k)
                _into(new_post, ((s + k) % 4, 0), head,
                      [(d + dd, c + dc, w) for d, c, w in entries])
                for (r, m), tab in post.items():
                    dc, dd = _prepend(s, m)
                    _into(new_post, (r, 0), tab,
                          [(d + dd, c + dc, w) for d, c, w in entries])
        head, post = new_head, new_post
    out: Table = {}
    dc, dd = _prepend(0, L)  # no breaker: the whole cycle survives
    for d, (c, w) in head.items():
        _put(out, d + dd, c + dc, w)
    for (r, m), tab in post.items():
        dc, dd = _prepend(r, m)  # close the wrap-around segment
        for d, (c, w) in tab.items():
            _put(out, d + dd, c + dc, w)
    return out


def _graph_table(edges: Sequence[Edge]) -> Table:
    """The table T of the whole RTG: components merged (Lemma 11)."""
    out: dict[Location, list[Location]] = {}
    pred: dict[Location, Location] = {}
    for u, v in edges:
        out.setdefault(u, []).append(v)
        assert v not in pred, "in-degree <= 1"
        pred[v] = u
    total: Table = _ID
    for comp in components(edges):
        # find the cycle, if any, by walking predecessors
        x = comp[0]
        seen: dict[Location, int] = {}
        walk: list[Location] = []
        while x in pred and x not in seen:
            seen[x] = len(walk)
            walk.append(x)
            x = pred[x]
        if x in seen:
            cycle = list(reversed(walk[seen[x]:]))  # data-flow order
            on_cycle = set(cycle)
            roots = [t for c in cycle for t in out.get(c, []) if t not in on_cycle]
        else:
            cycle, on_cycle, roots = [], set(), [x]
        # bottom-up over the trees (iterative post-order)
        rt: dict = {}
        tt: dict = {}
        order: list[Location] = []
        stack = list(roots)
        while stack:
            v = stack.pop()
            order.append(v)
            stack.extend(out.get(v, []))
        for v in reversed(order):
            rt[v] = _rooted(v, out.get(v, []), rt, tt)
            tt[v] = _collapse(rt[v])
        if cycle:
            kids = {c: [t for t in out.get(c, []) if t not in on_cycle] for c in cycle}
            table = _cycle_table(cycle, kids, rt, tt)
        else:
            table = tt[x]
        total = _merge(total, table)
    return total


def _best(table: Table) -> tuple[int, int]:
    """(GREEDY(G - C) for the best entry, its diff)."""
    return min(
        (-(-(c + max(0, -d)) // 6), d) for d, (c, _) in table.items()
    )


def _flatten(wit) -> dict[Location, Location]:
    kept: dict[Location, Location] = {}
    stack = [wit]
    while stack:
        w = stack.pop()
        if w is None:
            continue
        if w[0] == 1:
            assert w[1] not in kept, "a vertex keeps two edges"
            kept[w[1]] = w[2]
        else:
            stack.append(w[1])
            stack.append(w[2])
    return kept


def copy_set(pm: ParallelMove, preserve: str = "loops") -> tuple[list[Edge], list[Edge]]:
    """An optimal copy set (Section 4).  Returns (kept, C): ``kept`` has
    exactly one out-edge of each vertex with out-degree >= 1 (the
    out-degree-1 RTG G - C), C the others.  Contract: GREEDY(G - C) is
    minimal over all copy sets (checked against the brute force in tests)."""
    g = rtg(pm, preserve)
    if not g.edges:
        return [], []
    table = _graph_table(g.edges)
    _, d = _best(table)
    kept = _flatten(table[d][1])
    assert set(kept) == {u for u, _ in g.edges}, "every source keeps one edge"
    kept_edges = [(u, v) for u, v in g.edges if kept[u] == v]
    copies = [(u, v) for u, v in g.edges if kept[u] != v]
    return kept_edges, copies


def optimal_length(pm: ParallelMove, preserve: str = "loops") -> int:
    """Length of an optimal permi-model sequence for ``pm`` under
    ``preserve`` (Lemma 7 with the single table of the docstring):
    ``sum_v max(outdeg(v) - 1, 0) + min_d ceil((T[d] + max(0, -d)) / 6)``.
    Extra dead registers (declared but unnamed, or temporaries) never lower
    it (module docstring)."""
    g = rtg(pm, preserve)
    if not g.edges:
        return 0
    return g.copies() + _best(_graph_table(g.edges))[0]


def permi_optimal(pm: ParallelMove, preserve: str = "loops") -> list[Operation]:
    """An optimal permi-model sequence (Theorem 3): GREEDY on G - C for an
    optimal copy set C, then one ``mov`` per edge of C (Lemma 1's normal
    form: copies last).

    Precondition: none beyond a valid ParallelMove.
    Postcondition (asserted): implements ``pm`` in the permi model under
    ``preserve``; exactly ``sum max(outdeg - 1, 0)`` movs, all at the end;
    length == ``optimal_length(pm, preserve)``."""
    g = rtg(pm, preserve)
    kept, copies = copy_set(pm, preserve)
    ops = greedy_edges(kept)
    target = {u: v for u, v in kept}
    # after the perms, target[u] holds u's original value
    ops += [Mov(v, target[u]) for u, v in copies]
    verdict = implements(pm, ops, "permi", preserve)
    assert verdict.ok, f"permi_optimal is wrong on {pm}: {verdict.reason}"
    assert len(copies) == g.copies(), "Lemma 1 (v): copy count"
    expected = g.copies() + greedy_length(signature(kept)) if g.edges else 0
    assert len(ops) == expected == optimal_length(pm, preserve), "DP/GREEDY disagree"
    return ops


# ---------------------------------------------------------------------------
# Ground truth: exhaustive search over operation sequences
# ---------------------------------------------------------------------------


def _all_ops(universe: Sequence[Location]) -> list[Operation]:
    """Every mov and every perm (a derangement of 2..5 registers) over
    ``universe`` (perms with fixed points are smaller perms)."""
    ops: list[Operation] = [Mov(d, s) for d in universe for s in universe if d != s]
    for k in range(2, min(MAX_PERM, len(universe)) + 1):
        for subset in itertools.combinations(universe, k):
            for image in itertools.permutations(subset):
                if any(a == b for a, b in zip(subset, image)):
                    continue
                # content of subset[i] goes to image[i]
                ops.append(operation(Perm(tuple(zip(image, subset)))))
    return ops


_OPS_CACHE: dict[tuple, list[Operation]] = {}


def search_optimum(
    pm: ParallelMove, preserve: str = "loops", max_len: int = 8
) -> int | None:
    """The length of ``search_sequence``'s answer (None if longer than
    ``max_len``): the brute-force optimum the DP is measured against."""
    found = search_sequence(pm, preserve, max_len)
    return None if found is None else len(found)


def search_sequence(
    pm: ParallelMove, preserve: str = "loops", max_len: int = 8
) -> list[Operation] | None:
    """A shortest sequence of ``mov``s and ``perm``s (<= 5
    registers) over the register file and the temporaries that implements
    ``pm`` under ``preserve`` (``oracle.implements(pm, ops, "permi",
    preserve)``), or None if none has length <= ``max_len``.

    Independent of the theory: iterative deepening (IDA*) over all
    operations, run with ``semantics.step``.  Sound pruning only:
    * a state is keyed by the values that some destination still needs
      (other contents can never matter); a key already reached at a smaller
      or equal depth in this iteration is not expanded again;
    * a needed value held by no register is a dead end;
    * lower bound h: each mov raises the multiplicity of one value by one,
      so at least sum_x max(0, need(x) - count(x)) movs remain; each
      operation writes <= 5 registers and a mov only 1, so with cb that
      bound and w the wrong destinations, h = cb + ceil(max(0, w - cb) / 5);
    * a mov of an unneeded value, and an operation that leaves the key
      unchanged, are skipped (they cannot help).
    Postcondition (asserted): the sequence found implements ``pm``."""
    check_contract(preserve)
    want: dict[Location, Location] = dict(pm.source_of)
    if preserve == "all":
        for u in pm.locations():
            want.setdefault(u, u)
    universe = tuple(pm.locations()) + tuple(pm.temps)
    key_ = tuple(universe)
    if key_ not in _OPS_CACHE:
        _OPS_CACHE.clear()
        _OPS_CACHE[key_] = _all_ops(universe)
    all_ops = _OPS_CACHE[key_]
    needed = set(want.values())
    need: dict[Location, int] = {}
    for x in want.values():
        need[x] = need.get(x, 0) + 1
    dests = list(want.items())

    def key(state: dict) -> tuple:
        return tuple(
            v if v in needed else None
            for v in (state.get(r, r) for r in universe)
        )

    def h(state: dict) -> int | None:
        count: dict[Location, int] = {}
        for r in universe:
            v = state.get(r, r)
            if v in needed:
                count[v] = count.get(v, 0) + 1
        cb = 0
        for x, n in need.items():
            c = count.get(x, 0)
            if c == 0:
                return None
            if n > c:
                cb += n - c
        wrong = sum(1 for d, s in dests if state.get(d, d) != s)
        return cb + -(-max(0, wrong - cb) // MAX_PERM)

    start: dict = {}
    h0 = h(start)
    if h0 is None:
        return None

    path: list[Operation] = []

    def dfs(state: dict, g: int, bound: int, seen: dict) -> bool:
        hs = h(state)
        if hs is None or g + hs > bound:
            return False
        if hs == 0:  # h == 0 iff no destination is wrong
            return True
        k = key(state)
        if seen.get(k, bound + 1) <= g:
            return False
        seen[k] = g
        for op in all_ops:
            if isinstance(op, Mov):
                v = state.get(op.src, op.src)
                if v not in needed or state.get(op.dst, op.dst) == v:
                    continue
            child = dict(state)
            step(child, op)
            if key(child) == k:
                continue
            path.append(op)
            if dfs(child, g + 1, bound, seen):
                return True
            path.pop()
        return False

    for bound in range(h0, max_len + 1):
        if dfs(start, 0, bound, {}):
            verdict = implements(pm, path, "permi", preserve)
            assert verdict.ok and len(path) == bound, verdict.reason
            return list(path)
    return None
