"""DP timing for verified.permi on random RTGs (make bench).

Random RTG on n registers: each register is a destination with probability
3/4, its source uniform over the n registers (a loop when it is itself).
Reported: optimal_length (the DP alone) and permi_optimal (DP, witness,
GREEDY, and the run-time postcondition check through the oracle), mean and
max over the sample, plus a few structured worst cases.  Goal: n = 64 under
1 s."""

from __future__ import annotations

import random
import statistics
import time

from verified import cases
from verified.algorithms import copyset
from verified.core.semantics import ParallelMove


def _random_pm(rng: random.Random, n: int) -> ParallelMove:
    moves = cases.random_moves(rng, n, 0.75)
    return ParallelMove.make(moves, registers=n)


def _time(fn, pm) -> float:
    t = time.perf_counter()
    fn(pm)
    return time.perf_counter() - t


def _structured(n: int) -> dict[str, ParallelMove]:
    half = n // 2
    cycle_leaves = [((i + 1) % half, i) for i in range(half)] + [
        (half + i, i) for i in range(half)]
    # a cycle with two long blades per vertex pair: the breaker scan's case
    q = n // 4
    blades = [((i + 1) % q, i) for i in range(q)]
    nxt = q
    for i in range(q):
        blades.append((nxt, i))
        for _ in range(2):
            blades.append((nxt + 1, nxt))
            nxt += 1
        nxt += 1
    blades = [(d, s) for d, s in blades if d < n and s < n]
    return {
        f"cycle of {half} + one leaf each": ParallelMove.make(cycle_leaves),
        f"cycle of {q} + 3-vertex blades": ParallelMove.make(blades),
        f"binary tree of {n}": ParallelMove.make([(i, (i - 1) // 2) for i in range(1, n)]),
        f"star of {n}": ParallelMove.make([(i, 0) for i in range(n)]),
        f"{n}-cycle": ParallelMove.make([((i + 1) % n, i) for i in range(n)]),
    }


def main() -> None:
    rng = random.Random(20150805)
    samples = 30
    print(f"random RTGs, {samples} per size (seconds)")
    print(f"{'n':>5} {'DP mean':>10} {'DP max':>10} {'full mean':>10} {'full max':>10}")
    for n in (16, 32, 64, 128):
        pms = [_random_pm(rng, n) for _ in range(samples)]
        dp = [_time(copyset.optimal_length, pm) for pm in pms]
        full = [_time(copyset.permi_optimal, pm) for pm in pms]
        print(f"{n:>5} {statistics.mean(dp):>10.4f} {max(dp):>10.4f} "
              f"{statistics.mean(full):>10.4f} {max(full):>10.4f}")
    print("structured RTGs, n = 64 (seconds, permi_optimal)")
    for name, pm in _structured(64).items():
        print(f"  {name:32} {_time(copyset.permi_optimal, pm):.4f}"
              f"  (optimum {copyset.optimal_length(pm)})")


if __name__ == "__main__":
    main()
