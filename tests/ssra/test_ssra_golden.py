"""Golden allocations: the allocator's exact output where a mistake would
keep every allocation correct (the checker cannot see it) but cost memory,
so only the exact code and counts catch it."""

from __future__ import annotations

import pytest

from verified import ssra

# $3 = FOO($1, $1) with $1 in memory: the SAME M state.  Its slot is freed
# after the store, so the earlier spill of $1 reuses slot 1 (two slots in
# all); a leaked slot makes it mem + 2 (found by make mutation: deleting
# that release_mem survived every other test).
SAME_M_REUSE = ("$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($1, $1)\n"
                "$4 = FOO($0, $3)\n$5 = FOO($1, $4)\n$6 = FOO($5, $2)\n")


def test_same_m_frees_its_memory_slot():
    tape = ssra.parse_tape(SAME_M_REUSE)
    allocation = ssra.allocate(tape, 2)
    assert allocation.lines() == [
        "r0 = BAR()",
        "STORE(r0, mem + 1)",
        "r0 = BAR()",
        "r1 = BAR()",
        "STORE(r1, mem + 0)",
        "r1 = LOAD(mem + 1)",
        "STORE(r0, mem + 1)",
        "r0 = FOO(r0, r0)",
        "r1 = FOO(r1, r0)",
        "r0 = LOAD(mem + 1)",
        "r0 = FOO(r0, r1)",
        "r1 = LOAD(mem + 0)",
        "r0 = FOO(r0, r1)",
    ]
    assert allocation.counts() == {
        "registers": 2, "loads": 3, "stores": 3, "memory_slots": 2, "highest_offset": 1,
        "registers_used": 2, "operations": 7}
    assert ssra.check(tape, allocation, 2, strict=True).ok


def test_parsed_allocated_lines_are_exact():
    """``parse_allocated`` (public, exported as ``ssra.AsmLine``): a load or
    store names its register and slot; an operation its result register,
    its name and its arguments (registers and literals in source order),
    and no slot (-1)."""
    lines = ssra.parse_allocated("r1 = LOAD(mem + 2)\nSTORE(r0, mem + 3);\n"
                                 "# a comment\n\nr0 = FOO(r1, 2.5, r0)\n")
    assert lines == [
        ssra.AsmLine("load", 1, reg=1, slot=2),
        ssra.AsmLine("store", 2, reg=0, slot=3),
        ssra.AsmLine("op", 5, reg=0, slot=-1, name="FOO", args=(1, "2.5", 0)),
    ]
    assert ssra.AsmLine("op", 1).slot == -1 and ssra.AsmLine("op", 1).reg == -1


NEG_TAPE = "$0 = BAR()\n$1 = NEG($0)\n"


def test_checker_verdicts_are_exact():
    """Each rejection names the line and the reason, in both modes."""
    tape = ssra.parse_tape(NEG_TAPE)
    cases = [
        ("r0 = BAR()\nr0 = NEG(r1)\n", 2, "NEG reads r1 before any value was written to it"),
        ("r0 = BAR()\nr1 = LOAD(mem + 0)\nr0 = NEG(r1)\n", 2,
         "r1 = LOAD(mem + 0) reads mem + 0 before anything was stored there"),
        ("r0 = BAR()\nr0 = NEG(r2)\n", 2,
         "uses r2 but the machine has only 2 registers (r0..r1)"),
    ]
    for program, line, reason in cases:
        for strict in (False, True):
            assert ssra.check(tape, program, 2, strict=strict) == ssra.Verdict(
                False, reason, line)
    ok = ssra.check(tape, "r0 = BAR()\nr0 = NEG(r0)\n", 2)
    assert ok.ok and ok.to_json() == {
        "ok": True, "registers": 2, "loads": 0, "stores": 0, "memory_slots": 0,
        "highest_offset": -1, "registers_used": 1, "operations": 2}


def test_an_allocator_runs_only_once():
    from verified.core.semantics import PreconditionError
    from verified.ssra.allocator import RegisterAllocator

    tape = ssra.parse_tape(NEG_TAPE)
    allocator = RegisterAllocator(2)
    first = allocator.run(tape)
    with pytest.raises(PreconditionError) as e:
        allocator.run(tape)
    assert str(e.value) == "a RegisterAllocator runs only once"
    assert first.lines() == ssra.allocate(tape, 2).lines()


def test_state_examples_use_the_fewest_registers():
    """``cases.STATE_EXAMPLES`` says how many registers each program needs
    to reach its state: 2 (the allocator's minimum), or else with one fewer
    the operation is reached in another state."""
    from verified.cases import STATE_EXAMPLES

    def state_at(text: str, registers: int, index: int) -> str:
        trace: list = []
        ssra.allocate(ssra.parse_tape(text), registers, trace=trace)
        return {i: s for i, s, _ in trace}[index]

    for state, registers, text, index in STATE_EXAMPLES:
        assert registers >= 2 and state_at(text, registers, index) == state, state
        if registers > 2:
            assert state_at(text, registers - 1, index) != state, state
    assert sorted({r for _, r, _, _ in STATE_EXAMPLES}) == [2, 3]


def test_the_allocator_invariant_holds_between_steps_and_can_fail():
    """``check_invariant`` after every step of the reverse walk (where
    registers are bound, unlike after the whole run), and on a state with
    one binding broken."""
    from verified.ssra.allocator import INVALID, RegisterAllocator

    tape = ssra.parse_tape(SAME_M_REUSE)
    allocator = RegisterAllocator(2)
    allocator.start(tape)
    bound = 0
    for i in range(len(tape.ops) - 1, -1, -1):
        allocator.step(i, tape.ops[i])
        allocator.check_invariant()
        bound += sum(v != INVALID for v in allocator.registers)
    assert bound > 0
    broken = RegisterAllocator(2)
    broken.start(tape)  # the result is bound to r0
    broken.check_invariant()
    broken.allocations[tape.result] = broken.n + 5  # r0 says the result, it says memory
    with pytest.raises(AssertionError):
        broken.check_invariant()


# ---------------------------------------------------------------------------
# --strict with one operation more than the tape: a rejection, never a crash
# (issue 22's mutation run: the strict check could crash instead)
# ---------------------------------------------------------------------------

STRICT_TAPE = "$0 = input()\n$1 = input()\n$2 = add($0, $1)\n$3 = mul($2, $0)\n"
STRICT_PROGRAM = "r1 = input()\nr0 = input()\nr0 = add(r1, r0)\nr0 = mul(r0, r1)\n"


@pytest.mark.parametrize("extra, verdict", [
    ("r0 = mul(r0, r1)\n",
     '{"ok": false, "line": 5, "reason": "mul($3, $0) is one operation more than '
     'the tape\'s 4 live ones"}'),
    ("r1 = input()\n",
     '{"ok": false, "line": 5, "reason": "input() is one operation more than '
     'the tape\'s 4 live ones"}'),
])
def test_strict_check_rejects_one_operation_more(tmp_path, extra, verdict):
    from tests.support import verified
    tape, program = tmp_path / "t.tape", tmp_path / "t.prog"
    tape.write_text(STRICT_TAPE)
    program.write_text(STRICT_PROGRAM)
    assert ssra.allocate(ssra.parse_tape(STRICT_TAPE), 2).lines() == STRICT_PROGRAM.splitlines()
    ok = verified("ssra", "check", str(tape), str(program), "--registers", "2", "--strict")
    assert (ok.returncode, ok.stderr) == (0, "")
    program.write_text(STRICT_PROGRAM + extra)
    proc = verified("ssra", "check", str(tape), str(program), "--registers", "2", "--strict")
    assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (1, verdict, "")
