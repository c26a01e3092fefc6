"""`verified conform cluster` on a Dask LocalCluster against one process.

The same conform run twice, side by side: once as one `verified conform
--jobs 1` process, once as `verified conform cluster --local 2 --shards 8`
(two worker processes, eight `--shard I/8` tasks, their reports merged).
It prints the wall-time ratio and the difference of the two JSON reports
with the timing fields (seconds, cases_per_second) left out: "diff empty"
is the claim issue 20 asks to see.  Run twice: the C client
tests/clients/shuf_client.c and its planted bug (-DBROKEN), so that wrong
answers, their classes and shrunk witnesses are merged too.

Needs the extra `cluster` (`pip install 'verified-parmove[cluster]'`);
without it the row says so.  Every register map on n <= 7 registers
(2,223,277 cases): smaller runs are mostly the cluster's start-up.
"""

from __future__ import annotations

import difflib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tests" / "clients" / "shuf_client.c"
TIMES = ("seconds", "cases_per_second")


def timed(argv: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and children's CPU seconds of one command, and its result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def untimed(text: str) -> list[str]:
    report = {k: v for k, v in json.loads(text).items() if k not in TIMES}
    return json.dumps(report, indent=1, sort_keys=True).splitlines()


def compare(client: Path, registers: int) -> None:
    args = ["--cmd", str(client), "--model", "swap", "--registers", str(registers)]
    verified = [sys.executable, "-m", "verified.cli", "conform"]
    one_wall, one_cpu, one = timed([*verified, *args, "--json", "--progress", "never",
                                    "--jobs", "1"])
    many_wall, many_cpu, many = timed([*verified, "cluster", "--local", "2", "--shards", "8",
                                       "--", *args])
    if one.returncode not in (0, 1) or many.returncode != one.returncode:
        print(f"   {client.name}: exit {one.returncode} (one process) vs {many.returncode} "
              f"(cluster): {(one.stderr or many.stderr).strip()[-300:]}")
        return
    diff = list(difflib.unified_diff(untimed(one.stdout), untimed(many.stdout),
                                     "one process", "cluster", lineterm="", n=1))
    cases = json.loads(one.stdout)["run"]
    print(f"   {client.name}, n <= {registers}, {cases:,} cases, exit {one.returncode}: "
          f"one process {one_wall:.1f} s wall ({one_cpu:.1f} s CPU), LocalCluster of 2 "
          f"workers with 8 shards {many_wall:.1f} s wall ({many_cpu:.1f} s CPU): wall ratio "
          f"{many_wall / one_wall:.2f}")
    print("   reports without seconds and cases_per_second: "
          + ("diff empty" if not diff else f"DIFFER:\n" + "\n".join(diff[:40])))


def main() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("   no Dask distributed: pip install 'verified-parmove[cluster]' for this row")
        return
    registers = 7
    print(f"   load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        cc = os.environ.get("CC", "cc")
        for name, flags in (("shuf_client", []), ("shuf_client_broken", ["-DBROKEN"])):
            exe = Path(tmp) / name
            subprocess.run([cc, "-O2", *flags, "-o", str(exe), str(SRC)], check=True)
            compare(exe, registers)
    print(f"   load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
