"""Machines: the oracle on real register files (``docs/machines.md``).

Round 1 speaks abstract registers ``r0..r{n-1}``.  A machine description
adds what real resolvers move values between: register **classes** (with a
width), **stack slots**, **immediates**, **multi-register values** (a list
of names, ``["a0", "a1"]``) and **aliased registers** (ARMv7 VFP: ``d0`` is
``s0:s1``).  This module holds, in the order of the math:

1. the description (``Machine``, parsed from a preset name or a JSON
   object by ``machine``), with its presets (``verified/data/machines/``);
2. locations on a machine (``Place``: a register, a slot or a list of
   them; ``Imm``: an immediate source) and their **units**: every register
   and slot is one or more units, an alias is its parts' units;
3. operations (``MMov``, ``MSwap``), their classification (reg<-reg, load,
   store, mem<-mem, reg<-imm, mem<-imm, swap reg-reg / reg-mem / mem-mem),
   ``illegal`` (what the machine lacks) and their ``cost``;
4. the per-unit interpreter ``execute``;
5. the parallel move on a machine (``MachineMove``, with its
   preconditions), ``implements`` (the verdict) and the request parser.

A request without ``"machine"`` never reaches this module: round 1 stays as
it is (``semantics.py``, ``oracle.py``).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Iterable, Mapping, Sequence, Union

from .oracle import Verdict, check_contract
from .semantics import PreconditionError

# ---------------------------------------------------------------------------
# 1. The description
# ---------------------------------------------------------------------------

#: The preset machines, in the order ``verified machines`` lists them; each
#: is ``verified/data/machines/NAME.json``.
PRESETS = ("x86-64", "aarch64", "riscv64", "armv7-vfp")

SWAP_KINDS = ("reg-reg", "reg-mem")
IMMEDIATE_KINDS = ("reg", "mem")
COST_KEYS = ("mov", "load", "store", "swap", "imm")
MACHINE_KEYS = ("name", "source", "classes", "aliases", "stack", "swap", "mem_to_mem",
                "immediate_to", "cross_class", "cost")
CLASS_KEYS = ("registers", "width", "swap", "immediate")
STACK_KEYS = ("slots", "names", "width", "immediate")

#: A register or slot name: a letter or ``_``, then letters, digits, ``_``.
#: (No ``.``: unit names of wide registers are ``xmm0.0``, ``xmm0.1``.)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Largest total number of units a description may declare (a guard against
#: nonsense input, far above any real register file).
MAX_UNITS = 1 << 16

#: A unit: the smallest piece of state (``"rax"``, ``"s0"``, ``"xmm0.1"``).
Unit = str
#: A symbolic value held by a unit: the name of the unit whose original value
#: it is, or a piece of an immediate (``"#42"``, ``"#42.1"``; see ``Imm``).
Value = str


@dataclass(frozen=True)
class RegClass:
    """A register class: its registers (in order) and their width in units.
    ``swap`` and ``immediate`` refine the machine's own ``swap`` and
    ``immediate_to`` for this class (x86's ``xchg`` exists for GPRs only,
    and no XMM register takes an immediate)."""

    name: str
    registers: tuple[str, ...]
    width: int
    swap: tuple[str, ...] | None = None
    immediate: bool = True


@dataclass(frozen=True)
class StackGroup:
    """A group of stack slots of one width; any value of that width may live
    in one.  ``immediate``: may an immediate be stored to these slots in one
    mov (with ``"mem"`` in the machine's ``immediate_to``)."""

    names: tuple[str, ...]
    width: int
    immediate: bool = True


@dataclass(frozen=True)
class Cost:
    """Per-operation costs.  ``mov`` prices reg<-reg, ``load`` reg<-mem,
    ``store`` mem<-reg, ``load + store`` a mem<-mem move (it does both
    memory accesses), ``imm`` reg<-imm and mem<-imm, ``swap`` every swap."""

    mov: int = 1
    load: int = 1
    store: int = 1
    swap: int = 1
    imm: int = 1


@dataclass(frozen=True)
class Reg:
    """What a name is on a machine: ``kind`` "reg" or "mem", its class
    (None for a slot), its width and its units."""

    name: str
    kind: str
    cls: str | None
    width: int
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class Machine:
    """A machine description (``docs/machines.md``).  Build it with
    ``machine(value)`` (a preset name or a JSON object), which validates it;
    ``to_json`` gives back the full object, defaults filled in."""

    name: str
    classes: tuple[RegClass, ...]
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    stack: tuple[StackGroup, ...] = ()
    swap: tuple[str, ...] = ()
    mem_to_mem: bool = False
    immediate_to: tuple[str, ...] = ("reg",)
    cross_class: bool = False
    cost: Cost = Cost()
    #: where the facts come from (presets: the ISA manual / psABI sections)
    source: str = ""
    _names: Mapping[str, Reg] = field(default_factory=dict, compare=False, repr=False)
    #: unit -> the first name whose only unit it is (how a unit is reported)
    _owner_of: Mapping[Unit, str] = field(default_factory=dict, compare=False, repr=False)
    _units: tuple[Unit, ...] = field(default=(), compare=False, repr=False)

    # -- lookups -------------------------------------------------------------

    def lookup(self, name: str) -> Reg | None:
        """The register or slot called ``name``, or None."""
        return self._names.get(name)

    def names(self) -> tuple[str, ...]:
        """Every register (class order) then every slot (stack order)."""
        return tuple(self._names)

    def registers(self, cls: str | None = None) -> tuple[str, ...]:
        """The registers of class ``cls`` (default: of every class)."""
        return tuple(r for c in self.classes if cls in (None, c.name) for r in c.registers)

    def slots(self) -> tuple[str, ...]:
        """Every stack slot, in order."""
        return tuple(s for g in self.stack for s in g.names)

    def units(self) -> tuple[Unit, ...]:
        """Every unit of the machine, each once, registers' first."""
        return self._units

    def owner(self, unit: Unit) -> str:
        """The name to report a unit under: the first register or slot
        (in ``names`` order) whose only unit it is, else its base name."""
        return _owners(self).get(unit, unit.split(".")[0])

    def class_info(self, cls: str) -> RegClass:
        return next(c for c in self.classes if c.name == cls)

    def group_of(self, slot: str) -> StackGroup:
        return next(g for g in self.stack if slot in g.names)

    def to_json(self) -> dict:
        out: dict = {"name": self.name}
        if self.source:
            out["source"] = self.source
        classes: dict = {}
        for c in self.classes:
            entry: dict = {"registers": list(c.registers), "width": c.width}
            if c.swap is not None:
                entry["swap"] = list(c.swap)
            if not c.immediate:
                entry["immediate"] = False
            classes[c.name] = entry
        out["classes"] = classes
        out["aliases"] = {a: list(parts) for a, parts in self.aliases}
        stack = []
        for g in self.stack:
            entry = {"names": list(g.names), "width": g.width}
            if not g.immediate:
                entry["immediate"] = False
            stack.append(entry)
        out["stack"] = stack
        out["swap"] = list(self.swap)
        out["mem_to_mem"] = self.mem_to_mem
        out["immediate_to"] = list(self.immediate_to)
        out["cross_class"] = self.cross_class
        out["cost"] = {k: getattr(self.cost, k) for k in COST_KEYS}
        return out


def _owners(m: Machine) -> dict[Unit, str]:
    return m._owner_of


def _bad(msg: str) -> PreconditionError:
    return PreconditionError(f'"machine": {msg}')


def _whole(value: object, least: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not (
            least <= value <= MAX_UNITS):
        raise _bad(f"{what} must be a whole number in {least}..{MAX_UNITS}, not {value!r}")
    return value


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"{what} must be true or false, not {value!r}")
    return value


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise _bad(f"{what} must be a name (a letter or _, then letters, digits, _), "
                   f"not {value!r}")
    return value


def _kinds(value: object, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or any(v not in allowed for v in value) or len(
            set(value)) != len(value):
        raise _bad(f"{what} must be a list of distinct values among "
                   f"{', '.join(map(json.dumps, allowed))}, not {_short(value)}")
    return tuple(v for v in allowed if v in value)


def _keys(obj: object, allowed: tuple[str, ...], what: str) -> dict:
    if not isinstance(obj, dict):
        raise _bad(f"{what} must be a JSON object, not {obj!r}")
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise _bad(f"{what} has unknown field(s) {', '.join(map(repr, unknown))}; "
                   f"it has {', '.join(allowed)}")
    return obj


def _parse_class(name: str, obj: object) -> RegClass:
    _name(name, "a class name")  # "" would print as nothing in every message
    obj = _keys(obj, CLASS_KEYS, f"class {name!r}")
    if "registers" not in obj:
        raise _bad(f'class {name!r} needs "registers": a list of names')
    regs = obj["registers"]
    if not isinstance(regs, list) or not regs:
        raise _bad(f'class {name!r}: "registers" must be a non-empty list of names, '
                   f"not {regs!r}")
    width = _whole(obj.get("width", 1), 1, f'class {name!r}: "width"')
    swap = obj.get("swap")
    swap = None if swap is None else _kinds(swap, SWAP_KINDS, f'class {name!r}: "swap"')
    immediate = _flag(obj.get("immediate", True), f'class {name!r}: "immediate"')
    return RegClass(name, tuple(_name(r, f"a register of class {name!r}") for r in regs),
                    width, swap, immediate)


def _parse_stack(obj: object) -> tuple[StackGroup, ...]:
    groups = obj if isinstance(obj, list) else [obj]
    out = []
    for i, g in enumerate(groups):
        what = f"stack group #{i}" if isinstance(obj, list) else '"stack"'
        g = _keys(g, STACK_KEYS, what)
        if ("slots" in g) == ("names" in g):
            raise _bad(f'{what} needs exactly one of "slots": N (slots s0..s{{N-1}}) '
                       f'or "names": [...]')
        width = _whole(g.get("width", 1), 1, f'{what}: "width"')
        if "slots" in g:
            names = tuple(f"s{k}" for k in range(_whole(g["slots"], 0, f'{what}: "slots"')))
        else:
            raw = g["names"]
            if not isinstance(raw, list):
                raise _bad(f'{what}: "names" must be a list of names, not {raw!r}')
            names = tuple(_name(n, f"a slot of {what}") for n in raw)
        out.append(StackGroup(names, width, _flag(g.get("immediate", True),
                                                  f'{what}: "immediate"')))
    return tuple(out)


def machine_from_json(obj: object) -> Machine:
    """Validate a JSON machine object (``docs/machines.md``); raise
    PreconditionError naming the field and the problem."""
    obj = _keys(obj, MACHINE_KEYS, "a machine object")
    label = obj.get("name", "machine")
    if not isinstance(label, str) or not label:
        raise _bad(f'"name" must be a non-empty string, not {label!r}')
    source = obj.get("source", "")
    if not isinstance(source, str):
        raise _bad(f'"source" must be a string, not {source!r}')
    if "classes" not in obj:
        raise _bad('missing "classes": {"NAME": {"registers": [...], "width": W}, ...}')
    raw_classes = obj["classes"]
    if not isinstance(raw_classes, dict):
        raise _bad(f'"classes" must be an object of classes, not {raw_classes!r}')
    classes = tuple(_parse_class(n, c) for n, c in raw_classes.items())
    stack = _parse_stack(obj["stack"]) if "stack" in obj else ()
    swap = _kinds(obj.get("swap", []), SWAP_KINDS, '"swap"')
    imm = _kinds(obj.get("immediate_to", ["reg"]), IMMEDIATE_KINDS, '"immediate_to"')
    cost_obj = _keys(obj.get("cost", {}), COST_KEYS, '"cost"')
    cost = Cost(**{k: _whole(v, 0, f'"cost": {k!r}') for k, v in cost_obj.items()})
    raw_aliases = obj.get("aliases", {})
    if not isinstance(raw_aliases, dict):
        raise _bad(f'"aliases" must be an object {{"d0": ["s0", "s1"], ...}}, '
                   f"not {raw_aliases!r}")
    aliases = []
    for a, parts in raw_aliases.items():
        if not isinstance(parts, list) or not parts:
            raise _bad(f"alias {a!r} must list its parts, e.g. [\"s0\", \"s1\"], "
                       f"not {parts!r}")
        aliases.append((a, tuple(_name(p, f"a part of alias {a!r}") for p in parts)))
    m = Machine(label, classes, tuple(aliases), stack, swap,
                _flag(obj.get("mem_to_mem", False), '"mem_to_mem"'), imm,
                _flag(obj.get("cross_class", False), '"cross_class"'), cost, source)
    names = _resolve_names(m)
    owner_of: dict[Unit, str] = {}
    for reg in names.values():
        if len(reg.units) == 1:
            owner_of.setdefault(reg.units[0], reg.name)
    object.__setattr__(m, "_names", names)
    object.__setattr__(m, "_owner_of", owner_of)
    object.__setattr__(m, "_units", tuple(dict.fromkeys(
        u for reg in names.values() for u in reg.units)))
    return m


def _resolve_names(m: Machine) -> dict[str, Reg]:
    """name -> Reg for every register and slot: units of plain registers
    and slots are their own (``x``, or ``x.0``..``x.{w-1}``); an alias's
    units are its parts' units, in order.  Checks: names unique, every
    alias listed in a class, its parts exist, widths add up, no cycle."""
    where: dict[str, str] = {}
    for c in m.classes:
        for r in c.registers:
            if r in where:
                raise _bad(f"{r!r} is declared twice ({where[r]} and class {c.name!r})")
            where[r] = f"class {c.name!r}"
    for g in m.stack:
        for s in g.names:
            if s in where:
                raise _bad(f"slot {s!r} is declared twice ({where[s]} and the stack)"
                           + (" (a machine whose registers use s-names names its "
                              'slots otherwise: "names": ["m0", "m1", ...])'
                              if where[s].startswith("class") else ""))
            where[s] = "the stack"
    alias_parts = dict(m.aliases)
    for a in alias_parts:
        if not where.get(a, "").startswith("class"):
            raise _bad(f"alias {a!r} is not a register of any class; list it in its "
                       f"class (with its width) and in \"aliases\"")
    cls_of = {r: c for c in m.classes for r in c.registers}
    units: dict[str, tuple[Unit, ...]] = {}

    def resolve(name: str, chain: tuple[str, ...]) -> tuple[Unit, ...]:
        if name in units:
            return units[name]
        if name in chain:
            raise _bad(f"alias {name!r} contains itself ({' -> '.join(chain + (name,))})")
        if name in alias_parts:
            got: list[Unit] = []
            for p in alias_parts[name]:
                if p not in cls_of:
                    raise _bad(f"alias {name!r}: part {p!r} is not a register of any class")
                got += resolve(p, chain + (name,))
            width = cls_of[name].width
            if len(got) != width:
                raise _bad(f"alias {name!r}: its parts {_short(list(alias_parts[name]))} have "
                           f"width {len(got)} but class {cls_of[name].name!r} says {width}")
            if len(set(got)) != len(got):
                raise _bad(f"alias {name!r}: its parts {_short(list(alias_parts[name]))} overlap")
            units[name] = tuple(got)
        else:
            w = cls_of[name].width
            units[name] = (name,) if w == 1 else tuple(f"{name}.{k}" for k in range(w))
        return units[name]

    out: dict[str, Reg] = {}
    total = 0
    for c in m.classes:
        for r in c.registers:
            out[r] = Reg(r, "reg", c.name, c.width, resolve(r, ()))
            total += c.width
    same: dict[tuple[Unit, ...], str] = {}
    for a in alias_parts:  # two names for the same units: which one does a sequence mean?
        if units[a] in same:
            raise _bad(f"aliases {same[units[a]]!r} and {a!r} have the same parts "
                       f"{_short(list(units[a]))}; declare the register once")
        same[units[a]] = a
    for g in m.stack:
        for s in g.names:
            out[s] = Reg(s, "mem", None, g.width,
                         (s,) if g.width == 1 else tuple(f"{s}.{k}" for k in range(g.width)))
            total += g.width
    if total > MAX_UNITS:
        raise _bad(f"declares {total} units; at most {MAX_UNITS}")
    return out


@functools.cache
def preset_json(name: str) -> dict:
    """The JSON object of preset ``name`` as shipped (a fresh copy is not
    made: do not mutate it)."""
    if name not in PRESETS:
        raise PreconditionError(
            f"unknown machine {name!r}; the presets are {', '.join(PRESETS)} "
            f"(or give a machine object, docs/machines.md)")
    text = resources.files("verified").joinpath(f"data/machines/{name}.json").read_text()
    return json.loads(text)


@functools.cache
def preset(name: str) -> Machine:
    """The preset machine ``name`` (one of ``PRESETS``)."""
    return machine_from_json(preset_json(name))


@functools.lru_cache(maxsize=64)
def _machine_from_text(text: str) -> Machine:
    return machine_from_json(json.loads(text))


def machine(value: object) -> Machine:
    """A request's ``"machine"``: a preset name or a machine object."""
    if isinstance(value, Machine):
        return value
    if isinstance(value, str):
        return preset(value)
    if isinstance(value, dict):
        # a conform run or a vectors file repeats one machine object on every
        # line: parse each distinct object once
        try:
            key = json.dumps(value)  # key order matters: classes are in order
        except (TypeError, ValueError):
            return machine_from_json(value)
        return _machine_from_text(key)
    raise _bad(f"must be a preset name ({', '.join(PRESETS)}) or a machine object, "
               f"not {value!r}")


# ---------------------------------------------------------------------------
# 2. Locations and units
# ---------------------------------------------------------------------------


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


def _short(value: object) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


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


# ---------------------------------------------------------------------------
# 3. Operations: classification, legality, cost
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MMov:
    """``mov dst, src`` on a machine.  A list operand is its parts moved one
    after the other, low first (``mov [a1, a2], [a0, a1]`` is ``mov a1, a0;
    mov a2, a1``: no machine moves a register pair at once)."""

    dst: Place
    src: MLoc

    def to_json(self) -> list:
        return ["mov", self.dst.to_json(), self.src.to_json()]


@dataclass(frozen=True)
class MSwap:
    """``swap a, b`` on a machine (x86 ``xchg``); a list operand is its parts
    swapped one after the other."""

    a: Place
    b: Place

    def to_json(self) -> list:
        return ["swap", self.a.to_json(), self.b.to_json()]


MOperation = Union[MMov, MSwap]

#: The classification of an operation by its operands' kinds.
OP_CLASSES = ("reg<-reg", "load", "store", "mem<-mem", "reg<-imm", "mem<-imm",
              "swap reg-reg", "swap reg-mem", "swap mem-mem")


def format_mop(op: MOperation) -> str:
    """Assembly-like text: ``mov a1, a0``, ``swap m0, m1``, ``mov rax, #42``."""
    if isinstance(op, MMov):
        return f"mov {op.dst}, {op.src}"
    return f"swap {op.a}, {op.b}"


def parse_op(m: Machine, value: object) -> MOperation:
    """One operation from JSON (``["mov", dst, src]`` or ``["swap", a, b]``
    over the machine's names).  Raises PreconditionError saying what is
    wrong; legality on the machine is ``illegal``'s business."""
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise PreconditionError(f'an operation on a machine is ["mov", dst, src] or '
                                f'["swap", a, b]; got {_short(value)}')
    op, args = value[0], value[1:]
    if op not in ("mov", "swap"):
        raise PreconditionError(f"unknown operation {op!r} on a machine; known: mov, swap")
    if len(args) != 2:
        raise PreconditionError(f"{op} takes 2 operands, got {len(args)} in {_short(value)}")
    if op == "mov":
        dst = parse_loc(m, args[0], allow_imm=False)
        return MMov(dst, parse_loc(m, args[1]))
    a, b = (parse_loc(m, x, allow_imm=False) for x in args)
    return MSwap(a, b)


def parts(m: Machine, op: MOperation) -> list[MOperation] | str:
    """A list operation as its single-name parts, in order (the operation
    itself when it has no list), or the reason it cannot be split: a list
    operand needs as many parts on the other side (a single name is one
    part), or an immediate source."""
    if isinstance(op, MMov):
        x, y = op.dst, op.src
    else:
        x, y = op.a, op.b
    lists = [loc for loc in (x, y) if isinstance(loc, Place) and loc.is_list]
    if not lists:
        return [op]
    if isinstance(y, Imm):
        out: list[MOperation] = []
        offset = 0
        for p in x.parts:
            out.append(MMov(Place((p,)), Imm(y.value, y.offset + offset)))
            offset += m.lookup(p).width
        return out
    if len(x.parts) != len(y.parts):  # a one-part list is its single location
        return (f"{format_mop(op)} pairs a list of {len(x.parts)} part(s) with "
                f"{'a list of ' + str(len(y.parts)) + ' part(s)' if len(lists) == 2 else 'a single location'}"
                f"; a list operand is moved part by part, so the other side must be a "
                f"list of as many parts")
    make = MMov if isinstance(op, MMov) else MSwap
    return [make(Place((p,)), Place((q,))) for p, q in zip(x.parts, y.parts)]


def classify(m: Machine, op: MOperation) -> str:
    """The operation's class by its operands' kinds (``OP_CLASSES``); a
    list operation by its first part."""
    if isinstance(op, MMov):
        d, s = kind(m, op.dst), kind(m, op.src)
        return {("reg", "reg"): "reg<-reg", ("reg", "mem"): "load",
                ("mem", "reg"): "store", ("mem", "mem"): "mem<-mem",
                ("reg", "imm"): "reg<-imm", ("mem", "imm"): "mem<-imm"}[(d, s)]
    ka, kb = sorted((kind(m, op.a), kind(m, op.b)), reverse=True)
    return f"swap {ka}-{kb}"


def _single_illegal(m: Machine, op: MOperation) -> str | None:
    """``illegal`` for an operation without list operands."""
    what = classify(m, op)
    text = format_mop(op)
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
        return None
    x, y = (op.dst, op.src) if isinstance(op, MMov) else (op.a, op.b)
    rx, ry = m.lookup(x.parts[0]), m.lookup(y.parts[0])
    if rx.width != ry.width:
        return (f"{text} has operands of widths {rx.width} and {ry.width}; a "
                f"{'mov' if isinstance(op, MMov) else 'swap'} needs equal widths")
    if rx.kind == "reg" and ry.kind == "reg" and rx.cls != ry.cls and not m.cross_class:
        return (f"{text} goes between classes {rx.cls} and {ry.cls}, which {m.name} "
                f"lacks (cross_class is false)")
    if isinstance(op, MMov):
        if what == "mem<-mem" and not m.mem_to_mem:
            return (f"{text} is a memory-to-memory move, which {m.name} lacks "
                    f"(mem_to_mem is false)")
        return None
    if rx.name != ry.name and set(rx.units) & set(ry.units):
        return f"{text} swaps overlapping registers {rx.name} and {ry.name}"
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
    legal when each of its parts is."""
    split = parts(m, op)
    if isinstance(split, str):
        return split
    for part in split:
        reason = _single_illegal(m, part)
        if reason is not None:
            return reason if len(split) == 1 else f"{format_mop(op)}: part {reason}"
    return None


def op_cost(m: Machine, op: MOperation) -> int:
    """Cost of one (legal) operation: the sum over its parts of the price of
    the part's class (``Cost``)."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    c = m.cost
    price = {"reg<-reg": c.mov, "load": c.load, "store": c.store,
             "mem<-mem": c.load + c.store, "reg<-imm": c.imm, "mem<-imm": c.imm}
    return sum(c.swap if isinstance(p, MSwap) else price[classify(m, p)] for p in split)


def cost(m: Machine, ops: Iterable[MOperation]) -> int:
    """Total cost of a (legal) sequence under the machine's ``cost``."""
    return sum(op_cost(m, op) for op in ops)


# ---------------------------------------------------------------------------
# 4. The interpreter (per unit)
# ---------------------------------------------------------------------------

#: A machine state: unit -> the symbolic value it holds; a unit absent from
#: the mapping holds its own original value (its own name).
MState = dict


def step(m: Machine, state: MState, op: MOperation) -> None:
    """Run one operation on ``state`` in place (a list operation part by
    part, each part reading all its units before writing any).  The
    operation must split (``parts``); legality is not checked here."""
    split = parts(m, op)
    if isinstance(split, str):
        raise PreconditionError(split)
    get = state.get
    for p in split:
        if isinstance(p, MMov):
            du = units(m, p.dst)
            vals = [get(u, u) for u in units(m, p.src)] if isinstance(
                p.src, Place) else [p.src.piece(i) for i in range(len(du))]
            for u, v in zip(du, vals):
                state[u] = v
        else:
            ua, ub = units(m, p.a), units(m, p.b)
            va, vb = [get(u, u) for u in ua], [get(u, u) for u in ub]
            for u, v in zip(ua, vb):
                state[u] = v
            for u, v in zip(ub, va):
                state[u] = v


def execute(m: Machine, ops: Iterable[MOperation], state: MState | None = None) -> MState:
    """The state after running ``ops`` from ``state`` (default: every unit
    holds its own name)."""
    state = {} if state is None else dict(state)
    for op in ops:
        step(m, state, op)
    return state


# ---------------------------------------------------------------------------
# 5. The parallel move on a machine, the verdict, the request
# ---------------------------------------------------------------------------


def format_move(dst: MLoc, src: MLoc) -> str:
    return f"{dst} <- {src}"


@dataclass(frozen=True)
class MachineMove:
    """A parallel move on a machine: ``[dst, src]`` pairs executed at once,
    plus declared temporaries.  Preconditions (``make``): every name exists;
    no destination is an immediate; each pair has equal widths; the
    destinations' units are pairwise disjoint (through an alias or a list);
    temporaries are registers or slots whose units no move and no other
    temporary touches."""

    machine: Machine
    moves: tuple[tuple[Place, MLoc], ...]
    temps: tuple[Place, ...] = ()

    @staticmethod
    def make(m: Machine, moves: Iterable[object], temps: Iterable[object] = ()) -> "MachineMove":
        pairs: list[tuple[Place, MLoc]] = []
        owner: dict[Unit, int] = {}
        for i, pair in enumerate(moves):
            if not isinstance(pair, list) or len(pair) != 2:
                raise PreconditionError(f"move #{i} must be a [dst, src] pair, not "
                                        f"{_short(pair)}")
            try:
                dst = parse_loc(m, pair[0], allow_imm=False)
                src = parse_loc(m, pair[1])
            except PreconditionError as e:
                raise PreconditionError(f"move #{i} {_short(pair)}: {e}") from None
            wd, ws = width(m, dst), width(m, src)
            if ws is not None and wd != ws:
                raise PreconditionError(
                    f"move {format_move(dst, src)}: {dst} has width {wd} but {src} has "
                    f"width {ws}; a move needs equal widths")
            for u in units(m, dst):
                if u in owner:
                    d2, s2 = pairs[owner[u]]
                    raise PreconditionError(
                        f"destinations overlap: {format_move(d2, s2)} and "
                        f"{format_move(dst, src)} both write unit {u}; a parallel move "
                        f"needs disjoint destinations")
                owner[u] = len(pairs)
            pairs.append((dst, src))
        touched = {u for d, s in pairs for u in (*units(m, d), *units(m, s))}
        temp_list: list[Place] = []
        seen: dict[Unit, Place] = {}
        for t in temps:
            try:
                place = parse_loc(m, t, allow_imm=False)
            except PreconditionError as e:
                raise PreconditionError(f"temporary {_short(t)}: {e}") from None
            for u in units(m, place):
                if u in touched:
                    users = [format_move(d, s) for d, s in pairs
                             if u in units(m, d) or u in units(m, s)]
                    raise PreconditionError(
                        f"temporary {place} overlaps the move {', '.join(users)} (unit "
                        f"{u}); a temporary must be a location the moves do not touch")
                if u in seen:
                    raise PreconditionError(f"temporaries {seen[u]} and {place} overlap "
                                            f"(unit {u}); declare each once")
                seen[u] = place
            temp_list.append(place)
        return MachineMove(m, tuple(pairs), tuple(temp_list))

    def expected(self) -> dict[Unit, Value]:
        """unit -> the value it must hold afterwards, destinations only (in
        move order, low unit first)."""
        out: dict[Unit, Value] = {}
        for d, s in self.moves:
            du = units(self.machine, d)
            out.update(zip(du, values(self.machine, s, len(du))))
        return out

    def temp_units(self) -> frozenset[Unit]:
        return frozenset(u for t in self.temps for u in units(self.machine, t))

    def to_json(self) -> dict:
        return {"moves": [[d.to_json(), s.to_json()] for d, s in self.moves],
                "temps": [t.to_json() for t in self.temps]}

    def __str__(self) -> str:
        return "(" + ", ".join(format_move(d, s) for d, s in self.moves) + ")"


@dataclass(frozen=True)
class MachineVerdict(Verdict):
    """The oracle's answer on a machine: a ``Verdict`` plus the sequence's
    cost (None when the sequence is not legal) and, for a wrong value, the
    unit that holds it (``location`` is the register or slot it belongs
    to)."""

    cost: int | None = None
    unit: Unit | None = None

    def to_json(self) -> dict:
        out: dict = {"ok": self.ok, "length": self.length}
        if self.cost is not None:
            out["cost"] = self.cost
        if not self.ok:
            out["reason"] = self.reason
            if self.unit is not None:
                out["counterexample"] = {"location": self.location, "unit": self.unit,
                                         "expected": self.expected, "got": self.got}
            if self.op_index is not None:
                out["operation"] = self.op_index
        return out


def read_machine_sequence(m: Machine, raw: object) -> "list[MOperation] | MachineVerdict":
    """The operations of a JSON ``"sequence"`` on machine ``m``, or the
    verdict saying why it is not one: anything wrong inside the sequence
    (malformed, an unknown name, an operation the machine lacks) is a
    verdict with the operation's index, never bad input (the rule of
    ``oracle.read_sequence``)."""
    if not isinstance(raw, list):
        return MachineVerdict(False, 0, reason=f'"sequence" must be a list of operations, '
                              f"not {_short(raw)}")
    ops = []
    for i, value in enumerate(raw):
        try:
            op = parse_op(m, value)
        except PreconditionError as e:
            return MachineVerdict(False, len(raw), reason=f"operation #{i}: {e}", op_index=i)
        reason = illegal(m, op)
        if reason is not None:
            return MachineVerdict(False, len(raw), op_index=i,
                                  reason=f"operation #{i}: {reason}")
        ops.append(op)
    return ops


def implements(mm: MachineMove, ops: Sequence[MOperation], preserve: str = "all") -> MachineVerdict:
    """Decide whether ``ops`` implements ``mm`` on its machine under the
    contract ``preserve``: the first illegal operation, else (after running
    the whole sequence) the first wrong unit, destinations first in move
    order, then (under "all") every other unit that is not a temporary's."""
    check_contract(preserve)
    m = mm.machine
    for i, op in enumerate(ops):
        reason = illegal(m, op)
        if reason is not None:
            return MachineVerdict(False, len(ops), op_index=i,
                                  reason=f"operation #{i}: {reason}")
    return judge(mm, execute(m, ops), preserve, len(ops), cost(m, ops))


def judge(mm: MachineMove, state: MState, preserve: str = "all", length: int = 0,
          total: int | None = None) -> MachineVerdict:
    """Judge a final per-unit state against the contract."""
    m = mm.machine
    for d, s in mm.moves:
        du = units(m, d)
        for u, want in zip(du, values(m, s, len(du))):
            got = state.get(u, u)
            if got != want:
                return MachineVerdict(
                    False, length, location=d.to_json(), expected=want, got=got,
                    unit=u, cost=total,
                    reason=f"destination {d} (unit {u}) must hold {_wanted(want)} but "
                    f"holds {_held(got)}")
    if preserve == "all":
        dest = mm.expected()
        temps = mm.temp_units()
        for u in m.units():
            if u in dest or u in temps:
                continue
            got = state.get(u, u)
            if got != u:
                name = m.owner(u)
                return MachineVerdict(
                    False, length, location=name, expected=u, got=got, unit=u, cost=total,
                    reason=f"{name} (unit {u}) is not a destination, so it must keep its "
                    f"own value, but it was clobbered with {_held(got)}")
    return MachineVerdict(True, length, cost=total)


def _wanted(v: Value) -> str:
    return f"the immediate piece {v}" if v.startswith("#") else f"the original value of {v}"


def _held(v: Value) -> str:
    return f"the immediate piece {v}" if v.startswith("#") else f"that of {v}"


# -- the request ----------------------------------------------------------

MACHINE_REQUEST_KEYS = ("id", "machine", "moves", "temps", "preserve", "sequence")


@dataclass(frozen=True)
class MachineRequest:
    """A parsed request carrying ``"machine"``."""

    move: MachineMove
    preserve: str = "all"
    #: the "sequence" as sent (judged by ``read_machine_sequence``), or None
    sequence: object = None
    id: object = None

    @property
    def machine(self) -> Machine:
        return self.move.machine


@dataclass(frozen=True)
class MachineOptimum:
    """The optimum of a machine request: the minimum total cost, or None
    with ``note`` saying why (not computed, too large, or no legal sequence
    exists).  The contract of ``verified.algorithms.machine_optimum.optimum``."""

    cost: int | None
    note: str | None = None


def parse_machine_request(obj: dict, need_sequence: bool) -> MachineRequest:
    """Validate a decoded request that has ``"machine"``; raise
    PreconditionError naming the problem.  ``"model"`` and ``"registers"``
    do not go with a machine (it says both)."""
    for key in ("model", "registers"):
        if key in obj:
            raise PreconditionError(
                f'"{key}" does not go with "machine": the machine says which registers '
                f"and operations exist; drop \"{key}\"")
    unknown = sorted(set(obj) - set(MACHINE_REQUEST_KEYS))
    if unknown:
        raise PreconditionError(
            f"unknown field(s) {', '.join(map(repr, unknown))}; a machine request has "
            f"{', '.join(MACHINE_REQUEST_KEYS)}")
    m = machine(obj["machine"])
    if "moves" not in obj:
        raise PreconditionError('missing "moves": a list of [dst, src] pairs')
    moves = obj["moves"]
    if not isinstance(moves, list):
        raise PreconditionError(f'"moves" must be a list of [dst, src] pairs, not '
                                f"{_short(moves)}")
    preserve = obj.get("preserve", "all")
    if not isinstance(preserve, str):
        raise PreconditionError(f'"preserve" must be "all" or "loops", not {preserve!r}')
    check_contract(preserve)
    temps = obj.get("temps", [])
    if not isinstance(temps, list):
        raise PreconditionError(f'"temps" must be a list of locations, not {_short(temps)}')
    mm = MachineMove.make(m, moves, temps)
    if need_sequence and "sequence" not in obj:
        raise PreconditionError('missing "sequence": the operations to check')
    return MachineRequest(mm, preserve, obj.get("sequence"), obj.get("id"))


def check_machine_request(req: MachineRequest) -> MachineVerdict:
    """The verdict on a parsed machine request's sequence."""
    ops = read_machine_sequence(req.machine, req.sequence)
    if isinstance(ops, MachineVerdict):
        return ops
    # read_machine_sequence has judged every operation's legality: run and
    # judge the contract (``implements`` without its second legality pass)
    m = req.machine
    return judge(req.move, execute(m, ops), req.preserve, len(ops), cost(m, ops))
