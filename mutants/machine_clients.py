"""Mutants of the reference resolver for machines (``verified solve
--algorithm resolve``, ``verified/algorithms/resolve.py``), one per bug
class of ``docs/machines.md`` (the public resolver bugs that only a
machine can express).  Each is one edit of the real source (see
``mutants/__init__.py``) and speaks the protocol through

    python -m mutants.serve NAME

so that ``verified conform --machine`` can be shown to catch it, as a
wrong sequence (exit 1) with a shrunk case; ``tests/conform/
test_conform_machines.py`` pins each one's smallest case.

``witness`` is ``(machine, moves)``: the machine (a preset name, or a file
of ``mutants/data/``) and the smallest case conform shrinks it to.
"""

from __future__ import annotations

from pathlib import Path

from . import Mutant, combine

RESOLVE = "verified.algorithms.resolve"

#: machine files of the mutants that no preset exposes
DATA = Path(__file__).resolve().parent / "data"


def _resolve(name: str, old: str, new: str, why: str, scope: str, machine: str,
             witness: object = None) -> Mutant:
    return Mutant(name, RESOLVE, old, new, why, family="resolve", entry="resolve",
                  scope=scope, model=machine, witness=witness)


MUTANTS: list[Mutant] = [
    _resolve(
        "scratch_reused_while_parked",
        """
        if self.legal(load) and self.legal(store) and self.attempt(
                [(load, "scratch load"), (store, "scratch store")]):
            return True
        """,
        """
        if self.legal(load) and self.legal(store) and not any(
                u in self.goal for u in r.units):
            self.ops += [load, store]  # a temporary is "always free" for a split:
            self.apply(direct, self.cur)  # what it parks is believed still there
            return True
        if self.legal(load) and self.legal(store) and self.attempt(
                [(load, "scratch load"), (store, "scratch store")]):
            return True
        """,
        "a slot-to-slot move is split through the scratch register (a temporary) as if "
        "it were always free, while it parks a cycle's value: the value is lost (the "
        "JIT bug: cycles among spilled values miscompiled)",
        "_Run.try_job", "aarch64"),
    _resolve(
        "swap_two_slots",
        "if self.legal(op) and not undo and self.feasible([op]):",
        "if (self.legal(op) or job.dst.kind == holder.kind == \"mem\") and not undo \\\n"
        "                        and self.feasible([op]):",
        "a slot cycle is broken with a swap of the two slots, as in the swap model; x86 "
        "has xchg reg-reg and reg-mem, never mem-mem (the assembler rejects it)",
        "_Run.break_cycle", "x86-64"),
    _resolve(
        "pair_copied_low_half_first",
        """
        if dst.kind != "list" and src.kind != "list":
            return [(dst, src)]
        """,
        """
        return [(dst, src)]
        """,
        "a register pair is moved as one value, which the machine does part by part, "
        "low half first: a0:a1 -> a1:a2 becomes mov a1, a0; mov a2, a1 (the high half "
        "is lost)",
        "_split_pair", "riscv64"),
    _resolve(
        "immediate_before_read",
        """
        self.immediates()
        return self.ops
        """,
        """
        self.immediates()
        first = [op for op in self.ops if isinstance(op[2], Imm)]
        return first + [op for op in self.ops if not isinstance(op[2], Imm)]
        """,
        "the constants are materialised first, before the moves that read their "
        "destinations' old values",
        "_Run.run", "x86-64"),
    _resolve(
        "cross_class_scratch",
        """
        if not self.legal(op) or not self.feasible([op]):
            continue
        rank = 0 if p.kind == "reg" and p.cls == src.cls else 1 if p.kind == "reg" else 2
        """,
        """
        if not self.feasible([op]):
            continue
        rank = 0 if p.kind == "reg" else 2
        """,
        "a cycle's value is parked in the first free register of its width, whatever "
        "its class (one scratch shared by the classes): a mov the machine lacks when "
        "cross_class is false",
        "_Run._park_place", str(DATA / "two-classes.json")),
    _resolve(
        "alias_written_while_half_is_read",
        """
        made[name] = Place(name, reg.units, reg.kind, reg.cls,
                           tuple(place(p) for p in alias.get(name, ())))
        """,
        """
        units = reg.units if name not in alias else tuple(
            f"{name}.{i}" for i in range(reg.width))
        made[name] = Place(name, units, reg.kind, reg.cls,
                           tuple(place(p) for p in alias.get(name, ())))
        """,
        "an aliased register (d0 = s0:s1) is tracked as a register of its own, so d0 "
        "is written while one of its s halves is still a source",
        "frame_of", "armv7-vfp"),
]


# ---------------------------------------------------------------------------
# Clients of our own that should PASS conform: a real back end's convention
# ---------------------------------------------------------------------------

#: V8's x64 code generator (src/compiler/backend/x64/code-generator-x64.cc,
#: AssembleMove / AssembleSwap, case kStackToStack, and MoveToTempLocation)
#: copies a word from slot to slot through the machine stack, ``pushq src;
#: popq dst``, and keeps r10 (kScratchRegister) and xmm15 (kScratchDoubleReg)
#: free for everything else.  Written here, not copied: the reference
#: resolver with a one-word slot-to-slot mov allowed, each such mov lowered
#: to push/pop.  Run it with ``--temps r10,xmm15`` (its scratch registers).
V8_X64 = _resolve(
    "v8_x64",
    """
    return [to_mop(op) for op in resolve_frame(frame, moves, temps, preserve, trace, free)]
    """,
    """
    base = frame

    def word_slots(op) -> bool:  # V8 x64: pushq m64; popq m64 copies a word slot to slot
        kind, a, b = op
        return (kind == "mov" and isinstance(b, Place) and a.kind == b.kind == "mem"
                and len(a.full or a.units) == len(b.full or b.units) == 1 and a.typ == b.typ)

    pushpop = Frame(base.places, lambda op: word_slots(op) or base.legal(op), base.cost)
    out = []
    for op in resolve_frame(pushpop, moves, temps, preserve, trace, free):
        if word_slots(op) and not base.legal(op):
            _, a, b = op
            out += [_m.MPush(_mplace(b), b.typ), _m.MPop(_mplace(a), a.typ)]
        else:
            out.append(to_mop(op))
    return out
    """,
    "not a bug: V8's x64 lowering of slot-to-slot moves (pushq/popq), r10 and xmm15 "
    "as scratch",
    "greedy", "x86-64")

#: the V8 client with a planted unbalanced push: each slot-to-slot copy
#: pushes its word twice and pops it once (``v8_x64+push_twice``)
PUSH_TWICE = _resolve(
    "push_twice",
    "out += [_m.MPush(_mplace(b), b.typ), _m.MPop(_mplace(a), a.typ)]",
    "out += [_m.MPush(_mplace(b), b.typ)] * 2 + [_m.MPop(_mplace(a), a.typ)]",
    "a slot-to-slot copy pushes its word twice and pops it once: the stack is left "
    "unbalanced (the caller's stack pointer is off by a word per copy)",
    "greedy", "x86-64")

#: clients that pass (``tests/conform/test_conform_machines.py``)
CLIENTS: list[Mutant] = [V8_X64]

#: the V8 client with its planted bug, caught as its own failure class
MUTANTS.append(combine(V8_X64, PUSH_TWICE))

BY_NAME = {m.name: m for m in MUTANTS + CLIENTS + [PUSH_TWICE]}
