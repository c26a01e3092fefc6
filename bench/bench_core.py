"""Exhaustive-check throughput of the parallel-move algorithms: every
register map on n registers through the algorithm, its run-time
postcondition and an independent direct check of its operations against
the map (verified.tools.exhaustive).

Goal (issue 2): n = 7 (823,543 maps) in under 60 s per algorithm.  All
algorithms are measured in the same run, so their ratios are comparable
even on a noisy machine; the ratio column is relative to leroy."""

import os

from verified.algorithms import ALGORITHMS
from verified.tools.exhaustive import check_all


def main() -> None:
    cores = os.cpu_count() or 1
    for n, processes in ((6, 1), (7, cores)):
        print(f"n = {n}: {n ** n:,} maps per algorithm, {processes} process(es)")
        rows = [check_all(name, n, processes=processes)
                for name, algo in ALGORITHMS.items()
                if algo.correct and algo.model in ("swap", "temp")]
        base = next(r for r in rows if r.algorithm == "leroy").seconds
        for r in rows:
            assert r.failure_count == 0, r.failures[:1]
            print(f"  {r.algorithm:16} {r.seconds:7.1f} s  {r.rate:9,.0f} maps/s  "
                  f"x{r.seconds / base:4.2f} of leroy's time")


if __name__ == "__main__":
    main()
