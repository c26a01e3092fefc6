"""`verified conform` against a real implementation not written in Python
(tests/clients/shuf_client.c, compiled here), its deliberately broken build,
and tiny misbehaving programs: every way a protocol partner can fail must be
reported, with the right exit status, and never hang us."""

from __future__ import annotations

import json
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified import conform as C
from verified.oracle import implements
from verified.semantics import ParallelMove, PreconditionError, sequence

try:
    from tests.test_conform_support import compile_client, conform_json, py_cmd, verified
except ImportError:  # tests/ is not a package here
    from test_conform_support import compile_client, conform_json, py_cmd, verified


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return compile_client(tmp_path_factory.mktemp("client"))


@pytest.fixture(scope="module")
def broken_client(tmp_path_factory):
    return compile_client(tmp_path_factory.mktemp("client"), broken=True)


# ---------------------------------------------------------------------------
# The C client: passes exhaustively; its broken build is caught and shrunk
# ---------------------------------------------------------------------------


def test_c_client_passes_exhaustively_up_to_6_registers(client):
    code, r, _ = conform_json("--cmd", str(client), "--model", "swap",
                              "--registers", "6", "--exhaustive", "--optimal")
    assert code == 0, r
    assert r["run"] == r["planned"] == C.exhaustive_count(6) == 126_125
    assert r["correct"] == r["run"] and r["failures"] == 0
    # the shuffler is optimal in the swap model: every gap is 0
    assert r["gap_to_optimum"] == {"0": 126_125}


@pytest.mark.parametrize("model, n", [("temp", 5), ("permi", 4)])
def test_c_client_other_models(client, model, n):
    code, r, _ = conform_json("--cmd", str(client), "--model", model,
                              "--registers", str(n), "--optimal")
    assert code == 0, r
    assert r["failures"] == 0 and r["run"] == C.exhaustive_count(n)
    if model == "temp":  # three movs per swap: correct, visibly not optimal
        assert r["temps"] == ["t"]
        assert any(int(k) > 0 for k in r["gap_to_optimum"])


def test_broken_c_client_is_caught_with_the_smallest_counterexample(client, broken_client):
    code, r, _ = conform_json("--cmd", str(broken_client), "--model", "swap",
                              "--registers", "5", "--exhaustive")
    assert code == 1
    assert r["failures"] > 0
    small = r["smallest_failure"]
    assert small["fails_alone"] is True
    req = small["request"]
    # nothing with fewer registers fails (the run was exhaustive over 1..5),
    # and the planted bug needs a cycle whose value also feeds a blade, or a
    # cycle of length 3: 3 registers, 3 moves
    assert req["registers"] == 3 and len(req["moves"]) == 3
    # the reported answer really is wrong, by the oracle, independently
    pm = ParallelMove.make(req["moves"], req["registers"], req["temps"])
    ops = sequence(json.loads(small["answer"])["sequence"])
    assert not implements(pm, ops, "swap").ok
    # ... and the correct build gets the same case right
    code_ok, r_ok, _ = conform_json("--cmd", str(client), "--model", "swap",
                                    "--registers", "3")
    assert code_ok == 0 and r_ok["failures"] == 0


def test_broken_c_client_random_cases_shrink(broken_client):
    code, r, _ = conform_json("--cmd", str(broken_client), "--model", "swap",
                              "--registers", "12", "--random", "500", "--seed", "1")
    assert code == 1
    first = r["first_failure"]["request"]
    small = r["smallest_failure"]
    assert first["registers"] == 12
    assert small["shrink_steps"] > 0
    assert small["request"]["registers"] <= 3
    assert len(small["request"]["moves"]) <= 3


def test_text_report_shows_counterexample(broken_client):
    proc = verified("conform", "--cmd", str(broken_client), "--model", "swap",
                    "--registers", "4", "--progress", "never")
    assert proc.returncode == 1
    out = proc.stdout
    assert "smallest failing case" in out and "counterexample" in out
    assert "result: FAIL: wrong answers (exit 1)" in out


def test_pool_and_inline_checking_agree(broken_client):
    a = conform_json("--cmd", str(broken_client), "--model", "swap", "--registers", "5",
                     "--jobs", "2", "--no-shrink")[1]
    b = conform_json("--cmd", str(broken_client), "--model", "swap", "--registers", "5",
                     "--jobs", "1", "--no-shrink")[1]
    assert a["failures"] == b["failures"] > 0
    assert a["first_failure"] == b["first_failure"]
    assert a["correct"] == b["correct"]


# ---------------------------------------------------------------------------
# Misbehaving programs: each reported as such, with the case, exit 2
# ---------------------------------------------------------------------------

#: A correct Python solver that misbehaves on request number K (0-based).
MISBEHAVE = """
import json, os, signal, sys, time
from verified.semantics import ParallelMove
from verified.shuf import shuf
mode, k = {mode!r}, {k}
for i, line in enumerate(sys.stdin):
    if i == k:
        if mode == "hang": time.sleep(600)
        if mode == "crash": os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "exit": sys.exit(0)
        if mode == "garbage": print("hello, world", flush=True); continue
        if mode == "traceback": raise ValueError("boom")
        if mode == "extra": print('{{"sequence": []}}', flush=True)
    r = json.loads(line)
    pm = ParallelMove.make(r["moves"], r["registers"], r["temps"])
    print(json.dumps({{"sequence": [o.to_json() for o in shuf(pm)]}}), flush=True)
"""


@pytest.mark.parametrize("mode, kind, needle", [
    ("hang", "timeout", "no answer to case #5 within 1 s"),
    ("crash", "crash", "was killed by SIGSEGV after 5 of"),
    ("traceback", "crash", "exited with status 1 after 5 of"),
    ("exit", "exited early", "exited with status 0 after 5 of"),
    ("garbage", "garbage", "answer is not JSON: b'hello, world'"),
])
def test_misbehaving_program_is_reported(mode, kind, needle):
    code, r, _ = conform_json("--cmd", py_cmd(MISBEHAVE.format(mode=mode, k=5)),
                              "--model", "swap", "--registers", "3", "--timeout", "1",
                              timeout=60)
    assert code == 2
    b = r["broken"]
    assert b["kind"] == kind and needle in b["message"], b
    assert b["case"] == 5
    assert b["request"] == json.loads(C.Config("swap").request_line(
        list(C.exhaustive_cases(3))[5]))
    assert r["run"] == 5 and r["correct"] == 5 and r["failures"] == 0
    # it misbehaves on its 6th request, not on that case: not reproduced alone
    assert b["reproduced_alone"] is False
    if mode == "traceback":
        assert "ValueError: boom" in b["stderr"]


def test_program_printing_an_extra_answer_is_reported():
    code, r, _ = conform_json("--cmd", py_cmd(MISBEHAVE.format(mode="extra", k=2)),
                              "--model", "swap", "--registers", "2", "--timeout", "2",
                              timeout=60)
    assert code in (1, 2)  # the extra line shifts every later answer by one
    assert r.get("broken", {}).get("kind") == "extra output" or r["failures"] > 0


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


def test_program_that_cannot_start():
    code, r, _ = conform_json("--cmd", "/nonexistent/solver --json", "--model", "swap",
                              "--registers", "2")
    assert code == 2 and r["broken"]["kind"] == "cannot start"


@pytest.mark.parametrize("args", [
    ["--registers", "0"],
    ["--registers", "9", "--exhaustive"],
    ["--temps", "1", "--registers", "3"],  # r1 is inside the register file
    ["--random", "-1"],
])
def test_bad_use_exits_2(args):
    proc = verified("conform", "--cmd", "true", "--model", "swap", *args)
    assert proc.returncode == 2
    assert "error" in proc.stderr and "Traceback" not in proc.stderr


def test_stateful_wrong_answer_is_flagged_as_not_reproducible():
    # answers correctly except the 4th request it ever sees: empty sequence
    code_ = MISBEHAVE.replace('if mode == "extra"', 'if mode == "empty": print(\'{{"sequence": []}}\', flush=True); continue\n        if mode == "extra"')
    code, r, _ = conform_json("--cmd", py_cmd(code_.format(mode="empty", k=3)),
                              "--model", "swap", "--registers", "2", timeout=60)
    assert code == 1
    assert r["failures"] == 1
    assert r["smallest_failure"]["fails_alone"] is False


# ---------------------------------------------------------------------------
# Refusals: {"error"} is right exactly when no sequence exists
# ---------------------------------------------------------------------------

REFUSE_ALL = "import sys\nfor line in sys.stdin: print('{\"error\": \"no\"}', flush=True)"


def test_refusing_everything_fails_when_solutions_exist():
    code, r, _ = conform_json("--cmd", py_cmd(REFUSE_ALL), "--model", "swap",
                              "--registers", "2")
    assert code == 1
    assert r["failures"] == C.exhaustive_count(2)
    assert "refused a case that has a solution" in r["first_failure"]["verdict"]["reason"]


def test_refusing_an_unsolvable_temp_case_is_right():
    # temp model, no temporary: r0 <-> r1 (a bare cycle) has no sequence
    code, r, _ = conform_json("--cmd", py_cmd(REFUSE_ALL), "--model", "temp",
                              "--temps", "--registers", "2", "--no-shrink")
    assert code == 1  # the solvable ones are still wrong to refuse
    assert r["refused_unsolvable"] == 1
    assert r["failures"] == C.exhaustive_count(2) - 1


# ---------------------------------------------------------------------------
# Case generation, request encoding, the memoised operation parser
# ---------------------------------------------------------------------------


def test_exhaustive_cases_are_all_distinct_valid_moves():
    cases = list(C.exhaustive_cases(4))
    assert len(cases) == len(set(cases)) == C.exhaustive_count(4) == 2 + 9 + 64 + 625
    for c in cases:  # conform builds ParallelMove directly: it must be valid
        ParallelMove.make(c.moves, c.registers, ())


@pytest.mark.parametrize("seed", range(5))
def test_random_cases_are_valid_deterministic_and_cover_cycles(seed):
    cases = C.random_cases(10, 300, seed)
    assert cases == C.random_cases(10, 300, seed)
    for c in cases:
        ParallelMove.make(c.moves, c.registers, ("t",))
    # some have a cycle of length >= 3
    from verified.graph import analyse
    assert any(any(len(w.cycle) >= 3 for w in analyse(ParallelMove.make(c.moves, 10)).windmills)
               for c in cases)


@pytest.mark.parametrize("temps, preserve", [((), "all"), (("t",), "all"), ((16, "x"), "loops")])
def test_fast_request_line_is_json_dumps(temps, preserve):
    cfg = C.Config("temp", temps, preserve)
    for case in C.random_cases(8, 50, 0) + list(C.exhaustive_cases(2)):
        line = cfg.request_line(case)
        assert line == (json.dumps(cfg.request(case)) + "\n").encode()


def test_shrink_candidates_are_strictly_smaller():
    rng = random.Random(0)
    for _ in range(200):
        case = C.random_case(rng, rng.randint(1, 8))
        for cand in C.shrink_candidates(case):
            assert cand.size < case.size
            ParallelMove.make(cand.moves, cand.registers)


_operand = st.one_of(st.integers(-3, 2**31 + 3), st.booleans(), st.floats(allow_nan=False),
                     st.sampled_from(["r1", "r01", "t", "", "rax"]), st.none())
_op = st.one_of(
    st.tuples(st.sampled_from(["mov", "swap", "load", "store", "perm", "MOV"]), _operand, _operand).map(list),
    st.lists(_operand, max_size=4),
    st.just(["perm", [[0, 1], [1, 0]]]),
    _operand,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_op, max_size=6))
def test_memoised_parse_is_semantics_sequence(seq):
    """The memo must return exactly what semantics.sequence returns, and fail
    exactly when it fails (with the same message): True is not 1, 1.0 is not
    1."""
    try:
        want = sequence(seq)
    except PreconditionError as e:
        with pytest.raises(PreconditionError) as got:
            C.parse_sequence(seq)
        assert str(got.value) == str(e)
        return
    assert C.parse_sequence(seq) == want
    assert C.parse_sequence(seq) == want  # and again, from the memo


def test_memo_keeps_types_apart():
    assert C.parse_sequence([["mov", 1, 0]])
    with pytest.raises(PreconditionError):
        C.parse_sequence([["mov", True, 0]])
    with pytest.raises(PreconditionError):
        C.parse_sequence([["mov", 1.0, 0]])


def test_check_answer_classifies():
    cfg = C.Config("swap")
    case = C.Case(2, ((0, 1), (1, 0)))
    assert C.check_answer(cfg, case, b'{"sequence": [["swap", 0, 1]]}') == (C.OK, None)
    kind, detail = C.check_answer(cfg, case, b'{"sequence": [["mov", 0, 1]]}')
    assert kind == C.WRONG and detail["counterexample"]["location"] == 1
    assert C.check_answer(cfg, case, b'{"sequence": [["xchg", 0, 1]]}')[0] == C.WRONG
    assert C.check_answer(cfg, case, b'{"sequence": "swap"}')[0] == C.WRONG
    assert C.check_answer(cfg, case, b'[1]')[0] == C.GARBAGE
    assert C.check_answer(cfg, case, b'\xff\xfe')[0] == C.GARBAGE
    assert C.check_answer(cfg, case, b'{"ok": true}')[0] == C.GARBAGE
    # a swap is not a temp-model operation
    assert C.check_answer(C.Config("temp", ("t",)), case,
                          b'{"sequence": [["swap", 0, 1]]}')[0] == C.WRONG
    assert C.check_answer(C.Config("temp", ("t",), optimal=True), case,
                          b'{"sequence": [["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]}'
                          ) == (C.OK, 0)
