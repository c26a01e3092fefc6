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
from .description import Machine, Unit, Value, _short


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
    w, unit i receives the symbolic piece ``#k`` (i = 0) or ``#k.i``; a list
    destination's parts receive consecutive pieces (``offset``)."""

    value: int
    offset: int = 0

    def to_json(self) -> object:
        return {"imm": self.value}

    def piece(self, i: int) -> Value:
        k = self.offset + i
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
    PreconditionError naming the problem."""
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
    """The units of a location, low first (an immediate has none)."""
    if isinstance(loc, Imm):
        return ()
    return tuple(u for p in loc.parts for u in m.lookup(p).units)


def values(m: Machine, src: MLoc, w: int) -> tuple[Value, ...]:
    """The original symbolic values a source of width ``w`` stands for:
    its units, or the immediate's pieces."""
    return tuple(src.piece(i) for i in range(w)) if isinstance(src, Imm) else units(m, src)
