"""`verified conform --machine`: throughput against our resolver
(`verified solve --algorithm resolve`), side by side in one run (these
machines are noisy: compare rows of the same run, not runs).

* exhaustive (the default): every move of at most 3 moves over the small
  machine of each preset (docs/machines.md, "conform and vectors on
  machines"), checking in worker processes (the default) and, for x86-64,
  inline (`--jobs 1`);
* random: 1,000 seeded cases over the whole of each preset.

"cases/s" is the report's own figure: answers checked divided by the
session time (program start to last check; it excludes Python start-up,
which the wall column includes).  Both sides are Python here: the
resolver answers, conform judges each answer and, for a declined case,
runs the resolver again for the witness.  A run that does not pass is
printed as such (its exit status and why), never dropped."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time

PRESETS = ("x86-64", "aarch64", "riscv64", "armv7-vfp")


def conform(cmd: str, *args: str) -> tuple[int, dict, float]:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "verified.cli", "conform", "--cmd", cmd,
                           "--json", "--progress", "never", *args],
                          capture_output=True, text=True)
    wall = time.perf_counter() - t
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = {"error": (proc.stdout + proc.stderr)[-300:]}
    return proc.returncode, report, wall


def main() -> None:
    resolve = shlex.join([sys.executable, "-m", "verified.cli", "solve", "--algorithm",
                          "resolve"])
    print(f"   load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = [(f"{m}, exhaustive <= 3 moves", ("--machine", m)) for m in PRESETS]
    rows.append(("x86-64, exhaustive, inline (-j 1)", ("--machine", "x86-64", "--jobs", "1")))
    rows += [(f"{m}, random 1,000", ("--machine", m, "--random", "1000")) for m in PRESETS]
    print(f"   {'run against resolve':36} {'cases':>8} {'declined':>9} {'cases/s':>8} "
          f"{'session s':>10} {'wall s':>8}  result")
    for label, args in rows:
        code, r, wall = conform(resolve, *args, "--timeout", "60")
        if "error" in r:
            print(f"   {label:36} conform failed (exit {code}): {r['error']}", flush=True)
            continue
        why = "pass" if code == 0 else (
            f"exit {code}: " + (r.get("broken", {}).get("message")
                                or "; ".join(r.get("internal_errors", []))
                                or f"{r['failures']} wrong, {r['refusals']} declined")[:120])
        print(f"   {label:36} {r['run']:>8,} {r['refused_unsolvable']:>9,} "
              f"{r['cases_per_second']:>8,} {r['seconds']:>10.2f} {wall:>8.2f}  {why}",
              flush=True)
    print(f"   load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
