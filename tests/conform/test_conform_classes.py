"""Failure classes, program failures and the answer reader of `verified
conform` (docs/conform.md, "Failure classes", "The program's own
failures"):

* wrong answers are grouped by the kind of mistake their verdict names,
  locations by kind, each class counted and shrunk on its own (a shrink
  candidate counts only when it fails in the same class), the most
  frequent first, at most --max-classes of them;
* a client with one planted bug yields one class; a client with several,
  several;
* ``{"failure": "why"}`` is the program's own failure: apart from refusals
  and wrong sequences, exit 1 whatever --allow-refusals says, shrunk;
* refusal and failure texts are printed as the program wrote them;
* an answer with an unknown field, or with two answer fields, is garbage.
"""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from verified import cases
from verified.tools.conform import checker as C
from verified.tools.conform import moves as mv
from verified.tools.conform import shrink as S
from verified.tools.conform.cli import text_report

from tests.support import conform_json, conform_json_once, py_cmd, verified

#: answers with our shuf, except the planted behaviour of ``PLANT``
CLIENT = """\
import json, sys
from verified.algorithms import solve
from verified.core.semantics import ParallelMove
for line in sys.stdin:
    r = json.loads(line)
    moves = r["moves"]
    pm = ParallelMove.make(moves, r["registers"], r["temps"])
    seq = [op.to_json() for op in solve("shuf", pm)]
%s
    print(json.dumps(answer), flush=True)
"""


def client(plant: str) -> str:
    body = "\n".join("    " + ln for ln in plant.strip("\n").splitlines())
    return py_cmd(CLIENT % (body + "\n" if plant else "    answer = {'sequence': seq}"))


def mutant_cmd(names: str) -> str:
    return shlex.join([sys.executable, "-m", "mutants.serve", names])


def conform_text(*args: str) -> tuple[int, str]:
    proc = verified("conform", *args, "--progress", "never", timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def classes_of(r: dict) -> list[tuple[str, int, str]]:
    return [(c["class"], c["count"], c["smallest"]["what"]) for c in r["failure_classes"]]


def rejudged_class(r: dict, smallest: dict) -> str:
    """The class of a report's smallest case, judged again here: the report
    must show a case that fails in the class it is listed under."""
    from verified.tools.conform.cli import build_suite, add_arguments
    import argparse
    p = argparse.ArgumentParser()
    add_arguments(p)
    ns = p.parse_args(["--cmd", "x", *r["_args"]])
    ct = build_suite(ns)[1].case_type
    case = ct.decode(smallest["request"])
    kind, _, cls = C.classify_full(ct, case, smallest["answer"].encode(), False)
    assert kind == C.WRONG
    return cls


# ---------------------------------------------------------------------------
# Classes on machines: the mutant clients of mutants/machine_clients.py
# ---------------------------------------------------------------------------

SWAP_SLOTS = ("illegal operation: swap slot, slot: is a memory-to-memory swap, which "
              "x86-64/small lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)")


@pytest.mark.parametrize("mutant, machine, key, count", [
    ("swap_two_slots", "x86-64", SWAP_SLOTS, 5),
    ("scratch_reused_while_parked", "aarch64",
     "wrong value: a slot destination holds its own old value, not its source's value", 5),
])
def test_one_planted_bug_is_one_class(mutant, machine, key, count):
    args = ["--machine", machine, "--max-moves", "2"]
    # the very run of test_conform_machines.py's mutant test: shared
    code, r, _ = conform_json_once("--cmd", mutant_cmd(mutant), *args)
    assert code == 1 and r["classes"] == 1 and "classes_not_shown" not in r
    # typed cases: the slot cycle of i32, i64, f32, f64 and v128 (mw0, mw1)
    assert classes_of(r) == [(key, count, "(m0 <- m1 (i32), m1 <- m0 (i32))")]
    r["_args"] = args
    assert rejudged_class(r, r["failure_classes"][0]["smallest"]) == key
    assert r["smallest_failure"]["class"] == key


IMMEDIATE = "wrong value: a {} destination holds an immediate piece, not its source's value"
SEVERAL = [
    (IMMEDIATE.format("slot"), 64, "(rax <- #7 (i32), m0 <- rax (i32))"),
    ("wrong value: a xmm destination holds another source's value, not the immediate", 64,
     "(xmm0 <- #7 (f32), m1 <- m0 (i32))"),
    (IMMEDIATE.format("gpr"), 52, "(rax <- rcx (i32), rcx <- #7 (i32))"),
    ("wrong value: a xmm destination holds a wrong immediate piece, not the immediate", 40,
     "(xmm0 <- #7 (f32), xmm1 <- #4294967296 (f32))"),
    (IMMEDIATE.format("xmm"), 8, "(xmm0 <- m0 (f32), m0 <- #7 (f32))"),
    ("wrong value: a slot destination holds its own old value, not the immediate", 8,
     "(m0 <- m1 (i32), m1 <- #4294967296 (i32))"),
    (IMMEDIATE.format("[gpr, gpr]"), 8, "(rax <- #7 (i32), [rcx, rdx] <- [rax, rcx])"),
    (SWAP_SLOTS, 5, "(m0 <- m1 (i32), m1 <- m0 (i32))"),
]


def test_several_planted_bugs_are_several_classes():
    """Two edits of the real resolver at once (mutants.combine): slots
    swapped with xchg, and constants written before the moves that read
    their destinations (a value lost in a register, in a slot, in a pair,
    and on typed cases a constant for an xmm register built in the GPR
    scratch before the moves done: seven classes by where and what)."""
    args = ["--machine", "x86-64", "--max-moves", "2"]
    code, r, _ = conform_json("--cmd", mutant_cmd("swap_two_slots+immediate_before_read"),
                              *args)
    assert code == 1 and r["failures"] == 249 and r["classes"] == 8
    assert classes_of(r) == SEVERAL
    r["_args"] = args
    for c in r["failure_classes"]:
        s = c["smallest"]
        assert s["fails_alone"] and rejudged_class(r, s) == c["class"]
        # each class's command explains its case (exit 1: wrong)
        argv = shlex.split(s["explain"])
        assert argv[:2] == ["verified", "explain"]
        assert verified(*argv[1:]).returncode == 1
    # the report's smallest failure is the smallest of the classes' cases
    assert r["smallest_failure"]["what"] == "(m0 <- m1 (i32), m1 <- m0 (i32))"
    # --max-classes: the most frequent first, the rest counted (the run
    # test_schemas.py validates: shared)
    code, r2, _ = conform_json_once("--cmd",
                                    mutant_cmd("swap_two_slots+immediate_before_read"),
                                    *args, "--max-classes", "2")
    assert code == 1 and classes_of(r2) == SEVERAL[:2]
    assert r2["classes"] == 8 and r2["classes_not_shown"] == {"classes": 6, "answers": 121}
    # the text conform prints for this run is text_report of its report (the
    # one printer of _run; a text run end to end: test_a_client_failing_on_one_case)
    lines = text_report(r2).splitlines()
    assert "wrong sequences: 249 in 8 classes" in lines
    assert [ln for ln in lines if ln.startswith("class ")] == [
        f"class 1 of 8: 64 wrong sequences: {SEVERAL[0][0]}",
        f"class 2 of 8: 64 wrong sequences: {SEVERAL[1][0]}"]
    assert "6 more class(es), 121 wrong sequences, not shown: raise --max-classes to see " \
           "them" in lines


def test_typed_class_keys():
    """Typed requests (values of a type in the low units): the float-swap
    miscompile, and a value lost to the undefined rest of a typed write."""
    from verified.core import machine as M
    from verified.tools.conform.machines import machine_failure_class
    m = M.preset("x86-64")

    def key(moves, temps, seq):
        req = M.parse_machine_request({"machine": "x86-64", "moves": moves, "temps": temps,
                                       "sequence": seq}, need_sequence=True)
        verdict = M.check_machine_request(req).to_json()
        assert verdict["ok"] is False
        return machine_failure_class(m, req.move, seq, verdict)

    assert key([["m0", "m1", "f64"], ["m1", "m0", "f64"]], ["xmm15"],
               [["mov", "xmm15", "m0", "f64"], ["mov", "xmm15", "m1", "f64"],
                ["mov", "m0", "xmm15", "f64"], ["mov", "m1", "xmm15", "f64"]]) == \
        "wrong value: a slot destination holds its own old value, not its source's value"
    # a v128 value copied through an f64 write keeps only its low half
    assert key([["xmm0", "xmm1", "v128"]], [],
               [["mov", "xmm0", "xmm1", "f64"]]) == \
        ("wrong value: a xmm destination holds an undefined value (the rest of a typed "
         "write), not its source's value")


# ---------------------------------------------------------------------------
# Classes on parallel moves, and shrinking within a class
# ---------------------------------------------------------------------------

TWO_BUGS = """
if len(moves) == 2:
    seq = [["xchg", *op[1:]] if op[0] == "swap" else op for op in seq]
if len(moves) == 3:
    seq = seq[:-1]
answer = {"sequence": seq}
"""


def test_register_classes():
    args = ["--model", "swap", "--registers", "3"]
    code, r, _ = conform_json("--cmd", client(TWO_BUGS), *args)
    assert code == 1
    keys = [c["class"] for c in r["failure_classes"]]
    assert 'malformed operation ("xchg")' in keys
    assert any(k.startswith("wrong value: a destination holds ") for k in keys)
    assert r["classes"] == len(keys) >= 2
    assert sum(c["count"] for c in r["failure_classes"]) == r["failures"]
    r["_args"] = args
    for c in r["failure_classes"]:
        assert rejudged_class(r, c["smallest"]) == c["class"]
    xchg = next(c for c in r["failure_classes"] if c["class"] == 'malformed operation ("xchg")')
    assert len(xchg["smallest"]["request"]["moves"]) == 2


#: two moves or more: an unknown operation; one move d <- s: mov s, d (the
#: move reversed, wrong for it and for its neighbours)
JMP = """
answer = {"sequence": [["jmp"]] if len(moves) >= 2 else
          [["mov", s, d] for d, s in moves]}
"""
JMP_CLASS = 'malformed operation ("jmp")'


def _shrink_jmp(cls: str):
    ct = mv.MoveType("swap")
    argv = shlex.split(client(JMP))
    case = cases.Case(4, ((0, 1), (1, 2), (2, 3), (3, 0)))
    found = C.Example(0, ct.size(case), None, cls=cls)
    return S.shrink(argv, ct, case, found, 30)


def test_shrinking_keeps_the_class(monkeypatch):
    """Every one-move candidate fails too, but in another class (a value
    clobbered): the "jmp" class stops at two moves.  A shrinker that takes
    any wrong answer (the broken variant below: every answer one class)
    ends on one move, and this test would fail on it."""
    got = _shrink_jmp(JMP_CLASS)
    assert got.reproduced and len(got.case.moves) == 2 and got.steps >= 1
    assert got.example.cls == JMP_CLASS
    monkeypatch.setattr(mv.MoveType, "failure_class", lambda self, case, answer, v: "wrong")
    broken = _shrink_jmp("wrong")
    assert len(broken.case.moves) == 1  # what the assertions above reject


@pytest.mark.parametrize("value", ["0", "101", "-1"])
def test_max_classes_is_validated(value):
    p = verified("conform", "--cmd", "true", "--model", "swap", "--max-classes", value,
                 usage_error=True)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ("verified conform: error: --max-classes must be a whole number in "
                        f"1..100 (the failure classes shrunk and printed), not {value}\n")


def test_max_classes_not_a_number():
    p = verified("conform", "--cmd", "true", "--model", "swap", "--max-classes", "x")
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1
    assert "--max-classes" in p.stderr and "Traceback" not in p.stderr


# ---------------------------------------------------------------------------
# The program's own failure: {"failure": "why"}
# ---------------------------------------------------------------------------

FAILS_ON_ONE = """
if moves == [[0, 1], [1, 0]]:
    answer = {"failure": "V8 crash: check failed at gap-resolver.cc:123"}
else:
    answer = {"sequence": seq}
"""

FAILURE_REPORT = """\
checked: 11 of 11 answers in T s (T answers/s)
correct: 10
wrong sequences: 0
program failures (the program answered {{"failure": ...}}): 1
          1  V8 crash: check failed at gap-resolver.cc:123
  smallest failed case (shrunk in 0 step(s), re-run alone in a fresh process):
    case:    (r0 <- r1, r1 <- r0)
    request: {{"moves": [[0, 1], [1, 0]], "model": "swap", "temps": [], "registers": 2}}
    answer:  {{"failure": "V8 crash: check failed at gap-resolver.cc:123"}}
result: FAIL: the program failed (exit 1)
"""


@pytest.mark.parametrize("allow", [False, True])
def test_a_client_failing_on_one_case(allow):
    """Reported apart from refusals and wrong sequences, with the client's
    text as written (digits and all), shrunk, and exit 1 with or without
    --allow-refusals."""
    import re
    extra = ["--allow-refusals"] if allow else []
    code, text = conform_text("--cmd", client(FAILS_ON_ONE), "--model", "swap",
                              "--registers", "2", *extra)
    assert code == 1
    body = text.split("over 1..2 registers\n")[1]
    body = re.sub(r"in [0-9.]+ s \([0-9,]+ answers/s\)", "in T s (T answers/s)", body)
    assert body == FAILURE_REPORT.format()
    code, r, _ = conform_json_once("--cmd", client(FAILS_ON_ONE), "--model", "swap",
                                   "--registers", "2", *extra)
    assert code == r["exit"] == 1
    assert (r["failures"], r["program_failures"], r["refusals"]) == (0, 1, 0)
    assert "failure_classes" not in r and "refusal_report" not in r
    fr = r["failure_report"]
    assert fr["reasons"] == {"V8 crash: check failed at gap-resolver.cc:123": 1}
    assert fr["smallest"]["fails_alone"] and fr["first"]["case"] == 9


CYCLE_ABORT = """
pairs = {(d, s) for d, s in moves}
if any((s, d) in pairs and d != s for d, s in moves):
    answer = {"failure": "abort: a 2-cycle among %d moves" % len(moves)}
else:
    answer = {"sequence": seq}
"""


def test_a_failure_is_shrunk_like_a_wrong_answer():
    code, r, _ = conform_json("--cmd", client(CYCLE_ABORT), "--model", "swap",
                              "--registers", "6", "--random", "10", "--seed", "3")
    assert code == 1 and r["program_failures"] > 0 and r["failures"] == 0
    s = r["failure_report"]["smallest"]
    assert s["fails_alone"] and s["shrink_steps"] >= 1
    assert len(s["request"]["moves"]) == 2 < len(s["found_request"]["moves"])
    assert json.loads(s["answer"]) == {"failure": "abort: a 2-cycle among 2 moves"}
    # the texts differ in their numbers: one group, printed as first written
    [(text, n)] = r["failure_report"]["reasons"].items()
    assert n == r["program_failures"]
    assert text.startswith("abort: a 2-cycle among ")
    assert text.endswith(" moves (and texts that differ from it only in numbers)")


def test_refusal_texts_are_printed_as_written():
    """Grouped by their text with numbers as N, printed as the client wrote
    them ("V8 crash" stays "V8 crash")."""
    refuse = py_cmd("import sys\nfor line in sys.stdin: print('{\"unsupported\": "
                    "\"V8 crash\"}', flush=True)")
    code, r, _ = conform_json("--cmd", refuse, "--model", "swap", "--registers", "2")
    assert code == 1 and r["refusal_report"]["reasons"] == {"V8 crash": 11}
    code, text = conform_text("--cmd", refuse, "--model", "swap", "--registers", "2")
    assert "         11  V8 crash" in text.splitlines()


def test_allow_refusals_does_not_allow_failures():
    plant = """
if moves == [[0, 1], [1, 0]]:
    answer = {"failure": "internal check failed"}
elif len(moves) == 2:
    answer = {"unsupported": "not today"}
else:
    answer = {"sequence": seq}
"""
    code, r, _ = conform_json("--cmd", client(plant), "--model", "swap", "--registers", "2",
                              "--allow-refusals")
    assert code == 1 and r["program_failures"] == 1 and r["refusals"] > 0
    assert r["refusal_report"]["allowed"] is True


# ---------------------------------------------------------------------------
# The answer reader: exactly one answer field
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("answer, message", [
    ('{"sequence": [], "unsupported": "x"}',
     'answer has both "sequence" and "unsupported"; an answer has exactly one of "sequence", '
     '"unsupported", "error", "failure": b\'{"sequence": [], "unsupported": "x"}\''),
    ('{"sequence": [], "cost": 3}',
     'answer has unknown field(s) "cost"; an answer has exactly one of "sequence", '
     '"unsupported", "error", "failure": b\'{"sequence": [], "cost": 3}\''),
])
def test_an_answer_with_extra_fields_is_garbage(answer, message):
    """Not a sequence taken silently (an empty sequence is right for the
    first case, the empty move): a protocol break naming the field."""
    code, r, _ = conform_json("--cmd", py_cmd(
        "import sys\nfor line in sys.stdin: print(%r, flush=True)" % answer),
        "--model", "swap", "--registers", "2")
    assert code == 2 and r["run"] == 0
    assert r["broken"]["kind"] == "garbage" and r["broken"]["message"] == message
