"""Stack operations (docs/machines.md, "Stack operations"): push and pop
over a LIFO of hidden words, their legality per preset as data, their cost,
and the rule that a sequence leaves the stack as it found it.  The golden
verdicts are pinned in test_golden.py (corpus.py); these pin the rest."""

from __future__ import annotations

import pytest

from verified.core import machine as M
from verified.core.semantics import PreconditionError


def verdict(machine, moves, seq, temps=()):
    req = M.parse_machine_request({"machine": machine, "moves": moves, "temps": list(temps),
                                   "sequence": seq}, True)
    return M.check_machine_request(req).to_json()


def test_presets_state_their_push_and_pop_as_data():
    got = {n: (M.preset(n).push, M.preset(n).pop) for n in M.PRESETS}
    assert got == {"x86-64": (("reg", "mem", "imm"), ("reg", "mem")),
                   "aarch64": ((), ()), "riscv64": ((), ()),
                   "armv7-vfp": (("reg",), ("reg",))}
    for n in M.PRESETS:  # each cites where that comes from
        assert "Stack operations (round 3)" in M.preset(n).source


def test_a_d_register_is_two_words_low_half_on_top():
    # push d0 then pop into r0 and r1: the low half s0 comes off first
    v = verdict("armv7-vfp", [["r0", "s0"], ["r1", "s1"]],
                [["push", "d0"], ["pop", "r0"], ["pop", "r1"]])
    assert v == {"ok": True, "length": 3, "cost": 3}
    v = verdict("armv7-vfp", [["r0", "s0"], ["r1", "s1"]],
                [["push", "d0"], ["pop", "r1"], ["pop", "r0"]])
    assert v["ok"] is False and v["counterexample"]["unit"] == "r0"


def test_typed_push_and_pop_move_the_types_words():
    # i64 on armv7-vfp is two words (a d register); on x86-64 one
    v = verdict("armv7-vfp", [["d1", "d0", "i64"]], [["push", "d0", "i64"], ["pop", "d1", "i64"]])
    assert v == {"ok": True, "length": 2, "cost": 2}
    v = verdict("x86-64", [["rax", "rbx", "i64"]], [["push", "rbx", "i64"], ["pop", "rax", "i64"]])
    assert v["ok"] is True
    # a typed pop writes the type's low words and leaves the rest undefined
    wide = {"classes": {"w": {"registers": ["a", "b"], "width": 2}}, "push": ["reg"],
            "pop": ["reg"], "types": {"t": {"width": 1, "classes": ["w"]}}}
    v = verdict(wide, [["a", "b", "t"]], [["push", "b", "t"], ["pop", "a", "t"]])
    assert v == {"ok": True, "length": 2, "cost": 2}
    v = verdict(wide, [["a", "b"]], [["push", "b", "t"], ["pop", "a", "t"]])
    assert v["counterexample"] == {"location": "a", "unit": "a.1", "expected": "b.1",
                                   "got": "?"}


def test_costs_are_the_machines_push_and_pop():
    obj = {"classes": {"g": {"registers": ["a", "b"]}}, "push": ["reg"], "pop": ["reg"],
           "cost": {"push": 3, "pop": 5}}
    assert verdict(obj, [["a", "b"]], [["push", "b"], ["pop", "a"]])["cost"] == 8
    m = M.machine(obj)
    assert m.to_json()["push"] == ["reg"] and m.to_json()["cost"]["pop"] == 5
    assert M.machine(m.to_json()) == m


def test_a_machine_without_stack_ops_reads_as_before():
    assert "push" not in M.preset("aarch64").to_json()
    assert "push" not in M.preset("aarch64").to_json()["cost"]


@pytest.mark.parametrize("obj, message", [
    ({"classes": {"g": {"registers": ["a"]}}, "push": ["mem-mem"]},
     '"machine": "push" must be a list of distinct values among "reg", "mem", "imm", '
     'not ["mem-mem"]'),
    ({"classes": {"g": {"registers": ["a"]}}, "pop": ["imm"]},
     '"machine": "pop" must be a list of distinct values among "reg", "mem", not ["imm"]'),
    ({"classes": {"g": {"registers": ["a"], "stack_ops": 1}}},
     '"machine": class \'g\': "stack_ops" must be true or false, not 1'),
])
def test_bad_stack_op_fields_are_bad_input(obj, message):
    with pytest.raises(PreconditionError) as e:
        M.machine(obj)
    assert str(e.value) == message


@pytest.mark.parametrize("seq, reason", [
    ([["push"]], "operation #0: push takes 1 operand, got 0 in [\"push\"]"),
    ([["pop", {"imm": 1}]],
     'operation #0: {"imm": 1} is an immediate, which cannot be written to'),
    ([["push", ["rax", "rbx"]], ["pop", "rcx"], ["pop", "rdx"]],
     "operation #0: push [rax, rbx] names a list; push takes one register or slot "
     "(push its parts one by one)"),
    ([["push", "mw1"], ["pop", "mw0"]],
     "operation #0: push mw1 names slot mw1, whose group push and pop do not take on x86-64"),
])
def test_malformed_or_illegal_stack_ops_are_wrong_sequences(seq, reason):
    v = verdict("x86-64", [], seq, temps=["rax", "rbx", "rcx", "rdx", "mw0", "mw1"])
    assert v["ok"] is False and v["reason"] == reason and v["operation"] == 0


def test_explain_shows_the_stack_and_judges_an_unbalanced_push():
    import json

    from tests.support import verified
    req = {"machine": "x86-64", "moves": [["m1", "m0"]], "temps": ["r10"]}
    proc = verified("explain", "--request", json.dumps(req), "--sequence",
                    json.dumps([["push", "m0"], ["push", "m0"], ["pop", "m1"]]))
    assert proc.returncode == 1
    table = [line.split() for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert ["#", "operation", "m0", "m1", "r10", "stack", "(top", "last)"] in table
    assert ["1", "push", "m0", "m0", "m1", "r10", "m0", "m0"] in table
    assert ["2", "pop", "m1", "m0", "m0*", "r10", "m0"] in table
    assert ("verdict: WRONG: the stack is left with 1 word pushed; a sequence must pop "
            "every word it pushes") in proc.stdout
    # a value whose register is overwritten while a copy is pushed is not lost
    req = {"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]]}
    proc = verified("explain", "--request", json.dumps(req), "--sequence", json.dumps(
        [["push", "rax"], ["mov", "rax", "rbx"], ["pop", "rbx"]]))
    assert proc.returncode == 0 and "first value destroyed: none" in proc.stdout
