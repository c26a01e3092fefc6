"""The exit-status contract of every command (docs/exit-codes.md), per
failure class: 0 ok, 1 a wrong sequence/answer/allocation, 2 bad input or
bad use, and never a traceback.

Each subcommand (check, solve, vectors, explain, ssra alloc, ssra check,
and conform's argument validation) is run on a missing, an unreadable and a
directory path and on absurd numeric options; each must exit 2 with one
line on stderr, ``verified <cmd>: error: ...``.  The numbered items of
issue 14 that are classification bugs are pinned here with their exact
first output line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import verified

ROOT = Path(__file__).resolve().parents[2]
TAPE = ROOT / "tests" / "data" / "ssra-bench-6362.tape"

GOOD = {"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}
WRONG = {"moves": [[1, 0], [2, 1]], "model": "temp",
         "sequence": [["mov", 1, 0], ["mov", 2, 1]]}
WRONG_ANSWER = ('{"ok": false, "length": 2, "reason": "destination r2 must hold the '
                'original value of r1 but holds that of r0", "counterexample": '
                '{"location": 2, "expected": "r1", "got": "r0"}, "optimal": 2}')
GOOD_ANSWER = '{"ok": true, "length": 1, "optimal": 1}'
SMALL_TAPE = "$0 = A()\n$1 = B($0)\n"
SMALL_PROG = "r0 = A()\nr0 = B(r0)\n"


def run(*args: str, cwd: Path | None = None, stdin: bytes = b"",
        timeout: float = 120) -> subprocess.CompletedProcess:
    return verified(*args, input=stdin, cwd=cwd, timeout=timeout)


def one_error_line(p: subprocess.CompletedProcess, prog: str) -> str:
    """The contract for status 2 outside the protocol: exit 2, exactly one
    stderr line naming the command, no traceback anywhere."""
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith(f"{prog}: error: "), lines[0]
    return lines[0]


# ---------------------------------------------------------------------------
# Paths: missing, unreadable, a directory
# ---------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "good.jsonl").write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "wrong.jsonl").write_text(json.dumps(WRONG) + "\n")
    (tmp_path / "small.tape").write_text(SMALL_TAPE)
    (tmp_path / "small.s").write_text(SMALL_PROG)
    (tmp_path / "a-file").write_text("x\n")
    (tmp_path / "dir").mkdir()
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.write_text(json.dumps(GOOD) + "\n")
        locked.chmod(0)
        unreadable = locked
    else:
        # root reads any file whatever its mode; /proc/self/mem opens but
        # every read fails (EIO): unreadable for root too
        unreadable = Path("/proc/self/mem")
        if not unreadable.exists():
            pytest.skip("no unreadable file for root on this system (no /proc/self/mem)")
    return {"dir": tmp_path, "missing": tmp_path / "nonexist.jsonl",
            "directory": tmp_path / "dir", "unreadable": unreadable}


#: (command words, how the path is passed, the prog in the message)
PATH_USERS = [
    (["check"], ["{p}"], "verified check"),
    (["check"], ["{good}", "{p}"], "verified check"),
    (["solve", "-a", "shuf"], ["{p}"], "verified solve"),
    (["explain"], ["{p}"], "verified explain"),
    (["ssra", "alloc"], ["{p}", "-n", "4"], "verified ssra alloc"),
    (["ssra", "check"], ["{p}", "{prog}", "-n", "4"], "verified ssra check"),
    (["ssra", "check"], ["{tape}", "{p}", "-n", "4"], "verified ssra check"),
]

WHY = {"missing": "No such file or directory", "directory": "Is a directory",
       "unreadable": ("Permission denied", "Input/output error")}


@pytest.mark.parametrize("kind", ["missing", "unreadable", "directory"])
@pytest.mark.parametrize("words, tail, prog", PATH_USERS,
                         ids=[" ".join(w + t) for w, t, _ in PATH_USERS])
def test_every_command_reports_a_bad_path_in_one_line(files, kind, words, tail, prog):
    p_path = files[kind]
    d = files["dir"]
    args = words + [a.format(p=p_path, good=d / "good.jsonl", tape=d / "small.tape",
                             prog=d / "small.s") for a in tail]
    p = run(*args)
    line = one_error_line(p, prog)
    why = WHY[kind]
    why = why if isinstance(why, tuple) else (why,)
    assert any(line == f"{prog}: error: cannot read {p_path}: {w}" for w in why), line


@pytest.mark.parametrize("out, message", [
    ("{file}", "--out {file} exists and is not a directory"),
    ("{file}/sub", "cannot write {file}/sub: Not a directory"),
])
def test_vectors_reports_an_unwritable_out_in_one_line(tmp_path, out, message):
    f = tmp_path / "a-file"
    f.write_text("x\n")
    p = run("vectors", "--model", "swap", "--registers", "2", "--out", out.format(file=f))
    assert one_error_line(p, "verified vectors") == \
        "verified vectors: error: " + message.format(file=f)


@pytest.mark.parametrize("cmd", ["/nonexistent/program", "{dir}"])
def test_conform_reports_a_program_it_cannot_run_as_broken(tmp_path, cmd):
    p = run("conform", "--cmd", cmd.format(dir=tmp_path), "--model", "swap",
            "--registers", "2", "--progress", "never")
    assert p.returncode == 2 and "Traceback" not in p.stdout + p.stderr
    assert "BROKEN PROGRAM" in p.stdout


# ---------------------------------------------------------------------------
# Absurd numbers
# ---------------------------------------------------------------------------

HUGE = "99999999999999"

NUMERIC = [
    (["ssra", "check", "{tape}", "{prog}", "--registers", HUGE], "verified ssra check",
     f"--registers must be a whole number in 1..1048576, not {HUGE}"),
    (["ssra", "check", "{tape}", "{prog}", "--registers", "0"], "verified ssra check",
     "--registers must be a whole number in 1..1048576, not 0"),
    (["ssra", "alloc", "{tape}", "--registers", HUGE], "verified ssra alloc",
     f"--registers must be a whole number in 2..1048576, not {HUGE}"),
    (["ssra", "alloc", "{tape}", "--registers", "-5"], "verified ssra alloc",
     "--registers must be a whole number in 2..1048576, not -5"),
    (["ssra", "alloc", "{tape}", "--registers", "1"], "verified ssra alloc",
     "--registers must be a whole number in 2..1048576, not 1"),
    (["ssra", "alloc", "{tape}", "--registers", "lots"], "verified ssra alloc",
     "argument --registers/-n: invalid int value: 'lots' (see `verified ssra alloc --help`)"),
    (["vectors", "--model", "swap", "--out", "{out}", "--registers", HUGE], "verified vectors",
     f"--registers must be a whole number in 1..64, not {HUGE} (one file per register "
     f"count 1..N)"),
    (["vectors", "--model", "swap", "--out", "{out}", "--registers", "0"], "verified vectors",
     "--registers must be a whole number in 1..64, not 0 (one file per register count 1..N)"),
    (["vectors", "--model", "swap", "--out", "{out}", "-n", "3", "--random", "1000000000"],
     "verified vectors", "--random must be a whole number in 0..100,000, not 1000000000"),
    (["vectors", "--model", "swap", "--out", "{out}", "-n", "3", "--random", "-1"],
     "verified vectors", "--random must be a whole number in 0..100,000, not -1"),
    (["vectors", "--model", "swap", "--out", "{out}", "-n", "3", "--exhaustive-max", "7"],
     "verified vectors", "--exhaustive-max must be a whole number in 0..6, not 7 (n = 7 "
     "alone is 16,777,216 vectors; use --random beyond 6)"),
    (["vectors", "--model", "swap", "--out", "{out}", "-n", "3", "--exhaustive-max", "-2"],
     "verified vectors", "--exhaustive-max must be a whole number in 0..6, not -2 (n = 7 "
     "alone is 16,777,216 vectors; use --random beyond 6)"),
    (["explain", "--request", '{"moves": [[1, 0]], "model": "temp", "registers": ' + HUGE
      + ', "sequence": []}'], "verified explain",
     f'"registers" must be a whole number in 0..1048576, not {HUGE}'),
    (["conform", "--cmd", "cat", "--model", "swap", "--registers", HUGE], "verified conform",
     f"--registers must be a whole number in 1..1048576, not {HUGE}"),
    (["conform", "--cmd", "cat", "--model", "swap", "--registers", "-1"], "verified conform",
     "--registers must be a whole number in 1..1048576, not -1"),
]


@pytest.mark.parametrize("argv, prog, message", NUMERIC,
                         ids=[" ".join(a[:1] + a[-2:]) for a, _, _ in NUMERIC])
def test_absurd_numbers_are_one_line_errors(tmp_path, argv, prog, message):
    (tmp_path / "t.tape").write_text(SMALL_TAPE)
    (tmp_path / "p.s").write_text(SMALL_PROG)
    fill = {"{tape}": tmp_path / "t.tape", "{prog}": tmp_path / "p.s", "{out}": tmp_path / "v"}
    args = [str(fill.get(a, a)) for a in argv]
    p = run(*args)
    assert one_error_line(p, prog) == f"{prog}: error: {message}"
    assert not (tmp_path / "v").exists()  # refused before anything was written


def test_an_absurd_register_count_in_a_request_is_a_protocol_error():
    # inside the protocol the error is the answer line, and serving goes on
    for cmd in (["check"], ["solve", "-a", "shuf"]):
        line = {"moves": [[1, 0]], "model": "swap", "registers": int(HUGE), "sequence": []}
        p = run(*cmd, stdin=(json.dumps(line) + "\n" + json.dumps(GOOD) + "\n").encode())
        assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr == ""
        first = json.loads(p.stdout.splitlines()[0])
        assert first == {"error": f'line 1: "registers" must be a whole number in '
                                  f"0..1048576, not {HUGE}"}
        assert len(p.stdout.splitlines()) == 2


# ---------------------------------------------------------------------------
# Usage errors name the subcommand
# ---------------------------------------------------------------------------

BOGUS = [
    (["check", "--bogus"], "verified check"),
    (["solve", "-a", "shuf", "--bogus"], "verified solve"),
    (["vectors", "--model", "swap", "-n", "2", "--out", "x", "--bogus"], "verified vectors"),
    (["explain", "--bogus"], "verified explain"),
    (["ssra", "alloc", "t", "-n", "2", "--bogus"], "verified ssra alloc"),
    (["ssra", "check", "t", "p", "-n", "2", "--bogus"], "verified ssra check"),
    (["conform", "--cmd", "cat", "--model", "swap", "--bogus"], "verified conform"),
    (["--bogus"], "verified"),
]


@pytest.mark.parametrize("argv, prog", BOGUS, ids=[p for _, p in BOGUS])
def test_unknown_option_is_reported_by_the_subcommand(argv, prog):
    p = run(*argv)
    assert one_error_line(p, prog) == \
        f"{prog}: error: unrecognized arguments: --bogus (see `{prog} --help`)"


def test_ssra_without_an_action():
    p = run("ssra")
    assert one_error_line(p, "verified ssra") == (
        "verified ssra: error: choose an action: alloc or check (see `verified ssra --help`)")


# ---------------------------------------------------------------------------
# Issue 14's items: the exact status and first line, after the fix
# ---------------------------------------------------------------------------


def test_item_1_ssra_register_count_is_capped_before_allocating(tmp_path):
    # was: MemoryError traceback, exit 1 ("allocation rejected")
    prog = tmp_path / "p.s"
    prog.write_text("r1 = FOO(r0, r1)\n")
    for action, args in (("check", [str(TAPE), str(prog)]), ("alloc", [str(TAPE)])):
        p = run("ssra", action, *args, "--registers", HUGE)
        low = 1 if action == "check" else 2
        assert one_error_line(p, f"verified ssra {action}") == (
            f"verified ssra {action}: error: --registers must be a whole number in "
            f"{low}..1048576, not {HUGE}")


def test_item_1_the_cap_itself_allocates(tmp_path):
    # 2^20 registers is accepted (bounded: about 110 MB, see docs/exit-codes.md)
    p = run("ssra", "alloc", str(TAPE), "--registers", "1048576", "--counts")
    assert p.returncode == 0 and json.loads(p.stdout)["operations"] == 6362


def test_item_3_a_wrong_sequence_outranks_an_unreadable_file(files):
    d = files["dir"]
    p = run("check", str(d / "wrong.jsonl"), str(files["missing"]))
    assert p.returncode == 1
    assert p.stdout.splitlines() == [WRONG_ANSWER]
    assert p.stderr.splitlines() == [
        f"verified check: error: cannot read {files['missing']}: No such file or directory"]


def test_item_3_every_file_is_checked(files):
    d = files["dir"]
    p = run("check", str(files["missing"]), str(d / "good.jsonl"), str(d / "wrong.jsonl"))
    assert p.returncode == 1 and p.stdout.splitlines() == [GOOD_ANSWER, WRONG_ANSWER]
    p = run("check", str(files["missing"]), str(d / "good.jsonl"))
    assert p.returncode == 2 and p.stdout.splitlines() == [GOOD_ANSWER]
    p = run("check", str(d / "good.jsonl"), "-", stdin=(json.dumps(GOOD) + "\n").encode())
    assert p.returncode == 0 and p.stdout.splitlines() == [GOOD_ANSWER, GOOD_ANSWER]


def test_item_12_hints_name_cli_algorithms():
    chain = {"moves": [[i + 1, i] for i in range(5000)], "model": "temp", "temps": ["t"]}
    p = run("solve", "-a", "leroy", stdin=(json.dumps(chain) + "\n").encode())
    err = json.loads(p.stdout)["error"]
    assert p.returncode == 2
    assert err.endswith("use leroy-iterative (`verified solve -a leroy-iterative`), "
                        "the same algorithm without recursion")
    fan = {"moves": [[1, 0], [2, 0]], "model": "permi", "preserve": "loops"}
    p = run("solve", "-a", "greedy", stdin=(json.dumps(fan) + "\n").encode())
    assert json.loads(p.stdout) == {"error": (
        "line 1: GREEDY needs an out-degree-1 RTG, but r0 must go to both r1 and r2; "
        "use permi-optimal (`verified solve -a permi-optimal`: it chooses which edges "
        "become copies)")}


def test_item_9_shuf_refuses_past_its_size_with_the_alternative():
    from verified.algorithms.shuf import MAX_MOVES
    k = MAX_MOVES + 1
    cycle = {"moves": [[(i + 1) % k, i] for i in range(k)], "model": "swap"}
    p = run("solve", "-a", "shuf", stdin=(json.dumps(cycle) + "\n").encode())
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert json.loads(p.stdout) == {"error": (
        "line 1: shuf takes at most 4,096 non-loop moves (it rescans its masks for every "
        "action, minutes beyond that); this move has 4,097: use xchg (`verified solve -a "
        "xchg`), the same swap model, optimal, linear time")}
    # xchg, named as the way out, answers the same request
    p = run("solve", "-a", "xchg", stdin=(json.dumps(cycle) + "\n").encode())
    assert p.returncode == 0 and len(json.loads(p.stdout)["sequence"]) == k - 1
    helptext = run("solve", "--help").stdout
    assert "shuf refuses more than 4,096 non-loop moves" in helptext
    assert "use xchg" in helptext


def test_internal_errors_are_one_line(tmp_path):
    """A bug of ours (here: a module whose run() raises) is one line,
    status 2, never a traceback; VERIFIED_TRACEBACK=1 shows it."""
    code = ("import sys, verified.cli as c\n"
            "import verified.tools.check as k\n"
            "def boom(args): raise KeyError('planted')\n"
            "k.run = boom\n"
            "sys.exit(c.main(['check']))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.splitlines() == [
        "verified check: internal error: KeyError: 'planted' (nothing was judged; "
        "please report this, VERIFIED_TRACEBACK=1 shows where)"]
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "VERIFIED_TRACEBACK": "1"})
    assert "Traceback" in p.stderr and "planted" in p.stderr


def test_docs_exit_codes_examples_are_what_the_commands_print(tmp_path):
    """Every example line of docs/exit-codes.md is printed, exactly, by the
    command it describes."""
    doc = (ROOT / "docs" / "exit-codes.md").read_text()
    block = re.search(r"## What status 2 looks like\n.*?```\n(.*?)```", doc, re.S).group(1)
    examples = block.strip().splitlines()
    (tmp_path / "p.s").write_text("r0 = A()\n")
    runs = {
        "verified check: error: cannot read nonexist.jsonl": ["check", "nonexist.jsonl"],
        "verified solve: error: cannot read /tmp": ["solve", "-a", "shuf", "/tmp"],
        "verified check: error: unrecognized": ["check", "--bogus"],
        "verified ssra check": ["ssra", "check", str(TAPE), "p.s", "--registers", HUGE],
        "verified vectors": ["vectors", "--model", "swap", "-n", "2", "--out", "v",
                             "--random", "1000000000"],
        "verified explain": ["explain", "--request", '{"moves": [], "model": "swap"}'],
    }
    assert len(examples) == len(runs)
    for line in examples:
        argv = next(v for k, v in runs.items() if line.startswith(k))
        assert run(*argv, cwd=tmp_path).stderr.splitlines() == [line]
