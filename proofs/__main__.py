"""``python -m proofs``: run every claim of every ``proofs/*.py`` module that
has a ``claims()`` function, print one table, exit non-zero when any claim
does not have its expected result (a claim is expected to be proved unless
its dict says ``"expect": "counterexample"``, as a mutant's does).

    python -m proofs            # the full run (make proofs)
    python -m proofs --quick    # small register counts only (tests)
    python -m proofs --moonshot # also shuf at n = 12 and 16 (beyond 60 s)
    python -m proofs --only shuf,xchg
    python -m proofs --json out.json
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import sys
import time
import traceback
from pathlib import Path

import proofs

#: modules that are not proof modules
_SKIP = {"__main__", "crosshair_run"}


def proof_modules() -> list[str]:
    here = Path(proofs.__file__).parent
    return sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if m.name not in _SKIP
    )


def collect(names: list[str], quick: bool, moonshot: bool = False) -> tuple[list[dict], list[str]]:
    rows: list[dict] = []
    errors: list[str] = []
    for name in names:
        t0 = time.perf_counter()
        try:
            mod = importlib.import_module(f"proofs.{name}")
        except Exception:  # a module that does not import is a failure
            errors.append(f"proofs.{name}: import failed\n{traceback.format_exc()}")
            continue
        fn = getattr(mod, "claims", None)
        if fn is None:
            continue
        try:
            params = inspect.signature(fn).parameters
            kwargs = {k: v for k, v in (("quick", quick), ("moonshot", moonshot))
                      if k in params}
            got = fn(**kwargs)
        except Exception:
            errors.append(f"proofs.{name}.claims() raised\n{traceback.format_exc()}")
            continue
        for row in got:
            row = dict(row)
            row.setdefault("expect", "proved")
            row["module"] = name
            rows.append(row)
        print(f"# proofs.{name}: {len(got)} claims, {time.perf_counter() - t0:.1f} s wall",
              file=sys.stderr, flush=True)
    return rows, errors


def table(rows: list[dict]) -> str:
    head = ("claim", "n", "result", "solver s")
    body = []
    for r in rows:
        result = r["result"]
        if r["expect"] != "proved":
            mark = "expected" if result == r["expect"] else f"EXPECTED {r['expect'].upper()}"
            result = f"{result} ({mark})"
        elif result != "proved":
            result = f"{result} (FAILED)"
        n = "all" if r["n"] is None else str(r["n"])
        body.append((r["claim"], n, result, f"{r['seconds']:.2f}"))
    widths = [max(len(head[i]), *(len(b[i]) for b in body)) if body else len(head[i])
              for i in range(4)]
    line = lambda cols: "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |"
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(b) for b in body]
    return "\n".join(out)


def largest_n(rows: list[dict]) -> dict[str, int]:
    """Largest register count proved per bounded whole-algorithm family
    (rows whose dict carries ``"family"``)."""
    best: dict[str, int] = {}
    for r in rows:
        fam = r.get("family")
        if fam and r["result"] == "proved" and r["expect"] == "proved" and r["n"] is not None:
            best[fam] = max(best.get(fam, 0), r["n"])
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs")
    ap.add_argument("--quick", action="store_true", help="small register counts only")
    ap.add_argument("--moonshot", action="store_true",
                    help="also the register counts beyond the 60 s budget (shuf n = 12, 16)")
    ap.add_argument("--only", help="comma-separated module names (default: all)")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args(argv)
    names = proof_modules()
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in names]
        if unknown:
            print(f"no proof module named {', '.join(unknown)}; have {', '.join(names)}",
                  file=sys.stderr)
            return 2
        names = [n for n in names if n in wanted]
    t0 = time.perf_counter()
    rows, errors = collect(names, args.quick, args.moonshot)
    print(table(rows))
    best = largest_n(rows)
    if best:
        print("\nLargest register count proved (bounded, whole algorithm):")
        for fam, n in sorted(best.items()):
            print(f"  {fam}: n = {n}")
    bad = [r for r in rows if r["result"] != r["expect"]]
    total = sum(r["seconds"] for r in rows)
    print(f"\n{len(rows)} claims, {len(bad)} not as expected, "
          f"{total:.1f} s solver time, {time.perf_counter() - t0:.1f} s wall")
    for e in errors:
        print(e, file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if bad or errors else 0


if __name__ == "__main__":
    sys.exit(main())
