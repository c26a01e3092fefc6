"""Machines, part 1: the description (``docs/machines.md``).

A ``Machine`` is parsed from a preset name or a JSON object by
``machine``, which validates it: register classes (names, width in units),
aliased registers, stack slot groups, which swaps and immediate writes the
machine has, whether slot-to-slot and cross-class moves exist, and costs.
The presets are data files, ``verified/data/machines/NAME.json``.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field, replace
import pkgutil
from typing import Any, Callable, Hashable, Mapping

from ..semantics import PreconditionError

#: The preset machines, in the order ``verified machines`` lists them; each
#: is ``verified/data/machines/NAME.json``.
PRESETS = ("x86-64", "aarch64", "riscv64", "armv7-vfp")
#: The shipped compiler profiles: a preset plus how one compiler uses it
#: (``verified/data/profiles/NAME.json``: its ``base`` preset, the machine
#: fields it sets, per-class refinements, and the upstream files its facts
#: come from).  A profile's name is accepted wherever a preset's is.
PROFILES = ("v8-x64", "v8-arm", "v8-arm-d16", "qbe-amd64", "qbe-arm64", "qbe-rv64",
            "cranelift-x64", "cranelift-aarch64")
#: the keys of a profile file
PROFILE_KEYS = ("name", "base", "compiler", "files", "source", "notes", "set", "classes")

SWAP_KINDS = ("reg-reg", "reg-mem")
IMMEDIATE_KINDS = ("reg", "mem")
COST_KEYS = ("mov", "load", "store", "swap", "imm")
MACHINE_KEYS = ("name", "source", "classes", "aliases", "stack", "swap", "mem_to_mem",
                "immediate_to", "cross_class", "cost", "unit_bits", "types",
                "immediate_bits", "pair_moves", "reserved", "scratch", "push", "pop")
#: round 3, stack operations: what ``["push", src]`` may read and ``["pop",
#: dst]`` may write (``"push"``, ``"pop"``), and their costs
PUSH_KINDS = ("reg", "mem", "imm")
POP_KINDS = ("reg", "mem")
STACK_COST_KEYS = ("push", "pop")
TYPE_KEYS = ("width", "classes", "stack")
PAIR_KEYS = ("pair", "with")
CLASS_KEYS = ("registers", "width", "swap", "immediate", "stack_ops")
STACK_KEYS = ("slots", "names", "width", "immediate", "stack_ops")

#: A register or slot name: a letter or ``_``, then letters, digits, ``_``.
#: (No ``.``: unit names of wide registers are ``xmm0.0``, ``xmm0.1``.)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Largest total number of units a description may declare (a guard against
#: nonsense input, far above any real register file).
MAX_UNITS = 1 << 16

#: A unit: the smallest piece of state (``"rax"``, ``"s0"``, ``"xmm0.1"``).
Unit = str
#: A symbolic value held by a unit: the name of the unit whose original value
#: it is, a piece of an immediate (``"#42"``: the unit's bits on a machine
#: that states ``unit_bits``, else ``"#42"``, ``"#42.1"``; see ``Imm``), or
#: ``UNDEFINED`` (what a typed write leaves in the rest of its destination).
Value = str
#: The value of a unit a typed operation left undefined (not a name: names
#: start with a letter or ``_``, so it never equals a unit's own value).
UNDEFINED = "?"

#: How many answers each table of a machine's ``Memo`` keeps: memory stays
#: bounded on a long random run whose immediates are all different (past
#: the bound an answer is computed, not kept).
MEMO_LIMIT = 1 << 16


class Memo:
    """One machine's memo of pure functions of it (``locations``,
    ``operations``, ``semantics``, ``oracle``): a conform run asks the same
    few questions of the same few dozen locations millions of times (issue
    20: ``units`` and ``parse_loc`` were 1.2M calls for about 60
    locations).  One table per function, keyed by the function object
    itself, so that a fresh copy of a module (a mutant, ``mutants/``) never
    reads the answers of the real one; each maps an argument to the
    function's answer on this machine, never to an error.  A machine is
    immutable, so an answer never goes stale; it is held by the machine
    itself, so nothing is shared between machines, and a copy sent to
    another process starts empty."""

    __slots__ = ("tables",)

    def __init__(self) -> None:
        self.tables: dict = {}

    def table(self, fn: object) -> dict:
        """The table of ``fn``'s answers (at most ``MEMO_LIMIT`` kept)."""
        t = self.tables.get(fn)
        if t is None:
            t = self.tables[fn] = {}
        return t

    def ask(self, fn: Callable[..., Any], key: Hashable, *args: Any) -> Any:
        """``fn(*args)``, remembered under ``key`` in ``fn``'s table (the one
        shape of every memoised function of the machine package)."""
        t = self.table(fn)
        out = t.get(key, _MISSING)
        if out is _MISSING:
            out = fn(*args)
            if len(t) < MEMO_LIMIT:
                t[key] = out
        return out

    def __reduce__(self) -> tuple:
        return (Memo, ())


_MISSING = object()


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
    #: may push and pop take this class's registers (the machine's "push" and
    #: "pop" say whether they take registers at all): x86's PUSH r64, not XMM
    stack_ops: bool = True


@dataclass(frozen=True)
class StackGroup:
    """A group of stack slots of one width; any value of that width may live
    in one.  ``immediate``: may an immediate be stored to these slots in one
    mov (with ``"mem"`` in the machine's ``immediate_to``)."""

    names: tuple[str, ...]
    width: int
    immediate: bool = True
    #: may push and pop take these slots (x86's PUSH m64: 8-byte slots only)
    stack_ops: bool = True


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
    push: int = 1
    pop: int = 1


@dataclass(frozen=True)
class ValueType:
    """A type of value (``"types"``): its width in units and where a value
    of it may live: registers of ``classes`` (a list of registers of those
    classes when one is too narrow, e.g. an i64 in a GPR pair), and stack
    slots at least ``width`` wide when ``stack``."""

    name: str
    width: int
    classes: tuple[str, ...]
    stack: bool = True


@dataclass(frozen=True)
class PairMove:
    """A move the machine has between a list of registers of class ``pair``
    and one register of class ``other`` (or one slot, ``other`` "mem") of the
    same width, in one operation, both ways (ARMv7 ``VMOV r0, r1, d0``,
    AArch64 ``LDP``/``STP``)."""

    pair: str
    other: str


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
    #: bits in one unit (immediates are bit patterns when stated; else symbolic)
    unit_bits: int | None = None
    types: tuple[ValueType, ...] = ()
    #: (kind, bits): the widest immediate one mov writes into a "reg" / "mem"
    immediate_bits: tuple[tuple[str, int], ...] = ()
    pair_moves: tuple[PairMove, ...] = ()
    #: a profile: registers no case names and no sequence writes
    reserved: tuple[str, ...] = ()
    #: a profile: the registers (and slots) a compiler keeps free for shuffling
    scratch: tuple[str, ...] = ()
    #: the operand kinds ["push", src] may read and ["pop", dst] may write
    push: tuple[str, ...] = ()
    pop: tuple[str, ...] = ()
    _names: Mapping[str, Reg] = field(default_factory=dict, compare=False, repr=False)
    #: unit -> the first name whose only unit it is (how a unit is reported)
    _owner_of: Mapping[Unit, str] = field(default_factory=dict, compare=False, repr=False)
    _units: tuple[Unit, ...] = field(default=(), compare=False, repr=False)
    #: type name -> the type (``type``)
    _types: Mapping[str, ValueType] = field(default_factory=dict, compare=False, repr=False)
    #: the units of every reserved register (``reserved_units``)
    _reserved_units: frozenset = field(default=frozenset(), compare=False, repr=False)
    #: answers of pure functions of this machine (never passed in: a copy
    #: made with ``dataclasses.replace`` starts with its own, empty)
    memo: Memo = field(init=False, default_factory=Memo, compare=False, repr=False)

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

    def type(self, name: str) -> ValueType | None:
        """The type called ``name``, or None."""
        return self._types.get(name)

    def reserved_units(self) -> frozenset[Unit]:
        """The units of every reserved register."""
        return self._reserved_units

    def immediate_limit(self, where: str) -> int | None:
        """The widest immediate (bits) one mov writes into ``where`` ("reg"
        or "mem"), or None (no limit stated)."""
        return dict(self.immediate_bits).get(where)

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
            if not c.stack_ops:
                entry["stack_ops"] = False
            classes[c.name] = entry
        out["classes"] = classes
        out["aliases"] = {a: list(parts) for a, parts in self.aliases}
        stack = []
        for g in self.stack:
            entry = {"names": list(g.names), "width": g.width}
            if not g.immediate:
                entry["immediate"] = False
            if not g.stack_ops:
                entry["stack_ops"] = False
            stack.append(entry)
        out["stack"] = stack
        out["swap"] = list(self.swap)
        out["mem_to_mem"] = self.mem_to_mem
        out["immediate_to"] = list(self.immediate_to)
        out["cross_class"] = self.cross_class
        out["cost"] = {k: getattr(self.cost, k) for k in COST_KEYS}
        # the round-3 fields only when stated: a round-2 machine reads as before
        if self.unit_bits is not None:
            out["unit_bits"] = self.unit_bits
        if self.types:
            out["types"] = {t.name: {"width": t.width, "classes": list(t.classes),
                                     "stack": t.stack} for t in self.types}
        if self.immediate_bits:
            out["immediate_bits"] = dict(self.immediate_bits)
        if self.pair_moves:
            out["pair_moves"] = [{"pair": p.pair, "with": p.other} for p in self.pair_moves]
        if self.reserved:
            out["reserved"] = list(self.reserved)
        if self.scratch:
            out["scratch"] = list(self.scratch)
        if self.push or self.pop:  # stack operations (round 3) only when the machine has them
            out["push"], out["pop"] = list(self.push), list(self.pop)
            out["cost"].update({k: getattr(self.cost, k) for k in STACK_COST_KEYS})
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
                    width, swap, immediate,
                    _flag(obj.get("stack_ops", True), f'class {name!r}: "stack_ops"'))


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
                                                  f'{what}: "immediate"'),
                              _flag(g.get("stack_ops", True), f'{what}: "stack_ops"')))
    return tuple(out)


def _parse_types(obj: object, class_names: list[str]) -> tuple[ValueType, ...]:
    if not isinstance(obj, dict):
        raise _bad(f'"types" must be an object {{"f64": {{"width": 1, "classes": ["xmm"], '
                   f'"stack": true}}, ...}}, not {_short(obj)}')
    out = []
    for name, t in obj.items():
        _name(name, "a type name")
        t = _keys(t, TYPE_KEYS, f"type {name!r}")
        if "width" not in t or "classes" not in t:
            raise _bad(f'type {name!r} needs "width" (units) and "classes" (where it may '
                       f'live), e.g. {{"width": 1, "classes": ["gpr"], "stack": true}}')
        classes = t["classes"]
        if not isinstance(classes, list) or len(set(map(str, classes))) != len(classes):
            raise _bad(f'type {name!r}: "classes" must be a list of distinct class names, '
                       f"not {_short(classes)}")
        for c in classes:
            if c not in class_names:
                raise _bad(f"type {name!r}: {c!r} is not a class of this machine "
                           f"(its classes: {', '.join(class_names)})")
        stack = _flag(t.get("stack", True), f'type {name!r}: "stack"')
        if not classes and not stack:
            raise _bad(f'type {name!r} can live nowhere: give it classes or "stack": true')
        out.append(ValueType(name, _whole(t["width"], 1, f'type {name!r}: "width"'),
                             tuple(classes), stack))
    return tuple(out)


def _parse_immediate_bits(obj: object) -> tuple[tuple[str, int], ...]:
    obj = _keys(obj, IMMEDIATE_KINDS, '"immediate_bits"')
    return tuple((k, _whole(obj[k], 1, f'"immediate_bits": {k!r}'))
                 for k in IMMEDIATE_KINDS if k in obj)


def _parse_pairs(obj: object, class_names: list[str]) -> tuple[PairMove, ...]:
    if not isinstance(obj, list):
        raise _bad(f'"pair_moves" must be a list of {{"pair": CLASS, "with": CLASS or '
                   f'"mem"}}, not {_short(obj)}')
    out = []
    for i, p in enumerate(obj):
        p = _keys(p, PAIR_KEYS, f"pair move #{i}")
        if set(p) != set(PAIR_KEYS):
            raise _bad(f'pair move #{i} needs "pair" (the class of the listed registers) '
                       f'and "with" (a class, or "mem" for a slot)')
        if p["pair"] not in class_names:
            raise _bad(f"pair move #{i}: {p['pair']!r} is not a class of this machine")
        if p["with"] != "mem" and p["with"] not in class_names:
            raise _bad(f"pair move #{i}: {p['with']!r} is neither a class of this machine "
                       f'nor "mem"')
        out.append(PairMove(p["pair"], p["with"]))
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
    cost_obj = _keys(obj.get("cost", {}), COST_KEYS + STACK_COST_KEYS, '"cost"')
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
    unit_bits = obj.get("unit_bits")
    if unit_bits is not None:
        unit_bits = _whole(unit_bits, 1, '"unit_bits"')
    class_names = [c.name for c in classes]
    m = Machine(label, classes, tuple(aliases), stack, swap,
                _flag(obj.get("mem_to_mem", False), '"mem_to_mem"'), imm,
                _flag(obj.get("cross_class", False), '"cross_class"'), cost, source,
                unit_bits, _parse_types(obj.get("types", {}), class_names),
                _parse_immediate_bits(obj.get("immediate_bits", {})),
                _parse_pairs(obj.get("pair_moves", []), class_names),
                _name_list(obj.get("reserved", []), '"reserved"'),
                _name_list(obj.get("scratch", []), '"scratch"'))
    m = replace(m, push=_kinds(obj.get("push", []), PUSH_KINDS, '"push"'),
                pop=_kinds(obj.get("pop", []), POP_KINDS, '"pop"'))
    names = _resolve_names(m)
    owner_of: dict[Unit, str] = {}
    for reg in names.values():
        if len(reg.units) == 1:
            owner_of.setdefault(reg.units[0], reg.name)
    object.__setattr__(m, "_names", names)
    object.__setattr__(m, "_owner_of", owner_of)
    object.__setattr__(m, "_units", tuple(dict.fromkeys(
        u for reg in names.values() for u in reg.units)))
    object.__setattr__(m, "_types", {t.name: t for t in m.types})
    object.__setattr__(m, "_reserved_units", frozenset(
        u for r in m.reserved if r in names for u in names[r].units))
    _check_profile(m, names)
    return m


def _name_list(obj: object, what: str) -> tuple[str, ...]:
    if not isinstance(obj, list) or len(set(map(str, obj))) != len(obj):
        raise _bad(f"{what} must be a list of distinct register names, not {_short(obj)}")
    return tuple(_name(n, f"a name in {what}") for n in obj)


def _check_profile(m: Machine, names: Mapping[str, Reg]) -> None:
    """``reserved`` names registers, ``scratch`` registers or slots, and no
    scratch location overlaps a reserved register."""
    for r in m.reserved:
        if r not in names or names[r].kind != "reg":
            raise _bad(f'"reserved": {r!r} is not a register of {m.name}')
    for r in m.scratch:
        if r not in names:
            raise _bad(f'"scratch": {r!r} is not a register or slot of {m.name}')
    held = {u: r for r in m.reserved for u in names[r].units}
    for r in m.scratch:
        clash = next((held[u] for u in names[r].units if u in held), None)
        if clash is not None:
            raise _bad(f'"scratch": {r!r} overlaps the reserved register {clash!r}; a '
                       f"reserved register is never written, so it cannot be a scratch")


def _units_within_bound(m: Machine) -> None:
    """The unit bound of ``_resolve_names``, checked before any unit name
    is made: 1,014 slots of width 65,535 made 66 million names (10 s, 4.7
    GB) only to be refused.  Called only for a machine without aliases,
    where no other error of ``_resolve_names`` can come first (the same
    error, the same message)."""
    total = (sum(c.width * len(c.registers) for c in m.classes)
             + sum(g.width * len(g.names) for g in m.stack))
    if total > MAX_UNITS:
        raise _bad(f"declares {total} units; at most {MAX_UNITS}")


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
        if a not in where:
            raise _bad(f"alias {a!r} is not a register of any class; list it in its "
                       f"class (with its width) and in \"aliases\"")
    if not alias_parts:
        _units_within_bound(m)
    cls_of = {r: c for c in m.classes for r in c.registers}
    # a slot may be an alias too (a frame layout): a wide slot over narrower
    # slots, its parts; naming a part names those units of the wide slot
    group_of = {s: g for g in m.stack for s in g.names}
    units: dict[str, tuple[Unit, ...]] = {}

    def resolve(name: str, chain: tuple[str, ...]) -> tuple[Unit, ...]:
        if name in units:
            return units[name]
        if name in chain:
            raise _bad(f"alias {name!r} contains itself ({' -> '.join(chain + (name,))})")
        slot = name in group_of
        if name in alias_parts:
            got: list[Unit] = []
            for p in alias_parts[name]:
                if not slot and p not in cls_of:
                    raise _bad(f"alias {name!r}: part {p!r} is not a register of any class")
                if slot and p not in group_of:
                    raise _bad(f"alias {name!r} is a stack slot, so its parts are slots, but "
                               + (f"{p!r} is a register" if p in cls_of else
                                  f"{p!r} is no slot of the stack")
                               + "; list the narrower slots it lies over in \"stack\"")
                got += resolve(p, chain + (name,))
            width = group_of[name].width if slot else cls_of[name].width
            if len(got) != width:
                if slot:
                    raise _bad(f"alias {name!r}: its parts {_short(list(alias_parts[name]))} "
                               f"have width {len(got)} but its stack group has width "
                               f"{width}; a slot's parts add up to its width")
                raise _bad(f"alias {name!r}: its parts {_short(list(alias_parts[name]))} have "
                           f"width {len(got)} but class {cls_of[name].name!r} says {width}")
            if len(set(got)) != len(got):
                raise _bad(f"alias {name!r}: its parts {_short(list(alias_parts[name]))} overlap")
            units[name] = tuple(got)
        else:
            w = group_of[name].width if slot else cls_of[name].width
            units[name] = (name,) if w == 1 else tuple(f"{name}.{k}" for k in range(w))
        return units[name]

    out: dict[str, Reg] = {}
    total = 0
    for c in m.classes:
        for r in c.registers:
            out[r] = Reg(r, "reg", c.name, c.width, resolve(r, ()))
            total += c.width
    for g in m.stack:
        for s in g.names:
            out[s] = Reg(s, "mem", None, g.width, resolve(s, ()))
            total += g.width
    plain = {units[s]: s for g in m.stack for s in g.names if s not in alias_parts}
    for a in alias_parts:  # a slot alias of one part is that part under a second name
        if a in group_of and units[a] in plain:
            raise _bad(f"alias {a!r} has the same units as the slot {plain[units[a]]!r}; "
                       f"declare the slot once")
    same: dict[tuple[Unit, ...], str] = {}
    for a in alias_parts:  # two names for the same units: which one does a sequence mean?
        if units[a] in same:
            raise _bad(f"aliases {same[units[a]]!r} and {a!r} have the same parts "
                       f"{_short(list(units[a]))}; declare the "
                       f"{'slot' if a in group_of else 'register'} once")
        same[units[a]] = a
    if total > MAX_UNITS:
        raise _bad(f"declares {total} units; at most {MAX_UNITS}")
    return out


def _data_text(path: str) -> str:
    """A data file shipped in the package (``verified/PATH``), as text.
    ``pkgutil`` reads it through the package's own loader, as
    ``importlib.resources`` would, without importing what that imports
    (``pathlib``, ``zipfile``, ``tempfile``: about 12 ms of every
    ``verified check`` that reads a machine line)."""
    data = pkgutil.get_data("verified", path)
    assert data is not None  # the package has a loader that reads files
    return data.decode("utf-8")


@functools.cache
def preset_json(name: str) -> dict:
    """The JSON object of preset or profile ``name`` as shipped (a fresh
    copy is not made: do not mutate it)."""
    if name in PROFILES:
        return _profile_machine(profile_json(name))
    if name not in PRESETS:
        raise PreconditionError(
            f"unknown machine {name!r}; the presets are {', '.join(PRESETS)}, the profiles "
            f"{', '.join(PROFILES)} (or give a machine object, docs/machines.md)")
    text = _data_text(f"data/machines/{name}.json")
    return json.loads(text)


@functools.cache
def profile_json(name: str) -> dict:
    """The profile file ``verified/data/profiles/NAME.json`` as shipped."""
    text = _data_text(f"data/profiles/{name}.json")
    return json.loads(text)


def _profile_machine(prof: dict) -> dict:
    """A profile as a machine object: its base preset with the profile's
    ``set`` fields replaced and its ``classes`` refinements merged; the
    name is the profile's, the source cites the profile's files first."""
    base = preset_json(prof["base"])
    obj = {**base, **prof.get("set", {}), "name": prof["name"]}
    obj["classes"] = {c: {**e, **prof.get("classes", {}).get(c, {})}
                      for c, e in base["classes"].items()}
    obj["source"] = (f"profile {prof['name']} ({prof['compiler']}) of the preset "
                     f"{prof['base']}: {prof['source']} Notes: {prof['notes']} The preset's "
                     f"own facts: `verified machines show {prof['base']}`.")
    return obj


@functools.cache
def preset(name: str) -> Machine:
    """The preset machine ``name`` (one of ``PRESETS``) or a profile (one
    of ``PROFILES``)."""
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
    raise _bad(f"must be a preset or profile name ({', '.join(PRESETS + PROFILES)}) or a "
               f"machine object, "
               f"not {value!r}")


def _short(value: object) -> str:
    """A value as short JSON text for a message (at most 60 characters)."""
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False
