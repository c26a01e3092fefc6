"""Byte-for-byte agreement of the interpreted and the compiled build (issue 20,
"one fast path, one source").

Runs one corpus of ``verified`` commands through two installs -- A, the
interpreted one (``.venv``), and B, the compiled one (``.venv-fast``, built
by ``make fast``) -- and compares every output byte for byte: each run's
stdout, stderr and exit status, and every file a run writes.  Before that it
checks B really runs the compiled modules (each module listed under
``[tool.verified.mypyc]`` in pyproject.toml is an extension module in B and
a ``.py`` in A): agreement of two interpreted installs would prove nothing.

The corpus (``--registers N``, default 6; ``--quick`` is N = 4 and fewer
conform runs, for the test):

* ``vectors`` of every register model, exhaustive for n <= N (117,649 maps
  at n = 6) plus seeded random ones, and of the x86-64 machine: every file;
* ``solve`` with every algorithm over the requests of its model's vectors;
* ``check`` over every vector's reference sequence and three broken variants
  of it (reversed, last operation dropped, first operation repeated), over
  the machine vectors' references, and over the golden lines of
  tests/protocol/test_golden_check.py (answers and bad input);
* ``explain`` of a few broken sequences;
* ``conform`` reports (``--json``): the C client tests/clients/shuf_client.c
  (when a C compiler is found) exhaustive, ``--shapes`` and random; the
  order-dependent client (failures, shrinking) and the allocator client;
  only the report's wall-clock fields (``seconds``, ``cases_per_second``)
  are left out of the comparison, and said so, and the progress line is
  off (``--progress never``: it is drawn by the wall clock);
* ``ssra alloc`` and ``ssra check`` of the two tapes in tests/data.

Prints the count of runs and of output bytes and lines compared; exits 0
when all agree, 1 on any difference (the first lines of each are shown), 2
when B is not a compiled build.

    python -m fast.agree --a .venv --b .venv-fast
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: wall-clock figures in a conform report: the only fields not compared
TIMING_KEYS = ("seconds", "cases_per_second")
#: conform's JSON report, without the progress line on stderr (paced by the
#: wall clock: how far a run got when it was drawn, not what it answered)
REPORT = ("--json", "--progress", "never")

ALGORITHMS = {
    "temp": ["leroy", "leroy-iterative", "windmill", "mincopy"],
    "swap": ["shuf", "xchg", "xchg-as-published"],
    "permi": ["greedy", "permi-optimal"],
}


@dataclass(frozen=True)
class Run:
    """One command of the corpus: ``verified ARGV`` with STDIN; with
    ``out_dir`` the run writes into the directory given as ``{out}``."""

    name: str
    argv: tuple[str, ...]
    stdin: bytes = b""
    out_dir: bool = False
    report: bool = False  # a conform --json report: timing fields masked


@dataclass(frozen=True)
class Output:
    status: int
    stdout: bytes
    stderr: bytes
    files: tuple[tuple[str, bytes], ...] = ()


@dataclass
class Tally:
    runs: int = 0
    bytes: int = 0
    lines: int = 0
    differences: list[str] = field(default_factory=list)


def compiled_modules() -> list[str]:
    """The module names setup.py compiles, from pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths = tomllib.load(f)["tool"]["verified"]["mypyc"]["modules"]
    return [p.removesuffix(".py").replace("/", ".") for p in paths]


def module_files(venv: Path, modules: list[str], cwd: Path) -> dict[str, str]:
    """Where each module is loaded from in VENV's interpreter (run outside
    the repository, so the source tree does not shadow the install)."""
    code = ("import importlib, json, sys\n"
            "print(json.dumps({m: importlib.import_module(m).__file__ for m in sys.argv[1:]}))")
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code, *modules],
                       capture_output=True, cwd=cwd, check=True)
    return json.loads(p.stdout)


def stale_sources(venv: Path, cwd: Path) -> list[str]:
    """The package's .py files that differ between VENV's install and this
    source tree: a build of other source agreeing would prove nothing."""
    code = "import json, verified; print(json.dumps(verified.__path__[0]))"
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code],
                       capture_output=True, cwd=cwd, check=True)
    installed = Path(json.loads(p.stdout))
    source = ROOT / "verified"
    names = {f.relative_to(source).as_posix() for f in source.rglob("*.py")}
    names |= {f.relative_to(installed).as_posix() for f in installed.rglob("*.py")}
    return sorted(n for n in names if not (source / n).is_file() or not (installed / n).is_file()
                  or (source / n).read_bytes() != (installed / n).read_bytes())


def _mask(report: bytes) -> bytes:
    data = json.loads(report)
    for key in TIMING_KEYS:
        data.pop(key, None)
    return json.dumps(data, indent=2, sort_keys=True).encode()


def execute(venv: Path, run: Run, work: Path, tag: str) -> Output:
    """Run one command of the corpus in VENV, in its own directory
    (work/TAG), writing into the relative directory ``out``: the same
    argument and the same messages in A and B."""
    cwd = work / tag
    cwd.mkdir(exist_ok=True)
    out = cwd / "out"
    argv = [a.replace("{out}", "out") for a in run.argv]
    p = subprocess.run([str(venv / "bin" / "verified"), *argv], input=run.stdin,
                       capture_output=True, cwd=cwd, timeout=3600)
    files: tuple[tuple[str, bytes], ...] = ()
    if run.out_dir and out.is_dir():
        files = tuple((f.relative_to(out).as_posix(), f.read_bytes())
                      for f in sorted(out.rglob("*")) if f.is_file())
        shutil.rmtree(out)
    stdout = _mask(p.stdout) if run.report and p.stdout.startswith(b"{") else p.stdout
    return Output(p.returncode, stdout, p.stderr, files)


def _first_difference(x: bytes, y: bytes) -> str:
    xl, yl = x.splitlines(), y.splitlines()
    for i, (u, v) in enumerate(zip(xl, yl)):
        if u != v:
            return f"line {i + 1}:\n  A {u[:300]!r}\n  B {v[:300]!r}"
    return f"A has {len(xl)} lines, B {len(yl)}"


def compare(run: Run, a: Output, b: Output, tally: Tally) -> None:
    tally.runs += 1
    pairs = [("exit status", str(a.status).encode(), str(b.status).encode()),
             ("stdout", a.stdout, b.stdout), ("stderr", a.stderr, b.stderr),
             ("file list", "\n".join(n for n, _ in a.files).encode(),
              "\n".join(n for n, _ in b.files).encode())]
    pairs += [(f"file {n}", x, y) for (n, x), (_, y) in zip(a.files, b.files)]
    for what, x, y in pairs:
        tally.bytes += len(x)
        tally.lines += x.count(b"\n")
        if x != y:
            tally.differences.append(f"{run.name}: {what} differs, {_first_difference(x, y)}")


def jsonl(rows: list) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def broken(seq: list) -> list[list]:
    """Three wrong variants of a sequence (the oracle's rejections)."""
    if not seq:
        return []
    return [seq[::-1], seq[:-1], seq[:1] + seq]


def golden_lines() -> list[bytes]:
    """The request lines of tests/protocol/test_golden_check.py's golden
    tables (answers and bad input)."""
    sys.path.insert(0, str(ROOT))
    from tests.protocol import test_golden_check as g

    rows = [row[0] for row in (*g.GOLDEN, *g.BAD_INPUT)]
    return [r if isinstance(r, bytes) else r.encode() for r in rows]


def vector_rows(files: tuple[tuple[str, bytes], ...]) -> list[dict]:
    return [json.loads(line) for name, data in files if name.endswith(".jsonl")
            for line in data.splitlines()]


class Corpus:
    """Runs the corpus through A and B side by side (two threads, one
    process each at a time) and tallies the comparison."""

    def __init__(self, a: Path, b: Path, work: Path, registers: int, quick: bool) -> None:
        self.a, self.b, self.work = a, b, work
        self.registers, self.quick = registers, quick
        self.tally = Tally()
        self.pool = ThreadPoolExecutor(2)

    def run(self, run: Run) -> Output:
        fa = self.pool.submit(execute, self.a, run, self.work, "a")
        fb = self.pool.submit(execute, self.b, run, self.work, "b")
        out_a, out_b = fa.result(), fb.result()
        compare(run, out_a, out_b, self.tally)
        print(f"  {run.name}: exit {out_a.status}, {len(out_a.stdout):,} bytes of stdout"
              f"{f', {len(out_a.files)} files' if out_a.files else ''}", flush=True)
        return out_a

    def models(self) -> None:
        n = self.registers
        for model in ("temp", "swap", "permi"):
            vec = self.run(Run(f"vectors-{model}", (
                "vectors", "--model", model, "--registers", str(n), "--exhaustive-max",
                str(min(n, 6)), "--random", "50" if self.quick else "500", "--out", "{out}"),
                out_dir=True))
            rows = vector_rows(vec.files)
            requests = [r["request"] for r in rows]
            for alg in ALGORITHMS[model]:
                self.run(Run(f"solve-{alg}", ("solve", "--algorithm", alg), jsonl(requests)))
            checks = []
            for r in rows:
                for seq in [r["reference"], *broken(r["reference"])]:
                    checks.append({**r["request"], "sequence": seq})
            self.run(Run(f"check-{model}", ("check",), jsonl(checks)))
            for i, r in enumerate(rows[-3:]):
                for j, seq in enumerate(broken(r["reference"])[:1]):
                    self.run(Run(f"explain-{model}-{i}-{j}", (
                        "explain", "--request", json.dumps(r["request"]),
                        "--sequence", json.dumps(seq))))

    def goldens(self) -> None:
        lines = golden_lines()
        self.run(Run("check-golden", ("check",), b"".join(line + b"\n" for line in lines)))
        for i, line in enumerate(lines):  # one request per process: each its exit status
            if not self.quick:
                self.run(Run(f"check-golden-{i}", ("check",), line + b"\n"))

    def machines(self) -> None:
        vec = self.run(Run("vectors-x86-64", (
            "vectors", "--machine", "x86-64", "--max-moves", "1" if self.quick else "2",
            "--random", "100", "--out", "{out}"), out_dir=True))
        rows = vector_rows(vec.files)
        checks = [{**r["request"], "sequence": r["reference"]} for r in rows
                  if isinstance(r.get("reference"), list)]
        self.run(Run("check-x86-64", ("check",), jsonl(checks)))

    def conform(self) -> None:
        py = sys.executable
        order = f"{py} {ROOT / 'tests/clients/order_client.py'}"
        ssra = f"{py} {ROOT / 'tests/clients/ssra_client.py'}"
        self.run(Run("conform-order", ("conform", "--cmd", order, "--model", "swap", "--shapes",
                                       "--registers", "5", "--order", "shuffled", *REPORT),
                     report=True))
        self.run(Run("conform-ssra", ("conform", "--allocator", "--cmd", ssra, "--registers",
                                      "3", *REPORT), report=True))
        client = self.c_client()
        if client is None:
            print("  (no C compiler: the conform runs against the C client are skipped)")
            return
        n = str(self.registers)
        for name, extra in [("exhaustive", ("--exhaustive", "--registers", n)),
                            ("shapes", ("--shapes", "--registers", "6" if self.quick else "10")),
                            ("random", ("--random", "500" if self.quick else "5000",
                                        "--registers", "12"))]:
            self.run(Run(f"conform-c-{name}", ("conform", "--cmd", client, "--model", "swap",
                                                *extra, *REPORT), report=True))

    def c_client(self) -> str | None:
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            return None
        exe = self.work / "shuf_client"
        subprocess.run([cc, "-O2", "-o", str(exe), str(ROOT / "tests/clients/shuf_client.c")],
                       check=True)
        return str(exe)

    def ssra(self) -> None:
        for tape, regs in [("ssra-bench-6362.tape", "24"), ("prospero.vm", "16")]:
            path = str(ROOT / "tests/data" / tape)
            alloc = self.run(Run(f"ssra-alloc-{tape}", ("ssra", "alloc", "--registers", regs,
                                                        path)))
            self.run(Run(f"ssra-alloc-json-{tape}", ("ssra", "alloc", "--registers", regs,
                                                     "--json", path)))
            self.run(Run(f"ssra-check-{tape}", ("ssra", "check", "--registers", regs,
                                                "--strict", path, "-"), alloc.stdout))
            if self.quick:
                break


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fast.agree", description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, default=ROOT / ".venv",
                    help="the interpreted install's venv (default .venv)")
    ap.add_argument("--b", type=Path, default=ROOT / ".venv-fast",
                    help="the compiled install's venv (default .venv-fast, `make fast`)")
    ap.add_argument("--registers", type=int, default=6, choices=range(2, 7), metavar="N",
                    help="exhaustive vectors, solve and check for n <= N (2..6, default 6)")
    ap.add_argument("--quick", action="store_true",
                    help="N = 4 and fewer, smaller conform runs (the test's corpus)")
    args = ap.parse_args(argv)
    registers = 4 if args.quick else args.registers
    args.a, args.b = args.a.absolute(), args.b.absolute()  # the runs' cwd is elsewhere
    with tempfile.TemporaryDirectory(prefix="verified-agree-") as tmp:
        work = Path(tmp)
        modules = compiled_modules()
        a_files, b_files = (module_files(v, modules, work) for v in (args.a, args.b))
        interpreted = [m for m in modules if not b_files[m].endswith(".so")]
        if interpreted or any(not f.endswith(".py") for f in a_files.values()):
            print(f"B ({args.b}) is not the compiled build or A ({args.a}) is not the "
                  f"interpreted one: B loads {interpreted} from .py files; run `make fast`")
            return 2
        stale = stale_sources(args.b, work)
        if stale:
            print(f"B ({args.b}) was built from other source than this tree "
                  f"({', '.join(stale[:5])}{' ...' if len(stale) > 5 else ''} differ); "
                  f"run `make fast`")
            return 2
        print(f"A: {args.a} (interpreted); B: {args.b} ({len(modules)} modules compiled "
              f"from this source tree)")
        corpus = Corpus(args.a, args.b, work, registers, args.quick)
        corpus.models()
        corpus.goldens()
        corpus.machines()
        corpus.conform()
        corpus.ssra()
        t = corpus.tally
    print(f"compared {t.runs:,} runs (exit status, stdout, stderr, files written): "
          f"{t.bytes:,} bytes, {t.lines:,} lines of output; not compared: the conform "
          f"reports' {' and '.join(TIMING_KEYS)}")
    if t.differences:
        print(f"{len(t.differences)} differences:")
        for d in t.differences[:20]:
            print(" ", d)
        return 1
    print("0 differences: the two builds agree byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
