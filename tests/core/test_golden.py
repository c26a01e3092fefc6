"""Golden tests of the core's exact behaviour, in process: the text and
JSON of every operation kind, the verdict's JSON (the "operation" index,
the counterexample), the exact precondition messages for register numbers
and counts, the contract names, the value types' equality, hashing and
immutability, and which temporary each temp-model algorithm uses.

Each test here was written against a mutant that survived ``make
mutation`` (``docs/mutation.md`` lists them); "well-formed" is not enough,
the answers are an interface other teams script against."""

from __future__ import annotations

import dataclasses
import enum

import pytest

from verified.algorithms import leroy, windmill
from verified.algorithms import solve
from verified.algorithms.copyset import rtg
from verified.algorithms.optimum import Optimum, optimum
from verified.algorithms.search import search_sequence
from verified.core.graph import TransferGraph, Windmill, analyse
from verified.core.oracle import Verdict, check_contract, implements, read_sequence
from verified.core.semantics import (
    MAX_REGISTER,
    MAX_REGISTERS,
    Load,
    Mov,
    ParallelMove,
    Perm,
    PreconditionError,
    Store,
    Swap,
    check_registers,
    execute,
    format_op,
    location,
    operation,
    reads,
)

# -- every operation kind: text, JSON, parse, reads/writes, semantics ---------

#: (operation, format_op text, JSON form, writes, reads, state after execute)
KINDS = [
    (Mov(1, 0), "mov r1, r0", ["mov", 1, 0], (1,), (0,), {1: 0}),
    (Swap(0, "t"), "swap r0, t", ["swap", 0, "t"], (0, "t"), (0, "t"), {0: "t", "t": 0}),
    (Perm(((1, 0), (0, 2), (2, 1))), "perm (r1 <- r0, r0 <- r2, r2 <- r1)",
     ["perm", [[1, 0], [0, 2], [2, 1]]], (1, 0, 2), (0, 2, 1), {1: 0, 0: 2, 2: 1}),
    (Load(3, "m0"), "r3 = LOAD(m0)", ["load", 3, "m0"], (3,), ("m0",), {3: "m0"}),
    (Store(3, "m0"), "STORE(r3, m0)", ["store", 3, "m0"], ("m0",), (3,), {"m0": 3}),
]


@pytest.mark.parametrize("op, text, js, writes, read, state", KINDS,
                         ids=[k[2][0] for k in KINDS])
def test_every_operation_kind(op, text, js, writes, read, state):
    assert format_op(op) == text
    assert op.to_json() == js
    assert operation(js) == op and type(operation(js)) is type(op)
    assert op.writes() == writes
    assert reads(op) == read
    assert execute([op]) == state


def test_load_and_store_are_not_each_other():
    """Same operands, different kinds: not equal, not printed alike."""
    assert Load(0, "m0") != Store(0, "m0") and Mov(1, 0) != Swap(1, 0)
    assert format_op(Load(0, "m0")) != format_op(Store(0, "m0"))
    assert execute([Store(0, "m0"), Mov(0, 1), Load(0, "m0")]) == {"m0": 0, 0: 0}


# -- the verdict's JSON --------------------------------------------------------


def test_verdict_json_ok():
    v = Verdict(True, 3)
    assert v and v.to_json() == {"ok": True, "length": 3}
    assert list(v.to_json()) == ["ok", "length"]


def test_verdict_json_counterexample_at_location_0():
    v = Verdict(False, 2, reason="why", location=0, expected=1, got="t")
    assert not v
    assert v.to_json() == {"ok": False, "length": 2, "reason": "why",
                           "counterexample": {"location": 0, "expected": "r1", "got": "t"}}
    assert list(v.to_json()) == ["ok", "length", "reason", "counterexample"]


def test_verdict_json_names_the_operation_index_even_0():
    assert Verdict(False, 4, reason="why", op_index=0).to_json() == {
        "ok": False, "length": 4, "reason": "why", "operation": 0}
    assert Verdict(False, 4, reason="why", op_index=3).to_json()["operation"] == 3


def test_illegal_operation_verdict_exact():
    pm = ParallelMove.make([(1, 0), (0, 1)], temps=["t"])
    v = implements(pm, [Mov("t", 0), Swap(0, 1)], "temp")
    assert v == Verdict(False, 2, op_index=1, reason=(
        "operation #1 (swap r0, r1) is not available in the temp model (it has: mov)"))
    v = implements(pm, [Mov("t", 0), Mov(0, 1), Mov(1, "u")], "temp")
    assert v == Verdict(False, 3, op_index=2, reason=(
        "operation #2 (mov r1, u) reads u, which is neither in the register file "
        "nor a declared temporary"))
    v = implements(pm, [Mov("u", 0)], "temp")
    assert v.op_index == 0 and "writes u" in v.reason


def test_read_sequence_verdicts_exact():
    assert read_sequence([["mov", 1, 0], ["load", 0, "m0"]]) == [Mov(1, 0), Load(0, "m0")]
    assert read_sequence([["mov", 1, 0], ["xchg", 0, 1]]) == Verdict(
        False, 2, op_index=1,
        reason="operation #1: unknown operation 'xchg'; known: mov, swap, perm, load, store")
    assert read_sequence([["load", "m0", 0]]) == Verdict(False, 1, op_index=0, reason=(
        'operation #0: load takes a register then a memory slot, ["load", reg, slot] '
        "(e.g. [\"load\", 0, \"m0\"]); got ['load', 'm0', 0]"))
    assert read_sequence({"mov": [1, 0]}) == Verdict(
        False, 0, reason="\"sequence\" must be a list of operations, not {'mov': [1, 0]}")


def test_judge_reports_destinations_first_then_clobbered_locations():
    pm = ParallelMove.make([(1, 0)], registers=3)
    v = implements(pm, [Mov(2, 0), Mov(1, 2)], "temp")
    assert v == Verdict(False, 2, location=2, expected=2, got=0, reason=(
        "r2 is not a destination, so it must keep its own value, but it was "
        "clobbered with that of r0"))
    assert implements(pm, [Mov(2, 0), Mov(1, 2)], "temp", "loops") == Verdict(True, 2)


# -- contracts: only "all" and "loops" exist -----------------------------------

UNKNOWN_CONTRACT = ('unknown "preserve" \'none\'; choose "all" (every location not '
                    'written keeps its value) or "loops" (only destinations and '
                    'self-moves matter)')


def test_unknown_contract_is_refused_everywhere():
    """Deleting the raise made "none" silently mean "loops": a sequence
    that clobbers a live register was judged ok."""
    assert check_contract("all") == "all" and check_contract("loops") == "loops"
    pm = ParallelMove.make([(1, 0)], registers=3)
    clobbers = [Mov(2, 0), Mov(1, 2)]
    for call in (lambda: check_contract("none"),
                 lambda: implements(pm, clobbers, "temp", "none"),
                 lambda: optimum(pm, "temp", "none"),
                 lambda: optimum(pm, "permi", "none"),
                 lambda: search_sequence(pm, "none"),
                 # with no sequence within max_len, nothing else would notice
                 lambda: search_sequence(pm, "none", max_len=0),
                 lambda: rtg(pm, "none"),
                 lambda: solve("greedy", pm, preserve="none")):
        with pytest.raises(PreconditionError) as e:
            call()
        assert str(e.value) == UNKNOWN_CONTRACT


# -- exact messages: locations, register numbers and counts --------------------


@pytest.mark.parametrize("value, message", [
    (-1, f"register number -1 is out of range 0..{MAX_REGISTER}"),
    (MAX_REGISTERS, f"register number {MAX_REGISTERS} is out of range 0..{MAX_REGISTER}"),
    (f"r{MAX_REGISTERS}", f"register number {MAX_REGISTERS} is out of range 0..{MAX_REGISTER}"),
    (True, "a location is a register number (int >= 0) or a name (string), not True"),
    (1.0, "a location is a register number (int >= 0) or a name (string), not 1.0"),
    (None, "a location is a register number (int >= 0) or a name (string), not None"),
    ("", "a location name must not be empty"),
])
def test_location_messages(value, message):
    with pytest.raises(PreconditionError) as e:
        location(value)
    assert str(e.value) == message


def test_location_edges():
    assert MAX_REGISTERS == 1 << 20 and MAX_REGISTER == MAX_REGISTERS - 1
    # a subclass of int (an enum of registers) is a register number too
    number = enum.IntEnum("Reg", {"R3": 3, "HUGE": MAX_REGISTERS})
    assert location(number.R3) == 3 and type(location(number.R3)) is number
    with pytest.raises(PreconditionError, match="out of range"):
        location(number.HUGE)
    assert location(0) == 0 and location(MAX_REGISTER) == MAX_REGISTER
    assert location(f"r{MAX_REGISTER}") == MAX_REGISTER
    assert location("r0") == 0 and location("r01") == "r01" and location("rax") == "rax"


@pytest.mark.parametrize("value, least, what, message", [
    (MAX_REGISTERS + 1, 0, '"registers"',
     f'"registers" must be a whole number in 0..{MAX_REGISTERS}, not {MAX_REGISTERS + 1}'),
    (-1, 0, '"registers"', f'"registers" must be a whole number in 0..{MAX_REGISTERS}, not -1'),
    (True, 0, '"registers"',
     f'"registers" must be a whole number in 0..{MAX_REGISTERS}, not True'),
    (2.0, 0, '"registers"', f'"registers" must be a whole number in 0..{MAX_REGISTERS}, not 2.0'),
    (0, 1, "--registers", f"--registers must be a whole number in 1..{MAX_REGISTERS}, not 0"),
])
def test_register_count_messages(value, least, what, message):
    with pytest.raises(PreconditionError) as e:
        check_registers(value, least, what)
    assert str(e.value) == message


def test_register_count_edges():
    assert check_registers(0) == 0 and check_registers(MAX_REGISTERS) == MAX_REGISTERS
    assert check_registers(1, least=1) == 1


@pytest.mark.parametrize("moves, registers, temps, message", [
    ([(4, 0)], 4, (), "move r4 <- r0 names r4, which is outside the declared register "
                      "file r0..r3"),
    ([(0, 1)], 1, (), "move r0 <- r1 names r1, which is outside the declared register "
                      "file r0..r0"),
    ([(0, 0)], 0, (), "move r0 <- r0 names r0 but the register file is empty"),
    ([(1, "x")], 4, (), "move r1 <- x names x, which is outside the declared register "
                        "file r0..r3"),
    ([(1, 0)], 4, (3,), 'temporary r3 lies inside the register file r0..r3; name a '
                        'location outside it (e.g. 4 or "t")'),
    ([(1, 0), (2, 1), (1, 2)], None, (), "destination r1 is written twice: by r1 <- r0 "
     "and by r1 <- r2; a parallel move needs distinct destinations"),
    ([(1, "t"), (2, 1)], None, ("t",), "temporary t appears in the move r1 <- t; a "
     "temporary must be a location the moves do not name"),
    ([(1, 0)], None, ("t", "t"), "temporary t is declared twice"),
    ([(1, 0, 2)], None, (), "move #0 must be a [dst, src] pair, not (1, 0, 2)"),
])
def test_parallel_move_messages(moves, registers, temps, message):
    with pytest.raises(PreconditionError) as e:
        ParallelMove.make(moves, registers, temps)
    assert str(e.value) == message


def test_register_file_edges_are_inside():
    pm = ParallelMove.make([(3, 0)], registers=4, temps=[4])
    assert pm.locations() == [0, 1, 2, 3] and pm.in_file(3) and not pm.in_file(4)
    assert pm.file_size() == 4


# -- the value types: equality, hashing, immutability -------------------------


def _frozen(value, field_name: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field_name, None)


def test_parallel_move_is_an_immutable_hashable_value():
    a = ParallelMove.make([(1, 0), (0, 1)], registers=2, temps=["t"])
    b = ParallelMove.make([["r1", 0], [0, "r1"]], registers=2, temps=["t"])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != ParallelMove.make([(1, 0), (0, 1)], registers=3, temps=["t"])
    assert a != ParallelMove.make([(1, 0), (0, 1)], registers=2, temps=["u"])
    assert a != ParallelMove.make([(0, 1), (1, 0)], registers=2, temps=["t"])
    for name in ("moves", "registers", "temps"):
        _frozen(a, name)
    assert repr(a) == "ParallelMove(moves=((1, 0), (0, 1)), registers=2, temps=('t',))"
    assert str(a) == "(r1 <- r0, r0 <- r1)"


def test_operations_are_immutable_hashable_values():
    for op, *_ in KINDS:
        twin = operation(op.to_json())
        assert op == twin and hash(op) == hash(twin) and len({op, twin}) == 1
        _frozen(op, dataclasses.fields(op)[0].name)


def test_verdict_is_an_immutable_hashable_value():
    a = Verdict(False, 2, reason="r", location=1, expected=0, got=1)
    b = Verdict(False, 2, reason="r", location=1, expected=0, got=1)
    assert a == b and hash(a) == hash(b) and a != Verdict(False, 2, reason="r", op_index=1)
    _frozen(a, "ok")


def test_windmills_are_immutable_hashable_values():
    pm = ParallelMove.make([(1, 0), (0, 1), (2, 0), (4, 3)])
    g, again = analyse(pm), analyse(ParallelMove.make([(1, 0), (0, 1), (2, 0), (4, 3)]))
    assert g == again and hash(g) == hash(again)
    assert g == TransferGraph((Windmill((1, 0, 2), ((1, 0), (0, 1), (2, 0)), (0, 1)),
                               Windmill((4, 3), ((4, 3),), ())))
    assert len(set(g.windmills)) == 2
    _frozen(g.windmills[0], "cycle")
    _frozen(g, "windmills")
    assert (g.non_loop_moves, g.cycles, g.bare_cycles) == (4, 1, 0)
    assert g.windmills[0].blades == ((2, 0),) and not g.windmills[0].is_bare_cycle


def test_optimum_is_an_immutable_value():
    o = optimum(ParallelMove.make([(1, 0), (0, 1)]), "swap")
    assert o == Optimum(1) and hash(o) == hash(Optimum(1))
    _frozen(o, "length")


# -- which temporary each algorithm uses ---------------------------------------

TWO_TEMPS = ["t1", "t2"]


@pytest.mark.parametrize("name, moves, expected", [
    # the first declared temporary, as documented (algorithms/temporary.py)
    ("leroy", [(1, 0), (0, 1)], ["mov t1, r0", "mov r0, r1", "mov r1, t1"]),
    ("leroy-iterative", [(1, 0), (0, 1)], ["mov t1, r0", "mov r0, r1", "mov r1, t1"]),
    ("windmill", [(1, 0), (0, 1)], ["mov t1, r0", "mov r0, r1", "mov r1, t1"]),
    ("mincopy", [(1, 0), (0, 1)], ["mov t1, r0", "mov r0, r1", "mov r1, t1"]),
    ("leroy", [(1, 0), (2, 1), (0, 2)], ["mov t1, r0", "mov r0, r2", "mov r2, r1", "mov r1, t1"]),
    ("windmill", [(1, 0), (2, 1), (0, 2)],
     ["mov t1, r2", "mov r2, r1", "mov r1, r0", "mov r0, t1"]),
    # a blade holds a copy: mincopy needs no temporary, windmill still uses it
    ("mincopy", [(1, 0), (0, 1), (2, 0)], ["mov r2, r0", "mov r0, r1", "mov r1, r2"]),
    ("windmill", [(1, 0), (0, 1), (2, 0)], ["mov r2, r0", "mov t1, r0", "mov r0, r1", "mov r1, t1"]),
    ("leroy", [(1, 0), (0, 1), (2, 0)], ["mov t1, r0", "mov r2, r0", "mov r0, r1", "mov r1, t1"]),
    # the swap model needs none
    ("shuf", [(1, 0), (2, 1), (0, 2)], ["swap r2, r0", "swap r2, r1"]),
    ("xchg", [(1, 0), (2, 1), (0, 2)], ["swap r1, r0", "swap r2, r0"]),
])
def test_which_temporary_each_algorithm_uses(name, moves, expected):
    pm = ParallelMove.make(moves, temps=TWO_TEMPS)
    assert [format_op(op) for op in solve(name, pm)] == expected


def test_temp_function_is_honoured():
    """CompCert's ``temp`` maps each location to its class's temporary."""
    pm = ParallelMove.make([(1, 0), (0, 1)], temps=TWO_TEMPS)
    for fn in (leroy.leroy, leroy.leroy_iterative, windmill.windmill):
        assert [format_op(op) for op in fn(pm, temp=lambda _loc: "t2")] == [
            "mov t2, r0", "mov r0, r1", "mov r1, t2"]
