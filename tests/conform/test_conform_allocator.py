"""`verified conform --allocator`: SSA tapes out, allocated programs back,
each judged by the allocation checker (verified.ssra.check).  Our own
allocator passes (in-process, and through the `verified ssra alloc`
command); every mutant allocator of mutants/ssra.py is caught, as a wrong
allocation (exit 1), with a shrunk tape that still fails."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from verified import cases, ssra
from verified.tools.conform import tapes

import mutants.ssra as catalogue

from tests.support import conform_json, py_cmd

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "ssra_client.py"


def allocator(*args: str) -> str:
    return shlex.join([sys.executable, str(CLIENT), *args])


def test_exhaustive_tapes_count_and_validity():
    every = list(cases.exhaustive_tapes(4, 2))
    assert len(every) == cases.exhaustive_tape_count(4) == 1 + 3 + 21 + 273
    assert len({c.ops for c in every}) == len(every)
    for c in every:
        tape = ssra.parse_tape("\n".join(c.lines()))
        assert tapes.case_of(tape, 2) == c
    # repeated inputs and dead values are in there
    assert any(args and args[0] == args[-1] and len(args) == 2
               for c in every for _, _, args in c.ops)
    assert any(not all(ssra.parse_tape("\n".join(c.lines())).live()) for c in every)


def test_every_named_state_is_sent_on_its_register_count():
    states = tapes.state_cases()
    assert [(c.registers, c.lines()) for c in states] == [
        (n, text.splitlines()) for _, n, text, _ in cases.STATE_EXAMPLES]


def test_tape_shrink_candidates_are_smaller_valid_tapes():
    import random
    rng = random.Random(0)
    for _ in range(100):
        case = cases.random_tape(rng, 3)
        for cand in cases.shrink_tape_candidates(case):
            assert cand.size < case.size and cand.registers == case.registers
            ssra.parse_tape("\n".join(cand.lines()))  # still a tape


def test_our_allocator_passes_exhaustively():
    code, r, _ = conform_json("--allocator", "--cmd", allocator(), "--registers", "3")
    assert code == 0, r
    assert r["run"] == r["planned"] == 2 * 6031 + len(cases.STATE_EXAMPLES)
    assert r["correct"] == r["run"]
    assert r["cases"] == ("every tape of <= 5 operations on 2..3 registers, and the 33 "
                          "named allocator states")


def test_our_allocator_passes_random_tapes():
    code, r, _ = conform_json("--allocator", "--cmd", allocator(), "--registers", "4",
                              "--random", "3000", "--seed", "7")
    assert code == 0 and r["run"] == 3000


def test_the_ssra_alloc_command_passes():
    """The self-test through `verified ssra alloc TAPE --registers N --json`
    itself, one process per tape (slow, so a few random tapes)."""
    code, r, _ = conform_json("--allocator", "--cmd", allocator("--via-cli"),
                              "--registers", "3", "--random", "12", timeout=300)
    assert code == 0 and r["run"] == 12


#: the tape each mutant shrinks to (2 registers): small, and rejected
SHRUNK = {
    "repeated_input_uu": ["$0 = BAR()", "$1 = FOO($0, $0)"],
    "wrong_register_freed": ["$0 = BAR()", "$1 = NEG($0)", "$2 = FOO($0, $1)"],
}


@pytest.mark.parametrize("mutant", catalogue.MUTANTS, ids=lambda m: m.name)
def test_every_mutant_allocator_is_caught_with_a_shrunk_tape(mutant):
    # every tape on 2 registers (6,064 of --registers 3's 12,095): each
    # mutant shrinks to a 2-register tape, the same one on 3 (docs/testing.md)
    code, r, _ = conform_json("--allocator", "--cmd", allocator("--mutant", mutant.name),
                              "--registers", "2")
    assert code == 1 and r["failures"] > 0, mutant.name  # a rejection, not a broken program
    assert "broken" not in r
    s = r["smallest_failure"]
    assert s["fails_alone"]
    if mutant.name in SHRUNK:
        assert s["request"]["tape"] == SHRUNK[mutant.name]
    # the shrunk tape really is mis-allocated by the mutant, and ours is fine
    tape = ssra.parse_tape("\n".join(s["request"]["tape"]))
    n = s["request"]["registers"]
    assert not ssra.check(tape, catalogue.allocate(mutant, tape, n), n).ok
    assert ssra.check(tape, ssra.allocate(tape, n), n).ok
    assert len(s["request"]["tape"]) <= len(s["found_request"]["tape"])


def test_performance_mutants_are_not_wrong():
    """Evicting another register is still a correct allocation: conform must
    not reject it (the write-up's counts do, not the checker)."""
    for m in catalogue.PERFORMANCE_MUTANTS:
        code, r, _ = conform_json("--allocator", "--cmd", allocator("--mutant", m.name),
                                  "--registers", "3", "--random", "500")
        assert code == 0 and r["failures"] == 0, m.name


REPLY = ("import sys, json\nfor line in sys.stdin:\n    print(json.dumps(%s), flush=True)")


@pytest.mark.parametrize("answer, reason", [
    ('{"program": "r0 = BAR()"}', '"program" must be a list of lines (strings without '
     'newlines), not "r0 = BAR()"'),
    ('{"program": ["r0 = BAR"]}', "<answer>:1: expected `rX = OP(rY, rZ)`, "
     "`STORE(rX, mem + k)` or `rX = LOAD(mem + k)`, got 'r0 = BAR'"),
    ('{"program": []}', "the program ends at once (it is empty) with nothing in r0, not "
                        "the result $"),
])
def test_malformed_allocations_are_wrong_not_garbage(answer, reason):
    code, r, _ = conform_json("--allocator", "--cmd", py_cmd(REPLY % answer),
                              "--registers", "2", "--random", "3", "--no-shrink")
    assert code == 1 and r["failures"] == 3
    assert r["first_failure"]["verdict"]["reason"].startswith(reason)


def test_declined_tapes_get_our_allocation_as_witness():
    code, r, _ = conform_json("--allocator", "--cmd", py_cmd(REPLY % '{"unsupported": "no"}'),
                              "--registers", "2", "--random", "5")
    assert code == 1 and r["refusals"] == 5 and r["failures"] == 0
    s = r["refusal_report"]["smallest"]
    tape = ssra.parse_tape("\n".join(s["request"]["tape"]))
    assert ssra.check(tape, "\n".join(s["ours"]), 2).ok
    assert s["ours_from"] == "verified ssra alloc TAPE --registers 2"


def test_allocator_bad_use():
    from tests.support import verified
    for args, message in [
        (["--registers", "1"], "--registers must be a whole number in 2..1048576, not 1 "
                               "(an allocator needs two registers)"),
        (["--optimal"], "--optimal is for parallel moves, not --allocator"),
        (["--shapes"], "--shapes is for parallel moves, not --allocator"),
    ]:
        proc = verified("conform", "--allocator", "--cmd", "true", *args, usage_error=True)
        assert proc.returncode == 2
        assert proc.stderr == f"verified conform: error: {message}\n"


def test_wire_format_example_of_the_docs():
    """docs/conform.md's allocator example, through the checker."""
    ct = tapes.TapeType()
    case = cases.TapeCase(2, (("$0", "BAR", ()), ("$1", "NEG", ("$0",)),
                              ("$2", "FOO", ("$0", "$1"))))
    assert json.loads(ct.encode(case)) == {
        "tape": ["$0 = BAR()", "$1 = NEG($0)", "$2 = FOO($0, $1)"], "registers": 2}
    assert ct.judge(case, ["r0 = BAR()", "r1 = NEG(r0)", "r0 = FOO(r0, r1)"]).ok
    assert not ct.judge(case, ["r0 = BAR()", "r1 = NEG(r0)", "r0 = FOO(r1, r0)"]).ok
