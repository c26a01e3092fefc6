"""`verified conform --machine PRESET|FILE.json`: machine requests out,
sequences back, each judged by the machine oracle (the verdict `verified
check` gives).  Bad --machine values and options that do not go with a
machine exit 2 with one line; a resolver that does nothing is caught with
the smallest case, printed as a `verified check` command that reproduces
the verdict; declining is right exactly where no legal sequence exists;
our resolver passes; every mutant of mutants/machines.py (one per bug
class of docs/machines.md) is caught, exit 1, shrunk to a pinned case."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from verified.cases import machines as G
from verified.core import machine as M

from tests.support import conform_json, py_cmd, verified

ROOT = Path(__file__).resolve().parents[2]

REPLY = "import sys, json\nfor line in sys.stdin:\n    print(json.dumps(%s), flush=True)"


@pytest.mark.parametrize("args, message", [
    (["--machine", "x86"], "--machine x86: not a preset (x86-64, aarch64, riscv64, "
     "armv7-vfp) nor a .json file of a machine object (docs/machines.md); `verified "
     "machines` lists the presets"),
    (["--machine", "/no/such.json"], "--machine /no/such.json: cannot read it: No such "
     "file or directory"),
    (["--machine", "x86-64", "--model", "swap"], "--model does not go with --machine: the "
     "machine names its registers and operations"),
    (["--machine", "x86-64", "--registers", "3"], "--registers does not go with --machine: "
     "the machine names its registers and operations"),
    (["--machine", "x86-64", "--allocator"], "--allocator does not go with --machine: the "
     "machine names its registers and operations"),
    (["--machine", "x86-64", "--shapes"], "--shapes does not go with --machine: the machine "
     "names its registers and operations"),
    (["--machine", "x86-64", "--temps", "zz"], "--temps: temporary \"zz\": 'zz' is not a "
     "register or slot of x86-64"),
    (["--machine", "armv7-vfp", "--temps", "d0", "s1"], "--temps: temporaries d0 and s1 "
     "overlap (unit s1); declare each once"),
    (["--machine", "x86-64", "--max-moves", "-1"], "--max-moves must be >= 0 (0 = every "
     "assignment), not -1"),
    (["--machine", "x86-64", "--random", "5", "--max-moves", "2"], "--max-moves goes with "
     "--exhaustive, not --random"),
    (["--machine", "armv7-vfp", "--max-moves", "0"], "--machine armv7-vfp --exhaustive is "
     "18,850,330,368 cases with --max-moves 0; lower --max-moves or use --random K"),
    (["--model", "swap", "--max-moves", "2"], "--max-moves goes with --machine"),
])
def test_bad_machine_use_exits_2_with_one_clear_line(args, message):
    proc = verified("conform", "--cmd", "true", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"verified conform: error: {message}\n"


@pytest.mark.parametrize("text, message", [
    ("nope", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    ('{"classes": {"g": {"registers": ["a"], "width": 0}}}',
     '"machine": class \'g\': "width" must be a whole number in 1..65536, not 0'),
])
def test_bad_machine_file(tmp_path, text, message):
    f = tmp_path / "m.json"
    f.write_text(text)
    proc = verified("conform", "--cmd", "true", "--machine", str(f))
    assert proc.returncode == 2
    assert proc.stderr == f"verified conform: error: --machine {f}: {message}\n"


def test_a_resolver_that_does_nothing_is_caught_with_a_check_command():
    code, r, _ = conform_json("--cmd", py_cmd(REPLY % '{"sequence": []}'),
                              "--machine", "x86-64", "--max-moves", "2")
    assert code == 1
    assert r["machine"] == "x86-64/small" and r["temps"] == ["r15", "xmm15"]
    assert r["cases"] == ("exhaustive over x86-64/small (rax rcx rdx xmm0 xmm1 [rax, rcx] "
                          "[rcx, rdx] m0 m1 mw0 mw1 #7), every parallel move of at most "
                          "2 moves")
    assert r["planned"] == r["run"] == 1395
    s = r["smallest_failure"]
    assert s["what"] == "(rcx <- rax)"
    assert s["request"]["moves"] == [["rcx", "rax"]]
    assert s["verdict"]["reason"] == ("destination rcx (unit rcx) must hold the original "
                                      "value of rax but holds rcx")
    # the printed command reproduces the verdict with `verified check`
    cmd = s["check"]
    assert cmd.startswith("echo ") and cmd.endswith(" | verified check")
    request = json.loads(shlex.split(cmd)[1])
    assert request["sequence"] == [] and request["machine"]["name"] == "x86-64/small"
    proc = verified("check", input=(json.dumps(request) + "\n").encode())
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["reason"] == s["verdict"]["reason"]


def test_random_over_a_preset_sends_the_preset_by_name():
    code, r, _ = conform_json("--cmd", py_cmd(REPLY % '{"sequence": []}'),
                              "--machine", "riscv64", "--random", "50", "--seed", "3",
                              "--no-shrink")
    assert code == 1 and r["run"] == 50
    assert r["machine"] == "riscv64" and r["temps"] == ["t6", "ft11"]
    assert r["first_failure"]["request"]["machine"] == "riscv64"
    assert r["cases"] == "50 random cases over all of riscv64 (seed 3)"


def test_every_request_of_each_suite_is_valid(tmp_path):
    """What conform sends is a request `verified check` accepts (it answers
    a verdict, not an error), with the machine it names."""
    from verified.tools.conform.cli import build_suite, add_arguments
    import argparse
    for args in (["--machine", "armv7-vfp", "--max-moves", "1"],
                 ["--machine", "x86-64", "--random", "40", "--order", "shuffled"],
                 ["--machine", str(ROOT / "mutants" / "data" / "two-classes.json"),
                  "--max-moves", "1", "--preserve", "loops"]):
        p = argparse.ArgumentParser()
        add_arguments(p)
        ns = p.parse_args(["--cmd", "x", *args])
        _, suite = build_suite(ns)
        ct = suite.case_type
        lines = []
        for case in suite.cases():
            line = ct.encode(case)
            req = json.loads(line)
            assert ct.decode(req) == case
            req["sequence"] = []
            lines.append(json.dumps(req))
        assert len(lines) == suite.planned
        proc = verified("check", input=("\n".join(lines) + "\n").encode())
        answers = [json.loads(x) for x in proc.stdout.splitlines()]
        assert len(answers) == len(lines)
        assert all("error" not in a for a in answers), answers[:3]
