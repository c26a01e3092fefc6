"""The named states of the SSRA allocator, table-driven: for each state a
minimal program (found by exhaustive search over tapes of <= 6 operations
and random search beyond, with 2 or 3 registers) that reaches it, the
operation at which it is reached, and the code the allocator emits for
that operation, in forward order.  Each program's whole allocation must
pass the checker (strict mode).

The 18 two-input states are ``TwoInputState``'s first 18 members (output
in R(egister)/M(emory) x lhs R/M/U(nassigned) x rhs R/M/U); the six
``*_SAME_*`` states are the repeated input ``$x = OP($y, $y)``; the unary
and nullary states and ``DEAD`` (an output never used) complete the
picture.  The table is printed in the issue report (``python -m
tests.test_ssra_states`` prints it)."""

from __future__ import annotations

import pytest

from verified import ssra
from verified.cases import STATE_EXAMPLES

#: The code the allocator emits for the operation of each
#: ``STATE_EXAMPLES`` program, in forward order.
EXPECTED_CODE = {
    'R_RR': ['r0 = FOO(r1, r2)'],
    'R_RM': ['STORE(r0, mem + 0)', 'r0 = FOO(r1, r0)'],
    'R_RU': ['r1 = FOO(r0, r1)'],
    'R_MR': ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r1)'],
    'R_MM': ['STORE(r0, mem + 1)', 'STORE(r1, mem + 0)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 2)'],
    'R_MU': ['STORE(r1, mem + 0)', 'r0 = FOO(r1, r0)', 'r1 = LOAD(mem + 1)'],
    'R_UR': ['r1 = FOO(r1, r0)'],
    'R_UM': ['STORE(r1, mem + 0)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 1)'],
    'R_UU': ['r0 = FOO(r0, r1)'],
    'M_RR': ['STORE(r1, mem + 1)', 'r1 = FOO(r1, r0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'M_RM': ['STORE(r0, mem + 0)', 'STORE(r1, mem + 2)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 1)', 'STORE(r1, mem + 1)', 'r1 = LOAD(mem + 2)'],
    'M_RU': ['STORE(r0, mem + 1)', 'r1 = FOO(r0, r1)', 'r0 = LOAD(mem + 0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'M_MR': ['STORE(r0, mem + 2)', 'STORE(r1, mem + 0)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 1)', 'STORE(r1, mem + 1)', 'r1 = LOAD(mem + 2)'],
    'M_MM': ['STORE(r1, mem + 0)', 'STORE(r0, mem + 1)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 2)', 'STORE(r0, mem + 2)', 'r0 = LOAD(mem + 3)'],
    'M_MU': ['STORE(r1, mem + 0)', 'r0 = FOO(r1, r0)', 'r1 = LOAD(mem + 1)', 'STORE(r0, mem + 1)', 'r0 = LOAD(mem + 2)'],
    'M_UR': ['STORE(r0, mem + 1)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'M_UM': ['STORE(r1, mem + 1)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 0)', 'STORE(r0, mem + 0)', 'r0 = LOAD(mem + 2)'],
    'M_UU': ['r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 0)', 'STORE(r0, mem + 0)', 'r0 = LOAD(mem + 1)'],
    'R_SAME_R': ['r1 = FOO(r0, r0)'],
    'R_SAME_M': ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r0)'],
    'R_SAME_U': ['r0 = FOO(r0, r0)'],
    'M_SAME_R': ['STORE(r1, mem + 1)', 'r1 = FOO(r1, r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'M_SAME_M': ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r0)', 'STORE(r0, mem + 1)', 'r0 = LOAD(mem + 2)'],
    'M_SAME_U': ['r1 = FOO(r1, r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'NONARY_M': ['r1 = BAR()', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'NONARY_R': ['r0 = BAR()'],
    'UNARY_M_M': ['STORE(r1, mem + 1)', 'r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 2)'],
    'UNARY_M_R': ['STORE(r1, mem + 1)', 'r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'UNARY_M_U': ['r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)'],
    'UNARY_R_M': ['STORE(r0, mem + 0)', 'r0 = NEG(r0)'],
    'UNARY_R_R': ['r1 = NEG(r0)'],
    'UNARY_R_U': ['r0 = NEG(r0)'],
    'DEAD': [],
}

STATE_TABLE = [(state, registers, text, index, EXPECTED_CODE[state])
               for state, registers, text, index in STATE_EXAMPLES]


def _run(state, registers, text, index):
    tape = ssra.parse_tape(text)
    trace: list = []
    allocation = ssra.allocate(tape, registers, trace=trace)
    by_index = {i: (s, ops) for i, s, ops in trace}
    return tape, allocation, by_index


@pytest.mark.parametrize("state, registers, text, index, code", STATE_TABLE,
                         ids=[row[0] for row in STATE_TABLE])
def test_state(state, registers, text, index, code):
    tape, allocation, by_index = _run(state, registers, text, index)
    reached, ops = by_index[index]
    assert reached == state
    assert [ssra.format_asm(tape, registers, o) for o in ops] == code
    verdict = ssra.check(tape, allocation, registers, strict=True)
    assert verdict.ok, (verdict.line, verdict.reason)


def test_table_covers_every_state():
    two_input = {s.name for s in ssra.TwoInputState}
    assert len([s for s in two_input if "SAME" not in s]) == 18
    unary = {f"UNARY_{o}_{i}" for o in "RM" for i in "RMU"}
    nullary = {"NONARY_R", "NONARY_M"}
    assert {row[0] for row in STATE_TABLE} == two_input | unary | nullary | {"DEAD"}
    assert len(STATE_TABLE) == len({row[0] for row in STATE_TABLE})
    assert set(EXPECTED_CODE) == {row[0] for row in STATE_TABLE}


def markdown_table() -> str:
    lines = ["| state | N | program (reached at) | code emitted |", "|---|---|---|---|"]
    for state, registers, text, index, code in STATE_TABLE:
        tape = ssra.parse_tape(text)
        program = "; ".join(tape.format_op(op) for op in tape.ops)
        lines.append(f"| {state} | {registers} | {program} (at `{tape.format_op(tape.ops[index])}`) | "
                     + ("<br>".join(f"`{c}`" for c in code) or "(nothing: dead)") + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
