"""Parallel-move cases: every generator the tools, the tests and the
benchmarks use, once.

* ``register_maps(n)``: all n^n total maps (the shuffling write-up's
  ``want[]``: register d receives the original value of ``want[d]``);
  ``register_map_moves(n)`` the same maps as their moves;
* ``exhaustive_cases(N)``: every parallel move over r0..r{n-1} for n <= N,
  partial ones included ((n+1)^n for each n);
* ``random_case`` / ``random_cases`` / ``random_case_stream``: seeded
  random moves (long cycles, fan-out, blades, windmills), as a list or as an
  endless lazy stream;
* ``random_moves``: each register a destination with a given density, its
  source uniform (fan-out, self-moves, windmills);
* ``out_degree_1_rtg``: a random out-degree-1 register transfer graph built
  from known path and cycle sizes (its signature known by construction);
* ``shape_cases``: every total move on n registers up to renaming
  (``shapes.py``), each under its canonical labelling and K random
  renamings, its moves in a chosen order;
* ``no_fan_out``: the out-degree-1 filter (GREEDY's domain);
* ``shrink_candidates``: the strictly smaller cases one step away, keeping
  the register numbers and the declared register count.
"""

from __future__ import annotations

import itertools
import random
from typing import Callable, Iterator, NamedTuple

from . import shapes as _shapes

_new_tuple = tuple.__new__


def register_maps(n: int, first: int | None = None) -> Iterator[tuple[int, ...]]:
    """All n^n maps (or those with want[0] == first)."""
    heads = range(n) if first is None else (first,)
    for head in heads:
        for rest in itertools.product(range(n), repeat=n - 1):
            yield (head, *rest)


def register_map_moves(n: int, first: int | None = None
                       ) -> Iterator[tuple[tuple[int, int], ...]]:
    """``register_maps(n, first)`` as moves, in the same order: for each
    map ``want``, ``tuple(enumerate(want))``, the pairs (d, want[d]) of
    every register d.  Packed by ``itertools.product`` over each register's
    n moves (one shared (d, s) tuple each), so no map is built pair by pair
    in Python (the exhaustive checks' hot loop)."""
    if n == 0:
        return iter(())  # as register_maps: no map on no registers
    choices = [[(d, s) for s in range(n)] for d in range(n)]
    if first is not None:
        choices[0] = [(0, first)]
    return itertools.product(*choices)


class Case(NamedTuple):
    """One parallel move over the register file r0..r{registers-1}."""

    registers: int
    moves: tuple[tuple[int, int], ...]

    @property
    def size(self) -> tuple[int, int]:
        """What shrinking minimises: fewest registers, then fewest moves."""
        return (self.registers, len(self.moves))


def random_moves(rng: random.Random, n: int, density: float) -> list[tuple[int, int]]:
    """Each register d of r0..r{n-1} is a destination with probability
    ``density``; its source is uniform over the file."""
    return [(d, rng.randrange(n)) for d in range(n) if rng.random() < density]


def out_degree_1_rtg(rng: random.Random, max_comps: int = 8, max_size: int = 13,
                     spare: int = 3) -> tuple[list[tuple[int, int]], tuple[int, int, int], int]:
    """A random out-degree-1 RTG (edges ``(u, v)``: u's content must end in
    v) made of up to ``max_comps`` paths and cycles of known sizes, on
    shuffled labels with up to ``spare`` unused ones.  Returns (edges, the
    signature (X, a2, a3) of Buchwald, Mohr and Rutter's Section 3 computed
    from the sizes, the number of labels)."""
    sizes = [rng.randint(1, max_size) for _ in range(rng.randint(0, max_comps))]
    labels = list(range(sum(sizes) + rng.randint(0, spare)))
    rng.shuffle(labels)
    edges: list[tuple[int, int]] = []
    pos = x = a2 = a3 = 0
    for size in sizes:
        vs = labels[pos:pos + size]
        pos += size
        if size == 1 and rng.random() < 0.5:
            pass  # an isolated vertex: a path of size 1
        elif rng.random() < 0.5:  # a cycle (size 1: a loop)
            edges += [(vs[i], vs[(i + 1) % size]) for i in range(size)]
        else:
            edges += list(zip(vs, vs[1:]))
        x += size // 4
        a2 += size % 4 == 2
        a3 += size % 4 == 3
    rng.shuffle(edges)
    return edges, (x, a2, a3), len(labels)


def exhaustive_cases(max_registers: int, smallest: int = 1, start: int = 0) -> Iterator[Case]:
    """Every parallel move over r0..r{n-1} for n = smallest..max_registers:
    each register is either not a destination or a destination of any
    register (self-moves included), (n+1)^n moves for each n.  ``start``:
    from the case of that index on (``islice(..., start, None)``, without
    generating the ones before it)."""
    for n in range(smallest, max_registers + 1):
        count = (n + 1) ** n
        if start >= count:
            start -= count
            continue
        # register d's choices: no move, or the pair (d, s) for each source s
        # (the pairs built once per n, not once per case)
        choices = [[None, *[(d, s) for s in range(n)]] for d in range(n)]
        for pairs in _product_from(choices, start):
            # tuple.__new__ skips NamedTuple's Python-level __new__ (hot path);
            # filter(None, ...) drops the Nones (a pair is never false)
            yield _new_tuple(Case, (n, tuple(filter(None, pairs))))
        start = 0


def _product_from(choices: list, start: int) -> Iterator[tuple]:
    """``itertools.product(*choices)`` from its ``start``-th tuple on (every
    position with as many choices)."""
    if start == 0:
        yield from itertools.product(*choices)
        return
    n, m = len(choices), len(choices[0])
    digits = [(start // m ** (n - 1 - k)) % m for k in range(n)]
    # the tuples >= digits, in order: those that keep digits[:k] and raise
    # position k (the last position: from its own digit on), the rest free
    for k in range(n - 1, -1, -1):
        prefix = tuple(choices[j][d] for j, d in enumerate(digits[:k]))
        first = digits[k] if k == n - 1 else digits[k] + 1
        for c in choices[k][first:]:
            for rest in itertools.product(*choices[k + 1:]):
                yield (*prefix, c, *rest)


def exhaustive_count(max_registers: int) -> int:
    return sum((n + 1) ** n for n in range(1, max_registers + 1))


def random_case(rng: random.Random, n: int) -> Case:
    """A random parallel move over n registers.  Half of them are dense
    permutations of a random subset (long cycles), the other half random
    functions of random density (fan-out, blades, windmills)."""
    if n == 0:
        return Case(0, ())
    if rng.random() < 0.5:
        dsts = rng.sample(range(n), rng.randint(1, n))
        srcs = dsts[:]
        rng.shuffle(srcs)
        moves = sorted(zip(dsts, srcs))
        # sometimes let a few destinations read elsewhere (blades on cycles)
        for i in range(len(moves)):
            if rng.random() < 0.15:
                moves[i] = (moves[i][0], rng.randrange(n))
        return Case(n, tuple(moves))
    return Case(n, tuple(random_moves(rng, n, rng.random())))


def random_cases(n: int, k: int, seed: object) -> list[Case]:
    """The first k cases of ``random_case_stream(n, seed)``."""
    return list(itertools.islice(random_case_stream(n, seed), k))


def random_case_stream(n: int, seed: object,
                       domain: Callable[[Case], bool] | None = None) -> Iterator[Case]:
    """An endless, reproducible stream of ``random_case(rng, n)``, generated
    one at a time (a million cases cost no memory).  ``domain`` keeps only
    the cases it accepts (drawn from their own seeded generator, so a
    filtered stream is not a subsequence of the unfiltered one)."""
    if domain is None:
        rng = random.Random(f"verified-conform:{n}:{seed}")
        while True:
            yield random_case(rng, n)
    rng = random.Random(f"verified-conform:{n}:{seed}:{domain.__name__.replace('_', '-')}")
    while True:
        case = random_case(rng, n)
        if domain(case):
            yield case


def no_fan_out(case: Case) -> bool:
    """No location is read by two moves (self-moves count): the transfer
    graph has out-degree <= 1, GREEDY's precondition."""
    srcs = [s for _, s in case.moves]
    return len(srcs) == len(set(srcs))


def shrink_candidates(case: Case) -> list[Case]:
    """Strictly smaller cases one step away: drop one move; drop every move
    that names one register; or route around one register k (its readers
    read k's own source instead, and the move into k goes), which shortens
    a cycle or a chain by one without breaking it.  Register numbers and
    the declared register count are kept, so a client that treats some
    registers specially (high ones as stack slots, say) sees the same
    registers it failed on; only ``Case.size``'s move count drops.  Moves
    keep their order (the order a client received them in)."""
    out = set()
    moves = case.moves
    for i in range(len(moves)):
        out.add(moves[:i] + moves[i + 1:])
    for k in {x for m in moves for x in m}:
        out.add(tuple(m for m in moves if k not in m))
    for k, s in moves:
        if k != s:
            out.add(tuple((d, s if src == k else src) for d, src in moves if d != k))
    return sorted(Case(case.registers, ms) for ms in out if len(ms) < len(moves))


def reorder_moves(case: Case, order: str, rng: random.Random) -> Case:
    """The same move with its moves listed ``"sorted"`` by destination,
    ``"reversed"`` or ``"shuffled"`` (drawn from ``rng``): a parallel move
    is a set, and a client must not depend on the order it is sent in."""
    if order == "sorted":
        return Case(case.registers, tuple(sorted(case.moves)))
    if order == "reversed":
        return Case(case.registers, tuple(sorted(case.moves, reverse=True)))
    if order == "shuffled":
        moves = list(case.moves)
        rng.shuffle(moves)
        return Case(case.registers, tuple(moves))
    raise ValueError(f"unknown move order {order!r}; use one of {', '.join(_shapes.ORDERS)}")


def shape_case_count(n: int, relabel: int = 0) -> int:
    """How many cases ``shape_cases(n, relabel, ...)`` yields."""
    return _shapes.shape_count(n) * (1 + relabel)


def shape_cases(n: int, relabel: int = 0, order: str = "sorted", seed: object = 0,
                self_moves: bool = True) -> Iterator[Case]:
    """Every total parallel move on n registers up to renaming
    (``shapes.shapes``, A001372: 3,799,624 at n = 16), lazily: each shape
    under its canonical labelling, then under ``relabel`` random renamings
    (``shapes.random_relabelling``), its moves listed in ``order``
    (``shapes.ordered_moves``: sorted, reversed or shuffled).  Renamings and
    shuffles come from one generator seeded by (n, relabel, order, seed).

    ``self_moves=False`` leaves out the self-moves ``[d, d]``: under the
    "all" contract a register that is not a destination keeps its value, so
    the move without them is the same move, and a total move with fixed
    points stands for every partial move up to renaming."""
    if order not in _shapes.ORDERS:
        raise ValueError(f"unknown move order {order!r}; use one of "
                         f"{', '.join(_shapes.ORDERS)}")
    rng = random.Random(f"verified-conform-shapes:{n}:{relabel}:{order}:{seed}")
    if order == "sorted" and relabel == 0:
        # the canonical shapes with their moves by destination: register
        # d's pair (d, s) for each source s built once, not once per case;
        # None for a self-move left out (dropped by filter)
        pair = [[None if d == s and not self_moves else (d, s) for s in range(n)]
                for d in range(n)]
        for srcs in _shapes.shapes(n):
            yield _new_tuple(Case, (n, tuple(filter(None, map(list.__getitem__, pair, srcs)))))
        return
    for srcs in _shapes.shapes(n):
        for k in range(1 + relabel):
            # shapes() yields valid total maps and random_relabelling valid
            # renamings: the unchecked forms (the tests validate every case)
            cur = srcs if k == 0 else _shapes._relabel(srcs, _shapes.random_relabelling(n, rng))
            moves = _shapes._ordered_moves(cur, order, rng)
            if not self_moves:
                moves = [m for m in moves if m[0] != m[1]]
            yield _new_tuple(Case, (n, tuple(moves)))
