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

#: (state, registers, tape, index of the operation in that state, code
#: emitted for it).
STATE_TABLE = [
    ('R_RR', 3,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n',
     2, ['r0 = FOO(r1, r2)']),
    ('R_RM', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n$4 = FOO($1, $3)\n',
     2, ['STORE(r0, mem + 0)', 'r0 = FOO(r1, r0)']),
    ('R_RU', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n',
     2, ['r1 = FOO(r0, r1)']),
    ('R_MR', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n',
     2, ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r1)']),
    ('R_MM', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($3, $1)\n$5 = FOO($4, $2)\n$6 = FOO($0, $5)\n',
     3, ['STORE(r0, mem + 1)', 'STORE(r1, mem + 0)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 2)']),
    ('R_MU', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($0, $4)\n',
     3, ['STORE(r1, mem + 0)', 'r0 = FOO(r1, r0)', 'r1 = LOAD(mem + 1)']),
    ('R_UR', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n',
     2, ['r1 = FOO(r1, r0)']),
    ('R_UM', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($1, $4)\n',
     3, ['STORE(r1, mem + 0)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 1)']),
    ('R_UU', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n',
     2, ['r0 = FOO(r0, r1)']),
    ('M_RR', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n',
     2, ['STORE(r1, mem + 1)', 'r1 = FOO(r1, r0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('M_RM', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = NEG($1)\n$3 = FOO($2, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($1, $5)\n',
     3, ['STORE(r0, mem + 0)', 'STORE(r1, mem + 2)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 1)', 'STORE(r1, mem + 1)', 'r1 = LOAD(mem + 2)']),
    ('M_RU', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($0, $2)\n$5 = FOO($3, $4)\n',
     3, ['STORE(r0, mem + 1)', 'r1 = FOO(r0, r1)', 'r0 = LOAD(mem + 0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('M_MR', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($2, $1)\n$5 = FOO($4, $3)\n$6 = FOO($0, $5)\n',
     3, ['STORE(r0, mem + 2)', 'STORE(r1, mem + 0)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 1)', 'STORE(r1, mem + 1)', 'r1 = LOAD(mem + 2)']),
    ('M_MM', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $0)\n$3 = BAR()\n$4 = FOO($1, $3)\n$5 = FOO($2, $0)\n$6 = FOO($4, $5)\n$7 = FOO($1, $6)\n$8 = FOO($7, $3)\n',
     4, ['STORE(r1, mem + 0)', 'STORE(r0, mem + 1)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 2)', 'STORE(r0, mem + 2)', 'r0 = LOAD(mem + 3)']),
    ('M_MU', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = FOO($2, $1)\n$4 = FOO($0, $1)\n$5 = FOO($3, $2)\n$6 = FOO($4, $0)\n$7 = FOO($6, $5)\n',
     4, ['STORE(r1, mem + 0)', 'r0 = FOO(r1, r0)', 'r1 = LOAD(mem + 1)', 'STORE(r0, mem + 1)', 'r0 = LOAD(mem + 2)']),
    ('M_UR', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n',
     3, ['STORE(r0, mem + 1)', 'r1 = FOO(r1, r0)', 'r0 = LOAD(mem + 0)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('M_UM', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n$3 = FOO($2, $0)\n$4 = FOO($3, $2)\n$5 = FOO($0, $1)\n$6 = FOO($2, $5)\n$7 = FOO($4, $6)\n',
     4, ['STORE(r1, mem + 1)', 'r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 0)', 'STORE(r0, mem + 0)', 'r0 = LOAD(mem + 2)']),
    ('M_UU', 2,
     '$0 = BAR()\n$1 = NEG($0)\n$2 = BAR()\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n$5 = FOO($1, $2)\n$6 = FOO($5, $4)\n',
     4, ['r0 = FOO(r0, r1)', 'r1 = LOAD(mem + 0)', 'STORE(r0, mem + 0)', 'r0 = LOAD(mem + 1)']),
    ('R_SAME_R', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n',
     1, ['r1 = FOO(r0, r0)']),
    ('R_SAME_M', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n',
     2, ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r0)']),
    ('R_SAME_U', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n',
     1, ['r0 = FOO(r0, r0)']),
    ('M_SAME_R', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n',
     2, ['STORE(r1, mem + 1)', 'r1 = FOO(r1, r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('M_SAME_M', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($1, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($5, $1)\n',
     3, ['STORE(r0, mem + 0)', 'r0 = FOO(r0, r0)', 'STORE(r0, mem + 1)', 'r0 = LOAD(mem + 2)']),
    ('M_SAME_U', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n',
     3, ['r1 = FOO(r1, r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('NONARY_M', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n',
     2, ['r1 = BAR()', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('NONARY_R', 2,
     '$0 = BAR()\n',
     0, ['r0 = BAR()']),
    ('UNARY_M_M', 2,
     '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($4, $0)\n$6 = FOO($3, $5)\n',
     3, ['STORE(r1, mem + 1)', 'r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 2)']),
    ('UNARY_M_R', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n',
     2, ['STORE(r1, mem + 1)', 'r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('UNARY_M_U', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n',
     3, ['r1 = NEG(r1)', 'STORE(r1, mem + 0)', 'r1 = LOAD(mem + 1)']),
    ('UNARY_R_M', 2,
     '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n',
     2, ['STORE(r0, mem + 0)', 'r0 = NEG(r0)']),
    ('UNARY_R_R', 2,
     '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $1)\n',
     1, ['r1 = NEG(r0)']),
    ('UNARY_R_U', 2,
     '$0 = BAR()\n$1 = NEG($0)\n',
     1, ['r0 = NEG(r0)']),
    ('DEAD', 2,
     '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $0)\n',
     1, []),
]


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
