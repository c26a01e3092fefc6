"""SSRA: faithfulness to the write-up, the checker, parsers and CLI, and
Hypothesis over random tapes.  The state table is in test_ssra_states.py,
the mutants in test_ssra_mutants.py."""

from __future__ import annotations

import json
import os
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified import cli, ssra
from verified.core.semantics import PreconditionError

#: the write-up's benchmark tape and a .vm program, copied into the repository
DATA = os.path.join(os.path.dirname(__file__), "..", "data")
BENCH_TAPE = os.path.join(DATA, "ssra-bench-6362.tape")
PROSPERO = os.path.join(DATA, "prospero.vm")

WORKED_EXAMPLE = """\
$0 = BAR()
$1 = BAR()
$2 = FOO($0, $1)
$3 = FOO($2, $1)
$4 = FOO($0, $3)
"""


@pytest.fixture(scope="module")
def bench_tape() -> ssra.Tape:
    return ssra.load_tape(BENCH_TAPE)


# ---------------------------------------------------------------------------
# Faithfulness: the write-up's numbers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("registers, loads, stores, memory_words", [
    (24, 582, 582, 102),
    (10, 1151, 1151, 116),
    (8, 1424, 1424, 118),
])
def test_write_up_table(bench_tape, registers, loads, stores, memory_words):
    """The write-up's table for its 6362-instruction program: loads, stores
    and "memory words" (the highest `mem + k` offset)."""
    assert len(bench_tape.ops) == 6362
    allocation = ssra.allocate(bench_tape, registers)
    counts = allocation.counts()
    assert (counts["loads"], counts["stores"], counts["highest_offset"]) == (
        loads, stores, memory_words)
    # ... and the allocation is correct, in the strict sense too.
    verdict = ssra.check(bench_tape, allocation, registers, strict=True)
    assert verdict.ok, verdict.reason
    assert verdict.counts["loads"] == loads
    assert verdict.counts["highest_offset"] == memory_words


def test_worked_example_matches_write_up():
    """The write-up's two-register walk-through, line for line (it writes
    the load as `LOAD(r0, mem + 0)`; the syntax elsewhere is
    `r0 = LOAD(mem + 0)`)."""
    tape = ssra.parse_tape(WORKED_EXAMPLE)
    allocation = ssra.allocate(tape, 2)
    assert allocation.lines() == [
        "r1 = BAR()",
        "r0 = BAR()",
        "STORE(r1, mem + 0)",
        "r1 = FOO(r1, r0)",
        "r1 = FOO(r1, r0)",
        "r0 = LOAD(mem + 0)",
        "r0 = FOO(r0, r1)",
    ]
    assert ssra.check(tape, allocation.text(), 2, strict=True).ok
    # the prose form of the load is accepted by the checker as well
    prose = allocation.text().replace("r0 = LOAD(mem + 0)", "LOAD(r0, mem + 0)")
    assert ssra.check(tape, prose, 2, strict=True).ok


def test_out_txt_excerpt_matches_write_up(bench_tape):
    """The first lines of the write-up's `out.txt` (24 registers).  Its
    single STORE reads `mem + 36`: the published demo prints slot s as
    `mem + (s - 2)` whatever the register count; in our numbering (and in
    the table's "memory words" column) it is `mem + (s - 24)`, i.e. 14."""
    lines = ssra.allocate(bench_tape, 24).lines()[:9]
    shift = 24 - 2
    assert lines == [
        "r12 = INPUT0()",
        "r2 = MUL_IMM(r12)",
        "r22 = ADD_IMM(r2)",
        "r0 = ADD_IMM(r2)",
        f"STORE(r0, mem + {36 - shift})",
        "r0 = NEG(r0)",
        "r0 = MAX(r22, r0)",
        "r22 = NEG(r22)",
        "r13 = SQUARE(r22)",
    ]


def test_prospero_vm_allocates_and_checks():
    tape = ssra.load_tape(PROSPERO)
    assert tape.ops[0].name == "CONST" and tape.ops[0].args == ("2.95",)
    for n in (2, 8, 24):
        allocation = ssra.allocate(tape, n)
        verdict = ssra.check(tape, allocation.text(), n, strict=True)
        assert verdict.ok, verdict.reason
        assert verdict.counts["loads"] == allocation.counts()["loads"]
    assert re.fullmatch(r"r[0-9]+ = CONST\(2\.95\)", ssra.allocate(tape, 24).lines()[0])


# ---------------------------------------------------------------------------
# LRU
# ---------------------------------------------------------------------------


def test_lru_matches_a_list_model():
    """The array-backed list against a plain list (newest first), under
    random pokes and pops, for n = 1..8."""
    rng = random.Random(5)
    for n in range(1, 9):
        lru, model = ssra.Lru(n), list(range(n))
        for _ in range(300):
            if rng.random() < 0.5:
                i = rng.randrange(n)
                lru.poke(i)
                model.remove(i)
                model.insert(0, i)
            else:
                got = lru.pop()
                assert got == model[-1]
                model.insert(0, model.pop())
            assert lru.order() == model
            lru.check_invariant()


def test_lru_write_up_examples():
    lru = ssra.Lru(2)
    lru.poke(0)
    assert [lru.pop(), lru.pop()] == [1, 0]
    lru = ssra.Lru(10)
    lru.poke(4)
    lru.poke(5)
    popped = [lru.pop() for _ in range(10)]
    assert popped[-2:] == [4, 5] and sorted(popped) == list(range(10))


# ---------------------------------------------------------------------------
# The checker rejects broken programs (hand-made; mutants elsewhere)
# ---------------------------------------------------------------------------

#: The worked example with two *different* nullary operations: with two
#: BAR() calls, $0 and $1 are the same value (operations are pure), and a
#: program that confuses them is still correct.
EXAMPLE = WORKED_EXAMPLE.replace("$1 = BAR()", "$1 = BAZ()")
GOOD = ssra.allocate(ssra.parse_tape(EXAMPLE), 2).lines()


@pytest.mark.parametrize("edit, registers, reason", [
    (lambda p: p[:2] + p[3:], 2, "before anything was stored"),         # no STORE
    (lambda p: p[:5] + p[6:], 2, "never computes"),                     # no LOAD
    (lambda p: [p[0], p[1], p[3], p[2]] + p[4:], 2, "never computes"),  # STORE after
    (lambda p: p[:-1], 2, "not the result"),                            # last op missing
    (lambda p: p, 1, "only 1 registers"),                               # too few registers
    (lambda p: [p[0].replace("r1", "r5")] + p[1:], 8, "before any value"),
    (lambda p: p[:6] + ["r0 = FOO(r1, r0)"], 2, "never computes"),      # operands swapped
    (lambda p: [p[0]] + ["r0 = QUX()"] + p[2:], 2, "never computes"),   # wrong operation
])
def test_checker_rejects(edit, registers, reason):
    tape = ssra.parse_tape(EXAMPLE)
    assert ssra.check(tape, "\n".join(GOOD), 2).ok
    for strict in (False, True):
        verdict = ssra.check(tape, "\n".join(edit(list(GOOD))), registers,
                             strict=strict)
        assert not verdict.ok
        assert reason in verdict.reason or strict


def test_same_value_twice_is_not_a_bug():
    """Dropping the LOAD in the write-up's own example leaves r0 = $1
    where $0 is read -- but both are BAR(), the same value; strict mode
    (SSA identity) still rejects it."""
    tape = ssra.parse_tape(WORKED_EXAMPLE)
    lines = ssra.allocate(tape, 2).lines()
    no_load = "\n".join(lines[:5] + lines[6:])
    assert ssra.check(tape, no_load, 2).ok
    verdict = ssra.check(tape, no_load, 2, strict=True)
    assert not verdict.ok and "where the tape's next live operation is" in verdict.reason


def test_checker_values_are_terms_unless_strict():
    """Two BAR() calls compute the same value (pure operations), so swapping
    which one is computed first is fine in the default mode, not in strict
    mode; a dropped dead operation is fine in both."""
    tape = ssra.parse_tape("$0 = BAR()\n$1 = NEG($0)\n$2 = BAR()\n$3 = FOO($0, $2)\n")
    ours = ssra.allocate(tape, 2)
    assert ours.counts()["operations"] == 3          # NEG($0) is dead
    assert ssra.check(tape, ours, 2, strict=True).ok
    with_dead = "r0 = BAR()\nr1 = NEG(r0)\nr1 = BAR()\nr0 = FOO(r0, r1)\n"
    assert ssra.check(tape, with_dead, 2).ok
    assert not ssra.check(tape, with_dead, 2, strict=True).ok


# ---------------------------------------------------------------------------
# Bad input: errors name the line, never a traceback
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("$0 = A()\n$1 = B($2)\n", ":2: $2 is used before it is defined"),
    ("$0 = A()\n\n$0 = B()\n", ":3: $0 is defined twice (first on line 1)"),
    ("$0 = A($0)\n", ":1: $0 is used before it is defined (an operation cannot read its own output)"),
    ("$0 = A()\n$1 = B($0 $0)\n", ":2: operand '$0 $0'"),
    ("$0 = A()\nfoo\n", ":2: expected `$N = OP($a, $b)`"),
    ("$0 = A()\n$1 = B($0, $0, $0)\n", ":2: B has 3 inputs"),
    ("$0 = LOAD()\n", ":1: LOAD is reserved"),
    ("x = A()\n", ":1: the output 'x' must be a variable"),
    ("# only a comment\n\n", "the tape is empty"),
    ("", "the tape is empty"),
])
def test_tape_errors_name_the_line(text, message):
    with pytest.raises(ssra.TapeError) as e:
        ssra.parse_tape(text, "t.tape")
    assert message in str(e.value)
    assert str(e.value).startswith("t.tape")


@pytest.mark.parametrize("text, message", [
    ("_0 const 2.95\n_1 mul _0 _2\n", ":2: _2 is used before it is defined"),
    ("_0 var-x\n_0 var-y\n", ":2: _0 is defined twice"),
    ("_0\n", ":1: expected `_id op operands...`"),
    ("_0 const two\n", ":1: operand 'two'"),
])
def test_vm_errors_name_the_line(text, message):
    with pytest.raises(ssra.TapeError) as e:
        ssra.parse_vm(text, "m.vm")
    assert message in str(e.value)


def test_allocated_syntax_errors_name_the_line():
    tape = ssra.parse_tape(EXAMPLE)
    with pytest.raises(ssra.TapeError, match=r":3: expected"):
        ssra.check(tape, "r0 = BAR()\nr1 = BAR()\nmov r0, r1\n", 2)


@pytest.mark.parametrize("n", [1, 0, -3])
def test_fewer_than_two_registers_is_an_error(n):
    with pytest.raises(PreconditionError, match="at least 2 registers"):
        ssra.allocate(ssra.parse_tape(WORKED_EXAMPLE), n)


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------


def test_cli_alloc_and_check(tmp_path, capsys):
    tape = tmp_path / "ex.tape"
    tape.write_text(EXAMPLE)
    assert cli.main(["ssra", "alloc", str(tape), "--registers", "2"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines() == GOOD
    assert cli.main(["ssra", "alloc", str(tape), "-n", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["program"] == GOOD and doc["counts"]["loads"] == 1
    allocated = tmp_path / "ex.s"
    allocated.write_text(text)
    assert cli.main(["ssra", "check", str(tape), str(allocated), "-n", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    allocated.write_text("\n".join(GOOD[:5] + GOOD[6:]))          # LOAD dropped
    assert cli.main(["ssra", "check", str(tape), str(allocated), "-n", "2"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["ok"] is False and verdict["line"] == 6


@pytest.mark.parametrize("argv_tail, tape_text, message", [
    (["alloc", "{tape}", "-n", "1"], WORKED_EXAMPLE,
     "--registers must be a whole number in 2..1048576, not 1"),
    (["alloc", "{tape}", "-n", "2"], "$0 = A()\n$1 = B($7)\n", ":2: $7 is used before"),
    (["alloc", "{tape}", "-n", "2"], "", "the tape is empty"),
    (["alloc", "{missing}", "-n", "2"], WORKED_EXAMPLE, "cannot read"),
    (["check", "{tape}", "{tape}", "-n", "2"], WORKED_EXAMPLE, ":1: expected `rX = OP"),
])
def test_cli_bad_input_exits_2_without_traceback(tmp_path, capsys, argv_tail,
                                                 tape_text, message):
    tape = tmp_path / "t.tape"
    tape.write_text(tape_text)
    argv = ["ssra"] + [a.format(tape=tape, missing=tmp_path / "nope")
                       for a in argv_tail]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ---------------------------------------------------------------------------
# Hypothesis: random tapes, N = 2..6
# ---------------------------------------------------------------------------

OP_NAMES = {0: ("BAR", "BAZ"), 1: ("NEG", "SQRT"), 2: ("FOO", "SUB")}


@st.composite
def tapes(draw, max_ops: int = 25) -> str:
    """Random tape text: 0-2 inputs, repeated inputs, dead operations and
    literal immediates all occur."""
    k = draw(st.integers(1, max_ops))
    lines = []
    for j in range(k):
        arity = 0 if j == 0 else draw(st.integers(0, 2))
        name = draw(st.sampled_from(OP_NAMES[arity]))
        args = [f"${draw(st.integers(0, j - 1))}" for _ in range(arity)]
        if draw(st.integers(0, 9)) == 0:
            args.insert(draw(st.integers(0, len(args))), "1.5")
        lines.append(f"${j} = {name}({', '.join(args)})")
    return "\n".join(lines) + "\n"


def concrete_eval_tape(tape: ssra.Tape, f) -> object:
    values = []
    for op in tape.ops:
        values.append(f(op.name, tuple(a if isinstance(a, str) else values[a]
                                       for a in op.args)))
    return values[tape.result]


def concrete_eval_program(lines: list[ssra.AsmLine], n: int, f) -> object:
    """A second, independent interpreter: real (hash) values, no symbols."""
    regs, mem = [None] * n, {}
    for ln in lines:
        if ln.kind == "load":
            regs[ln.reg] = mem.get(ln.slot)
        elif ln.kind == "store":
            mem[ln.slot] = regs[ln.reg]
        else:
            regs[ln.reg] = f(ln.name, tuple(a if isinstance(a, str) else regs[a]
                                            for a in ln.args))
    return regs[0]


def _hash_op(seed: int):
    return lambda name, args: hash((seed, name, args))


@settings(max_examples=400, deadline=None)
@given(text=tapes(), registers=st.integers(2, 6))
def test_random_tapes_pass_the_checker(text, registers):
    tape = ssra.parse_tape(text)
    trace: list = []
    allocator = ssra.RegisterAllocator(registers, trace)
    allocation = allocator.run(tape)
    allocator.check_invariant()
    counts = allocation.counts()
    for strict in (False, True):
        verdict = ssra.check(tape, allocation, registers, strict=strict)
        assert verdict.ok, (verdict.line, verdict.reason, allocation.text())
        assert verdict.counts == counts
    # the text round trip gives the same verdict
    assert ssra.check(tape, allocation.text(), registers, strict=True).ok
    # every LOAD is matched by a STORE (a value leaves memory exactly once)
    assert counts["loads"] == counts["stores"]
    assert counts["registers_used"] <= registers
    assert counts["operations"] == sum(tape.live())
    # every operation was reached in one of the named states
    assert len(trace) == len(tape.ops)
    assert all(s == "DEAD" or s.startswith(("UNARY_", "NONARY_"))
               or s in ssra.TwoInputState.__members__ for _, s, _ in trace)
    # a concrete run agrees
    f = _hash_op(1)
    lines = ssra.asm_lines(allocation)
    assert concrete_eval_program(lines, registers, f) == concrete_eval_tape(tape, f)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=tapes(max_ops=12), registers=st.integers(2, 4), data=st.data())
def test_checker_accepts_only_what_computes_the_tape(text, registers, data):
    """Soundness of the checker against an independent concrete
    interpreter: randomly damage a correct allocation (drop, duplicate or
    swap lines, rename a register or slot); whenever the checker still
    accepts, running the damaged program on real values gives the tape's
    result."""
    tape = ssra.parse_tape(text)
    lines = ssra.allocate(tape, registers).lines()
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["drop", "dup", "swap", "reg", "mem"]))
        i = data.draw(st.integers(0, len(lines) - 1))
        if kind == "drop" and len(lines) > 1:
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif kind == "reg":
            a, b = data.draw(st.integers(0, registers - 1)), data.draw(st.integers(0, registers - 1))
            lines[i] = lines[i].replace(f"r{a}", f"r{b}")
        elif kind == "mem":
            lines[i] = lines[i].replace("mem + 0", "mem + 1")
    program = "\n".join(lines)
    verdict = ssra.check(tape, program, registers)
    if verdict.ok:
        parsed = ssra.parse_allocated(program)
        for seed in (1, 2):
            f = _hash_op(seed)
            assert concrete_eval_program(parsed, registers, f) == concrete_eval_tape(tape, f)


@pytest.mark.parametrize("strict, reason", [
    (False, "the program ends after its last line (line 2) with $1 in r0, not the result $2"),
    (True, "the program stops after its last line (line 2) before the tape's live "
           "operation $2 = C($1) (line 3)"),
])
def test_truncated_program_is_reported_where_it_ends(tmp_path, capsys, strict, reason):
    """Issue 14 item 12: a missing last operation was reported at line 0, a
    line no program has; it is the line after the last one."""
    tape = tmp_path / "t.tape"
    tape.write_text("$0 = A()\n$1 = B($0)\n$2 = C($1)\n")
    prog = tmp_path / "p.s"
    prog.write_text("r0 = A()\n\n# a comment\nr0 = B(r0)\n")
    argv = ["ssra", "check", str(tape), str(prog), "-n", "2"] + (["--strict"] if strict else [])
    assert cli.main(argv) == 1
    verdict = json.loads(capsys.readouterr().out)
    # the program's last line is line 4 of the file (blank and comment lines count)
    assert verdict == {"ok": False, "line": 5, "reason": reason.replace("line 2)", "line 4)")}
    prog.write_text("")
    assert cli.main(["ssra", "check", str(tape), str(prog), "-n", "2"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "ok": False, "line": 1,
        "reason": "the program ends at once (it is empty) with nothing in r0, not the result $2"}
