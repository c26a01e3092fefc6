"""``make fuzz``: every target of fuzz/targets.py in turn for ``--seconds``
each, starting from its seed corpus (fuzz/corpus/TARGET/, read only: new
inputs go to .fuzz/corpus/TARGET/, crashes to .fuzz/crashes/), then one line
per target: inputs tried, coverage (libFuzzer's ``cov``: edges of our code
reached), corpus size, crashes.  Exit 1 if any target crashed."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TARGETS = ("check", "solve", "explain", "machine", "answer", "tape")


def run(target: str, seconds: int) -> dict:
    work = ROOT / ".fuzz" / "corpus" / target
    crashes = ROOT / ".fuzz" / "crashes"
    work.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(
        [sys.executable, str(HERE / "targets.py"), target, f"-max_total_time={seconds}",
         "-print_final_stats=1", "-max_len=4096", f"-artifact_prefix={crashes}/{target}-",
         str(work), str(HERE / "corpus" / target)],
        capture_output=True, text=True, cwd=ROOT)
    err = p.stderr
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", err)
    cov = re.findall(r"\bcov: (\d+)", err)
    corp = re.findall(r"\bcorp: (\d+)", err)
    crashed = "==ERROR" in err or "Uncaught Python exception" in err
    return {"target": target, "inputs": int(runs[-1]) if runs else None,
            "coverage": int(cov[-1]) if cov else None, "corpus": int(corp[-1]) if corp else None,
            "crash": crashed, "tail": err[-3000:] if crashed else ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=60, help="per target (default 60)")
    ap.add_argument("targets", nargs="*", default=list(TARGETS))
    args = ap.parse_args()
    bad = 0
    print(f"{'target':8} {'inputs':>9} {'coverage':>9} {'corpus':>7}  crash")
    for t in args.targets:
        r = run(t, args.seconds)
        print(f"{t:8} {r['inputs'] or '?':>9} {r['coverage'] or '?':>9} {r['corpus'] or '?':>7}  "
              f"{'YES' if r['crash'] else 'no'}", flush=True)
        if r["crash"]:
            bad = 1
            print(r["tail"], file=sys.stderr)
    return bad


if __name__ == "__main__":
    sys.exit(main())
