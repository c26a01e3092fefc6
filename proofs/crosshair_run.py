"""``make crosshair``: CrossHair (symbolic execution of the Python code
itself) over the list-shaped entry points' contracts, with explicit
per-condition budgets (with its defaults CrossHair proves nothing and can miss
planted bugs: it stops after a few uninteresting iterations).

* the real algorithms: no counterexample may be found within the budget
  ("Confirmed over all paths" is printed by CrossHair only when it could
  exhaust the paths; otherwise exit 0 just means none found in budget);
* ``xchg_as_published`` and the mutants of ``mutants/core.py`` listed in
  ``proofs/crosshair_targets.py``: CrossHair MUST report a counterexample
  (exit 1 with "error:" lines).

The targets come from ``proofs/crosshair_targets.py`` (generated from the
registry and the mutant catalogue).

Exit non-zero if any expectation fails.  ``--quick`` uses small budgets.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROSSHAIR = str(Path(sys.executable).parent / "crosshair")


from proofs.crosshair_targets import TARGETS  # noqa: E402

MODULE = "proofs.crosshair_targets"
REAL = [f"{MODULE}.{name}" for name, broken in TARGETS if not broken]
BROKEN = [f"{MODULE}.{name}" for name, broken in TARGETS if broken]


def check(target: str, budget: int) -> tuple[int, str, float]:
    cmd = [CROSSHAIR, "check", target, f"--per_condition_timeout={budget}", "--report_all"]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                       timeout=budget * 4 + 60)
    return p.returncode, (p.stdout + p.stderr).strip(), time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    real_budget, broken_budget = (5, 20) if quick else (20, 60)
    failures = 0
    print(f"| target | expectation | budget s/condition | outcome | wall s |")
    print(f"|---|---|---|---|---|")
    for target, expect_bug, budget in (
        [(t, False, real_budget) for t in REAL] + [(t, True, broken_budget) for t in BROKEN]
    ):
        rc, out, wall = check(target, budget)
        errors = [l for l in out.splitlines() if ": error:" in l]
        confirmed = "Confirmed over all paths" in out
        if expect_bug:
            ok = rc != 0 and bool(errors)
            outcome = (errors[0].split(": error: ", 1)[1] if errors
                       else f"NO counterexample found (exit {rc})")
        else:
            ok = rc == 0 and not errors
            outcome = ("confirmed over all paths" if confirmed else
                       "no counterexample within budget (not a proof)") if ok else \
                (errors[0] if errors else f"exit {rc}: {out[-300:]}")
        failures += not ok
        mark = "" if ok else " **FAILED**"
        print(f"| {target} | {'counterexample' if expect_bug else 'none'} | {budget} | "
              f"{outcome}{mark} | {wall:.1f} |", flush=True)
    print(f"\n{failures} expectation(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
