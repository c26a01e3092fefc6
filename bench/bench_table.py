"""Issue 20's table: each row a figure of ours and, beside it, its anchor
measured in the same run (the C client alone on the same requests; a plain
`json` read-write loop over the same lines; the Rust SSRA when the
`SSRA_RUST` command is given), and their ratio.  CPU seconds, not wall:
they are what the load of a shared machine does not change much.

* conform, register model: `--registers 6` (126,125 cases) against
  tests/clients/shuf_client.c, inline (`--jobs 1`) and with the default
  workers; the anchor is the client alone answering the same request lines;
  "ours" is conform's CPU (its processes and the client's, less the client's
  own CPU measured alone);
* conform `--shapes`: 12 registers (16 with VERIFIED_BENCH_LONG=1), against
  the client alone;
* conform `--machine x86-64`: exhaustive (<= 2 moves; <= 3 long) and
  random 2,000 (20,000 long) against our resolver: the anchor is the resolver alone
  answering the same lines, so the ratio is the share of the run's CPU
  that is ours beyond the resolver;
* `verified check`, register and machine lines, against a plain
  json.loads/json.dumps loop over the same file;
* SSRA parse + allocate + print of the write-up's 6362-instruction tape at
  24 registers, in process and as a whole `verified ssra alloc` process
  (the whole process also against a bare `python -c pass`),
  against `SSRA_RUST` (a command with {tape} where the tape's path goes,
  e.g. SSRA_RUST='/path/to/ssra --registers 24 {tape}'; docs/ssra.md says
  how to build the write-up's Rust for it), else against the write-up's
  3.8 ms, which is then not a same-run figure;
* exhaustive checking (verified.tools.exhaustive) of shuf on n = 6
  (n = 7 long): the algorithm, its postcondition and the independent check.

When the compiled build is present (`make fast`, docs/fast.md: .venv-fast
built from this source tree), every row that runs our code is measured a
second time with it, in the same run, marked [compiled], its ratio against
the same anchor and against the interpreted row.

"Before and after" in the same run: every row that runs our code is first
measured on the code issue 20 measured (``verified/`` of commit
``BEFORE_COMMIT``, unpacked with ``git archive``; or the checkout named by
``BENCH_BEFORE``), marked [before], and each later row says how many times
faster it is.  The before tree runs from its own directory, so its package
is the one imported.  Its machine rows run its own suite (untyped cases:
typed cases came with issue 19), so they compare the cost per case of two
suites, not the same cases.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tests" / "clients" / "shuf_client.c"
TAPE = ROOT / "tests" / "data" / "ssra-bench-6362.tape"
RUST_WRITE_UP_MS = 3.8
LONG = os.environ.get("VERIFIED_BENCH_LONG") == "1"
PY = sys.executable
FAST_PY = ROOT / ".venv-fast" / "bin" / "python"
#: the code issue 20 measured ("today" in its table)
BEFORE_COMMIT = "d81ed4d"


@dataclasses.dataclass(frozen=True)
class Build:
    """Which install runs our side of a row: its Python, and the directory to
    run it in (outside the source tree for the compiled one, so that the
    installed package is imported)."""

    label: str
    python: str
    cwd: "str | None" = None

    def verified(self, *args: str) -> list[str]:
        return [self.python, "-m", "verified.cli", *args]


INTERPRETED = Build("", PY)
#: figures by (build label, row), for the later rows' speed-ups
SEEN: dict[tuple[str, str], float] = {}


def before_build(tmp: Path) -> "Build | None":
    """``BENCH_BEFORE``'s checkout, or ``verified/`` of ``BEFORE_COMMIT``
    unpacked in ``tmp``; None (said) when neither is there."""
    label = " [before]"
    if os.environ.get("BENCH_BEFORE"):
        print(f"   before = {os.environ['BENCH_BEFORE']}")
        return Build(label, PY, os.environ["BENCH_BEFORE"])
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE_COMMIT, "verified"],
                             capture_output=True)
    if archive.returncode != 0:
        print(f"   no [before] rows: {BEFORE_COMMIT} is not in this checkout's history "
              "and BENCH_BEFORE is not set")
        return None
    tree = tmp / "before"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    print(f"   before = {BEFORE_COMMIT} (the code issue 20 measured)")
    return Build(label, PY, str(tree))


def builds(tmp: Path) -> list[Build]:
    """The interpreted build, and the compiled one when it is present and
    built from this source tree."""
    if not FAST_PY.exists():
        print("   no compiled build (.venv-fast): `make fast` adds the [compiled] rows")
        return [INTERPRETED]
    from fast.agree import stale_sources
    stale = stale_sources(FAST_PY.parent.parent, tmp)
    if stale:
        print(f"   .venv-fast was built from other source ({', '.join(stale[:3])}): "
              f"`make fast` rebuilds it; no [compiled] rows")
        return [INTERPRETED]
    return [INTERPRETED, Build(" [compiled]", str(FAST_PY), str(tmp))]


def versus(build: Build, key: str, figure: float) -> str:
    """This row's speed-up over the same row of the builds measured before
    it in this run (figures are CPU seconds per unit of work: smaller is
    faster)."""
    SEEN[(build.label, key)] = figure
    if build.label == " [before]":
        return ""
    out = ""
    if (" [before]", key) in SEEN:
        out += "; " + _times(SEEN[(" [before]", key)] / figure, "before")
    if build.label and ("", key) in SEEN:
        out += "; " + _times(SEEN[("", key)] / figure, "interpreted")
    return out


def _times(speedup: float, than: str) -> str:
    """"x1.50 faster than before", or "x2.00 slower than before" (never
    "x0.50 faster")."""
    if speedup >= 1:
        return f"x{speedup:.2f} faster than {than}"
    return f"x{1 / speedup:.2f} slower than {than}"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cpu(argv: list[str], stdin: "bytes | Path | None" = None, codes: tuple = (0, 1),
            cwd: "str | None" = None) -> tuple[float, float, bytes]:
    """Run a command to the end, its input bytes or a file: (CPU seconds of
    it and its children, wall seconds, stdout)."""
    c, t = _children_cpu(), time.perf_counter()
    if isinstance(stdin, Path):
        with open(stdin, "rb") as f:
            p = subprocess.run(argv, stdin=f, capture_output=True, cwd=cwd)
    else:
        p = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd)
    wall, cpu = time.perf_counter() - t, _children_cpu() - c
    if p.returncode not in codes:
        raise SystemExit(f"{argv[:4]} failed ({p.returncode}): {p.stderr[-300:]!r}")
    return cpu, wall, p.stdout


def best_cpu(argv: list[str], stdin: "bytes | Path | None" = None, repeats: int = 3,
             codes: tuple = (0, 1), cwd: "str | None" = None) -> float:
    return min(run_cpu(argv, stdin, codes, cwd)[0] for _ in range(repeats))


def conform(cmd: str, *args: str, build: Build = INTERPRETED) -> tuple[float, float, dict]:
    cpu, wall, out = run_cpu(build.verified("conform", "--cmd", cmd, "--json",
                                            "--progress", "never", *args), cwd=build.cwd)
    return cpu, wall, json.loads(out)


def requests_of(args: list[str], path: Path) -> Path:
    """A file of the request lines conform sends for these options (its own
    suite, streamed)."""
    import argparse
    from verified.tools.conform import cli
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    _, suite = cli.build_suite(p.parse_args(["--cmd", "x", *args]))
    with open(path, "wb") as f:
        for c in suite.cases():
            f.write(suite.case_type.encode(c))
    return path


ROWS: list[tuple[str, str, str, str]] = []


def row(measure: str, ours: str, anchor: str, ratio: str) -> None:
    ROWS.append((measure, ours, anchor, ratio))
    print(f"   {measure:44} | {ours:30} | {anchor:34} | {ratio}", flush=True)


def conform_rows(client: str, tmp: Path, runs: list[Build]) -> None:
    for label, args in [
        ("conform n<=6, inline (-j 1)", ["--model", "swap", "--registers", "6", "--jobs", "1"]),
        ("conform n<=6, workers (default)", ["--model", "swap", "--registers", "6"]),
        (f"conform --shapes n={16 if LONG else 12}",
         ["--model", "swap", "--registers", "16" if LONG else "12", "--shapes"]),
    ]:
        reqs = requests_of(args, tmp / "requests.jsonl")
        alone = best_cpu([client], reqs)
        for build in runs:
            try:
                cpu, wall, r = conform(client, *args, build=build)
            except SystemExit as e:
                row(label + build.label, "n/a", str(e)[:34], "—")
                continue
            assert r["exit"] == 0 and r["run"] == r["planned"], r
            ours = max(cpu - alone, 1e-9)
            row(label + build.label, f"{r['run'] / ours:,.0f} cases/CPU-s ({wall:.1f} s wall)",
                f"client alone {r['run'] / max(alone, 1e-9):,.0f} answers/CPU-s",
                f"x{ours / max(alone, 1e-9):.1f} the client's CPU"
                + versus(build, label, ours))


def machine_rows(tmp: Path, runs: list[Build]) -> None:
    k = "20000" if LONG else "2000"
    moves = "3" if LONG else "2"
    for label, args in [(f"conform --machine x86-64, exhaustive <= {moves} moves",
                         ["--machine", "x86-64", "--max-moves", moves]),
                        (f"conform --machine x86-64, random {int(k):,}",
                         ["--machine", "x86-64", "--random", k])]:
        reqs = requests_of(args, tmp / "requests.jsonl")
        for build in runs:
            resolve = build.verified("solve", "--algorithm", "resolve")
            cpu, wall, r = conform(shlex.join(resolve), *args, "--timeout", "60", build=build)
            if build.label == " [before]":
                # its own suite: these request lines are this tree's
                row(label + build.label,
                    f"{r['run'] / cpu:,.0f} cases/CPU-s ({r['cases_per_second']:,} cases/s)",
                    f"its own suite, {r['run']:,} cases", "—" + versus(build, label, cpu / r["run"]))
                continue
            # exit 2: it declines (one error line) the cases it has no answer for
            alone = best_cpu(resolve, reqs, repeats=1, codes=(0, 1, 2), cwd=build.cwd)
            row(label + build.label,
                f"{r['run'] / cpu:,.0f} cases/CPU-s ({r['cases_per_second']:,} cases/s)",
                f"resolver alone {alone / cpu:.0%} of the run's CPU",
                f"x{(cpu - alone) / max(alone, 1e-9):.2f} the resolver's CPU"
                + versus(build, label, cpu / r["run"]))


def check_rows(runs: list[Build]) -> None:
    from bench.bench_machines import requests as machine_requests
    from verified import cases
    from verified.algorithms import solve
    from verified.core.semantics import ParallelMove
    lines = []
    for c in cases.random_cases(8, 20000, 1):
        pm = ParallelMove.make(c.moves, c.registers)
        lines.append(json.dumps({"moves": [list(m) for m in c.moves], "registers": c.registers,
                                 "model": "swap",
                                 "sequence": [op.to_json() for op in solve("shuf", pm)]}))
    register = ("\n".join(lines) + "\n").encode()
    machine = "".join(json.dumps(r) + "\n" for r in
                      machine_requests("x86-64", random.Random(2026), 5000)).encode()
    loop = [PY, "-c", "import json, sys\nfor line in sys.stdin:\n"
            "    sys.stdout.write(json.dumps(json.loads(line)) + '\\n')"]
    for label, data in (("verified check, register lines", register),
                        ("verified check, machine lines (x86-64)", machine)):
        n = data.count(b"\n")
        plain = best_cpu(loop, data)
        for build in runs:
            try:
                ours = best_cpu(build.verified("check"), data, cwd=build.cwd)
            except SystemExit as e:
                row(label + build.label, "n/a: does not read these lines", str(e)[-34:], "—")
                continue
            row(label + build.label, f"{n / ours:,.0f} lines/CPU-s",
                f"json loop {n / plain:,.0f} lines/CPU-s",
                f"x{ours / plain:.1f} the json loop's CPU" + versus(build, label, ours))


#: parse + allocate + print in one process, 15 times: the median CPU seconds
IN_PROCESS = f"""
import sys, time
from verified import ssra
text = open({str(TAPE)!r}).read()
cpu = []
for _ in range(15):
    c = time.process_time()
    ssra.allocate(ssra.parse_tape(text), 24).text()
    cpu.append(time.process_time() - c)
print(sorted(cpu)[len(cpu) // 2])
"""


#: what the `verified` console script runs (``python -m`` adds runpy's
#: imports), for a build that has no script of its own ([before])
SCRIPT = "import sys; from verified.cli import main; sys.exit(main())"


def rust_work(rust_cmd: str, rust: float) -> "float | None":
    """An estimate of the Rust work alone: its whole process on the tape
    less its whole process on a one-operation tape (its start-up, reading
    and printing one line), each its best of 21."""
    with tempfile.TemporaryDirectory() as d:
        one = Path(d) / "one.tape"
        one.write_text("$0 = X()\n")
        start = best_cpu(shlex.split(rust_cmd.replace("{tape}", shlex.quote(str(one)))),
                         repeats=21)
    work = rust - start
    row("SSRA Rust work alone (estimate)", f"{work * 1e3:.2f} ms CPU",
        f"whole {rust * 1e3:.2f} - start-up {start * 1e3:.2f}", "—")
    return work if work > 0 else None


def ssra_rows(runs: list[Build]) -> None:
    rust_cmd = os.environ.get("SSRA_RUST")
    work = None
    if rust_cmd:
        rust = best_cpu(shlex.split(rust_cmd.replace("{tape}", shlex.quote(str(TAPE)))),
                        repeats=21)
        anchor = f"Rust {rust * 1e3:.1f} ms CPU (same run)"
        work = rust_work(rust_cmd, rust)
    else:
        rust = RUST_WRITE_UP_MS / 1e3
        anchor = f"Rust {RUST_WRITE_UP_MS} ms (write-up, NOT same-run)"
    alloc = ("ssra", "alloc", "--registers", "24", str(TAPE))
    for build in runs:
        inproc = float(run_cpu([build.python, "-c", IN_PROCESS], cwd=build.cwd)[2])
        whole = best_cpu(build.verified(*alloc), repeats=5, cwd=build.cwd)
        script = best_cpu([build.python, "-c", SCRIPT, *alloc], repeats=5, cwd=build.cwd)
        # the floor of any whole process of ours: the interpreter's start-up
        bare = best_cpu([build.python, "-c", "pass"], repeats=5, cwd=build.cwd)
        label = "SSRA parse+alloc+print, N=24, in process"
        row(label + build.label, f"{inproc * 1e3:.1f} ms CPU", anchor,
            f"x{inproc / rust:.1f} Rust"
            + (f", x{inproc / work:.1f} Rust work alone" if work else "")
            + versus(build, label, inproc))
        label = "SSRA, whole `verified ssra alloc` process"
        row(label + build.label, f"{whole * 1e3:.1f} ms CPU", anchor,
            f"x{whole / rust:.1f} Rust, x{whole / bare:.1f} `python -c pass` "
            f"({bare * 1e3:.1f} ms)" + versus(build, label, whole))
        label = "SSRA, the same as the `verified` script"
        row(label + build.label, f"{script * 1e3:.1f} ms CPU", anchor,
            f"x{script / rust:.1f} Rust, x{script / bare:.1f} `python -c pass`"
            + versus(build, label, script))
        cached = cached_bytecode_cpu(build, [build.python, "-c", SCRIPT, *alloc])
        if cached is not None:
            label = "SSRA, the script, bytecode cached"
            row(label + build.label, f"{cached * 1e3:.1f} ms CPU", anchor,
                f"x{cached / rust:.1f} Rust, x{cached / bare:.1f} `python -c pass`"
                + versus(build, label, cached))


def cached_bytecode_cpu(build: Build, argv: list[str]) -> "float | None":
    """``argv`` (a Python command line) as an installed package runs it,
    its modules read from the bytecode ``pip install`` compiles: a copy of
    the build's package, compiled with ``compileall``, imported first (the
    command runs in the copy's directory).  A source tree with
    PYTHONDONTWRITEBYTECODE=1 set, as on this machine, compiles every
    module it imports on every run instead: the rows above.  None for an
    installed build (the compiled one), whose rows above already read its
    bytecode.  Best of 5."""
    where = subprocess.run([build.python, "-c", "import os, verified; "
                            "print(os.path.dirname(verified.__file__))"],
                           capture_output=True, text=True, check=True, cwd=build.cwd)
    package = Path(where.stdout.strip())
    if "site-packages" in package.parts:
        return None
    with tempfile.TemporaryDirectory() as d:
        copy = Path(d) / "verified"
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([build.python, "-m", "compileall", "-q", str(copy)], check=True,
                       capture_output=True)
        return best_cpu(argv, repeats=5, cwd=d)


def exhaustive_rows(runs: list[Build]) -> None:
    n = 7 if LONG else 6
    label = f"exhaustive n = {n}, shuf"
    for build in runs:
        argv = [build.python, "-c", f"from verified.tools.exhaustive import check_all\n"
                f"r = check_all('shuf', {n})\nassert r.failure_count == 0"]
        cpu = best_cpu(argv, repeats=1, cwd=build.cwd)
        speedup = versus(build, label, cpu).removeprefix("; ")
        row(label + build.label, f"{cpu:.1f} s CPU ({n ** n / cpu:,.0f} maps/CPU-s)", "—",
            speedup or "—")
    # the same split over 2 processes (check_all's processes=): wall and CPU
    # apart, since the wall time on 2 cores is not a CPU time
    label = f"exhaustive n = {n}, shuf, 2 processes"
    for build in runs:
        argv = [build.python, "-c", f"from verified.tools.exhaustive import check_all\n"
                f"r = check_all('shuf', {n}, processes=2)\nassert r.failure_count == 0"]
        cpu, wall, _ = run_cpu(argv, cwd=build.cwd)
        row(label + build.label, f"{wall:.1f} s wall, {cpu:.1f} s CPU", "—",
            f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    print(f"   load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
          + ("" if LONG else "; VERIFIED_BENCH_LONG=1 for the issue's full sizes"))
    print(f"   {'measure':44} | {'ours':30} | {'anchor (same run)':34} | ratio")
    with tempfile.TemporaryDirectory() as d:
        before = before_build(Path(d))
        runs = ([before] if before else []) + builds(Path(d))
        if cc is None:
            print("   no C compiler: the conform rows are skipped")
        else:
            exe = os.path.join(d, "shuf_client")
            subprocess.run([cc, "-O2", "-o", exe, str(SRC)], check=True)
            conform_rows(exe, Path(d), runs)
        machine_rows(Path(d), runs)
        check_rows(runs)
        ssra_rows(runs)
        exhaustive_rows(runs)
    print(f"   load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
