"""`verified conform`: throughput, peak memory of the long runs, and shape
mode, side by side in one run (these machines are noisy: compare rows of
the same run, not runs).

* throughput: the C client (tests/clients/shuf_client.c, compiled into a
  temp dir), exhaustive n <= 6 (126,125 cases), checking in worker
  processes (default) and inline; the C client and `verified solve
  --algorithm shuf` on the same n <= 5 set;
* memory (issue 14, item 9; goal: under 200 MB each): peak RSS and wall of
  `--registers 7 --exhaustive` (2,223,277 cases) and `--random 1000000` at
  16 registers, against the C client.  Peak RSS is the largest single
  process (getrusage of the waited-for children, as /usr/bin/time's %M);
  the figures before conform streamed its cases are printed beside them
  (measured the same way at commit 083d93f, on the same machine);
* shapes: every shape on 12 registers (57,903) against the C client and
  `verified solve --algorithm xchg`; with VERIFIED_BENCH_LONG=1 also every
  shape on 16 registers (3,799,624), the x86-64 register count.

"cases/s" is the report's own figure: answers checked divided by the
session time (program start to last check; it excludes Python start-up,
which the wall column includes).  The load average is printed because
other work on the machine moves these numbers."""

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

#: measured at commit 083d93f (conform built every case before the run),
#: same machine at load average ~2, /usr/bin/time -f %M: (peak RSS MB, wall
#: s).  Side by side at load ~7.5 (both versions alternately): n <= 7 old
#: 130.3 s wall, 58.3 s CPU, 1,376 MB; new 115.1 s, 54.9 s, 30 MB; random
#: 10^6 old 73.1 s, 39.6 s, 816 MB; new 91.0 s, 40.4 s, 32 MB.
BEFORE = {"exhaustive n <= 7": (1338, 51.4), "random 1,000,000, n = 16": (794, 46.0)}

_PEAK = ("import resource, subprocess, sys\n"
         "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
         "sys.stdout.buffer.write(p.stdout)\n"
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
         "sys.exit(p.returncode)")


def conform(cmd: str, *args: str) -> tuple[dict, float, float]:
    """Run conform; (report, wall seconds, peak RSS in MB)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "verified.cli", "conform",
         "--cmd", cmd, "--json", "--progress", "never", *args],
        capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"conform failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    return json.loads(proc.stdout), wall, peak_kb / 1024


def main() -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        print("   no C compiler: skipped")
        return
    long = os.environ.get("VERIFIED_BENCH_LONG") == "1"
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "shuf_client")
        subprocess.run([cc, "-O2", "-o", exe, str(SRC)], check=True)

        def solve(name: str) -> str:
            return shlex.join([sys.executable, "-m", "verified.cli", "solve", "--algorithm", name])

        print(f"   load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        swap = ("--model", "swap")
        rows = [
            ("C client, n<=6, workers (default)", exe, (*swap, "--registers", "6")),
            ("C client, n<=6, inline (-j 1)", exe, (*swap, "--registers", "6", "--jobs", "1")),
            ("C client, n<=5", exe, (*swap, "--registers", "5")),
            ("verified solve shuf, n<=5", solve("shuf"), (*swap, "--registers", "5")),
            ("C client, shapes n=12", exe, (*swap, "--registers", "12", "--shapes")),
            ("verified solve xchg, shapes n=12", solve("xchg"),
             (*swap, "--registers", "12", "--shapes")),
        ]
        memory = [
            ("exhaustive n <= 7", exe, (*swap, "--registers", "7", "--exhaustive")),
            ("random 1,000,000, n = 16", exe, (*swap, "--registers", "16", "--random", "1000000")),
        ]
        if long:
            rows += [
                ("C client, shapes n=16", exe, (*swap, "--registers", "16", "--shapes")),
                ("verified solve xchg, shapes n=16", solve("xchg"),
                 (*swap, "--registers", "16", "--shapes")),
            ]
        print(f"   {'program':36} {'cases':>10} {'cases/s':>9} {'session s':>10} "
              f"{'wall s':>8} {'peak MB':>8}")
        for label, cmd, args in rows:
            r, wall, peak = conform(cmd, *args)
            assert r["failures"] == 0 and r["run"] == r["planned"]
            print(f"   {label:36} {r['run']:>10,} {r['cases_per_second']:>9,} "
                  f"{r['seconds']:>10.2f} {wall:>8.2f} {peak:>8.0f}", flush=True)
        print("   peak memory and wall of the long runs (C client), now vs before streaming:")
        for label, cmd, args in memory:
            r, wall, peak = conform(cmd, *args)
            assert r["failures"] == 0 and r["run"] == r["planned"]
            mb, s = BEFORE[label]
            print(f"   {label:28} {r['run']:>10,} cases: peak {peak:5.0f} MB, wall {wall:6.1f} s"
                  f"   (before: {mb} MB, {s} s at load ~2)", flush=True)
        print(f"   load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
