"""Exhaustive checking: every register map on n registers (n^n parallel
moves, the shuffling write-up's ``want[]`` arrays: register d receives the
original value of register want[d]) run through an algorithm and judged by
the oracle.  Used by the tests (n <= 6 in ``make test``, n = 7 in ``make
verify``), by ``make bench`` and by ``smallest_failure``.

Each input is judged twice, independently: by the algorithm's own run-time
postcondition (``oracle.ensure``: implements + its length bound, which must
be switched on) and by a direct check here (``direct_check``) of the
operations against the map itself, not the request built from it: every
operation one of the model's the registry names, every location it names
r0..r{n-1} or the temporary, and, run through the one interpreter
(``semantics.execute``), register d ends with the original value of
want[d].  The direct check computes its own answer, never the oracle's
(it shares only the interpreter); when it rejects, the failure is worded as
``oracle.implements`` words it, and if the oracle accepts what the direct
check rejects, the failure says that the two judgements disagree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any, Callable

from ..algorithms import ALGORITHMS, MACHINE, solve
from ..cases import register_map_moves
from ..core import oracle
from ..core.semantics import MODELS, Location, Operation, ParallelMove, PreconditionError, execute

#: The temporary offered to temp-model algorithms.
TEMP = "t"


def request_for(want: tuple[int, ...], model: str) -> ParallelMove:
    """``ParallelMove.from_map(want, temps)``; a map of ``register_maps`` is
    valid by construction (distinct destinations r0..r{n-1}, sources in the
    file, the temporary outside it), so it is built unchecked (the tests
    compare the two on every map of n <= 4)."""
    temps = (TEMP,) if model == "temp" else ()
    return ParallelMove.trusted(tuple(enumerate(want)), len(want), temps)


@dataclass
class Failure:
    want: tuple[int, ...]
    reason: str

    @property
    def registers(self) -> int:
        return len(self.want)

    @property
    def non_loop_moves(self) -> int:
        return sum(1 for d, s in enumerate(self.want) if d != s)


@dataclass
class Result:
    algorithm: str
    n: int
    checked: int = 0
    failures: list[Failure] = field(default_factory=list)
    failure_count: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.checked / self.seconds if self.seconds else float("inf")


def direct_check(moves: tuple[tuple[int, int], ...], ops: list[Operation],
                 kinds: tuple[type, ...], names: frozenset) -> str | None:
    """Why ``ops`` does not implement the total map ``moves`` (the pairs
    (d, want[d]) of every register d of the file), or None: an operation
    not of ``kinds`` (the model's), a location outside ``names`` (the file
    and the temporary) read or written, or a register d that does not end
    with the original value of want[d].  Every register is a destination,
    so no other register must keep its own value; the temporary's final
    value does not matter."""
    # (each location looked up with ``in``, not ``names.issuperset``: the
    # compiled build tests a frozenset's membership directly, where a
    # method call goes through the generic protocol)
    for op in ops:
        if not isinstance(op, kinds):
            return f"{op} is not an operation of the model"
        for loc in op.reads():
            if loc not in names:
                return f"{op} reads a location outside the file and the temporary"
    state = execute(ops)
    # execute's state holds exactly the locations written (every other one
    # still holds its own value): the writes are checked all at once
    for loc in state:
        if loc not in names:
            return "a location outside the file and the temporary is written"
    get = state.get
    for d, s in moves:
        if get(d, d) != s:
            return f"r{d} does not end with the original value of r{s}"
    return None


def _reason(pm: ParallelMove, ops: list[Operation], model: str, why: str) -> str:
    """The failure's words for operations the direct check rejected
    (``why``): the oracle's, or when the oracle accepts them, that the two
    judgements disagree (a bug in one of them)."""
    verdict = oracle.implements(pm, ops, model)
    if verdict.ok:
        return f"the oracle accepts this sequence, the direct check does not: {why}"
    return verdict.reason if verdict.reason is not None else why


def _runner(name: str) -> Callable[[ParallelMove], list[Operation]]:
    """``lambda pm: solve(name, pm)``, for a register algorithm without
    ``solve``'s look-ups on every map: what its checked entry point does
    when ``solve`` calls it (told the contract "all" when it takes one),
    without the entry point's argument plumbing: the bare function, then
    the registered postcondition told "all" (the contract it would read
    from the call).  A machine algorithm goes through ``solve``, which
    refuses it."""
    algo = ALGORITHMS.get(name)
    if algo is None or algo.model == MACHINE:
        return lambda pm: solve(name, pm)
    return _checked_all(algo.raw, algo.told_contract, algo.postcondition)


def _checked_all(raw: Callable[..., list[Operation]], told: bool,
                 post: "Callable[[Any, Any, Any], None] | None"
                 ) -> Callable[[ParallelMove], list[Operation]]:
    """``raw`` called as ``solve`` calls it (``preserve="all"`` when it is
    told the contract), then ``post`` (when it has one) on its output."""
    def run(pm: ParallelMove) -> list[Operation]:
        ops = raw(pm, preserve="all") if told else raw(pm)
        if post is not None:
            post(pm, ops, "all")
        return ops
    return run


def _check_chunk(args: tuple[str, int, int | None, int]) -> Result:
    name, n, first, keep = args
    if not oracle.CONTRACTS_ON:
        raise RuntimeError("exhaustive checks need run-time contracts on (VERIFIED_CONTRACTS != 0)")
    model = ALGORITHMS[name].model
    temps: tuple[Location, ...] = (TEMP,) if model == "temp" else ()
    kinds = MODELS.get(model, ())  # a machine algorithm: solve refuses it first
    names = frozenset((*range(n), *temps))
    trusted = ParallelMove.trusted
    run = _runner(name)
    result = Result(name, n)
    checked = 0
    for moves in register_map_moves(n, first):
        # the generator is trusted code: its maps are valid by construction
        # (distinct destinations r0..r{n-1}, sources in the file, the
        # temporary outside it), so the request is built unchecked, as
        # request_for does
        pm = trusted(moves, n, temps)
        checked += 1
        try:
            ops = run(pm)
            why = direct_check(moves, ops, kinds, names)
            reason = None if why is None else _reason(pm, ops, model, why)
        except (AssertionError, PreconditionError) as e:
            reason = f"{type(e).__name__}: {e}"
        if reason is not None:
            result.failure_count += 1
            if len(result.failures) < keep:
                result.failures.append(Failure(tuple(s for _, s in moves), reason))
    result.checked = checked
    return result


def check_all(name: str, n: int, processes: int = 1, keep: int = 10) -> Result:
    """Run algorithm ``name`` on every register map of size ``n``; keep the
    first ``keep`` failures.  ``processes`` > 1 splits the maps by want[0]."""
    t0 = time.perf_counter()
    chunks = [(name, n, first, keep) for first in range(n)] if n else [(name, 0, None, keep)]
    if processes > 1 and n > 1:
        with get_context("fork").Pool(processes) as pool:
            parts = pool.map(_check_chunk, chunks)
    else:
        parts = [_check_chunk(c) for c in chunks]
    total = Result(name, n)
    for p in parts:
        total.checked += p.checked
        total.failure_count += p.failure_count
        total.failures += p.failures[: keep - len(total.failures)]
    total.seconds = time.perf_counter() - t0
    return total


def smallest_failure(name: str, max_n: int) -> Failure | None:
    """The smallest input on which algorithm ``name`` fails: fewest
    registers, then fewest non-loop moves, then lexicographically first."""
    for n in range(1, max_n + 1):
        result = check_all(name, n, keep=n ** n)
        if result.failures:
            return min(result.failures, key=lambda f: (f.non_loop_moves, f.want))
    return None

