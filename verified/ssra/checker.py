"""The allocation checker: runs an allocated program (ours or anyone's)
forward on symbolic values and decides whether it computes the tape."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from ..core.errors import PreconditionError
from .allocator import LOAD, STORE, Allocation
from .tape import _NAME, RESERVED, Tape, TapeError, _lines, _pattern

@dataclass(frozen=True)
class AsmLine:
    """One parsed line of an allocated program: ``kind`` is ``"load"``,
    ``"store"`` or ``"op"``; for ``op``, ``args`` mixes register numbers
    (``int``) and literals (``str``) in source order."""

    kind: str
    line: int
    reg: int = -1
    slot: int = -1
    name: str = ""
    args: tuple[int | str, ...] = ()


_REG = r"r(0|[1-9][0-9]*)"
_MEM = r"mem\s*\+\s*(0|[1-9][0-9]*)"
_ASM_LOAD = re.compile(rf"{_REG}\s*=\s*LOAD\(\s*{_MEM}\s*\)")
_ASM_LOAD2 = re.compile(rf"LOAD\(\s*{_REG}\s*,\s*{_MEM}\s*\)")  # the write-up's prose form
_ASM_STORE = re.compile(rf"STORE\(\s*{_REG}\s*,\s*{_MEM}\s*\)")
_ASM_OP = re.compile(rf"{_REG}\s*=\s*({_NAME})\s*\(([^()]*)\)")
_ASM_ARG_REG = re.compile(_REG)


def parse_allocated(text: str, source: str = "<allocated>") -> list[AsmLine]:
    """Parse an allocated program in the write-up's syntax (blank lines and
    ``#`` comments ignored; ``;`` at the end allowed).  ``TapeError`` names
    the line of anything else."""
    out: list[AsmLine] = []
    for number, line in _lines(text):
        line = line.rstrip(";").strip()
        m = _ASM_LOAD.fullmatch(line) or _ASM_LOAD2.fullmatch(line)
        if m:
            out.append(AsmLine("load", number, reg=int(m.group(1)),
                               slot=int(m.group(2))))
            continue
        m = _ASM_STORE.fullmatch(line)
        if m:
            out.append(AsmLine("store", number, reg=int(m.group(1)),
                               slot=int(m.group(2))))
            continue
        m = _ASM_OP.fullmatch(line)
        if m and m.group(2) not in RESERVED:
            raw = m.group(3).strip()
            args: list[int | str] = []
            for a in ([x.strip() for x in raw.split(",")] if raw else []):
                rm = _ASM_ARG_REG.fullmatch(a)
                if rm:
                    args.append(int(rm.group(1)))
                elif _pattern("literal").fullmatch(a):
                    args.append(a)
                else:
                    raise TapeError(f"{source}:{number}: operand {a!r} is "
                                    f"neither a register rN nor a literal")
            out.append(AsmLine("op", number, reg=int(m.group(1)),
                               name=m.group(2), args=tuple(args)))
            continue
        raise TapeError(f"{source}:{number}: expected `rX = OP(rY, rZ)`, "
                        f"`STORE(rX, mem + k)` or `rX = LOAD(mem + k)`, got "
                        f"{line!r}")
    return out


def asm_lines(allocation: Allocation) -> list[AsmLine]:
    """Our own allocation as ``AsmLine``s (no text round trip)."""
    n, tape = allocation.registers, allocation.tape
    out = []
    for number, o in enumerate(allocation.ops, start=1):
        if o[0] == LOAD:
            out.append(AsmLine("load", number, reg=o[1], slot=o[2] - n))
        elif o[0] == STORE:
            out.append(AsmLine("store", number, reg=o[1], slot=o[2] - n))
        else:
            regs = iter(o[3])
            op = tape.ops[o[1]]
            args = tuple(a if isinstance(a, str) else next(regs) for a in op.args)
            out.append(AsmLine("op", number, reg=o[2], name=op.name, args=args))
    return out


@dataclass
class Verdict:
    """``ok``; else ``line`` (the 1-based line of the allocated program
    that is wrong; for what is missing at the end, a live operation never
    computed or a wrong ``r0``, the line just after the last one) and
    ``reason``.  ``counts`` as ``Allocation.counts``."""

    ok: bool
    reason: str = ""
    line: int = 0
    counts: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        d: dict = {"ok": self.ok}
        if not self.ok:
            d["line"] = self.line
            d["reason"] = self.reason
        d.update(self.counts)
        return d


def check(tape: Tape, program: Allocation | str | Sequence[AsmLine],
          registers: int, strict: bool = False) -> Verdict:
    """Decide whether ``program`` computes ``tape`` on a machine with
    ``registers`` registers and unbounded memory.

    The machine is interpreted forward over *symbolic values*: every
    register and memory slot starts empty; an operation line reads its
    input registers and writes a new symbolic value to its output register.
    The program is accepted iff

    * every register it names is below ``registers``;
    * nothing is read before it is written (register or memory slot);
    * every operation reads exactly the values an SSA operation of the tape
      with the same name and literals reads: it then computes that SSA
      operation's value;
    * at the end ``r0`` holds the tape's result.

    Values are compared as terms (value numbering): two tape operations
    with the same name, literals and input values compute the same value,
    so an allocator may compute either (or drop dead code, or reorder
    independent operations).  With ``strict=True`` the values are the SSA
    variables themselves and the operation lines must be exactly the tape's
    live operations in tape order -- the contract our allocator meets.

    ``program`` may be our ``Allocation``, its text, or parsed lines; a
    ``TapeError`` (bad syntax, naming the line) propagates."""
    if isinstance(registers, bool) or not isinstance(registers, int) or registers < 1:
        raise PreconditionError(f"registers must be a whole number >= 1, "
                                f"not {registers!r}")
    if isinstance(program, Allocation):
        lines = asm_lines(program)
    elif isinstance(program, str):
        lines = parse_allocated(program)
    else:
        lines = list(program)
    names = tape.names

    # Values: strict -> SSA variable index; else term id (the SSA variable
    # that first computed the term stands for the term).
    term_of_var: list[int] = []
    by_key: dict[tuple, int] = {}
    for op in tape.ops:
        key = (op.name, tuple(a if isinstance(a, str) else term_of_var[a]
                              for a in op.args))
        term_of_var.append(by_key.setdefault(key, op.out) if not strict else op.out)
    assert len(term_of_var) == len(names)
    live_ops = [op for op, alive in zip(tape.ops, tape.live()) if alive]

    regs: list[int | None] = [None] * registers
    mem: dict[int, int] = {}
    loads = stores = computed = 0
    used_regs: set[int] = set()
    highest = -1

    def fail(line: int, reason: str) -> Verdict:
        return Verdict(False, reason, line)

    def reg_ok(r: int, ln: AsmLine) -> str | None:
        if r >= registers:
            return f"uses r{r} but the machine has only {registers} registers (r0..r{registers - 1})"
        used_regs.add(r)
        return None

    for ln in lines:
        bad = reg_ok(ln.reg, ln)
        if bad:
            return fail(ln.line, bad)
        if ln.kind == "load":
            if ln.slot not in mem:
                return fail(ln.line, f"r{ln.reg} = LOAD(mem + {ln.slot}) reads "
                            f"mem + {ln.slot} before anything was stored there")
            regs[ln.reg] = mem[ln.slot]
            loads += 1
            highest = max(highest, ln.slot)
        elif ln.kind == "store":
            stored = regs[ln.reg]
            if stored is None:
                return fail(ln.line, f"STORE(r{ln.reg}, mem + {ln.slot}) reads "
                            f"r{ln.reg} before any value was written to it")
            mem[ln.slot] = stored
            stores += 1
            highest = max(highest, ln.slot)
        else:
            values: list[int | str] = []
            for a in ln.args:
                if isinstance(a, str):
                    values.append(a)
                    continue
                bad = reg_ok(a, ln)
                if bad:
                    return fail(ln.line, bad)
                read = regs[a]
                if read is None:
                    return fail(ln.line, f"{ln.name} reads r{a} before any "
                                f"value was written to it")
                values.append(read)
            shown = ", ".join(v if isinstance(v, str) else names[v] for v in values)
            if strict:
                if computed >= len(live_ops):
                    return fail(ln.line, f"{ln.name}({shown}) is one operation "
                                f"more than the tape's {len(live_ops)} live ones")
                want = live_ops[computed]
                want_vals = tuple(a if isinstance(a, str) else a for a in want.args)
                if want.name != ln.name or tuple(values) != want_vals:
                    return fail(ln.line, f"computes {ln.name}({shown}) where "
                                f"the tape's next live operation is "
                                f"{tape.format_op(want)} (line {want.line})")
                result = want.out
            else:
                key = (ln.name, tuple(values))
                if key not in by_key:
                    return fail(ln.line, f"computes {ln.name}({shown}), a value "
                                f"the tape never computes (an input is the "
                                f"wrong value, or the operation is wrong)")
                result = by_key[key]
            computed += 1
            regs[ln.reg] = result
    # what is missing is missing where the program ends: just after its
    # last line (line 1 of an empty program), never a line 0 nobody has
    end = lines[-1].line + 1 if lines else 1
    where = f"after its last line (line {end - 1})" if lines else "at once (it is empty)"
    if strict and computed != len(live_ops):
        want = live_ops[computed]
        return fail(end, f"the program stops {where} before the tape's live "
                    f"operation {tape.format_op(want)} (line {want.line})")
    final = term_of_var[tape.result]
    if regs[0] != final:
        got = "nothing" if regs[0] is None else names[regs[0]]
        return fail(end, f"the program ends {where} with {got} in r0, not the "
                    f"result {names[tape.result]}")
    return Verdict(True, counts={
        "registers": registers, "loads": loads, "stores": stores,
        "memory_slots": len(mem), "highest_offset": highest,
        "registers_used": len(used_regs), "operations": computed,
    })
