"""Throughput of `verified conform` (issue: >= 20,000 cases/s against the C
client).  Side by side in one run, because these machines are noisy:

* the C client (tests/clients/shuf_client.c, compiled into a temp dir),
  exhaustive n <= 6 (126,125 cases), checking in a pool (default) and inline;
* the C client and `verified solve --algorithm shuf` on the same n <= 5 set.

"cases/s" is the report's own figure: answered-and-checked cases divided by
the session time (program start to last check; excludes Python start-up and
case generation, which the wall column includes).  The load average is
printed because other work on the machine moves these numbers."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "tests" / "clients" / "shuf_client.c"


def _conform(cmd: str, n: int, *extra: str) -> tuple[dict, float]:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "verified.cli", "conform", "--cmd", cmd, "--model", "swap",
         "--registers", str(n), "--exhaustive", "--json", "--progress", "never", *extra],
        capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"conform failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout), wall


def main() -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        print("   no C compiler: skipped")
        return
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "shuf_client")
        subprocess.run([cc, "-O2", "-o", exe, str(SRC)], check=True)
        solve = shlex.join([sys.executable, "-m", "verified.cli", "solve", "--algorithm", "shuf"])
        print(f"   load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        rows = [
            ("C client, n<=6, pool (default)", exe, 6, ()),
            ("C client, n<=6, inline (-j 1)", exe, 6, ("--jobs", "1")),
            ("C client, n<=5", exe, 5, ()),
            ("verified solve shuf, n<=5", solve, 5, ()),
        ]
        print(f"   {'program':34} {'cases':>8} {'cases/s':>9} {'session s':>10} {'wall s':>7}")
        for label, cmd, n, extra in rows:
            r, wall = _conform(cmd, n, *extra)
            assert r["failures"] == 0 and r["run"] == r["planned"]
            print(f"   {label:34} {r['run']:>8,} {r['cases_per_second']:>9,} "
                  f"{r['seconds']:>10.2f} {wall:>7.2f}", flush=True)
        print(f"   load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
