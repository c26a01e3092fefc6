"""``python -m proofs``: run every claim of every ``proofs/*.py`` module that
has a ``claims()`` function, print one table, exit non-zero when any claim
does not have its expected result (a claim is expected to be proved unless
its dict says ``"expect": "counterexample"``, as a mutant's does).

    python -m proofs            # the full run (make proofs)
    python -m proofs --quick    # small register counts only (tests)
    python -m proofs --moonshot # also shuf at n = 12 and 16 (beyond 60 s)
    python -m proofs --only shuf,xchg
    python -m proofs --json out.json
    python -m proofs --markdown docs/proofs.md  # also write the table there
    python -m proofs --mutant NAME   # run with a mutant of mutants/proofs.py installed
    python -m proofs --mutants       # every such mutant, each in a fresh process
    python -m proofs --jobs 1        # one module (or mutant run) at a time
    python -m proofs --first-failure # stop each module at its first claim not as expected

A row must be backed by its evidence (``proofs.common.evidence_problem``):
"proved" needs a proved Z3 query in the row's ledger and no enumeration,
"enumerated" an enumeration; a row that is not is reported as failed.

Exit status: 0 every claim as expected; 1 some claim not as expected (a
catch is only ever this: a claim's verdict); 2 a planted bug the run
uses (or ``--mutant NAME``) could not be applied by the mutant engine
("mutant could not apply": a broken catalogue entry, reported apart from
the verdicts, which the table still shows), or bad arguments.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import sys
import time
import traceback
from pathlib import Path

import proofs
from mutants import MutantDoesNotApply
from proofs.common import NOT_APPLIED, evidence_problem

#: modules that are not proof modules
_SKIP = {"__main__", "crosshair_run", "crosshair_targets"}


def proof_modules() -> list[str]:
    here = Path(proofs.__file__).parent
    return sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if m.name not in _SKIP
    )


def collect(names: list[str], quick: bool, moonshot: bool = False,
            jobs: int = 1, first_failure: bool = False) -> tuple[list[dict], list[str]]:
    """Every module's rows, each module run in a process of its own forked
    from this one (a planted mutant installed here is inherited): Z3's
    global context keeps every term made before, which changes how a later
    query is searched, so a module's verdicts must not depend on which
    modules ran before it (one unbounded shuf lemma came out unknown after
    the resolver's whole-run rows, and proved alone).  Up to ``jobs`` such
    processes run at once; the rows come back in ``names``' order whatever
    order the processes finish in, and every budget is Z3 resource units
    (docs/proofs.md), so neither the table nor a verdict depends on
    ``jobs``.  ``first_failure``: see ``_collect_here``."""
    # the plain run calls with the arguments it always had (the stubs of
    # tests/proofs/test_harness.py take those)
    here = ((lambda name: _collect_here([name], quick, moonshot, first_failure=True))
            if first_failure else (lambda name: _collect_here([name], quick, moonshot)))
    done = _forked(sorted(names, key=_start_rank), here, jobs)
    rows: list[dict] = []
    errors: list[str] = []
    for name in names:
        got, errs = done[name]
        rows += got
        errors += errs
    return rows, errors


#: the modules that take longest (docs/proofs.md's solver seconds), started
#: first so that the others fill the other cores meanwhile; the order of
#: the rows is ``names``' whatever the order of starting
#: (resolve first: in make verify's run at main 9e4f55f it was the longest,
#: 247 s wall, 169 s solver, against shuf's 119 and 98, leroy's 97 and 8,
#: optimality's 107 and 97 before its reachable queries were pinned; started
#: third, it was the run's tail)
START_FIRST = ("resolve", "shuf", "leroy", "optimality")


def _start_rank(name: str) -> int:
    return START_FIRST.index(name) if name in START_FIRST else len(START_FIRST)


def _forked(names: list[str], work, jobs: int) -> dict[str, tuple[list[dict], list[str]]]:
    """``work(name)`` for each name, each in a child forked from this
    process (no threads here, so the fork copies no lock held elsewhere),
    at most ``jobs`` at once, started in ``names``' order.  A child that
    dies or raises gives no rows and one error: a failure, never a
    verdict."""
    import multiprocessing
    import multiprocessing.connection

    ctx = multiprocessing.get_context("fork")
    pending = list(names)
    running: dict = {}
    done: dict[str, tuple[list[dict], list[str]]] = {}
    while pending or running:
        while pending and len(running) < max(1, jobs):
            name = pending.pop(0)
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(send, work, name), daemon=True)
            proc.start()
            send.close()
            running[recv] = (name, proc)
        for conn in multiprocessing.connection.wait(list(running)):
            name, proc = running.pop(conn)
            try:
                answer = conn.recv()
            except EOFError:  # the process died before it answered
                answer = None
            conn.close()
            proc.join()
            done[name] = answer if answer is not None else (
                [], [f"proofs.{name}: its process failed (exit code {proc.exitcode})"])
    return done


def _child(send, work, name: str) -> None:
    """In the forked child: send ``work(name)``'s (rows, errors) back."""
    try:
        result = work(name)
    except BaseException:  # noqa: BLE001 -- reported to the parent as a failure
        result = ([], [f"proofs.{name}: its process failed\n{traceback.format_exc()}"])
    send.send(result)
    send.close()


class FirstFailure(BaseException):
    """Raised through a module's ``claims()`` at its first row not as
    expected (``--first-failure``); a BaseException so that a module's own
    ``except Exception`` cannot swallow it."""


def _stop_at_failure(made: list[dict]):
    """The row hook of ``--first-failure`` (``proofs.common.ON_ROW``): keep
    each row as it is made and raise ``FirstFailure`` after the first one
    that this runner's own ``judge`` and ``failed`` (the ones the full run
    applies) call not as expected."""
    def hook(r: dict) -> None:
        made.append(r)
        probe = dict(r)
        judge([probe])
        if failed(probe):
            raise FirstFailure
    return hook


def _made_in_order(made: list[dict], got: list[dict]) -> bool:
    """Whether ``claims()`` returned exactly the rows ``claim`` made, in the
    order made: what makes the rows of a stopped run the full run's first
    rows (checked on every ``--first-failure`` module that did not stop)."""
    return len(made) == len(got) and all(a is b for a, b in zip(made, got))


def _collect_here(names: list[str], quick: bool, moonshot: bool,
                  first_failure: bool = False) -> tuple[list[dict], list[str]]:
    """Each module's rows, run here one after another.  ``first_failure``:
    a module stops at its first row not as expected (``FirstFailure``), and
    its rows are those made up to and including that one: the full run's
    first rows (its later rows are not run, so they are neither shown nor
    judged: a planted bug's catching claim is pinned by its first failing
    row, tests/proofs/test_proof_mutants.py)."""
    from proofs import common

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
        made: list[dict] = []
        stopped = False
        if first_failure:
            common.ON_ROW = _stop_at_failure(made)
        try:
            params = inspect.signature(fn).parameters
            kwargs = {k: v for k, v in (("quick", quick), ("moonshot", moonshot))
                      if k in params}
            got = fn(**kwargs)
        except FirstFailure:
            got, stopped = made, True
        except MutantDoesNotApply as e:  # loud, but not a verdict: see not_applied
            errors.append(f"proofs.{name}: {NOT_APPLIED}: {e}")
            continue
        except Exception:
            errors.append(f"proofs.{name}.claims() raised\n{traceback.format_exc()}")
            continue
        finally:
            common.ON_ROW = None
        if first_failure and not stopped and not _made_in_order(made, got):
            errors.append(f"proofs.{name}: --first-failure: claims() did not return the "
                          "rows claim() made, in that order, so a stopped run's rows would "
                          "not be the full run's first rows")
        for row in got:
            row = dict(row)
            row.setdefault("expect", "proved")
            row["module"] = name
            rows.append(row)
        print(f"# proofs.{name}: {len(got)} claims, {time.perf_counter() - t0:.1f} s wall"
              + (" (stopped at its first claim not as expected: --first-failure)"
                 if stopped else ""), file=sys.stderr, flush=True)
    return rows, errors


def n_text(n) -> str:
    """The n column: "all" for an unbounded claim (None), else the register
    count, or "-" (a text) where the claim's scope is not a register count
    (its text says what it covers)."""
    return "all" if n is None else str(n)


def table(rows: list[dict]) -> str:
    head = ("claim", "n", "result", "solver s")
    body = []
    for r in rows:
        result = r["result"]
        if r.get("expect_rejected"):
            result += (f" (rejected as expected: {r['problem']})" if r.get("problem")
                       else " (FAILED: NOT REJECTED)")
        elif r.get("problem"):
            result = f"{result} (FAILED: {r['problem']})"
        elif r["expect"] in ("refuted", "vacuous", "unknown"):
            mark = "expected" if result == r["expect"] else f"EXPECTED {r['expect'].upper()}"
            result = f"{result} ({mark})"
        elif result != r["expect"]:
            result = f"{result} (FAILED)"
        n = n_text(r["n"])
        body.append((r["claim"], n, result, f"{r['seconds']:.2f}"))
    widths = [max(len(head[i]), *(len(b[i]) for b in body)) if body else len(head[i])
              for i in range(4)]
    line = lambda cols: "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |"
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(b) for b in body]
    return "\n".join(out)


def markdown(rows: list[dict], solver: float, wall: float, quick: bool) -> str:
    """docs/proofs.md: the table as ``python -m proofs`` printed it
    (tests/proofs/test_proofs_doc.py checks the claims listed there are the
    run's claims)."""
    head = (Path(__file__).parent.parent / "docs" / "proofs.head.md")
    intro = head.read_text() if head.exists() else "# Proofs\n\n"
    lines = [intro.rstrip("\n"), "",
             f"Generated by `python -m proofs{' --quick' if quick else ''} --markdown "
             f"docs/proofs.md`: {len(rows)} claims, {solver:.1f} s solver time, "
             f"{wall:.1f} s wall (2 shared cores).", "",
             "| module | claim | n | result | expected | solver s |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        n = n_text(r["n"])
        text = r["claim"].replace("|", "\\|")
        result = r["result"] + (" (FAILED)" if failed(r) else "")
        expect = r["expect"]
        if r.get("expect_rejected"):
            result += " (rejected by the runner)" if r.get("problem") else ""
            expect = "rejected"
        lines.append(f"| {r['module']} | {text} | {n} | {result} | {expect} | "
                     f"{r['seconds']:.2f} |")
    best = largest_n(rows)
    if best:
        lines += ["", "Largest register count per family (bounded; proved, or enumerated "
                  "where the family says so):", ""]
        lines += [f"- {fam}: n = {n}" for fam, n in sorted(best.items())]
    return "\n".join(lines) + "\n"


def largest_n(rows: list[dict]) -> dict[str, int]:
    """Largest register count proved per bounded whole-algorithm family
    (rows whose dict carries ``"family"``)."""
    best: dict[str, int] = {}
    for r in rows:
        fam = r.get("family")
        if fam and not failed(r) and r["result"] in ("proved", "enumerated") \
                and r["n"] is not None:
            best[fam] = max(best.get(fam, 0), r["n"]) if isinstance(r["n"], int) \
                else best.get(fam, 0)
    return best


def judge(rows: list[dict]) -> None:
    """Mark each row whose result its evidence does not back (a failure;
    the harness's own forged row must be marked)."""
    for r in rows:
        problem = evidence_problem(r)
        if problem:
            r["problem"] = problem


def not_applied(rows: list[dict], errors: list[str]) -> list[str]:
    """The planted bugs the run could not apply (rows and module errors)."""
    return ([f"{r['claim']}: {r.get('detail', '')}" for r in rows if r["result"] == NOT_APPLIED]
            + [e for e in errors if NOT_APPLIED in e])


def exit_status(rows: list[dict], errors: list[str]) -> int:
    """2 when a mutant could not apply, else 1 when a claim is not as
    expected or a module failed, else 0."""
    if not_applied(rows, errors):
        return 2
    return 1 if errors or any(failed(r) for r in rows) else 0


def failed(r: dict) -> bool:
    """A row that is not as expected, or not backed by its evidence (a
    harness row ``expect_rejected`` fails when it is *not* rejected)."""
    if r.get("expect_rejected"):
        return r["result"] != r["expect"] or not r.get("problem")
    return r["result"] != r["expect"] or bool(r.get("problem"))


def install_mutant(name: str):
    """Install the mutant ``name`` of ``mutants/proofs.py`` into the running
    process: every function of its module is replaced by the mutated one,
    in the module and wherever another loaded module refers to it (a
    ``from ... import`` binding).  Returns the Mutant."""
    import importlib as _il

    import mutants
    from mutants.proofs import BY_NAME

    m = BY_NAME[name]
    ns = vars(mutants.load(m))  # MutantDoesNotApply: main exits 2
    real = _il.import_module(m.module)
    changed = [k for k, v in vars(real).items() if callable(v) and k in ns and ns[k] is not v]
    swap = {id(getattr(real, k)): ns[k] for k in changed}
    for mod in list(sys.modules.values()):
        name_ = getattr(mod, "__name__", "")
        if not (name_.startswith("proofs") or name_.startswith("verified")):
            continue
        for k, v in list(vars(mod).items()):
            if id(v) in swap:
                setattr(mod, k, swap[id(v)])
    # this runner itself runs as ``__main__``, a second copy of
    # proofs.__main__: a mutant of the runner replaces its functions by name
    main = sys.modules.get("__main__")
    if m.module == "proofs.__main__" and getattr(main, "__spec__", None) is not None \
            and main.__spec__.name == m.module:
        for k in changed:
            setattr(main, k, ns[k])
    return m


def run_mutants(names: list[str], quick: bool, jobs: int = 1) -> int:
    """Each proofs mutant in a fresh ``python -m proofs --mutant NAME``;
    a mutant is caught when that run fails (some row not as expected).
    Up to ``jobs`` runs at once (each its own process: nothing is shared),
    each row printed in the catalogue's order as soon as it and every row
    above it are done."""
    import concurrent.futures

    from mutants.proofs import MUTANTS

    chosen = [m for m in MUTANTS if not names or m.name in names]
    missed = unapplied = 0
    print("| mutant | proof modules | caught by (claim: result) | wall s |")
    print("|---|---|---|---|")
    # threads only wait on the child processes; each row is judged here
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        runs = [pool.submit(_mutant_run, m.name, m.entry, quick) for m in chosen]
        for m, run in zip(chosen, runs):
            out, wall = run.result()
            rows = []
            try:
                rows = json.loads(out.stdout.split("\n#JSON\n", 1)[1])
            except (IndexError, ValueError):
                pass
            bad = [r for r in rows if failed(r) and r["result"] != NOT_APPLIED]
            if out.returncode == 2:
                unapplied += 1
                caught = f"{NOT_APPLIED} (exit 2) {out.stderr[-300:]}"
            elif out.returncode == 1 and bad:
                r = bad[0]
                why = r.get("problem") or r["result"]
                caught = f"{r['claim']} (n = {'all' if r['n'] is None else r['n']}): {why}"
            else:
                missed += 1
                caught = f"NOT CAUGHT (exit {out.returncode}) {out.stderr[-300:]}"
            print(f"| {m.name} | {m.entry} | {caught} | {wall:.1f} |", flush=True)
    print(f"\n{len(chosen) - missed - unapplied} of {len(chosen)} proofs mutants caught"
          + (f", {unapplied} could not apply" if unapplied else ""))
    return 2 if unapplied else 1 if missed else 0


def _mutant_run(name: str, entry: str, quick: bool):
    """``python -m proofs --mutant NAME --only ENTRY --json -`` (the same
    command tests/proofs/test_proof_mutants.py runs): its completed
    process and its wall seconds."""
    import subprocess

    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "proofs", "--mutant", name, "--only", entry, "--json", "-"]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, capture_output=True, text=True)
    return out, time.perf_counter() - t0


def default_jobs() -> int:
    """The processes to run at once: one per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs")
    ap.add_argument("--quick", action="store_true", help="small register counts only")
    ap.add_argument("--moonshot", action="store_true",
                    help="also the register counts beyond the 60 s budget (shuf n = 12, 16)")
    ap.add_argument("--only", help="comma-separated module names (default: all)")
    ap.add_argument("--json", help="also write the rows to this file ('-': to stdout "
                    "after a '#JSON' line)")
    ap.add_argument("--markdown", help="also write the table as docs/proofs.md's body here")
    ap.add_argument("--from-json", help="do not run: re-print (and --markdown) the rows "
                    "a --json run saved, with the wall time it recorded")
    ap.add_argument("--mutant", help="install this mutant of mutants/proofs.py first")
    ap.add_argument("--mutants", nargs="?", const="", default=None,
                    help="run every mutant of mutants/proofs.py (or these, comma-separated)")
    ap.add_argument("--jobs", type=int, default=default_jobs(),
                    help="modules (or, with --mutants, mutant runs) at once, each its own "
                    "process (default: the cores this process may use); the table, its "
                    "order and every verdict are the same for any value")
    ap.add_argument("--first-failure", action="store_true",
                    help="stop each module at its first claim not as expected: its rows "
                    "are the full run's rows up to that one (the rest not run); for a "
                    "planted bug's run whose catching claim is pinned")
    args = ap.parse_args(argv)
    if args.mutants is not None:
        return run_mutants([x for x in args.mutants.split(",") if x], args.quick,
                           args.jobs)
    if args.mutant:
        from mutants.proofs import BY_NAME
        if args.mutant not in BY_NAME:
            print(f"no proofs mutant named {args.mutant}; have {', '.join(BY_NAME)}",
                  file=sys.stderr)
            return 2
        try:
            install_mutant(args.mutant)
        except MutantDoesNotApply as e:
            print(f"{NOT_APPLIED}: {e}", file=sys.stderr)
            return 2
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
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        if isinstance(saved, list):  # an older --json file: the rows only
            saved = {"rows": saved, "wall": 0.0}
        rows, errors = saved["rows"], []
        t0 -= saved["wall"]
    else:
        stop = {"first_failure": True} if args.first_failure else {}
        rows, errors = collect(names, args.quick, args.moonshot, args.jobs, **stop)
    judge(rows)
    print(table(rows))
    best = largest_n(rows)
    if best:
        print("\nLargest register count proved (bounded, whole algorithm):")
        for fam, n in sorted(best.items()):
            print(f"  {fam}: n = {n}")
    bad = [r for r in rows if failed(r)]
    total = sum(r["seconds"] for r in rows)
    wall = time.perf_counter() - t0
    unapplied = not_applied(rows, errors)
    print(f"\n{len(rows)} claims, {sum(r['result'] != NOT_APPLIED for r in bad)} not as expected, "
          f"{total:.1f} s solver time, {wall:.1f} s wall"
          + (f"; {len(unapplied)} planted bug(s): {NOT_APPLIED} (exit 2)" if unapplied else ""))
    for e in errors:
        print(e, file=sys.stderr)
    for u in unapplied:
        print(f"{NOT_APPLIED}: {u}", file=sys.stderr)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows, total, wall, args.quick))
        print(f"wrote {args.markdown}", file=sys.stderr)
    if args.json == "-":
        print("\n#JSON\n" + json.dumps(rows))
    elif args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "wall": round(wall, 1),
                                               "quick": args.quick, "modules": names,
                                               "first_failure": args.first_failure},
                                              indent=1))
    return exit_status(rows, errors)


if __name__ == "__main__":
    sys.exit(main())
