"""The optimal copy set for permutation instructions (Buchwald, Mohr,
Rutter, WADS 2015, Section 4): the dynamic program over the register
transfer graph, and ``permi_optimal`` = GREEDY (``greedy.py``) on G - C for
an optimal copy set C, then one copy per edge of C.

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

Dominated entries.  Every table drops the entries another entry of the same
table dominates (no more cost, no more cost - diff: ``_pareto``); that is
exact because the answer is monotone in both and every later step adds the
same amounts to every entry.  It keeps tables to a few dozen entries, so a
random 10^5-register RTG takes seconds instead of hours.

Checks at run time: ``permi_optimal``'s registry postcondition (implements,
length == the DP's value) and its asserts (``|C|`` copies, GREEDY agrees).
``search.py`` is the independent ground truth.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..core.semantics import Location, Mov, Operation, ParallelMove
from ..core.graph import components
from .greedy import Edge, greedy_edges, greedy_length, rtg, signature
from .registry import algorithm

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


def _pareto(tab: Table) -> Table:
    """``tab`` without its dominated entries.  The answer is
    ``ceil(max(c, c - d) / 6)`` (``_best``) and everything later adds the
    same (d, c) to every entry of a table, so an entry (d2, c2) can never
    win over an entry (d1, c1) with c1 <= c2 and c1 - d1 <= c2 - d2: drop
    it.  Exact, and it keeps the tables short (the diffs of the surviving
    entries trade cost against diff), which makes the DP about linear on
    large random RTGs instead of quadratic.  Insertion order is kept."""
    if len(tab) <= 1:
        return tab
    keep = set()
    best = None
    for d, (c, _) in sorted(tab.items(), key=lambda e: (e[1][0], e[1][0] - e[0])):
        if best is None or c - d < best:
            keep.add(d)
            best = c - d
    return tab if len(keep) == len(tab) else {d: e for d, e in tab.items() if d in keep}


def _merge(a: Table, b: Table) -> Table:
    """Lemma 10: T[d] = min_{d'} a[d'] + b[d - d'] (dominated entries
    dropped, ``_pareto``)."""
    if b is _ID:
        return a
    if a is _ID:
        return b
    out: Table = {}
    for d1, (c1, w1) in a.items():
        for d2, (c2, w2) in b.items():
            _put(out, d1 + d2, c1 + c2, (0, w1, w2))
    return _pareto(out)


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
    return _pareto_by_size(out)


def _pareto_by_size(r: dict) -> dict:
    """``_pareto`` within each root-path size s of an R table."""
    by_s: dict[int, Table] = {}
    for (d, s), e in r.items():
        by_s.setdefault(s, {})[d] = e
    kept = {s: _pareto(t) for s, t in by_s.items()}
    return {(d, s): e for (d, s), e in r.items() if d in kept[s]}


def _collapse(r: dict) -> Table:
    """Lemma 13: T[d] = min_s R[d, s]."""
    out: Table = {}
    for (d, _), (c, w) in r.items():
        _put(out, d, c, w)
    return _pareto(out)


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
        head, post = new_head, {key: _pareto(t) for key, t in new_post.items()}
    out: Table = {}
    dc, dd = _prepend(0, L)  # no breaker: the whole cycle survives
    for d, (c, w) in head.items():
        _put(out, d + dd, c + dc, w)
    for (r, m), tab in post.items():
        dc, dd = _prepend(r, m)  # close the wrap-around segment
        for d, (c, w) in tab.items():
            _put(out, d + dd, c + dc, w)
    return _pareto(out)


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


@algorithm(
    "permi-optimal", model="permi", preserve="loops",
    bound=lambda pm, preserve: optimal_length(pm, preserve),
    bound_text="the copy-set DP's optimum (Theorem 3)", optimal=True,
    proof="proofs/permi_claims.py",
    summary="optimal copy set (dynamic program) + GREEDY",
    source="Buchwald, Mohr, Rutter, WADS 2015, Section 4; the cycle case derived here")
def permi_optimal(pm: ParallelMove, preserve: str = "loops") -> list[Operation]:
    """An optimal permi-model sequence (Theorem 3): GREEDY on G - C for an
    optimal copy set C, then one ``mov`` per edge of C (Lemma 1's normal
    form: copies last).

    Precondition: none beyond a valid ParallelMove.
    Postcondition (the registry's): implements ``pm`` in the permi model
    under ``preserve`` with length == ``optimal_length(pm, preserve)``;
    asserted here: exactly ``sum max(outdeg - 1, 0)`` movs, all at the end,
    and GREEDY's length on G - C agrees with the DP."""
    g = rtg(pm, preserve)
    kept, copies = copy_set(pm, preserve)
    ops = greedy_edges(kept)
    target = {u: v for u, v in kept}
    # after the perms, target[u] holds u's original value
    ops += [Mov(v, target[u]) for u, v in copies]
    assert len(copies) == g.copies(), "Lemma 1 (v): copy count"
    expected = g.copies() + greedy_length(signature(kept)) if g.edges else 0
    assert len(ops) == expected == optimal_length(pm, preserve), "DP/GREEDY disagree"
    return ops
