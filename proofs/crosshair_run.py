"""``make crosshair``: CrossHair (symbolic execution of the Python code
itself) over the list-shaped entry points' contracts, with explicit
per-condition budgets (with its defaults CrossHair proves nothing and can miss
planted bugs: it stops after a few uninteresting iterations).

The targets (``proofs/crosshair_targets.py``), by family:

* ``parmove``: every swap/temp algorithm of the registry on ``srcs`` lists,
  ``xchg_as_published`` and the mutants of ``mutants/core.py`` it lists;
* ``greedy``: the real GREEDY on out-degree-1 RTGs of <= 4 vertices (oracle,
  Lemma 3 by ``greedy_length`` and by the component sizes, the search's
  optimum) and the real ``greedy_length`` on every signature X <= 1,
  a2, a3 <= 3 (against the real steps and Lemma 3);
* ``ssra``: the real allocator's step in each of the 18 two-input states,
  from every local configuration of 2-3 registers, judged by the
  allocation checker on the framed program.

Expectations:

* a real target: no counterexample within the budget.  Per condition
  (postcondition) CrossHair says "Confirmed over all paths" when it
  exhausted every path (a bounded proof over the target's input bounds:
  the row says **confirmed**) and "Not confirmed" when the budget ran out
  first (the row says **no counterexample within budget**: tested, not a
  proof).  "Unable to meet precondition" (no input checked) is a failure;
* a planted twin (a mutant through the one engine): CrossHair MUST report
  a counterexample (an "error:" line); none within budget is a failure.

Budgets are CrossHair's ``--per_condition_timeout``: CPU seconds of the
process per condition (so the verdicts do not depend on the machine's load
as a wall-clock budget would; the wall time does).

Exit non-zero if any expectation fails.  ``--quick`` uses small budgets;
``--only a,b`` runs the named targets (or families); ``--jobs N`` checks N
targets at once (default: one per core), the rows in the same order.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROSSHAIR = str(Path(sys.executable).parent / "crosshair")


from proofs.crosshair_targets import GREEDY_TARGETS, SSRA_TARGETS, TARGETS  # noqa: E402

MODULE = "proofs.crosshair_targets"

#: per-condition budgets, CPU seconds: (quick, full) for real targets and
#: for planted twins, per family.  The real parmove targets never confirm
#: (every srcs list: "no counterexample within budget"); within 10 CPU s
#: per condition CrossHair reaches lists of up to 6 or 7 registers, as it
#: did within the 20 of earlier rounds, all of them among the maps make
#: verify's exhaustive tests run through the same contract (n <= 7), and
#: each parmove twin is caught in its first seconds (docs/proofs.md)
BUDGETS = {
    "parmove": {False: (5, 10), True: (20, 60)},
    "greedy": {False: (10, 30), True: (10, 30)},
    "ssra": {False: (3, 8), True: (10, 20)},
}


#: real targets whose contract a test already checks on every input within
#: the target's bounds (the same precondition, the same postcondition):
#: tests/proofs/test_proofs_crosshair.py::
#: test_ssra_targets_contracts_on_every_configuration (make test) runs each
#: SSRA state's framed step on every local configuration of 2-3 registers,
#: the exact input set of the target's precondition.  CrossHair never
#: confirms them within their budget ("no counterexample within budget",
#: a test), so a run can only repeat what that enumeration settles; only
#: ``--only`` (a family or target name) runs them (docs/proofs.md).
ENUMERATED_IN_TESTS = frozenset(t for t, bug in SSRA_TARGETS if not bug)


def family(name: str) -> str:
    if (name, False) in GREEDY_TARGETS or (name, True) in GREEDY_TARGETS:
        return "greedy"
    if (name, False) in SSRA_TARGETS or (name, True) in SSRA_TARGETS:
        return "ssra"
    return "parmove"


#: ``crosshair check`` stopped at the first condition it refutes (a planted
#: twin's run: the same verdict and first error line, docs/proofs.md)
FIRST_ERROR = [sys.executable, str(ROOT / "proofs" / "crosshair_first_error.py")]


def check(target: str, budget: int, first_error: bool = False) -> tuple[int, str, float]:
    """``crosshair check`` on ``target``: (exit status, output, wall s);
    ``first_error``: stopped after the first condition it refutes."""
    cmd = [*(FIRST_ERROR if first_error else [CROSSHAIR]), "check", f"{MODULE}.{target}",
           f"--per_condition_timeout={budget}", "--report_all"]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                       timeout=budget * 40 + 600)
    return p.returncode, (p.stdout + p.stderr).strip(), time.perf_counter() - t


_LINE = re.compile(r":(\d+): (info|error): (.*)$")


def verdicts(out: str) -> dict[int, tuple[str, str]]:
    """Per condition (its line in the target's docstring): (kind, text)
    with kind "confirmed", "not confirmed", "precondition" or "error"."""
    got: dict[int, tuple[str, str]] = {}
    for line in out.splitlines():
        m = _LINE.search(line)
        if not m:
            continue
        where, level, text = int(m.group(1)), m.group(2), m.group(3)
        if level == "error":
            got[where] = ("error", text)
        elif "Confirmed over all paths" in text:
            got.setdefault(where, ("confirmed", text))
        elif "Not confirmed" in text:
            got.setdefault(where, ("not confirmed", text))
        elif "Unable to meet precondition" in text:
            got[where] = ("precondition", text)
    return got


def judge(expect_bug: bool, rc: int, out: str) -> tuple[bool, str]:
    """(as expected, the outcome in words)."""
    v = verdicts(out)
    errors = [t for k, t in v.values() if k == "error"]
    if expect_bug:
        if errors:
            return True, f"counterexample: {errors[0]}"
        return False, f"NO counterexample within budget (exit {rc})"
    if errors:
        return False, f"counterexample: {errors[0]}"
    if rc != 0 or not v:
        return False, f"exit {rc}: {out[-300:]}"
    if any(k == "precondition" for k, _ in v.values()):
        return False, "unable to meet the precondition: no input was checked (vacuous)"
    confirmed = sum(k == "confirmed" for k, _ in v.values())
    if confirmed == len(v):
        return True, f"confirmed over all paths ({confirmed} of {len(v)} conditions)"
    return True, (f"{confirmed} of {len(v)} conditions confirmed over all paths; the other "
                  f"{len(v) - confirmed}: no counterexample within budget (tested, not a proof)")


def jobs_of(argv: list[str]) -> int:
    """``--jobs N`` (or ``--jobs=N``): targets checked at once, each its own
    ``crosshair`` process; by default one per core this process may use.
    The budgets are CPU seconds of each process, so the verdicts do not
    depend on it (docs/proofs.md)."""
    got = next((a.split("=", 1)[1] for a in argv if a.startswith("--jobs=")), "")
    if "--jobs" in argv:
        got = argv[argv.index("--jobs") + 1]
    if got:
        return max(1, int(got))
    from proofs.__main__ import default_jobs
    return default_jobs()


def main(argv: list[str] | None = None) -> int:
    import concurrent.futures

    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    only = next((a.split("=", 1)[1] for a in argv if a.startswith("--only=")), "")
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
    wanted = set(filter(None, only.split(",")))
    chosen = [(t, bug) for t, bug in TARGETS
              if t in wanted or family(t) in wanted
              or not wanted and t not in ENUMERATED_IN_TESTS]
    skipped = [t for t, _ in TARGETS if not wanted and t in ENUMERATED_IN_TESTS]
    failures = 0
    t0 = time.perf_counter()
    # five columns: docs/proofs.md quotes this table beside the proofs
    # table, whose rows are the six-column ones
    print("| target (family) | expectation | budget CPU s/condition | outcome | wall s |")
    print("|---|---|---|---|---|", flush=True)
    budgets = [BUDGETS[family(t)][bug][0 if quick else 1] for t, bug in chosen]
    # threads only wait on the crosshair processes; rows print in TARGETS'
    # order, each as soon as it and every row above it are done
    with concurrent.futures.ThreadPoolExecutor(jobs_of(argv)) as pool:
        # a planted twin stops at its first refuted condition: its row is
        # that condition's counterexample either way
        runs = [pool.submit(check, t, b, bug) for (t, bug), b in zip(chosen, budgets)]
        for (target, expect_bug), budget, run in zip(chosen, budgets, runs):
            rc, out, wall = run.result()
            ok, outcome = judge(expect_bug, rc, out)
            failures += not ok
            mark = "" if ok else " **FAILED**"
            print(f"| {target} ({family(target)}) | "
                  f"{'counterexample (planted twin)' if expect_bug else 'none'} | {budget} | "
                  f"{outcome}{mark} | {wall:.1f} |", flush=True)
    if skipped:
        print(f"\nnot run: the {len(skipped)} SSRA state targets (ssra_R_RR .. ssra_M_UU): "
              "their contract is enumerated on every input within their bounds by "
              "tests/proofs/test_proofs_crosshair.py (make test); --only ssra runs them")
    print(f"\n{len(chosen)} targets, {failures} expectation(s) failed, "
          f"{time.perf_counter() - t0:.0f} s wall")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
