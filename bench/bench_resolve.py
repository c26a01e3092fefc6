"""The machine resolver (make bench; ``python -m bench resolve``):

1. its gap to the optimum (resolver cost - search optimum) as a histogram
   over every request of every small-machine variant of
   ``tests/machines/resolve_cases.py`` (2 registers + 2 slots + 1
   immediate, 6**4 moves x 2 contracts, 36 variants: swaps, mem_to_mem,
   immediates, temporaries), with how often the greedy steps were stuck and
   the search answered, and how many requests have no sequence;
2. its throughput (requests/s) on random requests over each preset with a
   scratch register per class and a scratch slot per group declared, with
   and without the run-time postcondition (the machine oracle).

``--quick`` (``python -m bench.bench_resolve --quick``): the 5 variants the
test suite runs instead of all 36."""

from __future__ import annotations

import collections
import random
import sys
import time

from tests.machines.resolve_cases import ALL_VARIANTS, VARIANTS, requests, small
from tests.machines.test_resolve import random_move
from verified.algorithms import machine_optimum as O, resolve as R
from verified.core import machine as M


def gap_histogram(variants) -> tuple[collections.Counter, collections.Counter]:
    gaps: collections.Counter = collections.Counter()
    other: collections.Counter = collections.Counter()
    for v in variants:
        m = small(**v)
        for mm in requests(m, v["temp"]):
            for preserve in ("all", "loops"):
                best, _ = O.search(mm, preserve)
                events: list = []
                try:
                    ops = R.resolve(mm, preserve=preserve, trace=lambda e, d: events.append(e))
                except R.Unsolvable:
                    other["no sequence exists (proved by the search)"] += 1
                    continue
                if "search" in events:
                    other["greedy stuck, the search answered"] += 1
                gaps[M.cost(m, ops) - best] += 1
    return gaps, other


def throughput(preset: str, fn, n: int = 400) -> tuple[float, int]:
    m = M.preset(preset)
    rng = random.Random(f"bench-{preset}")
    reqs = [random_move(m, rng, rng.randrange(1, 9)) for _ in range(n)]
    t = time.perf_counter()
    for mm in reqs:
        fn(mm)
    return n / (time.perf_counter() - t), n


def main(argv: list[str] | None = None) -> None:
    quick = "--quick" in (argv if argv is not None else sys.argv[1:])
    variants = VARIANTS if quick else ALL_VARIANTS
    t = time.perf_counter()
    gaps, other = gap_histogram(variants)
    total = sum(gaps.values())
    print(f"gap to the optimum (cost - optimal cost), {len(variants)} small-machine variants, "
          f"{total + sum(v for k, v in other.items() if k.startswith('no sequence'))} requests "
          f"({time.perf_counter() - t:.0f} s):")
    for g in sorted(gaps):
        print(f"  gap {g}: {gaps[g]:6d}  ({100 * gaps[g] / total:5.1f} %)")
    for k, v in sorted(other.items()):
        print(f"  {k}: {v}")
    from verified.algorithms import ALGORITHMS
    for label, fn in (("with the postcondition", R.resolve),
                      ("bare", ALGORITHMS["resolve"].raw)):
        for preset in M.PRESETS:
            rate, n = throughput(preset, fn)
            print(f"  throughput {preset:10} {label:24} {rate:8.0f} requests/s ({n} requests, "
                  "1..8 moves)")

if __name__ == "__main__":
    main()
