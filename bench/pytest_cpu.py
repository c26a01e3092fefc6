"""Where the test suite's time goes, per test file (docs/testing.md).

A pytest plugin and its report, not a test (timings live in bench/, never
in tests).  The plugin records, for every test, its wall time and the CPU
seconds of the pytest process and of the processes it waited for (the CLI
runs, conform's clients and checker processes): CPU time is what a shared,
loaded machine does not inflate much, where wall time grows with the load.

    python -m pytest -p bench.pytest_cpu -m "not slow and not huge"
    python -m bench.pytest_cpu .test-times.jsonl                # per-file table
    python -m bench.pytest_cpu BEFORE.jsonl AFTER.jsonl          # side by side

The records go to ``$VERIFIED_TEST_TIMES`` (default ``.test-times.jsonl``),
one JSON line per test, appended (with pytest-xdist each worker appends its
own lines).
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time

import pytest

OUT = os.environ.get("VERIFIED_TEST_TIMES", ".test-times.jsonl")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, waited.ru_utime + waited.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    w0, (s0, c0) = time.perf_counter(), _cpu()
    yield
    w1, (s1, c1) = time.perf_counter(), _cpu()
    with open(OUT, "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": item.nodeid, "wall": round(w1 - w0, 4),
                            "self": round(s1 - s0, 4), "child": round(c1 - c0, 4)}) + "\n")


def per_file(path: str) -> dict[str, tuple[int, float, float]]:
    """file -> (tests, wall seconds, CPU seconds) from one records file."""
    out: dict = collections.defaultdict(lambda: [0, 0.0, 0.0])
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            row = out[r["id"].split("::")[0]]
            row[0] += 1
            row[1] += r["wall"]
            row[2] += r["self"] + r["child"]
    return {k: tuple(v) for k, v in out.items()}


def table(paths: list[str]) -> str:
    """The markdown table: per file, CPU seconds (and wall) of each run."""
    runs = [per_file(p) for p in paths]
    files = sorted(set().union(*runs), key=lambda f: -max(r.get(f, (0, 0, 0))[2] for r in runs))
    head = "| file | tests | " + " | ".join(
        f"CPU s ({i + 1}) | wall s ({i + 1})" for i in range(len(runs))) + " |"
    lines = [head, "|" + "---|" * (2 + 2 * len(runs))]
    for f in files + ["all"]:
        cells = []
        for r in runs:
            n, wall, cpu = (tuple(map(sum, zip(*r.values()))) if f == "all" else
                            r.get(f, (0, 0.0, 0.0)))
            cells.append(f"{cpu:.1f} | {wall:.1f}")
        n = max((sum(v[0] for v in r.values()) if f == "all" else r.get(f, (0,))[0])
                for r in runs)
        lines.append(f"| {f} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    if not sys.argv[1:]:
        sys.exit(__doc__)
    print(table(sys.argv[1:]))
