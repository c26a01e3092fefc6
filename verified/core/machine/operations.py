"""Machines, part 3: operations, their classification, legality and cost.

``MMov`` and ``MSwap`` over machine locations; ``classify`` names an
operation by its operands' kinds (reg<-reg, load, store, mem<-mem,
reg<-imm, mem<-imm, swap reg-reg / reg-mem / mem-mem); ``illegal`` says
what the machine lacks; ``op_cost`` and ``cost`` price legal operations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Union

from ..semantics import PreconditionError
from .description import Machine, PairMove, ValueType, _short
from .locations import (Imm, MLoc, Place, holds, imm_fits, kind, parse_loc, units, value_type,
                        width)


@dataclass(frozen=True)
class MMov:
    """``mov dst, src`` on a machine.  A list operand is its parts moved one
    after the other, low first (``mov [a1, a2], [a0, a1]`` is ``mov a1, a0;
    mov a2, a1``), except a pair move the machine has (``pair_moves``: ARMv7
    ``VMOV r0, r1, d0``, AArch64 ``LDP``/``STP``), which is one operation.
    ``type``: a typed mov copies the type's low units and leaves the rest
    of its destination undefined (``docs/machines.md``, typed values)."""

    dst: Place
    src: MLoc
    type: str | None = None

    def to_json(self) -> list:
        out = ["mov", self.dst.to_json(), self.src.to_json()]
        return out + [self.type] if self.type else out


@dataclass(frozen=True)
class MSwap:
    """``swap a, b`` on a machine (x86 ``xchg``); a list operand is its parts
    swapped one after the other.  A typed swap exchanges the type's low
    units and leaves the rest of both operands undefined."""

    a: Place
    b: Place
    type: str | None = None

    def to_json(self) -> list:
        out = ["swap", self.a.to_json(), self.b.to_json()]
        return out + [self.type] if self.type else out


@dataclass(frozen=True)
class MPush:
    """``push src`` (round 3, stack operations): copies ``src``'s units
    (a typed push: the type's low units) onto the machine's LIFO of hidden
    words, one word a unit; the low unit ends on top, as a value pushed on a
    stack that grows down sits low part first in memory."""

    src: MLoc
    type: str | None = None

    def to_json(self) -> list:
        out = ["push", self.src.to_json()]
        return out + [self.type] if self.type else out


@dataclass(frozen=True)
class MPop:
    """``pop dst``: moves the top words of the LIFO into ``dst``'s units
    (the top into its low unit); a typed pop writes the type's low units and
    leaves the rest of ``dst`` undefined."""

    dst: Place
    type: str | None = None

    def to_json(self) -> list:
        out = ["pop", self.dst.to_json()]
        return out + [self.type] if self.type else out


MOperation = Union[MMov, MSwap, MPush, MPop]

#: The classification of an operation by its operands' kinds.
OP_CLASSES = ("reg<-reg", "load", "store", "mem<-mem", "reg<-imm", "mem<-imm",
              "swap reg-reg", "swap reg-mem", "swap mem-mem")
#: The classes of the stack operations (round 3), by their operand's kind.
STACK_OP_CLASSES = ("push reg", "push mem", "push imm", "pop reg", "pop mem")


def format_mop(op: MOperation) -> str:
    """Assembly-like text: ``mov a1, a0``, ``swap m0, m1``, ``mov rax, #42``;
    a typed operation names its type: ``mov.f64 xmm15, m1``."""
    suffix = f".{op.type}" if op.type else ""
    if isinstance(op, MMov):
        return f"mov{suffix} {op.dst}, {op.src}"
    if isinstance(op, MPush):
        return f"push{suffix} {op.src}"
    if isinstance(op, MPop):
        return f"pop{suffix} {op.dst}"
    return f"swap{suffix} {op.a}, {op.b}"


def parse_op(m: Machine, value: object) -> MOperation:
    """One operation from JSON (``["mov", dst, src]`` or ``["swap", a, b]``
    over the machine's names, with the value's type as a third operand when
    typed).  Raises PreconditionError saying what is wrong; legality on the
    machine is ``illegal``'s business."""
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise PreconditionError(f'an operation on a machine is ["mov", dst, src] or '
                                f'["swap", a, b]; got {_short(value)}')
    op, args = value[0], value[1:]
    if op in ("push", "pop"):
        return _parse_stack_op(m, value)
    if op not in ("mov", "swap"):
        raise PreconditionError(f"unknown operation {op!r} on a machine; known: mov, swap, "
                                f"push, pop")
    if len(args) not in (2, 3):
        raise PreconditionError(f"{op} takes 2 operands, got {len(args)} in {_short(value)}"
                                + ("; a third element may only name the value's type"
                                   if len(args) > 3 else ""))
    typ = value_type(m, args[2]).name if len(args) == 3 else None
    if op == "mov":
        dst = parse_loc(m, args[0], allow_imm=False)
        return MMov(dst, parse_loc(m, args[1]), typ)
    a, b = (parse_loc(m, x, allow_imm=False) for x in args[:2])
    return MSwap(a, b, typ)


def _parse_stack_op(m: Machine, value: list) -> MOperation:
    """``["push", src]`` / ``["pop", dst]``, a type as a third element."""
    op, args = value[0], value[1:]
    if len(args) not in (1, 2):
        raise PreconditionError(f"{op} takes 1 operand, got {len(args)} in {_short(value)}"
                                + ("; a second element may only name the value's type"
                                   if len(args) > 2 else ""))
    typ = value_type(m, args[1]).name if len(args) == 2 else None
    if op == "push":
        return MPush(parse_loc(m, args[0]), typ)
    return MPop(parse_loc(m, args[0], allow_imm=False), typ)


def pair_move(m: Machine, op: MOperation) -> PairMove | None:
    """The machine's pair move that ``op`` is (a mov between a list of at
    least two registers of one class and a single register or slot of the
    same width, the machine listing that pair), or None."""
    if not isinstance(op, MMov) or isinstance(op.src, Imm):
        return None
    x, y = op.dst, op.src
    if len(x.parts) >= 2 and len(y.parts) == 1:
        lst, one = x, y
    elif len(y.parts) >= 2 and len(x.parts) == 1:
        lst, one = y, x
    else:
        return None
    regs = [m.lookup(p) for p in lst.parts]
    if any(r.kind != "reg" or r.cls != regs[0].cls for r in regs):
        return None
    single = m.lookup(one.parts[0])
    other = "mem" if single.kind == "mem" else single.cls
    if width(m, lst) != single.width:
        return None
    return next((p for p in m.pair_moves if p.pair == regs[0].cls and p.other == other), None)


def parts(m: Machine, op: MOperation) -> list[MOperation] | str:
    """A list operation as its single-name parts, in order (the operation
    itself when it has no list), or the reason it cannot be split: a list
    operand needs as many parts on the other side (a single name is one
    part), or an immediate source."""
    if isinstance(op, (MPush, MPop)):
        return [op]  # one operand; a list operand is illegal (``_stack_illegal``)
    if isinstance(op, MMov):
        x, y = op.dst, op.src
    else:
        x, y = op.a, op.b
    lists = [loc for loc in (x, y) if isinstance(loc, Place) and loc.is_list]
    if not lists or pair_move(m, op) is not None:
        return [op]
    if op.type is not None:
        t = m.type(op.type)
        wide = [loc for loc in lists if width(m, loc) != t.width]
        if wide:
            return (f"{format_mop(op)}: the list {wide[0]} has width {width(m, wide[0])}, "
                    f"but a typed operation on a list moves it part by part, so the "
                    f"list must be exactly as wide as {t.name} ({t.width})")
    if isinstance(y, Imm):
        out: list[MOperation] = []
        offset = 0
        for p in x.parts:
            out.append(MMov(Place((p,)), Imm(y.value, y.offset + offset)))
            offset += m.lookup(p).width
        return out
    if len(x.parts) != len(y.parts):  # a one-part list is its single location
        # the list counted first is the list operand, wherever it stands
        # (the source's list was counted as the destination's one part)
        return (f"{format_mop(op)} pairs a list of {len(lists[0].parts)} part(s) with "
                f"{'a list of ' + str(len(y.parts)) + ' part(s)' if len(lists) == 2 else 'a single location'}"
                f"; a list operand is moved part by part, so the other side must be a "
                f"list of as many parts")
    make = MMov if isinstance(op, MMov) else MSwap
    return [make(Place((p,)), Place((q,))) for p, q in zip(x.parts, y.parts)]


def classify(m: Machine, op: MOperation) -> str:
    """The operation's class by its operands' kinds (``OP_CLASSES``); a
    list operation by its first part; a stack operation by its operand's kind
    (``STACK_OP_CLASSES``)."""
    if isinstance(op, MPush):
        return f"push {kind(m, op.src)}"
    if isinstance(op, MPop):
        return f"pop {kind(m, op.dst)}"
    if isinstance(op, MMov):
        d, s = kind(m, op.dst), kind(m, op.src)
        return {("reg", "reg"): "reg<-reg", ("reg", "mem"): "load",
                ("mem", "reg"): "store", ("mem", "mem"): "mem<-mem",
                ("reg", "imm"): "reg<-imm", ("mem", "imm"): "mem<-imm"}[(d, s)]
    ka, kb = sorted((kind(m, op.a), kind(m, op.b)), reverse=True)
    return f"swap {ka}-{kb}"


def _typed_illegal(m: Machine, op: MOperation, t: ValueType) -> str | None:
    """Why a typed operation's operands cannot hold its type, or None."""
    for loc in ((op.dst, op.src) if isinstance(op, MMov) else (op.a, op.b)):
        if isinstance(loc, Place):
            reason = holds(m, loc, t)
            if reason is not None:
                return f"{format_mop(op)}: {reason}"
    return None


def _immediate_illegal(m: Machine, op: MMov, w: int) -> str | None:
    """Why a mov of an immediate into ``w`` units exceeds the machine's
    ``immediate_bits`` for its destination's kind, or None."""
    where = kind(m, op.dst)
    limit = m.immediate_limit(where)
    if limit is None:
        return None
    value = op.src.value
    if m.unit_bits is not None:
        bits = w * m.unit_bits
        if limit >= bits:
            return None
        value = (value >> (op.src.offset * m.unit_bits)) & ((1 << bits) - 1)
        value = value - (1 << bits) if value >> (bits - 1) else value
    if -(1 << (limit - 1)) <= value < (1 << (limit - 1)):
        return None
    return (f"{format_mop(op)} writes the constant {value} into "
            f"{'a register' if where == 'reg' else 'a stack slot'}, but one mov of "
            f"{m.name} writes at most a {limit}-bit immediate there (immediate_bits); "
            f"build it in a register first")


def words(m: Machine, op: MOperation) -> int:
    """How many words a push or pop moves: its type's width, else its
    operand's width (an immediate pushes one word)."""
    if op.type is not None:
        return m.type(op.type).width
    loc = op.src if isinstance(op, MPush) else op.dst
    return 1 if isinstance(loc, Imm) else width(m, loc)


def _stack_illegal(m: Machine, op: MOperation) -> str | None:
    """Why a push or pop is not an operation of ``m``: the operand kinds in
    the machine's ``push`` / ``pop``, a class or slot group that takes them
    (``stack_ops``), a single location, a constant within the push's
    immediate field (``immediate_bits`` "mem": a pushed word is memory)."""
    text = format_mop(op)
    name, loc = ("push", op.src) if isinstance(op, MPush) else ("pop", op.dst)
    have = m.push if name == "push" else m.pop
    k = kind(m, loc)
    what = {"reg": "a register", "mem": "a stack slot", "imm": "an immediate"}[k]
    if k not in have:
        return (f"{text} {'pushes' if name == 'push' else 'pops into'} {what}, which {m.name} "
                f"lacks ({name} is {json.dumps(list(have))})")
    if isinstance(loc, Place):
        if loc.is_list and len(loc.parts) > 1:
            return (f"{text} names a list; {name} takes one register or slot "
                    f"({name} its parts one by one)")
        r = m.lookup(loc.parts[0])
        if r.kind == "reg" and not m.class_info(r.cls).stack_ops:
            return (f"{text} names {r.name} of class {r.cls}, which push and pop do not "
                    f"take on {m.name}")
        if r.kind == "mem" and not m.group_of(r.name).stack_ops:
            return (f"{text} names slot {r.name}, whose group push and pop do not take on "
                    f"{m.name}")
        if op.type is not None:
            reason = holds(m, loc, m.type(op.type))
            if reason is not None:
                return f"{text}: {reason}"
        return None
    reason = imm_fits(m, loc, words(m, op))
    if reason is not None:
        return f"{text}: {reason}"
    limit = m.immediate_limit("mem")
    bits = None if m.unit_bits is None else words(m, op) * m.unit_bits
    if limit is None or (bits is not None and limit >= bits) or \
            -(1 << (limit - 1)) <= loc.value < (1 << (limit - 1)):
        return None
    return (f"{text} pushes the constant {loc.value}, but a push of {m.name} takes at most "
            f"a {limit}-bit immediate, sign-extended (immediate_bits \"mem\"); build it in "
            f"a register first")


def _single_illegal(m: Machine, op: MOperation) -> str | None:
    """``illegal`` for an operation without list operands (or a pair move)."""
    if isinstance(op, (MPush, MPop)):
        return _stack_illegal(m, op)
    what = classify(m, op)
    text = format_mop(op)
    t = m.type(op.type) if op.type else None
    if pair_move(m, op) is not None:
        return None  # the machine has it (parts() keeps it whole only then)
    if isinstance(op, MMov) and isinstance(op.src, Imm):
        d = m.lookup(op.dst.parts[0])
        where = "reg" if d.kind == "reg" else "mem"
        if where not in m.immediate_to:
            return (f"{text} writes an immediate to {'a register' if where == 'reg' else 'a stack slot'}, "
                    f"which {m.name} lacks (immediate_to is {json.dumps(list(m.immediate_to))})")
        if d.kind == "reg" and not m.class_info(d.cls).immediate:
            return (f"{text} writes an immediate to {d.name} of class {d.cls}, which "
                    f"takes no immediate on {m.name}")
        if d.kind == "mem" and not m.group_of(d.name).immediate:
            return (f"{text} writes an immediate to slot {d.name}, whose group takes no "
                    f"immediate on {m.name}")
        return _immediate_illegal(m, op, t.width if t is not None else d.width)
    x, y = (op.dst, op.src) if isinstance(op, MMov) else (op.a, op.b)
    rx, ry = m.lookup(x.parts[0]), m.lookup(y.parts[0])
    # a typed operation needs no equal widths and no cross_class: both
    # operands hold the type, whose classes say which cross-class moves exist
    if t is None and rx.width != ry.width:
        return (f"{text} has operands of widths {rx.width} and {ry.width}; a "
                f"{'mov' if isinstance(op, MMov) else 'swap'} needs equal widths")
    if t is None and rx.kind == "reg" and ry.kind == "reg" and rx.cls != ry.cls and not m.cross_class:
        return (f"{text} goes between classes {rx.cls} and {ry.cls}, which {m.name} "
                f"lacks (cross_class is false)")
    if isinstance(op, MMov):
        if what == "mem<-mem" and not m.mem_to_mem:
            return (f"{text} is a memory-to-memory move, which {m.name} lacks "
                    f"(mem_to_mem is false)")
        return None
    if rx.name != ry.name and set(rx.units) & set(ry.units):
        return (f"{text} swaps overlapping {'slots' if rx.kind == 'mem' else 'registers'} "
                f"{rx.name} and {ry.name}")
    if what == "swap mem-mem":
        return (f"{text} is a memory-to-memory swap, which {m.name} lacks (its swaps: "
                f"{', '.join(m.swap) or 'none'}; no machine swaps two slots)")
    kind_needed = what.split(" ")[1]
    for r in (rx, ry):
        if r.kind == "reg":
            c = m.class_info(r.cls)
            have = m.swap if c.swap is None else c.swap
            if kind_needed not in have:
                scope = m.name if c.swap is None else f"class {c.name} of {m.name}"
                return (f"{text} is a {kind_needed} swap, which {scope} lacks (its "
                        f"swaps: {', '.join(have) or 'none'})")
    return None


def illegal(m: Machine, op: MOperation) -> str | None:
    """Why ``op`` is not an operation of machine ``m`` (naming the op and
    what the machine lacks), or None when it is one.  A list operation is
    legal when each of its parts is.  Remembered by the machine
    (``Memo``: a sequence repeats the same few operations)."""
    return m.memo.ask(_illegal, op, m, op)


def _illegal(m: Machine, op: MOperation) -> str | None:
    """``illegal`` without the memo."""
    split = parts(m, op)
    if isinstance(split, str):
        return split
    if op.type is not None and not isinstance(op, (MPush, MPop)):
        reason = _typed_illegal(m, op, m.type(op.type))
        if reason is not None:
            return reason
    if isinstance(op, MMov) and isinstance(op.src, Imm):
        w = m.type(op.type).width if op.type else width(m, op.dst)
        reason = imm_fits(m, op.src, w)
        if reason is not None:
            return f"{format_mop(op)}: {reason}"
    for part in split:
        reason = _single_illegal(m, part)
        if reason is not None:
            return reason if len(split) == 1 else f"{format_mop(op)}: part {reason}"
    return None


def written_units(m: Machine, op: MOperation) -> tuple:
    """Every unit ``op`` writes (a typed operation's whole destination: the
    rest becomes undefined)."""
    if isinstance(op, MPush):  # a push writes only the hidden words of the stack
        return ()
    locs = (op.dst,) if isinstance(op, (MMov, MPop)) else (op.a, op.b)
    return tuple(u for loc in locs for u in units(m, loc))


def reserved_write(m: Machine, op: MOperation) -> str | None:
    """Why ``op`` breaks the machine's profile (it writes a reserved
    register), or None.  The machine has the operation (``illegal`` says
    so); the profile forbids it, so it is a wrong sequence too."""
    if not m.reserved:
        return None
    hit = set(written_units(m, op)) & m.reserved_units()
    if not hit:
        return None
    name = next(r for r in m.reserved if set(m.lookup(r).units) & hit)
    return (f"{format_mop(op)} writes {name}, which {m.name} reserves (reserved: "
            f"{', '.join(m.reserved)}); a sequence never writes a reserved register")


def op_cost(m: Machine, op: MOperation) -> int:
    """Cost of one (legal) operation: the sum over its parts of the price of
    the part's class (``Cost``); remembered by the machine (``Memo``)."""
    return m.memo.ask(_op_cost, op, m, op)


def _op_cost(m: Machine, op: MOperation) -> int:
    """``op_cost`` without the memo."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    c = m.cost
    if isinstance(op, (MPush, MPop)):
        return c.push if isinstance(op, MPush) else c.pop  # one instruction, whatever its width
    price = {"reg<-reg": c.mov, "load": c.load, "store": c.store,
             "mem<-mem": c.load + c.store, "reg<-imm": c.imm, "mem<-imm": c.imm}
    return sum(c.swap if isinstance(p, MSwap) else price[classify(m, p)] for p in split)


def cost(m: Machine, ops: Iterable[MOperation]) -> int:
    """Total cost of a (legal) sequence under the machine's ``cost``."""
    return sum(op_cost(m, op) for op in ops)
