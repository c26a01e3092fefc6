"""Allocator cases (``verified conform --allocator``): a straight-line SSA
tape and a register count go out, an allocated program comes back, and
``verified.ssra.check`` (the allocation checker, the same verdict as
``verified ssra check``) judges it.

Wire format (``docs/conform.md``, "Allocators"), one JSON object per line:

    request: {"tape": ["$0 = BAR()", "$1 = NEG($0)", "$2 = FOO($0, $1)"], "registers": 2}
    answer:  {"program": ["r0 = BAR()", "r1 = NEG(r0)", "r0 = FOO(r0, r1)"]}
             {"unsupported": "why"}   (or {"error": "why"}): declines the tape

The tape is in the write-up's syntax (``verified.ssra.parse_tape``), the
program in the allocated syntax ``verified ssra alloc`` prints (``rX =
OP(rY, rZ)``, ``STORE(rX, mem + k)``, ``rX = LOAD(mem + k)``); the result
must end in r0.  Every tape has an allocation with 2 or more registers, so
declining one is reported as a declined solvable case, with our allocation
as the witness."""

from __future__ import annotations

import itertools
import json
import shlex
from dataclasses import dataclass

from ... import cases as gen
from ...core.semantics import PreconditionError
from ...ssra import allocate, check, parse_allocated, parse_tape
from ...ssra.tape import Tape
from .checker import CaseType, Judgement
from .session import Suite

#: every tape of up to this many operations in --allocator --exhaustive
EXHAUSTIVE_OPS = 5


def tape_of(case: gen.TapeCase) -> Tape:
    return parse_tape("\n".join(case.lines()), "<request>")


def case_of(tape: Tape, registers: int) -> gen.TapeCase:
    """Our case for a parsed tape (names and literals as written)."""
    names = tape.names
    return gen.TapeCase(registers, tuple(
        (names[op.out], op.name, tuple(names[a] if isinstance(a, int) else a for a in op.args))
        for op in tape.ops))


@dataclass(frozen=True)
class TapeType(CaseType):
    answer_key = "program"
    answer_noun = "allocation"

    def request(self, case: gen.TapeCase) -> dict:
        return {"tape": case.lines(), "registers": case.registers}

    def encode(self, case: gen.TapeCase) -> bytes:
        return (json.dumps(self.request(case)) + "\n").encode()

    def decode(self, request: dict) -> gen.TapeCase:
        return case_of(parse_tape("\n".join(request["tape"]), "<request>"),
                       request["registers"])

    def judge(self, case: gen.TapeCase, answer: object) -> Judgement:
        if not isinstance(answer, list) or not all(
                isinstance(x, str) and "\n" not in x and "\r" not in x for x in answer):
            return Judgement(False, {"ok": False, "line": 0, "reason": (
                '"program" must be a list of lines (strings without newlines), not '
                + _clip(json.dumps(answer)))})
        try:
            lines = parse_allocated("\n".join(answer), "<answer>")
        except PreconditionError as e:  # a TapeError naming the line
            return Judgement(False, {"ok": False, "line": _line_of(e), "reason": str(e)})
        verdict = check(tape_of(case), lines, case.registers)
        return Judgement(verdict.ok, verdict.to_json(), len(answer))

    def solvable(self, case: gen.TapeCase) -> bool:
        return case.registers >= 2

    def reference(self, case: gen.TapeCase) -> tuple[object | None, str]:
        allocation = allocate(tape_of(case), case.registers)
        verdict = check(tape_of(case), allocation, case.registers)
        if not verdict.ok:  # never: the allocator is checked in the tests; say so if it happens
            return None, f"our allocator is wrong here ({verdict.reason}): please report"
        return allocation.lines(), f"verified ssra alloc TAPE --registers {case.registers}"

    def size(self, case: gen.TapeCase) -> tuple:
        return case.size

    def shrink_candidates(self, case: gen.TapeCase) -> list:
        return gen.shrink_tape_candidates(case)

    def describe(self, case: gen.TapeCase) -> str:
        return _clip("; ".join(case.lines()), 200) + f" on {case.registers} registers"

    def explain_command(self, case: gen.TapeCase, answer: object) -> str | None:
        if not isinstance(answer, list) or not all(isinstance(x, str) for x in answer):
            return None
        def lines(xs: list[str]) -> str:
            return "<(printf '%s\\n' " + " ".join(shlex.quote(x) for x in xs) + ")"
        return (f"verified ssra check {lines(case.lines())} {lines(answer)} "
                f"--registers {case.registers}   # bash")


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _line_of(e: Exception) -> int:
    # TapeError messages start "<answer>:LINE: ..."
    try:
        return int(str(e).split(":")[1])
    except (IndexError, ValueError):
        return 0


def state_cases() -> list[gen.TapeCase]:
    """The named allocator states (``verified.cases.STATE_EXAMPLES``), each
    on the register count that reaches it."""
    return [case_of(parse_tape(text, name), registers)
            for name, registers, text, _ in gen.STATE_EXAMPLES]


def suite(registers: int, random: int | None, seed: object) -> Suite:
    ct = TapeType()
    if random is not None:
        return Suite(ct, lambda: itertools.islice(gen.random_tape_stream(registers, seed), random),
                     random, f"{random:,} random tapes on {registers} registers (seed {seed})")
    counts = range(2, min(registers, EXHAUSTIVE_OPS) + 1)
    states = state_cases()

    def cases():
        for n in counts:
            yield from gen.exhaustive_tapes(EXHAUSTIVE_OPS, n)
        yield from states
    planned = len(counts) * gen.exhaustive_tape_count(EXHAUSTIVE_OPS) + len(states)
    what = (f"every tape of <= {EXHAUSTIVE_OPS} operations on "
            + (f"{counts[0]}..{counts[-1]}" if len(counts) > 1 else f"{counts[0]}")
            + f" registers, and the {len(states)} named allocator states")
    return Suite(ct, cases, planned, what)
