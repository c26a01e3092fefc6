"""Huge inputs (issue 14 item 9), measured side by side in one run: each
case runs in a fresh Python process, which reports its own wall time and
peak RSS.

* `verified check`, permi model: a 2-move request with "registers":
  1048576 (2^20) beside the same request with no declared file;
* permi-optimal on a random fan-out move over 10^4 and 10^5 registers (the
  copy-set DP with dominated table entries dropped);
* shuf beside xchg on one long cycle (why shuf refuses more than
  MAX_MOVES moves: its cost grows about with the cube of the cycle);
* `verified ssra alloc` on the 6,362-line tape with 8 and with 2^20
  registers (the cap of --registers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = """
import json, resource, sys, time
t = time.perf_counter()
exec(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _measure(code: str) -> dict:
    p = subprocess.run([sys.executable, "-c", _CHILD, code], capture_output=True,
                       text=True, cwd=ROOT, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return json.loads(p.stdout.splitlines()[-1])


def _row(label: str, r: dict) -> None:
    print(f"   {label:58} {r['seconds']:8.2f} s {r['peak_mb']:8.0f} MB", flush=True)


_CHECK = """
import io, json
from verified.tools import check, wire
line = {{"moves": [[1, 0], [0, 1]], "model": "permi", "sequence": [["perm", [[1, 0], [0, 1]]]]{extra}}}
out = io.StringIO()
assert wire.serve(io.BytesIO((json.dumps(line) + "\\n").encode()), out, check._handle_check) == 0
"""

_PERMI = """
import random
from verified.algorithms import solve
from verified.core.semantics import ParallelMove
rng = random.Random(1)
n = {n}
pm = ParallelMove.make([(d, rng.randrange(n)) for d in range(n)], registers=n)
solve("permi-optimal", pm, "permi", "all")
"""

_CYCLE = """
from verified.algorithms import solve
from verified.core.semantics import ParallelMove
k = {k}
solve("{name}", ParallelMove.make([((i + 1) % k, i) for i in range(k)]), "swap")
"""

_SSRA = """
from verified.ssra import allocate, load_tape
allocate(load_tape("tests/data/ssra-bench-6362.tape"), {n}).counts()
"""


def main() -> None:
    print("   case" + " " * 56 + "wall      peak RSS")
    _row("check, permi, 2 moves, no declared file", _measure(_CHECK.format(extra="")))
    _row("check, permi, 2 moves, \"registers\": 1048576",
         _measure(_CHECK.format(extra=', "registers": 1048576')))
    for n in (10_000, 100_000):
        _row(f"permi-optimal, random fan-out move, {n:,} registers", _measure(_PERMI.format(n=n)))
    for k in (1024, 2048, 4096):
        for name in ("xchg", "shuf"):
            _row(f"{name} on one cycle of {k:,}", _measure(_CYCLE.format(k=k, name=name)))
    for n in (8, 1 << 20):
        _row(f"ssra alloc, 6,362-line tape, {n:,} registers", _measure(_SSRA.format(n=n)))
