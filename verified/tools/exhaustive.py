"""Exhaustive checking: every register map on n registers (n^n parallel
moves, the shuffling write-up's ``want[]`` arrays: register d receives the
original value of register want[d]) run through an algorithm and judged by
the oracle.  Used by the tests (n <= 6 in ``make test``, n = 7 in ``make
verify``), by ``make bench`` and by ``smallest_failure``.

Each input is judged twice, independently: by the algorithm's own run-time
postcondition (``oracle.ensure``: implements + its length bound, which must
be switched on) and by a direct check here against the request and the
model the registry names (``oracle.rejudge``: the postcondition's verdict
only when it was computed on exactly that move, those operations, that
model and contract, else ``implements`` afresh).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from multiprocessing import get_context

from ..algorithms import ALGORITHMS, solve
from ..cases import register_maps
from ..core import oracle
from ..core.semantics import ParallelMove, PreconditionError

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


def _check_chunk(args: tuple[str, int, int | None, int]) -> Result:
    name, n, first, keep = args
    if not oracle.CONTRACTS_ON:
        raise RuntimeError("exhaustive checks need run-time contracts on (VERIFIED_CONTRACTS != 0)")
    model = ALGORITHMS[name].model
    result = Result(name, n)
    for want in register_maps(n, first):
        pm = request_for(want, model)
        result.checked += 1
        try:
            ops = solve(name, pm)
            verdict = oracle.rejudge(pm, ops, model)
            reason = None if verdict.ok else verdict.reason
        except (AssertionError, PreconditionError) as e:
            reason = f"{type(e).__name__}: {e}"
        if reason is not None:
            result.failure_count += 1
            if len(result.failures) < keep:
                result.failures.append(Failure(want, reason))
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

