"""`verified conform` against a real implementation not written in Python
(tests/clients/shuf_client.c, compiled here), its deliberately broken build,
and tiny misbehaving programs: every way a protocol partner can fail must be
reported as what it is, with the right exit status, and never hang us.

Reports are pinned exactly (golden text and JSON), except the timing
figures, which are replaced by "T" before comparing."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from verified import cases
from verified.core.oracle import implements, read_sequence
from verified.core.semantics import ParallelMove

from tests.support import conform_json, py_cmd, verified


CLIENTS = Path(__file__).resolve().parent.parent / "clients"


def client_script(name: str, *args: str) -> str:
    """A --cmd running one of tests/clients/*.py with this interpreter."""
    return shlex.join([sys.executable, str(CLIENTS / name), *args])


def untimed(text: str) -> str:
    return re.sub(r"in [0-9.]+ s \([0-9,]+ answers/s\)", "in T s (T answers/s)", text)


def conform_text(*args: str, timeout: float = 120) -> tuple[int, str]:
    proc = verified("conform", *args, "--progress", "never", timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, untimed(proc.stdout)


def oracle_rejects(request: dict, answer: str) -> bool:
    pm = ParallelMove.make(request["moves"], request["registers"], request["temps"])
    ops = read_sequence(json.loads(answer)["sequence"])
    return not implements(pm, ops, request["model"], request.get("preserve", "all")).ok


# ---------------------------------------------------------------------------
# The C client: passes exhaustively; its broken build is caught and shrunk
# ---------------------------------------------------------------------------


def test_c_client_passes_exhaustively_up_to_6_registers(c_client):
    code, r, _ = conform_json("--cmd", str(c_client), "--model", "swap",
                              "--registers", "6", "--exhaustive", "--optimal")
    assert code == 0, r
    assert r["run"] == r["planned"] == cases.exhaustive_count(6) == 126_125
    assert r["correct"] == r["run"] and r["failures"] == 0 and r["refusals"] == 0
    # the shuffler is optimal in the swap model: every gap is 0, and the
    # bucket's smallest case is the empty move on one register
    [bucket] = r["gap_to_optimum"]
    assert (bucket["gap"], bucket["count"]) == (0, 126_125)
    assert bucket["smallest"]["request"]["moves"] == [] and bucket["smallest"]["ours"] == []


@pytest.mark.parametrize("model, n", [("temp", 5), ("permi", 4)])
def test_c_client_other_models(c_client, model, n):
    code, r, _ = conform_json("--cmd", str(c_client), "--model", model,
                              "--registers", str(n), "--optimal")
    assert code == 0, r
    assert r["failures"] == 0 and r["run"] == cases.exhaustive_count(n)
    if model == "temp":  # three movs per swap: correct, visibly not optimal
        assert r["temps"] == ["t"]
        assert any(b["gap"] > 0 for b in r["gap_to_optimum"])


GOLDEN_BROKEN = """\
conform: {exe}
  model swap, temps [], preserve all; exhaustive, every parallel move over 1..3 registers
checked: 75 of 75 answers in T s (T answers/s)
correct: 72
wrong sequences: 3 in 1 class
first wrong answer: case #48 (r0 <- r1, r1 <- r0, r2 <- r0)
  request: {{"moves": [[0, 1], [1, 0], [2, 0]], "model": "swap", "temps": [], "registers": 3}}
  answer:  {{"sequence": [["swap", 1, 0]]}}
  verdict: {{"ok": false, "length": 1, "reason": "destination r2 must hold the original value of r0 but holds that of r2", "counterexample": {{"location": 2, "expected": "r0", "got": "r2"}}}}
class 1 of 1: 3 wrong sequences: wrong value: a destination holds its own old value, not its source's value
  smallest (shrunk in 0 step(s), re-run alone in a fresh process):
    case:    (r0 <- r1, r1 <- r0, r2 <- r0)
    request: {{"moves": [[0, 1], [1, 0], [2, 0]], "model": "swap", "temps": [], "registers": 3}}
    answer:  {{"sequence": [["swap", 1, 0]]}}
    verdict: {{"ok": false, "length": 1, "reason": "destination r2 must hold the original value of r0 but holds that of r2", "counterexample": {{"location": 2, "expected": "r0", "got": "r2"}}}}
    explain: verified explain --request '{{"moves": [[0, 1], [1, 0], [2, 0]], "model": "swap", "temps": [], "registers": 3}}' --sequence '[["swap", 1, 0]]'
result: FAIL: wrong answers (exit 1)
"""


def test_broken_c_client_golden_report(c_client, c_client_broken):
    code, out = conform_text("--cmd", str(c_client_broken), "--model", "swap", "--registers", "3")
    assert code == 1
    assert out == GOLDEN_BROKEN.format(exe=c_client_broken)
    # the planted bug needs a cycle whose value also feeds a blade, or a
    # 3-cycle: nothing on fewer than 3 registers fails, and the answer
    # shown really is wrong, by the oracle, independently
    code, r, _ = conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "3")
    assert not r["smallest_failure"]["request"]["registers"] < 3
    assert oracle_rejects(r["smallest_failure"]["request"], r["smallest_failure"]["answer"])
    # ... and the correct build gets every case right
    assert conform_json("--cmd", str(c_client), "--model", "swap", "--registers", "3")[0] == 0


@pytest.mark.parametrize("seed", ["3", "5", "8"])
def test_shrinking_keeps_register_numbers_and_count(c_client_broken, seed):
    """Shrinking drops moves (or routes around a register) but never
    renumbers: the smallest case is on the same 12 registers and names only
    registers the found case names, its moves in the order they were sent."""
    code, r, _ = conform_json("--cmd", str(c_client_broken), "--model", "swap",
                              "--registers", "12", "--random", "4", "--seed", seed)
    assert code == 1
    s = r["smallest_failure"]
    assert s["shrink_steps"] > 0 and s["fails_alone"]
    assert s["request"]["registers"] == s["found_request"]["registers"] == 12
    found = s["found_request"]["moves"]
    named = {x for m in found for x in m}
    assert {x for m in s["request"]["moves"] for x in m} <= named
    # (the planted bug depends on register numbers, so the smallest failing
    # cycle over the found registers may be longer than 3)
    assert 3 <= len(s["request"]["moves"]) <= 4 < len(found)
    dsts = [d for d, _ in found]
    assert [d for d, _ in s["request"]["moves"]] == sorted(
        (d for d, _ in s["request"]["moves"]), key=dsts.index)
    assert oracle_rejects(s["request"], s["answer"])


def test_no_shrink_reports_the_smallest_found(c_client_broken):
    code, r, _ = conform_json("--cmd", str(c_client_broken), "--model", "swap",
                              "--registers", "12", "--random", "4", "--seed", "3",
                              "--no-shrink")
    s = r["smallest_failure"]
    assert code == 1 and s["shrunk"] is False and s["request"] == s["found_request"]


def test_pool_and_inline_checking_agree(c_client_broken):
    a = conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "5",
                     "--jobs", "2", "--no-shrink")[1]
    b = conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "5",
                     "--jobs", "1", "--no-shrink")[1]
    for key in ("failures", "correct", "first_failure", "smallest_failure", "run"):
        assert a[key] == b[key]
    assert a["failures"] == 1_323


# ---------------------------------------------------------------------------
# Misbehaving programs: each reported as a protocol break, with the case
# ---------------------------------------------------------------------------

#: A correct Python solver that misbehaves on request number K (0-based).
MISBEHAVE = """
import json, os, signal, sys, time
from verified.core.semantics import ParallelMove
from verified.algorithms.shuf import shuf
mode, k, bad = {mode!r}, {k}, {bad}
for i, line in enumerate(sys.stdin):
    if i in bad:
        print('{{"sequence": []}}', flush=True); continue
    if i == k:
        if mode == "hang": time.sleep(600)
        if mode == "crash": os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "exit": sys.exit(0)
        if mode == "garbage": print("hello, world", flush=True); continue
        if mode == "traceback": raise ValueError("boom")
        if mode == "skip": continue
        if mode == "empty": print('{{"sequence": []}}', flush=True); continue
    r = json.loads(line)
    pm = ParallelMove.make(r["moves"], r["registers"], r["temps"])
    out = json.dumps({{"sequence": [o.to_json() for o in shuf(pm)]}})
    print(out, flush=True)
    if i == k and mode == "double": print(out, flush=True)
"""


def misbehave(mode: str, k: int, bad: tuple = ()) -> str:
    """A --cmd: MISBEHAVE on request k; answers [] (wrong) to requests in bad."""
    return py_cmd(MISBEHAVE.format(mode=mode, k=k, bad=bad))


CASE5 = '{"moves": [[0, 0]], "model": "swap", "temps": [], "registers": 2}'


@pytest.mark.parametrize("mode, first_lines", [
    ("hang", [
        "BROKEN PROGRAM (timeout): no answer to case #5 within 1 s (the program hangs, or "
        "is far too slow)",
        f"  case #5: {CASE5}", "  same failure when sent alone to a fresh process: no"]),
    ("crash", [
        "BROKEN PROGRAM (crash): the program was killed by SIGSEGV after 5 of 75 answers; "
        "it was on case #5",
        f"  case #5: {CASE5}", "  same failure when sent alone to a fresh process: no"]),
    ("exit", [
        "BROKEN PROGRAM (exited early): the program exited with status 0 after 5 of 75 "
        "answers; it was on case #5",
        f"  case #5: {CASE5}", "  same failure when sent alone to a fresh process: no"]),
    ("garbage", [
        "BROKEN PROGRAM (garbage): answer is not JSON (line is not valid JSON: Expecting "
        "value at column 1): b'hello, world'",
        f"  case #5: {CASE5}", "  same failure when sent alone to a fresh process: no"]),
])
def test_misbehaving_program_is_reported_first(mode, first_lines):
    code, out = conform_text("--cmd", misbehave(mode, 5), "--model", "swap",
                             "--registers", "3", "--timeout", "1")
    assert code == 2
    lines = out.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("  model swap"))
    assert lines[header + 1:header + 4] == first_lines  # right after the header
    assert "checked: 5 of 75 answers" in out and "correct: 5\n" in out
    assert out.endswith("result: FAIL: broken program or bad use (exit 2)\n")


def test_traceback_is_a_crash_with_its_stderr():
    code, r, _ = conform_json("--cmd", misbehave("traceback", 5), "--model", "swap",
                              "--registers", "3")
    assert code == 2 and r["broken"]["kind"] == "crash"
    assert r["broken"]["message"] == ("the program exited with status 1 after 5 of 75 "
                                      "answers; it was on case #5")
    assert "ValueError: boom" in r["broken"]["stderr"]


GOLDEN_SKIP = """\
BROKEN PROGRAM (skipped an answer): the program answered 699 of 700 requests and ended; \
from case #300 on each answer is right for the request after it: it skipped the answer to \
case #300 (or just before)
  the 399 answers from case #300 on are out of step with the requests: their 399 failing \
verdicts are not counted; the first:
    case #300: {"moves": [[0, 0], [1, 3]], "model": "swap", "temps": [], "registers": 4}
    answer: {"sequence": [["mov", 1, 3], ["mov", 3, 0]]}
checked: 699 of 700 answers in T s (T answers/s)
correct: 300
wrong sequences: 0
result: FAIL: broken program or bad use (exit 2)
"""

GOLDEN_DOUBLE = """\
BROKEN PROGRAM (repeated an answer): the program printed more answer lines than requests; \
from answer #301 on each answer is right for the request before it: it printed the answer \
to case #300 twice (or just before)
  the 399 answers from case #301 on are out of step with the requests: their 399 failing \
verdicts are not counted; the first:
    case #301: {"moves": [[0, 0], [1, 3], [3, 0]], "model": "swap", "temps": [], "registers": 4}
    answer: {"sequence": [["mov", 1, 3]]}
checked: 700 of 700 answers in T s (T answers/s)
correct: 301
wrong sequences: 0
result: FAIL: broken program or bad use (exit 2)
"""


@pytest.mark.parametrize("mode, golden", [("skip", GOLDEN_SKIP), ("double", GOLDEN_DOUBLE)])
def test_skipped_or_repeated_answer_is_a_protocol_break_not_wrong_answers(mode, golden):
    """Issue 14, item 6: one missing or doubled answer line shifts every
    later answer; that is a broken protocol (exit 2, reported first), not
    hundreds of wrong answers (exit 1) with a case that does not reproduce."""
    code, out = conform_text("--cmd", misbehave(mode, 300), "--model", "swap",
                             "--registers", "4")
    assert code == 2
    assert out.split("; exhaustive, every parallel move over 1..4 registers\n")[1] == golden


@pytest.mark.parametrize("mode, kind", [("skip", "skipped an answer"),
                                        ("double", "repeated an answer")])
def test_a_shift_is_named_when_some_answers_fit_both_neighbours(mode, kind):
    """On 1..3 registers many answers are right for the request before AND
    the one after (``[]`` for two moves that change nothing): such an answer
    is consistent with either shift, not evidence against it (it was
    counted against it: exit 1 with 69 "wrong" answers)."""
    code, r, _ = conform_json("--cmd", misbehave(mode, 4), "--model", "swap",
                              "--registers", "3", "--no-shrink")
    assert code == 2 and r["broken"]["kind"] == kind and r["failures"] == 0
    assert r["broken"]["verdicts_caused"] == 69


def test_wrong_answers_before_a_break_still_exit_1():
    # case #3 answered wrongly ([] for a real move), then the program exits early
    code, r, _ = conform_json("--cmd", misbehave("exit", 40, (3,)),
                              "--model", "swap", "--registers", "3", "--no-shrink")
    # ([] happens to be right for case #4, but one coincidence, with 35
    # answers missing, is no shift: the wrong answer counts)
    assert code == 1 and r["failures"] == 1 and r["broken"]["kind"] == "exited early"
    assert r["first_failure"]["case"] == 3


def test_hang_on_the_very_first_case_of_a_silent_program():
    code, r, _ = conform_json("--cmd", py_cmd("import time; time.sleep(600)"),
                              "--model", "swap", "--registers", "2", "--timeout", "1",
                              timeout=60)
    assert code == 2 and r["broken"]["kind"] == "timeout" and r["broken"]["case"] == 0
    assert r["broken"]["reproduced_alone"] is True


def test_program_that_does_not_read_its_input_is_a_timeout_not_a_deadlock():
    # writes nothing, reads nothing: our writer blocks on a full pipe, we don't
    code, r, _ = conform_json("--cmd", py_cmd("import time; time.sleep(600)"),
                              "--model", "swap", "--registers", "5", "--timeout", "1",
                              timeout=60)
    assert code == 2 and r["broken"]["kind"] == "timeout"


def test_program_that_answers_only_at_the_end_is_told_to_stream():
    batch = ("import sys, json\nlines = sys.stdin.readlines()\n"
             "for l in lines: print(json.dumps({'sequence': []}))")
    code, r, _ = conform_json("--cmd", py_cmd(batch), "--model", "swap",
                              "--registers", "6", "--timeout", "2", timeout=60)
    assert code == 2 and r["broken"]["kind"] == "timeout"
    assert r["broken"]["message"].endswith(
        "requests were waiting for answers: answer each request line as it comes and flush "
        "(conform streams; a program that answers only at the end of its input cannot be "
        "tested)")


def test_program_that_cannot_start():
    code, r, _ = conform_json("--cmd", "/nonexistent/solver --json", "--model", "swap",
                              "--registers", "2")
    assert code == 2 and r["broken"]["kind"] == "cannot start"
    assert r["broken"]["message"].startswith("cannot run /nonexistent/solver --json: ")


def test_stateful_wrong_answer_is_flagged_as_not_reproducible():
    # answers correctly except the 4th request it ever sees: empty sequence
    code, r, _ = conform_json("--cmd", misbehave("empty", 3), "--model", "swap",
                              "--registers", "2")
    assert code == 1
    assert r["failures"] == 1
    assert r["smallest_failure"]["fails_alone"] is False


# ---------------------------------------------------------------------------
# Bad use: every option validated, one clear line, exit 2
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--timeout", "nan"], "--timeout must be a finite number of seconds > 0, not nan"),
    (["--timeout", "0"], "--timeout must be a finite number of seconds > 0, not 0"),
    (["--timeout", "-1"], "--timeout must be a finite number of seconds > 0, not -1"),
    (["--timeout", "inf"], "--timeout must be a finite number of seconds > 0, not inf"),
    (["--jobs", "-3"], "--jobs must be 1..256 (1 = check inline), not -3"),
    (["--random", "0"], "--random needs K >= 1, not 0: a run that checks nothing cannot pass"),
    (["--random", "-1"], "--random needs K >= 1, not -1: a run that checks nothing cannot "
                         "pass"),
    (["--registers", "0"], "--registers must be a whole number in 1..1048576, not 0"),
    (["--registers", "9", "--exhaustive"], "--exhaustive over 9 registers is 1,045,269,998 "
     "cases; use --shapes (every move up to renaming) or --random K beyond 7"),
    (["--registers", "19", "--shapes"], "--shapes over 19 registers is 89,814,958 shapes; "
     "use --random K beyond 18"),
    (["--temps", "1", "--registers", "3"], '--temps: temporary r1 lies inside the register '
     'file r0..r2; name a location outside it (e.g. 3 or "t")'),
    (["--seed", ""], '--seed is empty (an unset CI variable?); give a number or any text, '
     'e.g. --seed "${CI_BUILD_ID:-0}"'),
    (["--relabel", "2"], "--relabel goes with --shapes"),
    (["--shapes", "--relabel", "-1"], "--relabel must be 0..1000, not -1"),
    (["--allocator"], "--model is for parallel moves, not --allocator"),
    (["--cmd", ""], "--cmd is empty"),
])
def test_bad_use_exits_2_with_one_clear_line(args, message):
    proc = verified("conform", "--cmd", "true", "--model", "swap", *args, usage_error=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"verified conform: error: {message}\n"


def test_model_is_required_for_moves():
    proc = verified("conform", "--cmd", "true", usage_error=True)
    assert proc.returncode == 2
    assert proc.stderr == ("verified conform: error: --model is required (temp, swap, permi "
                           "or spill), or --allocator\n")


def test_seed_takes_any_text_and_is_reproducible(c_client_broken):
    a = conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "8",
                     "--random", "50", "--seed", "build-4711", "--no-shrink")[1]
    b = conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "8",
                     "--random", "50", "--seed", "build-4711", "--no-shrink")[1]
    assert a["cases"] == "50 random cases over 8 registers (seed build-4711)"
    assert a["first_failure"] == b["first_failure"]


# ---------------------------------------------------------------------------
# Refusals: {"unsupported"} / {"error"} right exactly when no sequence exists
# ---------------------------------------------------------------------------

REFUSE_ALL = ("import sys\nfor line in sys.stdin: print('{\"%s\": \"needs a scratch "
              "register\"}', flush=True)")

GOLDEN_REFUSALS = """\
checked: 75 of 75 answers in T s (T answers/s)
correct: 69 (of which 9 rightly declined: no answer exists)
wrong sequences: 0
declined solvable cases: 6{allowed}
          6  a cycle needs a scratch register
  smallest declined case: #48 (r0 <- r1, r1 <- r0, r2 <- r0)
    request: {{"moves": [[0, 1], [1, 0], [2, 0]], "model": "temp", "temps": [], "registers": 3}}
    answer:  {{"unsupported": "a cycle needs a scratch register"}}
    witness: [["mov", 2, 0], ["mov", 0, 1], ["mov", 1, 2]] (verified solve --algorithm mincopy)
result: {result}
"""


@pytest.mark.parametrize("allow, code, result", [
    (False, 1, "FAIL: solvable cases declined (exit 1)"),
    (True, 0, "PASS (exit 0)"),
])
def test_refusals_are_their_own_verdict_with_a_witness(allow, code, result):
    """A resolver that always wants a scratch register (tests/clients/
    refusing_client.py) declines every move with a cycle.  Nine of those
    have no sequence without a temporary (right to decline); six do
    (mincopy borrows a blade's destination): reported apart from wrong
    sequences, with our sequence as the witness; --allow-refusals passes."""
    got, out = conform_text("--cmd", client_script("refusing_client.py"),
                            "--model", "temp", "--temps", "--registers", "3",
                            *(["--allow-refusals"] if allow else []))
    assert got == code
    assert out.split("over 1..3 registers\n")[1] == GOLDEN_REFUSALS.format(
        allowed=" (allowed by --allow-refusals)" if allow else "", result=result)


def test_the_witness_is_a_correct_sequence():
    code, r, _ = conform_json("--cmd", py_cmd(REFUSE_ALL % "unsupported"), "--model",
                              "swap", "--registers", "3")
    assert code == 1 and r["refusals"] == r["run"] == 75 and r["failures"] == 0
    rr = r["refusal_report"]
    assert rr["reasons"] == {"needs a scratch register": 75}
    for ex in (rr["first"], rr["smallest"]):
        req = ex["request"]
        pm = ParallelMove.make(req["moves"], req["registers"], req["temps"])
        assert implements(pm, read_sequence(ex["ours"]), "swap").ok
        assert ex["ours_from"] == "verified solve --algorithm shuf"


def test_error_answers_are_refusals_too():
    code, r, _ = conform_json("--cmd", py_cmd(REFUSE_ALL % "error"), "--model", "swap",
                              "--registers", "2", "--allow-refusals")
    assert code == 0 and r["refusals"] == cases.exhaustive_count(2)
    assert r["refusal_report"]["allowed"] is True


def test_refusing_an_unsolvable_temp_case_is_right():
    # temp model, no temporary: r0 <-> r1 (a bare cycle) has no sequence
    code, r, _ = conform_json("--cmd", py_cmd(REFUSE_ALL % "unsupported"), "--model", "temp",
                              "--temps", "--registers", "2")
    assert code == 1  # the solvable ones are still wrong to decline
    assert r["refused_unsolvable"] == 1
    assert r["refusals"] == cases.exhaustive_count(2) - 1


def test_a_wrong_sequence_exits_1_even_with_allow_refusals(c_client_broken):
    code, r, _ = conform_json("--cmd", str(c_client_broken), "--model", "swap",
                              "--registers", "3", "--allow-refusals")
    assert code == 1 and r["failures"] == 3


def test_a_sequence_for_an_unsolvable_case_is_wrong():
    # temp, no temps: any sequence for the bare cycle r0 <-> r1 is wrong
    answer = ("import sys\nfor line in sys.stdin: print('{\"sequence\": [[\"mov\", 0, 1], "
              "[\"mov\", 1, 0]]}', flush=True)")
    code, r, _ = conform_json("--cmd", py_cmd(answer), "--model", "temp", "--temps",
                              "--registers", "2", "--no-shrink")
    assert code == 1 and r["refused_unsolvable"] == 0


# ---------------------------------------------------------------------------
# Models and contracts
# ---------------------------------------------------------------------------


def test_spill_model_conforms_with_a_slot_as_temporary():
    cmd = py_cmd("import sys; from verified.cli import main; "
                 "sys.exit(main(['solve', '--algorithm', 'mincopy']))")
    code, r, _ = conform_json("--cmd", cmd, "--model", "spill", "--registers", "3",
                              "--optimal")
    assert code == 0 and r["temps"] == ["m0"] and r["run"] == 75
    assert [b["gap"] for b in r["gap_to_optimum"]] == [0]


def test_no_fan_out_help_names_greedys_contract_and_the_default_fails_it():
    """Issue 14, item 7: GREEDY is written for "loops"; under the default
    "all" it clobbers non-destinations.  The help says so, and conform
    agrees: --no-fan-out alone fails GREEDY, with --preserve loops it passes."""
    assert "GREEDY's contract is --preserve loops" in " ".join(
        verified("conform", "--help").stdout.split())
    greedy = py_cmd("import sys; from verified.cli import main; "
                    "sys.exit(main(['solve', '--algorithm', 'greedy']))")
    code_all, r_all, _ = conform_json("--cmd", greedy, "--model", "permi", "--registers", "4",
                                      "--no-fan-out", "--no-shrink")
    code_loops, r_loops, _ = conform_json("--cmd", greedy, "--model", "permi",
                                          "--registers", "4", "--no-fan-out",
                                          "--preserve", "loops")
    # (GREEDY declines them: under "all" a non-destination needs a loop,
    # which gives its register out-degree 2)
    assert code_all == 1 and r_all["refusals"] == 164 and r_all["failures"] == 0
    assert code_loops == 0 and r_loops["run"] == r_all["run"] == 2 + 7 + 34 + 209


def test_optimal_report_carries_the_smallest_case_of_each_gap(c_client):
    code, r, _ = conform_json("--cmd", str(c_client), "--model", "temp", "--registers", "3",
                              "--optimal")
    assert code == 0
    gaps = {b["gap"]: b for b in r["gap_to_optimum"]}
    assert sum(b["count"] for b in gaps.values()) == 75
    for gap, b in gaps.items():
        s = b["smallest"]
        req = s["request"]
        pm = ParallelMove.make(req["moves"], req["registers"], req["temps"])
        client_len = len(json.loads(s["answer"])["sequence"])
        assert implements(pm, read_sequence(s["ours"]), "temp").ok
        assert client_len - len(s["ours"]) == gap  # ours is mincopy: optimal
        assert s["ours_from"] == "verified solve --algorithm mincopy"
    # the shuffler writes a swap as three movs: a 2-cycle costs 3, optimum 3;
    # a cycle with a blade costs 3 + 1 where mincopy needs 3
    assert gaps[1]["smallest"]["request"]["moves"] == [[0, 1], [1, 0], [2, 0]]
    code, out = conform_text("--cmd", str(c_client), "--model", "temp", "--registers", "3",
                             "--optimal")
    assert ("      +1:         6    8.0%  smallest: case #48 (r0 <- r1, r1 <- r0, r2 <- r0)\n"
            '           answer: {"sequence": [["mov", "t", 1], ["mov", 1, 0], '
            '["mov", 0, "t"], ["mov", 2, 1]]}\n'
            '           ours:   [["mov", 2, 0], ["mov", 0, 1], ["mov", 1, 2]]\n') in out


# ---------------------------------------------------------------------------
# --progress auto (the default) when stderr is not a terminal, as in every CI
# ---------------------------------------------------------------------------


def test_progress_auto_without_a_terminal_prints_every_10_seconds(monkeypatch):
    """Every other test passes --progress never; the default (auto) with
    stderr a pipe prints one line at most every 10 s of checking."""
    import io
    from verified.tools.conform import cli as conform_cli
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr(sys, "stderr", err)
    printer = conform_cli._progress_printer("auto")
    assert printer is not None
    for done, elapsed in ((1, 0.5), (2, 9.9), (3, 10.0), (4, 19.9), (5, 20.5)):
        printer(done, 10, elapsed)
    assert err.getvalue().splitlines() == [
        conform_cli.progress_text(3, 10, 10.0),
        conform_cli.progress_text(5, 10, 20.5),
    ]
    assert conform_cli._progress_printer("never") is None


def test_the_default_progress_with_stderr_a_pipe_gives_the_same_report(c_client):
    """A run with the default --progress (auto; stderr is a pipe here, as in
    CI) exits and reports exactly as with --progress never."""
    args = ("--cmd", str(c_client), "--model", "swap", "--registers", "3", "--exhaustive")
    auto = verified("conform", *args, timeout=120)
    assert "Traceback" not in auto.stderr and "internal error" not in auto.stderr, auto.stderr
    never_code, never_text = conform_text(*args)
    assert (auto.returncode, untimed(auto.stdout)) == (never_code, never_text) == (0, never_text)
    assert all(line.startswith("conform: ") for line in auto.stderr.splitlines()), auto.stderr
