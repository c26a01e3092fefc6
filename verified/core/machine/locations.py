"""Machines, part 2: locations on a machine and their units.

A location is a register, a stack slot or a list of them (``Place``: a
multi-register value, low part first), or an immediate source (``Imm``).
Every register and slot is one or more **units**; an aliased register is
its parts' units (ARMv7 VFP: ``d0`` is ``s0``'s and ``s1``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..semantics import PreconditionError
from .description import MEMO_LIMIT, Machine, Unit, Value, ValueType, _short


@dataclass(frozen=True)
class Place:
    """A register, a stack slot, or a list of them (a multi-register value,
    low part first).  ``is_list`` keeps the JSON spelling (``"a0"`` vs
    ``["a0"]``)."""

    parts: tuple[str, ...]
    is_list: bool = False

    def to_json(self) -> object:
        return list(self.parts) if self.is_list else self.parts[0]

    def __str__(self) -> str:
        return f"[{', '.join(self.parts)}]" if self.is_list else self.parts[0]


@dataclass(frozen=True)
class Imm:
    """An immediate source ``{"imm": k}``.  Written to a location of width
    w, unit i receives, on a machine that states ``unit_bits`` B, the bit
    pattern ``#b`` with b = bits [i*B, (i+1)*B) of k (two's complement: a
    negative k has all high bits set), so a wide constant written in correct
    pieces is right; on a machine without ``unit_bits``, the symbolic piece
    ``#k`` (i = 0) or ``#k.i``.  A list destination's parts receive
    consecutive pieces (``offset``)."""

    value: int
    offset: int = 0

    def to_json(self) -> object:
        return {"imm": self.value}

    def piece(self, i: int, bits: int | None = None) -> Value:
        k = self.offset + i
        if bits is not None:
            return f"#{(self.value >> (k * bits)) & ((1 << bits) - 1)}"
        return f"#{self.value}" if k == 0 else f"#{self.value}.{k}"

    def __str__(self) -> str:
        return f"#{self.value}"


MLoc = Union[Place, Imm]

#: What a location is: a register (or list of them), a slot (or list), an
#: immediate.
KINDS = ("reg", "mem", "imm")



def parse_loc(m: Machine, value: object, allow_imm: bool = True) -> MLoc:
    """One location of a request or an operation, from JSON: a name, a list
    of names (all registers or all slots, pairwise disjoint), or
    ``{"imm": k}`` (a source only, when ``allow_imm``).  Raises
    PreconditionError naming the problem.  A name or list read once is
    remembered by the machine (``Memo``; an error never is)."""
    if type(value) is str:
        return m.memo.ask(_parse_loc, value, m, value, allow_imm)
    if type(value) is list and all(type(v) is str for v in value):
        return m.memo.ask(_parse_loc, tuple(value), m, value, allow_imm)
    return _parse_loc(m, value, allow_imm)


def _parse_loc(m: Machine, value: object, allow_imm: bool) -> MLoc:
    """``parse_loc`` without the memo."""
    if isinstance(value, dict):
        if not allow_imm:
            raise PreconditionError(f"{_short(value)} is an immediate, which cannot be "
                                    f"written to")
        if set(value) != {"imm"} or isinstance(value["imm"], bool) or not isinstance(
                value["imm"], int):
            raise PreconditionError(f'an immediate is {{"imm": k}} with a whole number k, '
                                    f"not {_short(value)}")
        return Imm(value["imm"])
    if isinstance(value, str):
        _known(m, value)
        return Place((value,))
    if isinstance(value, list):
        if not value or not all(isinstance(v, str) for v in value):
            raise PreconditionError(f"a multi-register value is a non-empty list of "
                                    f"names, not {_short(value)}")
        for v in value:
            _known(m, v)
        kinds = {m.lookup(v).kind for v in value}
        if len(kinds) > 1:
            raise PreconditionError(f"{_short(value)} mixes registers and slots; a "
                                    f"multi-register value is all registers or all slots")
        seen: dict[Unit, str] = {}
        for v in value:
            for u in m.lookup(v).units:
                if u in seen:
                    raise PreconditionError(
                        f"{_short(value)} names overlapping parts {seen[u]} and {v}")
                seen[u] = v
        return Place(tuple(value), True)
    raise PreconditionError(f"a location on a machine is a register or slot name, a "
                            f"list of them, or {{\"imm\": k}}; not {_short(value)}")


def _known(m: Machine, name: str) -> None:
    if m.lookup(name) is None:
        raise PreconditionError(f"{name!r} is not a register or slot of {m.name}")


def kind(m: Machine, loc: MLoc) -> str:
    """"reg", "mem" or "imm"."""
    if isinstance(loc, Imm):
        return "imm"
    return m.lookup(loc.parts[0]).kind


def class_of(m: Machine, loc: MLoc) -> str | None:
    """The register class of a register (or of a list's first part); None
    for a slot or an immediate."""
    return None if isinstance(loc, Imm) else m.lookup(loc.parts[0]).cls


def classes_of(m: Machine, loc: MLoc) -> tuple[str, ...]:
    """The classes of every part (a list may span classes)."""
    if isinstance(loc, Imm):
        return ()
    return tuple(dict.fromkeys(m.lookup(p).cls for p in loc.parts if m.lookup(p).cls))


def width(m: Machine, loc: MLoc) -> int | None:
    """Width in units (the sum of a list's parts); None for an immediate
    (it takes the width of where it is written)."""
    if isinstance(loc, Imm):
        return None
    return sum(m.lookup(p).width for p in loc.parts)


def units(m: Machine, loc: MLoc) -> tuple[Unit, ...]:
    """The units of a location, low first (an immediate has none);
    remembered by the machine (``Memo``)."""
    if isinstance(loc, Imm):
        return ()
    memo = m.memo.table(units)
    out = memo.get(loc.parts)
    if out is None:
        out = tuple(u for p in loc.parts for u in m.lookup(p).units)
        if len(memo) < MEMO_LIMIT:
            memo[loc.parts] = out
    return out


def values(m: Machine, src: MLoc, w: int) -> tuple[Value, ...]:
    """The original symbolic values a source of width ``w`` stands for:
    its units, or the immediate's pieces."""
    if isinstance(src, Imm):
        return tuple(src.piece(i, m.unit_bits) for i in range(w))
    return units(m, src)


def value_type(m: Machine, name: object) -> ValueType:
    """The machine's type called ``name``; PreconditionError saying what to
    do when it has none of that name."""
    t = m.type(name) if isinstance(name, str) else None
    if t is not None:
        return t
    if not m.types:
        raise PreconditionError(
            f"{_short(name)} names a type, but {m.name} declares no types; drop the type "
            f'(an untyped value fills its locations) or describe the machine\'s "types" '
            f"(docs/machines.md)")
    known = ", ".join(t.name for t in m.types)
    raise PreconditionError(
        f"unknown type {_short(name)} on {m.name}; its types are {known}: name one of them, "
        f"or drop the type for an untyped value that fills its locations")


def holds(m: Machine, loc: Place, t: ValueType) -> str | None:
    """Why ``loc`` cannot hold a value of type ``t``, or None when it can:
    registers of the type's classes (a list when one is too narrow) or a
    slot when the type may live on the stack, at least ``t.width`` wide.
    Remembered by the machine (``Memo``)."""
    return m.memo.ask(_holds, (loc, t), m, loc, t)


def _holds(m: Machine, loc: Place, t: ValueType) -> str | None:
    """``holds`` without the memo."""
    regs = [m.lookup(p) for p in loc.parts]
    where = ([f"registers of class {' or '.join(t.classes)}"] if t.classes else []) + (
        [f"stack slots at least {t.width} unit(s) wide"] if t.stack else [])
    home = f"{t.name} is {t.width} unit(s) wide and lives in {' or '.join(where)}"
    if regs[0].kind == "mem":
        if not t.stack:
            return f"{loc} is a stack slot, which cannot hold {t.name} ({home})"
    else:
        other = next((r for r in regs if r.cls not in t.classes), None)
        if other is not None:
            return f"{loc} cannot hold {t.name}: {other.name} is of class {other.cls} ({home})"
    w = width(m, loc)
    if w < t.width:
        return f"{loc} has width {w}, too narrow for {t.name} ({home})"
    return None


def imm_fits(m: Machine, imm: Imm, w: int) -> str | None:
    """Why the constant does not fit a destination of ``w`` units, or None:
    on a machine with ``unit_bits`` B it must lie in -2^(wB-1) .. 2^(wB)-1
    (two's complement or unsigned); without ``unit_bits`` nothing is known."""
    if m.unit_bits is None:
        return None
    bits = w * m.unit_bits
    if -(1 << (bits - 1)) <= imm.value < (1 << bits):
        return None
    return (f"the constant {imm.value} does not fit in {bits} bits ({w} unit(s) of "
            f"{m.unit_bits} bits); a constant takes -2^{bits - 1} .. 2^{bits}-1 there")
