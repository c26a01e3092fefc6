"""Golden reports of ``verified conform`` for the ways a program can break
that the other conform tests do not reach: it cannot start, it is killed by
a signal that has no name, it closes its output and keeps running; and the
exact parsing of ``--temps`` and the default ``--seed``.  Run through the
command line only, so they hold whatever module layout conform has."""

from __future__ import annotations

import sys

from tests.support import conform_json, py_cmd, verified

SOLVE_LEROY = f"{sys.executable} -m verified.cli solve --algorithm leroy"
FIRST_CASE = {"moves": [], "model": "swap", "temps": [], "registers": 1}


def test_a_program_that_cannot_start():
    code, r, _ = conform_json("--cmd", "/nonexistent/solver --json", "--model", "swap",
                              "--registers", "2")
    assert code == 2
    assert isinstance(r.pop("seconds"), float)
    assert r == {
        "program": "/nonexistent/solver --json", "exit": 2, "model": "swap", "temps": [],
        "preserve": "all", "cases": "exhaustive, every parallel move over 1..2 registers",
        "planned": 11, "run": 0, "correct": 0, "refused_unsolvable": 0, "failures": 0,
        "program_failures": 0, "refusals": 0, "cases_per_second": 0,
        "broken": {"kind": "cannot start", "stderr": "", "message":
                   "cannot run /nonexistent/solver --json: [Errno 2] No such file or "
                   "directory: '/nonexistent/solver'"}}


def test_a_program_killed_by_an_unnamed_signal():
    # signal 40 is a real-time signal: the signal module has no name for it
    code, r, _ = conform_json("--cmd", py_cmd("import os; os.kill(os.getpid(), 40)"),
                              "--model", "swap", "--registers", "2", "--timeout", "5",
                              timeout=120)
    assert code == 2
    assert r["broken"] == {
        "kind": "crash", "stderr": "", "case": 0, "request": FIRST_CASE,
        "reproduced_alone": True,
        "message": "the program was killed by signal 40 after 0 of 11 answers; it was "
                   "on case #0"}


def test_a_program_that_closes_its_output_and_keeps_running():
    program = "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(60)"
    code, r, _ = conform_json("--cmd", py_cmd(program), "--model", "swap", "--registers", "2",
                              "--timeout", "1", timeout=120)
    assert code == 2
    assert r["broken"] == {
        "kind": "exited early", "stderr": "", "case": 0, "request": FIRST_CASE,
        "reproduced_alone": True,
        "message": "the program closed its output but kept running after 0 of 11 "
                   "answers; it was on case #0"}


def test_temps_are_json_or_plain_names():
    """``--temps t '"u"' 7 r9``: a bare word is a name, JSON is parsed, and
    ``r9`` is register 9 (outside the file of 3)."""
    code, r, _ = conform_json("--cmd", SOLVE_LEROY, "--model", "temp", "--temps", "t", '"u"',
                              "7", "r9", "--registers", "3", timeout=120)
    assert code == 0 and r["temps"] == ["t", "u", 7, 9]
    assert (r["planned"], r["run"], r["correct"], r["failures"]) == (75, 75, 75, 0)


def test_random_cases_default_to_seed_0():
    reports = [conform_json("--cmd", SOLVE_LEROY, "--model", "temp", "--registers", "3",
                            "--random", "4", *seed, timeout=120)[1] for seed in ([], ["--seed", "0"])]
    for r in reports:
        assert r["cases"] == "4 random cases over 3 registers (seed 0)"
        assert (r["planned"], r["correct"], r["exit"]) == (4, 4, 0)


EXTRA_AT_END = """\
import json, sys
from verified.core.semantics import ParallelMove
from verified.algorithms.shuf import shuf
for line in sys.stdin:
    r = json.loads(line)
    pm = ParallelMove.make(r["moves"], r["registers"], r["temps"])
    print(json.dumps({"sequence": [o.to_json() for o in shuf(pm)]}), flush=True)
print("one more\\nand another", flush=True)  # one write, two lines
"""


def test_extra_output_after_the_last_answer_names_the_first_extra_line():
    code, r, _ = conform_json("--cmd", py_cmd(EXTRA_AT_END), "--model", "swap",
                              "--registers", "2", timeout=120)
    assert code == 2
    assert (r["run"], r["correct"], r["failures"]) == (11, 11, 0)
    assert r["broken"] == {
        "kind": "extra output", "stderr": "",
        "message": "the program printed more answer lines than it was sent requests: line "
                   "#12 of its output came before request #12 was sent: b'one more'"}


def test_text_report_of_a_crash_shows_its_stderr():
    program = py_cmd("import sys; print('boom', file=sys.stderr); sys.exit(3)")
    proc = verified("conform", "--cmd", program, "--model", "swap", "--registers", "1",
                    "--progress", "never", timeout=120)
    assert proc.returncode == 2 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[2:7] == [
        "BROKEN PROGRAM (crash): the program exited with status 3 after 0 of 2 answers; "
        "it was on case #0",
        '  case #0: {"moves": [], "model": "swap", "temps": [], "registers": 1}',
        "  same failure when sent alone to a fresh process: yes",
        "  its stderr (last lines):",
        "    boom",
    ]
    assert lines[7].startswith("checked: 0 of 2 answers in ")  # then the time it took
    assert lines[8:] == ["correct: 0", "wrong sequences: 0",
                         "result: FAIL: broken program or bad use (exit 2)"]


def test_a_command_line_that_does_not_parse_is_bad_use():
    proc = verified("conform", "--cmd", "'unclosed", "--model", "swap", "--registers", "2")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines()[-1] == "verified conform: error: --cmd: No closing quotation"
