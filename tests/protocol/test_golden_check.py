"""Golden answers of ``verified check`` and ``verified conform``: the exact
line for each kind of answer and each class of bad input, and the exit
status, byte for byte as a compiler team's CI script sees them.

The rule they pin (docs/mutation.md, "Verdict or bad input"): anything
wrong *inside* a request's ``"sequence"`` (an operation the model lacks, an
unknown or malformed operation, a perm of more than 5 locations, a location
the request does not declare) is a verdict, ``"ok": false`` with the reason
and the operation's index, exit 1; only a malformed request is bad input,
``{"error": ...}``, exit 2.  A wrong sequence outranks bad input."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "verified.cli"]
# (the README's own transcripts run exactly in tests/cli/test_readme.py)

SWAP_OK = '{"moves": [[1,0],[0,1]], "model": "swap", "sequence": [["swap",0,1]]}'
TEMP_WRONG = '{"moves": [[1,0],[2,1]], "model": "temp", "sequence": [["mov",1,0],["mov",2,1]]}'
BAD_JSON = "not json"


def check(*lines: str | bytes) -> tuple[int, list[str]]:
    """Feed raw lines to ``verified check``: (exit status, answer lines)."""
    data = b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines)
    p = subprocess.run(CLI + ["check"], input=data, capture_output=True, timeout=120)
    assert p.stderr == b"", p.stderr
    return p.returncode, p.stdout.decode().splitlines()


# -- answers and exit codes ----------------------------------------------------

OK_LINE = '{"ok": true, "length": 1, "optimal": 1}'
WRONG_LINE = ('{"ok": false, "length": 2, "reason": "destination r2 must hold the original '
              'value of r1 but holds that of r0", "counterexample": {"location": 2, '
              '"expected": "r1", "got": "r0"}, "optimal": 2}')
BAD_LINE = '{"error": "line %d: line is not valid JSON: Expecting value at column 1"}'


@pytest.mark.parametrize("lines, status, answers", [
    ([SWAP_OK], 0, [OK_LINE]),
    ([TEMP_WRONG], 1, [WRONG_LINE]),
    ([BAD_JSON], 2, [BAD_LINE % 1]),
    ([SWAP_OK, BAD_JSON], 2, [OK_LINE, BAD_LINE % 2]),
    ([BAD_JSON, TEMP_WRONG, SWAP_OK], 1, [BAD_LINE % 1, WRONG_LINE, OK_LINE]),
    ([], 0, []),
    (["", "   ", SWAP_OK], 0, [OK_LINE]),  # blank lines are skipped, not answered
])
def test_exit_status_is_the_worst_answer(lines, status, answers):
    assert check(*lines) == (status, answers)


GOLDEN = [
    # a location outside the contract: clobbered under "all", dead under "loops"
    ('{"moves": [[1,0]], "model": "temp", "registers": 3, '
     '"sequence": [["mov",2,0],["mov",1,2]]}',
     '{"ok": false, "length": 2, "reason": "r2 is not a destination, so it must keep its '
     'own value, but it was clobbered with that of r0", "counterexample": {"location": 2, '
     '"expected": "r2", "got": "r0"}, "optimal": 1}'),
    ('{"moves": [[1,0]], "model": "temp", "registers": 3, "preserve": "loops", '
     '"sequence": [["mov",2,0],["mov",1,2]]}',
     '{"ok": true, "length": 2, "optimal": 1}'),
    # an operation the model lacks, with its index
    ('{"moves": [[1,0],[0,1]], "model": "temp", "temps": ["t"], '
     '"sequence": [["mov","t",0],["swap",0,1]]}',
     '{"ok": false, "length": 2, "reason": "operation #1 (swap r0, r1) is not available in '
     'the temp model (it has: mov)", "operation": 1, "optimal": 3}'),
    # an undeclared temporary; no temp-model sequence exists at all
    ('{"moves": [[1,0],[0,1]], "model": "temp", '
     '"sequence": [["mov","t",0],["mov",0,1],["mov",1,"t"]]}',
     '{"ok": false, "length": 3, "reason": "operation #0 (mov t, r0) writes t, which is '
     'neither in the register file nor a declared temporary", "operation": 0, "optimal": '
     'null, "optimal_note": "no sequence exists: the move has a cycle without blades and '
     'there is no location to break it with; declare a temporary (e.g. \\"temps\\": '
     '[\\"t\\"])"}'),
    # the spill model: load and store are not each other
    ('{"moves": [[1,0]], "model": "spill", "temps": ["m0"], '
     '"sequence": [["store",0,"m0"],["load",1,"m0"]]}',
     '{"ok": true, "length": 2, "optimal": null, "optimal_note": "the optimum is not '
     'computed for the spill model"}'),
    ('{"moves": [[1,0]], "model": "spill", "temps": ["m0"], '
     '"sequence": [["load",0,"m0"],["store",1,"m0"]]}',
     '{"ok": false, "length": 2, "reason": "destination r1 must hold the original value of '
     'r0 but holds that of r1", "counterexample": {"location": 1, "expected": "r0", '
     '"got": "r1"}, "optimal": null, "optimal_note": "the optimum is not computed for the '
     'spill model"}'),
    # ids: any JSON value, echoed first; a finite float is a JSON value
    ('{"id": 1.5, "moves": [[1,0]], "model": "temp", "sequence": [["mov",1,0]]}',
     '{"id": 1.5, "ok": true, "length": 1, "optimal": 1}'),
    ('{"id": -2.5e-3, "moves": [[1,0]], "model": "temp", "sequence": [["mov",1,0]]}',
     '{"id": -0.0025, "ok": true, "length": 1, "optimal": 1}'),
    ('{"id": 1e300, "moves": [[1,0]], "model": "temp", "sequence": [["mov",1,0]]}',
     '{"id": 1e+300, "ok": true, "length": 1, "optimal": 1}'),
    ('{"id": 12345678901234567890, "moves": [], "model": "swap", "sequence": []}',
     '{"id": 12345678901234567890, "ok": true, "length": 0, "optimal": 0}'),
    ('{"id": {"a": [1, null]}, "moves": [[1,0]], "model": "temp", "sequence": [["mov",1,0]]}',
     '{"id": {"a": [1, null]}, "ok": true, "length": 1, "optimal": 1}'),
    ('{"id": "x", "moves": [[1,0]], "model": "temp", "sequence": "mov"}',
     '{"id": "x", "ok": false, "length": 0, "reason": "\\"sequence\\" must be a list of '
     'operations, not \'mov\'", "optimal": 1}'),
]


def test_golden_verdicts():
    code, out = check(*(request for request, _ in GOLDEN))
    assert out == [answer for _, answer in GOLDEN]
    assert code == 1
    for line in out:
        json.loads(line, parse_constant=pytest.fail)  # strict JSON: no NaN/Infinity


# -- bad input: each class, its exact message, exit 2 --------------------------

M = '"moves": [[1,0]], "model": "temp"'
RANGE = "0..1048576"
BAD_INPUT = [
    # not JSON, or JSON that is not a value RFC 8259 allows
    (b"\xff\xfe", "line is not UTF-8 (invalid start byte at byte 0)"),
    ("not json", "line is not valid JSON: Expecting value at column 1"),
    ('{"id": NaN, %s, "sequence": []}' % M, "line is not valid JSON: NaN is not a JSON value"),
    ('{"id": Infinity, %s, "sequence": []}' % M,
     "line is not valid JSON: Infinity is not a JSON value"),
    ('{"id": -Infinity, %s, "sequence": []}' % M,
     "line is not valid JSON: -Infinity is not a JSON value"),
    ('{"id": 1e999, %s, "sequence": []}' % M,
     "line is not valid JSON: the number 1e999 overflows a double"),
    ('{"id": -1e999, %s, "sequence": []}' % M,
     "line is not valid JSON: the number -1e999 overflows a double"),
    ('{"moves": [[1,0]], "model": "temp", "model": "swap", "sequence": []}',
     'line is not a valid request: the key \\"model\\" appears twice'),
    ("[" * 100_000, "line is not valid JSON: nested too deeply"),
    # not a request
    ("[1, 2]", "a request is a JSON object, got list"),
    ('{%s, "sequence": [], "temp": ["t"]}' % M,
     "unknown field(s) 'temp'; a request has id, moves, model, temps, registers, preserve, "
     "sequence"),
    ('{"model": "temp", "sequence": []}', 'missing \\"moves\\": a list of [dst, src] pairs'),
    ('{"moves": [], "sequence": []}', 'missing \\"model\\": one of temp, swap, permi, spill'),
    ('{"moves": [[1,0]], "model": "temp"}', 'missing \\"sequence\\": the operations to check'),
    ('{"moves": {"1": 0}, "model": "temp", "sequence": []}',
     "\\\"moves\\\" must be a list of [dst, src] pairs, not {'1': 0}"),
    ('{"moves": [], "model": 3, "sequence": []}', '\\"model\\" must be a string, not 3'),
    ('{"moves": [], "model": "stack", "sequence": []}',
     "unknown model 'stack'; choose one of temp, swap, permi, spill"),
    ('{%s, "preserve": true, "sequence": []}' % M,
     '\\"preserve\\" must be \\"all\\" or \\"loops\\", not True'),
    ('{%s, "preserve": "none", "sequence": [["mov",2,0],["mov",1,2]], "registers": 3}' % M,
     'unknown \\"preserve\\" \'none\'; choose \\"all\\" (every location not written keeps '
     'its value) or \\"loops\\" (only destinations and self-moves matter)'),
    ('{%s, "temps": "t", "sequence": []}' % M,
     "\\\"temps\\\" must be a list of locations, not 't'"),
    # register counts and numbers: the one range, the one message
    ('{%s, "registers": 1048577, "sequence": []}' % M,
     f'\\"registers\\" must be a whole number in {RANGE}, not 1048577'),
    ('{%s, "registers": -1, "sequence": []}' % M,
     f'\\"registers\\" must be a whole number in {RANGE}, not -1'),
    ('{%s, "registers": 2.0, "sequence": []}' % M,
     f'\\"registers\\" must be a whole number in {RANGE}, not 2.0'),
    ('{%s, "registers": true, "sequence": []}' % M,
     f'\\"registers\\" must be a whole number in {RANGE}, not True'),
    ('{"moves": [[1048576,0]], "model": "temp", "sequence": []}',
     "register number 1048576 is out of range 0..1048575"),
    ('{"moves": [[-1,0]], "model": "temp", "sequence": []}',
     "register number -1 is out of range 0..1048575"),
    ('{"moves": [[4,0]], "model": "temp", "registers": 4, "sequence": []}',
     "move r4 <- r0 names r4, which is outside the declared register file r0..r3"),
    ('{"moves": [[0,0]], "model": "temp", "registers": 0, "sequence": []}',
     "move r0 <- r0 names r0 but the register file is empty"),
    ('{%s, "registers": 4, "temps": [3], "sequence": []}' % M,
     'temporary r3 lies inside the register file r0..r3; name a location outside it '
     '(e.g. 4 or \\"t\\")'),
    # the parallel move itself
    ('{"moves": [[1,0],[1,2]], "model": "temp", "sequence": []}',
     "destination r1 is written twice: by r1 <- r0 and by r1 <- r2; a parallel move needs "
     "distinct destinations"),
    ('{"moves": [[1,"t"]], "model": "temp", "temps": ["t"], "sequence": []}',
     "temporary t appears in the move r1 <- t; a temporary must be a location the moves "
     "do not name"),
    ('{%s, "temps": ["t", "t"], "sequence": []}' % M, "temporary t is declared twice"),
    ('{"moves": [[1,0,2]], "model": "temp", "sequence": []}',
     "move #0 must be a [dst, src] pair, not [1, 0, 2]"),
    ('{"moves": [[1.0,0]], "model": "temp", "sequence": []}',
     "a location is a register number (int >= 0) or a name (string), not 1.0"),
    ('{"moves": [["",0]], "model": "temp", "sequence": []}',
     "a location name must not be empty"),
]


def test_each_bad_input_class_has_its_exact_message():
    code, out = check(*(line for line, _ in BAD_INPUT))
    assert out == ['{"error": "line %d: %s"}' % (i, message)
                   for i, (_, message) in enumerate(BAD_INPUT, 1)]
    assert code == 2


def test_an_id_is_echoed_on_bad_input_too():
    code, out = check('{"id": 7, "moves": [[1,0]], "model": "temp"}')
    assert (code, out) == (2, ['{"id": 7, "error": "line 1: missing \\"sequence\\": the '
                               'operations to check"}'])


# -- the rule: inside "sequence" is a verdict (exit 1), also through conform --

PERM6 = [["perm", [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]]]]
NOT_PERM = [["perm", [[0, 1], [1, 1]]]]
UNKNOWN_OP = [["jmp", 0, 1]]
MALFORMED_OP = [["mov", 1]]
INSIDE = [
    (PERM6, "operation #0: perm (r0 <- r1, r1 <- r2, r2 <- r3, r3 <- r4, r4 <- r5, "
            "r5 <- r0) permutes 6 locations; one permutation instruction handles at most 5"),
    (NOT_PERM, "operation #0: perm (r0 <- r1, r1 <- r1) is not a permutation: its destinations "
               "must be distinct and be exactly its sources"),
    (UNKNOWN_OP, "operation #0: unknown operation 'jmp'; known: mov, swap, perm, load, store"),
    (MALFORMED_OP, "operation #0: mov takes 2 operand(s), got 1 in ['mov', 1]"),
]


@pytest.mark.parametrize("sequence, reason", INSIDE, ids=["perm6", "not-perm", "unknown", "malformed"])
def test_wrong_inside_the_sequence_is_a_verdict(sequence, reason):
    request = json.dumps({"moves": [[1, 0], [0, 1]], "model": "permi", "sequence": sequence})
    code, out = check(request)
    assert code == 1
    assert out == [json.dumps({"ok": False, "length": 1, "reason": reason, "operation": 0,
                               "optimal": 1})]


def test_a_malformed_request_around_a_good_sequence_is_bad_input():
    request = json.dumps({"moves": [[1, 0], [1, 0]], "model": "swap",
                          "sequence": [["swap", 0, 1]]})
    assert check(request) == (2, [
        '{"error": "line 1: destination r1 is written twice: by r1 <- r0 and by r1 <- r0; '
        'a parallel move needs distinct destinations"}'])


def _constant_client(sequence: list) -> str:
    """A --cmd: a small Python client answering every request with ``sequence``."""
    answer = json.dumps({"sequence": sequence})
    code = f"import sys\nfor line in sys.stdin:\n    print({answer!r}, flush=True)\n"
    return shlex.join([sys.executable, "-c", code])


@pytest.mark.parametrize("sequence, reason", INSIDE, ids=["perm6", "not-perm", "unknown", "malformed"])
def test_conform_reports_the_same_verdict(sequence, reason):
    """Through conform the client's answer gets the verdict ``check`` gives
    (exit 1, in the JSON and the text report), not a protocol break."""
    args = CLI + ["conform", "--cmd", _constant_client(sequence), "--model", "permi",
                  "--registers", "2", "--progress", "never"]
    verdict = {"ok": False, "length": 1, "reason": reason, "operation": 0}
    p = subprocess.run(args + ["--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    assert (report["planned"], report["run"], report["failures"], report["correct"]) == (
        11, 11, 11, 0)
    assert "broken" not in report
    assert report["first_failure"]["verdict"] == verdict
    assert report["smallest_failure"]["verdict"] == verdict
    assert report["smallest_failure"]["request"] == {
        "moves": [], "model": "permi", "temps": [], "registers": 1}
    text = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert text.returncode == 1
    assert f"  verdict: {json.dumps(verdict)}" in text.stdout.splitlines()
    assert text.stdout.splitlines()[-1] == "result: FAIL: wrong answers (exit 1)"
