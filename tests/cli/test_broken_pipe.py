"""Every output path of every command when the reader of stdout has gone
away (``verified check FILE | head -1``): a quiet exit 0, nothing on stderr
(docs/exit-codes.md, last paragraph; issue 21).

The reader is gone before the command writes anything: stdout is a pipe
whose read end is already closed, so the first write fails with EPIPE
whatever the size of the output (a real ``| head -1`` only fails once
the pipe's buffer is full, which depends on timing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TAPE = ROOT / "tests" / "data" / "ssra-bench-6362.tape"

GOOD = b'{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}\n'
WRONG = b'{"moves": [[1, 0], [2, 1]], "model": "temp", "sequence": [["mov", 1, 0], ["mov", 2, 1]]}\n'
BAD = b'{"moves": 3}\n'
SOLVE = b'{"moves": [[1, 0], [0, 1]], "model": "swap"}\n'
#: a line for the compact reader (past wire.COMPACT_FROM): solve -a xchg
#: writes its answer as it is made (wire.Streamed)
HUGE = ('{"moves": [' + ", ".join(f"[{(i + 1) % 20000}, {i}]" for i in range(20000))
        + '], "model": "swap", "registers": 20000}\n').encode()


def run_reader_gone(argv: list[str], stdin: bytes = b"", cwd: Path | None = None):
    r, w = os.pipe()
    os.close(r)  # the reader went away before the first byte
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        p = subprocess.run([sys.executable, "-m", "verified.cli", *argv], input=stdin,
                           stdout=w, stderr=subprocess.PIPE, timeout=300, cwd=cwd, env=env)
    finally:
        os.close(w)
    return p


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pipe")
    out = {}
    for name, line in (("good", GOOD), ("wrong", WRONG), ("bad", BAD), ("solve", SOLVE)):
        (d / f"{name}.jsonl").write_bytes(line * 3000)
        out[name] = d / f"{name}.jsonl"
    (d / "huge.jsonl").write_bytes(HUGE * 2)
    out["huge"] = d / "huge.jsonl"
    (d / "small.tape").write_text("$0 = A()\n$1 = B($0)\n")
    (d / "small.prog").write_text("r0 = A()\nr0 = B(r0)\n")
    out["tape"], out["prog"] = d / "small.tape", d / "small.prog"
    out["dir"] = d
    return out


def cases(f: dict[str, Path]) -> dict[str, tuple[list[str], bytes]]:
    solver = f"{sys.executable} -m verified.cli solve -a xchg"
    return {
        "check FILE FILE (all ok)": (["check", str(f["good"]), str(f["good"])], b""),
        "check FILE (wrong)": (["check", str(f["wrong"])], b""),
        "check FILE (bad lines)": (["check", str(f["bad"])], b""),
        "check stdin": (["check"], GOOD * 3000),
        "solve FILE": (["solve", "-a", "xchg", str(f["solve"]), str(f["solve"])], b""),
        "solve stdin": (["solve", "-a", "shuf"], SOLVE * 3000),
        "explain": (["explain", "--request", GOOD.decode()], b""),
        "explain --dot": (["explain", "--dot", "--request", GOOD.decode()], b""),
        "machines": (["machines"], b""),
        "machines show": (["machines", "show", "x86-64"], b""),
        "ssra alloc": (["ssra", "alloc", str(TAPE), "-n", "8"], b""),
        "ssra check": (["ssra", "check", str(f["tape"]), str(f["prog"]), "-n", "2"], b""),
        "conform text": (["conform", "--cmd", solver, "--model", "swap", "--random", "3",
                          "--jobs", "1", "--progress", "never"], b""),
        "conform --json": (["conform", "--cmd", solver, "--model", "swap", "--random", "3",
                            "--jobs", "1", "--progress", "never", "--json"], b""),
        "vectors": (["vectors", "--model", "swap", "-n", "2", "--random", "1",
                     "--out", str(f["dir"] / "vec")], b""),
        "schema list": (["schema"], b""),
        "schema NAME": (["schema", "request"], b""),
        "--help": (["--help"], b""),
        "check --help": (["check", "--help"], b""),
    }


CASE_NAMES = list(cases({k: Path("x") for k in ("good", "wrong", "bad", "solve", "huge",
                                                 "tape", "prog", "dir")}))


@pytest.mark.parametrize("name", CASE_NAMES)
def test_reader_gone_is_a_quiet_exit_0(files, name):
    argv, stdin = cases(files)[name]
    p = run_reader_gone(argv, stdin)
    assert p.stderr.decode() == "", p.stderr.decode()
    assert p.returncode == 0


def test_head_of_a_file_check_exits_0_quietly(files):
    """The issue's own command line, through a shell: every later file was
    reported unreadable and the status was 2."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(
        f'"{sys.executable}" -m verified.cli check "{files["good"]}" "{files["good"]}" '
        f'| head -1; echo "status ${{PIPESTATUS[0]}}" >&2',
        shell=True, executable="/bin/bash", capture_output=True, env=env, timeout=300)
    assert p.stdout.decode() == '{"ok": true, "length": 1, "optimal": 1}\n'
    assert p.stderr.decode() == "status 0\n"


def test_reader_gone_in_the_middle_of_a_streamed_answer(files):
    """solve -a xchg on a compact line writes its answer as it is made
    (wire.Streamed, issue 21): a reader that goes away after 100 bytes is
    met in the middle of that answer, and still a quiet exit 0."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "verified.cli", "solve", "-a", "xchg",
                          str(files["huge"])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env)
    head = p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=300) == 0, err.decode()
    assert err == b"" and head.startswith(b'{"sequence": [["swap", 1, 0], ["swap", 2, 0]')
