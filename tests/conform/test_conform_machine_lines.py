"""conform --machine's reading of answer lines: a line written the usual
way is read from the texts of its operations (``MachineType.
_ops_of_pieces``), each read alone once; what it gives (the run judged
against each case: length, final state, cost; or none) must be what
decoding the whole line and reading its sequence gives, on generated
answers (our resolver's, on the x86-64 and armv7-vfp small machines) and
on tricky lines."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified.algorithms import solve_machine
from verified.cases import machines as gen
from verified.core import machine as M
from verified.core.semantics import PreconditionError
from verified.tools.conform.checker import decode_answer
from verified.tools.conform.machines import MachineType


def machine_type(preset: str) -> MachineType:
    m, temps = gen.small_machine(M.preset(preset))
    return MachineType.on(m, temps)


TYPES = {p: machine_type(p) for p in ("x86-64", "armv7-vfp")}


def long_way(ct: MachineType, line: bytes) -> tuple | None:
    """The run of a line decoded whole (``decode_answer``,
    ``read_machine_sequence``), as ``_run_of`` did before it read pieces."""
    obj = decode_answer(line)
    if type(obj) is dict and len(obj) == 1 and "sequence" in obj:
        ops = M.read_machine_sequence(ct.machine, obj["sequence"])
        if type(ops) is list:
            return (len(ops), M.execute(ct.machine, ops), M.cost(ct.machine, ops))
    return None


def answers(preset: str, every: int) -> list[bytes]:
    """Our resolver's answers to every ``every``-th case of the typed
    exhaustive run of at most 2 moves, as lines."""
    ct = TYPES[preset]
    m = ct.machine
    space = gen.typed_space(m)
    places = gen.typed_sites(m, space, ct.temps)
    out = []
    for case in list(gen.typed_exhaustive_cases(m, places, space, 2))[::every]:
        try:
            ops = solve_machine("resolve", ct.move(case), "all")
        except PreconditionError:
            continue
        out.append(json.dumps({"sequence": [op.to_json() for op in ops]}).encode())
    return out


ANSWERS = {p: answers(p, 41) for p in TYPES}

#: lines read from their pieces (each operation a text of its own, decided
#: there: legal operations, or one that is no legal operation)
_SHORT_WAY = [
    b'{"sequence": []}', b'{"sequence": [["mov", "rax", "rcx"]]}',
    b'{"sequence": [["swap", "rax", "rcx"], ["mov", "m0", {"imm": 7}]]}',
    b'{"sequence": [["mov", "m0", "m1"]]}',            # no slot-to-slot mov: a verdict
    b'{"sequence": [["mov", "rax", "nope"], ["mov", "rax", "rcx"]]}',  # unknown name
    b'{"sequence": [["mov", "rax"]]}', b'{"sequence": [[]]}', b'{"sequence": [[1], [2]]}',
    b'{"sequence": [["push", "rax"], ["pop", "rcx"]]}', b'{"sequence": [["pop", "rcx"]]}',
    b'{"sequence": [["mov", "xmm15", "mw0", "v128"], ["mov", "mw1", "xmm15", "v128"]]}',
    b'{"sequence": [[ "mov","rax","rcx" ]]}', b'{"sequence": [["mov", "r\\u0061x", "rcx"]]}',
]
#: lines left to the decoder: a separator inside a string, a pair operand
#: (its "], [" cuts the operation), a second field, a duplicate key,
#: another spacing, invalid JSON or UTF-8 in a piece, NaN, a trailing space,
#: another end or start
_LONG_WAY = [
    b'{"sequence": [["mov", "], [", "rax"]]}',
    b'{"sequence": [["mov", ["rax", "rcx"], ["rcx", "rdx"]]]}',
    b'{"sequence": [["mov", "rax", "rcx"]], "x": [[1]]}',
    b'{"sequence": [["mov", "rax", "rcx"]], "sequence": [[]]}',
    b'{"sequence": [["mov", "rax", "rcx"] , ["mov", "rcx", "rdx"]]}',
    b'{"sequence": [["mov", "rax", "rcx"]]]}', b'{"sequence": [["mov", "\xff", "rax"]]}',
    b'{"sequence": [["mov", "rax", {"imm": NaN}]]}',
    b'{"sequence": [["mov", "rax", {"imm": 1, "imm": 2}]]}',
    b'{"sequence": [["mov", "rax", "rcx"]]} ', b'{"unsupported": "no"}', b"[", b"",
    b'{"sequence": [["mov", "rax", "rcx"]]x', b'{"sequencX": [["mov", "rax", "rcx"]]}',
]
_TRICKY = _SHORT_WAY + _LONG_WAY


def fresh(ct: MachineType) -> None:
    ct._line_memo.clear()
    ct._op_text.clear()


@pytest.mark.parametrize("preset", sorted(TYPES))
def test_pieces_read_what_the_decoder_reads(preset):
    """Every generated answer and tricky line: ``_run_of`` (from pieces,
    texts learnt or not) gives what decoding the whole line gives."""
    ct = TYPES[preset]
    fresh(ct)
    lines = ANSWERS[preset] + _TRICKY
    assert len(ANSWERS[preset]) > 100
    for line in lines:
        want = long_way(ct, line)
        assert ct._run_of(line) == want, line
        ct._line_memo.clear()
        assert ct._run_of(line) == want, line  # its operation texts known now


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ANSWERS["x86-64"][:60] + _TRICKY), min_size=1, max_size=6),
       st.booleans())
def test_pieces_in_any_order(lines, forget):
    """Lines read in any order, with the texts forgotten or not: the same."""
    ct = TYPES["x86-64"]
    for line in lines:
        if forget:
            fresh(ct)
        ct._line_memo.clear()
        assert ct._run_of(line) == long_way(ct, line)


def test_the_usual_lines_go_the_short_way():
    """Generated answers and the short-way lines are read from pieces (else
    the tests above compare the decoder with itself); the others are not,
    also once their texts are known."""
    ct = TYPES["x86-64"]
    for _ in range(2):
        assert all(ct._ops_of_pieces(line) is not None for line in ANSWERS["x86-64"])
        assert [line for line in _TRICKY if ct._ops_of_pieces(line) is not None] == _SHORT_WAY
