"""``make mutation``: a seeded sample of cosmic-ray mutants of ``verified/``,
each run against its module's tests (``mutation/tests.toml``), with a
report of kills per module and every survivor's diff.

Honest counting (``docs/mutation.md``):

* a mutant is **killed** only when its tests fail on it: pytest exits 1
  (a test failed), or a test module cannot be collected with the mutant in
  place (its import or module-level code fails), or the run exceeds its
  timeout (three times the unmutated run plus 30 s: the mutant made a test
  loop);
* any other pytest status (usage error, no tests collected, internal error,
  killed by a signal) is a **harness error**: counted neither way, reported,
  and the run exits 2;
* before any mutant runs, every test group used by the sample must pass on
  the unmutated code, in the same scratch copy, or nothing is run;
* a mutant on the reviewed equivalent list (``mutation/equivalent.toml``)
  still runs; if its tests kill it the list is wrong (exit 2); an entry that
  matches no mutant of the current code is stale (exit 2).

score = killed / (run - equivalent).  The mutants are applied in a scratch
copy of the repository (never in the work tree), one at a time.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import engine

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

PYTEST_ARGS = ["-x", "-q", "-p", "no:cacheprovider", "-m", "not slow and not huge",
               "--hypothesis-seed=0", "-o", "addopts=-ra"]
IGNORED = shutil.ignore_patterns(".git", ".venv", ".mutation", "__pycache__", ".hypothesis",
                                 ".pytest_cache", "*.egg-info", "build", "out")


# ---------------------------------------------------------------------------
# Configuration: the test map and the reviewed equivalent list
# ---------------------------------------------------------------------------


def load_test_map(path: Path = HERE / "tests.toml") -> list[tuple[list[str], list[str]]]:
    with path.open("rb") as f:
        return [(m["modules"], m["tests"]) for m in tomllib.load(f)["map"]]


def tests_for(module: str, test_map) -> list[str]:
    for globs, tests in test_map:
        if any(fnmatch.fnmatch(module, g) for g in globs):
            return tests
    raise SystemExit(f"mutation: no tests are mapped for {module}; add it to mutation/tests.toml")


@dataclass(frozen=True)
class Equivalent:
    file: str
    scope: str
    operator: str
    before: str
    after: str
    reason: str
    #: the line above the change, when before/after alone match two mutants
    context: str = ""

    def matches(self, m: engine.Mutant) -> bool:
        return (self.file, self.scope, self.operator, self.before, self.after) == (
            m.site.path, m.site.scope, m.site.operator, m.before, m.after) and (
            not self.context or self.context == m.context)


def load_equivalents(path: Path = HERE / "equivalent.toml") -> list[Equivalent]:
    with path.open("rb") as f:
        entries = tomllib.load(f).get("equivalent", [])
    out = []
    for e in entries:
        if not e.get("reason", "").strip():
            raise SystemExit(f"mutation: equivalent entry without a reason: {e}")
        out.append(Equivalent(e["file"], e["scope"], e["operator"], e["before"].strip(),
                              e["after"].strip(), " ".join(e["reason"].split()),
                              e.get("context", "").strip()))
    return out


def stale_equivalents(root: Path, entries: list[Equivalent], ops) -> list[Equivalent]:
    """Entries that match no mutant of the current code (the code moved on;
    the entry must be reviewed again or removed), or more than one (the
    entry no longer says which mutant was reviewed)."""
    stale = []
    for e in entries:
        if not (root / e.file).exists() or e.operator not in ops:
            stale.append(e)
            continue
        found = 0
        lines = (root / e.file).read_text(encoding="utf-8").splitlines()
        first = e.before.split("\n")[0]
        for site in engine.sites(root, e.file, {e.operator: ops[e.operator]}):
            if lines[site.line - 1].strip() != first:
                continue  # cheap filter: only sites on a line the entry names
            m = engine.mutate(root, site, ops)
            found += m is not None and e.matches(m)
        if found != 1:
            stale.append(e)
    return stale


# ---------------------------------------------------------------------------
# The sample
# ---------------------------------------------------------------------------


def selected(modules: list[str], globs: list[str]) -> list[str]:
    """The modules matching one of ``globs`` (``--modules``; all when there
    are none).  A glob that matches no module is a typo: refused, rather
    than a sample silently drawn from the other globs only."""
    if not globs:
        return list(modules)
    for g in globs:
        if not any(fnmatch.fnmatch(m, g) for m in modules):
            print(f"mutation: --modules {g} matches no module of verified/", file=sys.stderr)
            raise SystemExit(2)
    return [m for m in modules if any(fnmatch.fnmatch(m, g) for g in globs)]


def draw_sample(root: Path, seed: int, size: int, ops, only: list[str]) -> tuple[list[engine.Mutant], int, int]:
    """``size`` mutants: places (file, span, operator family) drawn without
    replacement by a ``random.Random(seed)``, one operator variant per place,
    skipping variants that change nothing or do not compile.  Returns the
    mutants, the number of sites and the number of places."""
    all_sites = []
    for module in selected(engine.modules(root), only):
        all_sites += engine.sites(root, module, ops)
    by_place: dict[tuple, list[engine.Site]] = defaultdict(list)
    for s in all_sites:
        by_place[s.place].append(s)
    places = sorted(by_place, key=repr)
    rng = random.Random(seed)
    rng.shuffle(places)
    sample: list[engine.Mutant] = []
    for place in places:
        if len(sample) >= size:
            break
        variants = by_place[place][:]
        rng.shuffle(variants)
        for site in variants:
            m = engine.mutate(root, site, ops)
            if m is not None:
                sample.append(m)
                break
    return sample, len(all_sites), len(places)


def chosen(root: Path, specs: list[str], ops) -> tuple[list[engine.Mutant], int, int]:
    """The mutants named by ``--at FILE:LINE[:OPERATOR]``."""
    out: list[engine.Mutant] = []
    for spec in specs:
        path, line, *op = spec.split(":", 2)
        sites = [s for s in engine.sites(root, path, ops)
                 if s.line == int(line) and (not op or s.operator == op[0])]
        found = [m for m in (engine.mutate(root, s, ops) for s in sites) if m is not None]
        if not found:
            raise SystemExit(f"mutation: no mutant at {spec}")
        out += found
    return out, len(out), len({m.site.place for m in out})


# ---------------------------------------------------------------------------
# Running tests in the scratch copy
# ---------------------------------------------------------------------------


@dataclass
class Outcome:
    status: str  # killed | survived | error | not-run
    how: str = ""  # failed | import | timeout (killed); the reason (error)
    test: str = ""  # the first failing test
    seconds: float = 0.0
    tail: str = ""


def run_pytest(ws: Path, tests: list[str], timeout: float) -> tuple[int | None, str, float]:
    """Exit status (None on timeout), output, seconds."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ws),
               VERIFIED_CONTRACTS="1")
    shutil.rmtree(ws / ".hypothesis", ignore_errors=True)
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *PYTEST_ARGS, *tests], cwd=ws,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    return code, out.decode("utf-8", "replace"), time.monotonic() - start


def classify(code: int | None, output: str, seconds: float) -> Outcome:
    tail = "\n".join(output.splitlines()[-25:])
    first = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.M)
    test = first.group(1) if first else ""
    if code is None:
        return Outcome("killed", "timeout", "", seconds, tail)
    if code == 0:
        return Outcome("survived", "", "", seconds, tail)
    # a test module that cannot even be collected with the mutant in place
    # (pytest -x exits 1 or 2 for it): the suite fails, so the mutant is
    # killed, and the report says how
    if code in (1, 2) and re.search(r"^_+ ERROR collecting ", output, re.M):
        return Outcome("killed", "import", test, seconds, tail)
    if code == 1:
        return Outcome("killed", "failed", test, seconds, tail)
    return Outcome("error", f"pytest exited {code}", test, seconds, tail)


def make_workspace() -> Path:
    ws = Path(tempfile.mkdtemp(prefix="verified-mutation-")) / "repo"
    shutil.copytree(ROOT, ws, ignore=IGNORED)
    probe = subprocess.run(
        [sys.executable, "-c", "import verified, mutants; print(verified.__file__)"],
        cwd=ws, env=dict(os.environ, PYTHONPATH=str(ws)), capture_output=True, text=True)
    where = Path(probe.stdout.strip() or "?").resolve()
    if probe.returncode != 0 or ws.resolve() not in where.parents:
        raise SystemExit(f"mutation: the scratch copy does not import its own verified/ "
                         f"(got {where}; {probe.stderr.strip()})")
    return ws


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


@dataclass
class Row:
    mutant: engine.Mutant
    outcome: Outcome
    equivalent: Equivalent | None = None


def score_of(rows: list[Row]) -> tuple[int, int, int]:
    """(killed, run - equivalent, equivalent) over the mutants that ran."""
    ran = [r for r in rows if r.outcome.status in ("killed", "survived")]
    equivalent = sum(1 for r in ran if r.equivalent and r.outcome.status == "survived")
    killed = sum(1 for r in ran if r.outcome.status == "killed")
    return killed, len(ran) - equivalent, equivalent


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "n/a"


def report(rows: list[Row], meta: dict) -> str:
    lines = [f"# make mutation: seed {meta['seed']}, sample {meta['sample']} "
             f"(of {meta['places']} places, {meta['sites']} sites)", ""]
    if meta.get("modules"):
        lines[-1:] = ["", "modules: " + ", ".join(f"`{g}`" for g in meta["modules"]), ""]
    lines.append("| module | sampled | killed | survived | equivalent | not run / error | score |")
    lines.append("|---|---|---|---|---|---|---|")
    by_module: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_module[r.mutant.site.path].append(r)
    for module in sorted(by_module):
        rs = by_module[module]
        k, denom, eq = score_of(rs)
        surv = sum(1 for r in rs if r.outcome.status == "survived" and not r.equivalent)
        other = sum(1 for r in rs if r.outcome.status in ("error", "not-run"))
        lines.append(f"| {module} | {len(rs)} | {k} | {surv} | {eq} | {other} | {pct(k, denom)} |")
    k, denom, eq = score_of(rows)
    surv = sum(1 for r in rows if r.outcome.status == "survived" and not r.equivalent)
    other = sum(1 for r in rows if r.outcome.status in ("error", "not-run"))
    lines.append(f"| **all** | {len(rows)} | {k} | {surv} | {eq} | {other} | **{pct(k, denom)}** |")
    how = Counter(r.outcome.how for r in rows if r.outcome.status == "killed")
    lines += ["", f"score = killed / (run - equivalent) = {k} / {denom} = {pct(k, denom)}",
              f"killed by: a failing test {how['failed']}, a test module failing to collect "
              f"{how['import']}, a timeout {how['timeout']}",
              f"harness errors: {sum(1 for r in rows if r.outcome.status == 'error')}; "
              f"not run (budget): {sum(1 for r in rows if r.outcome.status == 'not-run')}",
              f"wall time: {meta['seconds']:.0f} s (baseline {meta['baseline_seconds']:.0f} s)"]
    bad_eq = [r for r in rows if r.equivalent and r.outcome.status == "killed"]
    if bad_eq:
        lines += ["", "## Listed as equivalent but killed (fix mutation/equivalent.toml)"]
        lines += [f"- {r.mutant.site.path}:{r.mutant.site.line} {r.mutant.site.operator} "
                  f"by {r.outcome.test}" for r in bad_eq]
    if meta.get("stale"):
        lines += ["", "## Stale equivalent entries (match no mutant, or several, of the "
                  "current code)"]
        lines += [f"- {e.file} ({e.scope}) {e.operator}: `{e.before}` -> `{e.after}`"
                  for e in meta["stale"]]
    survivors = [r for r in rows if r.outcome.status == "survived" and not r.equivalent]
    if survivors:
        lines += ["", "## Survivors (diffs in survivors.diff)"]
        lines += [f"- {r.mutant.site.path}:{r.mutant.site.line} {r.mutant.site.operator}: "
                  f"`{r.mutant.before}` -> `{r.mutant.after}`" for r in survivors]
    return "\n".join(lines) + "\n"


def survivors_text(rows: list[Row]) -> str:
    out = []
    for r in rows:
        if r.outcome.status == "survived" and not r.equivalent:
            s = r.mutant.site
            out.append(f"# {s.path}:{s.line} {s.operator} (occurrence {s.occurrence})\n"
                       f"{r.mutant.diff}\n")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mutation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sample", type=int, default=150, help="mutants to run (default 150)")
    p.add_argument("--budget", type=float, default=3600,
                   help="seconds; mutants not started by then are reported as not run")
    p.add_argument("--modules", action="append", default=[], metavar="GLOB",
                   help="only sample mutants of the files matching GLOB (relative to the "
                        "repository, e.g. 'verified/core/machine/*.py'); repeatable")
    p.add_argument("--out", type=Path, default=None,
                   help="report directory (default .mutation/seed-SEED)")
    p.add_argument("--at", action="append", default=[], metavar="FILE:LINE[:OPERATOR]",
                   help="instead of a sample, the mutants starting on this line (e.g. "
                        "verified/core/oracle.py:87:verified/DeleteStatement); repeatable")
    p.add_argument("--list", action="store_true", help="print the sample and stop")
    args = p.parse_args(argv)
    out_dir = args.out or ROOT / ".mutation" / f"seed-{args.seed}"

    started = time.monotonic()
    ops = engine.operators()
    test_map = load_test_map()
    for module in engine.modules(ROOT):
        tests_for(module, test_map)  # every module must have tests
    equivalents = load_equivalents()
    stale = stale_equivalents(ROOT, equivalents, ops)
    if args.at:
        sample, n_sites, n_places = chosen(ROOT, args.at, ops)
    else:
        sample, n_sites, n_places = draw_sample(ROOT, args.seed, args.sample, ops, args.modules)
    if args.list:
        for m in sample:
            print(f"{m.site.path}:{m.site.line} ({m.site.scope}) {m.site.operator}: "
                  f"{m.before!r} -> {m.after!r}")
        return 0

    ws = make_workspace()
    try:
        groups = sorted({tuple(tests_for(m.site.path, test_map)) for m in sample})
        timeout_of: dict[tuple, float] = {}
        baseline_seconds = 0.0
        for g in groups:
            code, output, secs = run_pytest(ws, list(g), timeout=1800)
            baseline_seconds += secs
            if code != 0:
                print(output[-3000:])
                print(f"mutation: the unmutated code fails its own tests {list(g)} "
                      f"(exit {code}); nothing was run", file=sys.stderr)
                return 2
            timeout_of[g] = 3 * secs + 30
            print(f"baseline {secs:6.1f} s  {' '.join(g)}", flush=True)

        rows: list[Row] = []
        for i, m in enumerate(sample, 1):
            eq = next((e for e in equivalents if e.matches(m)), None)
            if time.monotonic() - started > args.budget:
                rows.append(Row(m, Outcome("not-run", "budget"), eq))
                continue
            target = ws / m.site.path
            original = target.read_text(encoding="utf-8")
            g = tuple(tests_for(m.site.path, test_map))
            try:
                target.write_text(m.code, encoding="utf-8")
                outcome = classify(*run_pytest(ws, list(g), timeout_of[g]))
            finally:
                target.write_text(original, encoding="utf-8")
            rows.append(Row(m, outcome, eq))
            tag = outcome.status + (" (equivalent)" if eq else "")
            print(f"[{i}/{len(sample)}] {tag:<22} {m.site.path}:{m.site.line} "
                  f"{m.site.operator} {outcome.seconds:5.1f} s {outcome.how} {outcome.test}",
                  flush=True)
    finally:
        shutil.rmtree(ws.parent, ignore_errors=True)

    meta = {"seed": args.seed, "sample": len(sample), "sites": n_sites, "places": n_places,
            "seconds": time.monotonic() - started, "baseline_seconds": baseline_seconds,
            "stale": stale, "modules": [] if args.at else args.modules}
    text = report(rows, meta)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.md").write_text(text)
    (out_dir / "survivors.diff").write_text(survivors_text(rows))
    (out_dir / "results.json").write_text(json.dumps(
        {"seed": args.seed, "sample": len(sample), "sites": n_sites, "places": n_places,
         "score": score_of(rows), "seconds": meta["seconds"],
         "mutants": [{**asdict(r.mutant.site), "before": r.mutant.before,
                      "after": r.mutant.after, "equivalent": r.equivalent.reason if r.equivalent else None,
                      **{k: v for k, v in asdict(r.outcome).items() if k != "tail"},
                      "diff": r.mutant.diff} for r in rows]}, indent=1))
    print()
    print(text)
    print(f"report: {out_dir / 'report.md'}; survivors with diffs: {out_dir / 'survivors.diff'}")

    errors = [r for r in rows if r.outcome.status == "error"]
    bad_eq = [r for r in rows if r.equivalent and r.outcome.status == "killed"]
    if errors or bad_eq or stale:
        for r in errors:
            print(f"harness error on {r.mutant.site.path}:{r.mutant.site.line}: "
                  f"{r.outcome.how}\n{r.outcome.tail}", file=sys.stderr)
        return 2
    survived = any(r.outcome.status == "survived" and not r.equivalent for r in rows)
    not_run = any(r.outcome.status == "not-run" for r in rows)
    return 1 if survived or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
