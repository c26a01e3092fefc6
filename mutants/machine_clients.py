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
        if not self.legal(op):
            continue
        rank = 0 if p.kind == "reg" and p.cls == src.cls else 1 if p.kind == "reg" else 2
        """,
        """
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
#: to push/pop.  Run it on V8's profile, ``--machine v8-x64``
#: (``verified/data/profiles/v8-x64.json``: r10 and xmm15 its scratch, the
#: temps; rsp, rbp, r13, r14 reserved; push/pop of GPRs and word slots).
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
    "greedy", "v8-x64")

#: the V8 client with a planted unbalanced push: each slot-to-slot copy
#: pushes its word twice and pops it once (``v8_x64+push_twice``)
PUSH_TWICE = _resolve(
    "push_twice",
    "out += [_m.MPush(_mplace(b), b.typ), _m.MPop(_mplace(a), a.typ)]",
    "out += [_m.MPush(_mplace(b), b.typ)] * 2 + [_m.MPop(_mplace(a), a.typ)]",
    "a slot-to-slot copy pushes its word twice and pops it once: the stack is left "
    "unbalanced (the caller's stack pointer is off by a word per copy)",
    "greedy", "v8-x64")

#: V8's ARM code generator (src/compiler/backend/arm/code-generator-arm.cc,
#: AssembleMove case kStackToStack) takes a slot-to-slot move as one gap move
#: and lowers it through a VFP scratch: AcquireS (s28) for a word or a
#: float32, AcquireD (d14) for a float64, AcquireQ (q7 = d14:d15 = s28..s31)
#: for a Simd128 value (src/codegen/arm/assembler-arm.cc: the VFP scratch
#: list d14, d15).  A cycle's value is parked in a scratch register too
#: (MoveToTempLocation), so the gap resolver first reserves the scratch a
#: pending stack-to-stack move will need (SetPendingMove: "Temporarily
#: exclude the reserved scratch registers while we pick a location to
#: resolve the cycle").  Written here, not copied: the reference resolver
#: with a slot-to-slot mov of width 1, 2 or 4 allowed and lowered that way,
#: its temporaries without the scratch the slot-to-slot moves need (the
#: rest of q7 stays usable: a busy s28 leaves s29 and d15); where it finds no
#: way, the reference resolver's own sequence (its greedy steps, then its
#: fall-back).  Run it on V8's profile,
#: ``--machine v8-arm`` (temps r12 and q7).
V8_ARM = _resolve(
    "v8_arm",
    """
    return [to_mop(op) for op in resolve_frame(frame, moves, temps, preserve, trace, free)]
    """,
    """
    base = frame
    vfp = {1: "s28", 2: "d14", 4: "q7"}  # V8 ARM's VFP scratch by width: AcquireS/D/Q
    whole = {p.name: p for p in base.places if p.typ is None}

    def stack_to_stack(op) -> bool:  # one gap move, which AssembleMove lowers
        kind, a, b = op
        return (kind == "mov" and isinstance(b, Place) and a.kind == b.kind == "mem"
                and len(a.units) == len(b.units) and len(a.units) in vfp and a.typ == b.typ)

    def lower(op) -> list:
        if not stack_to_stack(op) or base.legal(op):
            return [to_mop(op)]
        _, a, b = op
        s = _m.Place((vfp[len(a.units)],))
        return [_m.MMov(s, _mplace(b), a.typ), _m.MMov(_mplace(a), s, a.typ)]

    def outside(t, busy) -> list:  # a temporary without the busy scratch: its other parts
        if not set(t.units) & busy:
            return [t]
        return [q for p in t.parts for q in outside(p, busy)]

    v8 = Frame(base.places, lambda op: stack_to_stack(op) or base.legal(op), base.cost,
               base.scratch)
    pending = {len(d.units) for d, s in moves if stack_to_stack(("mov", d, s))}
    for _ in range(len(vfp) + 1):
        # SetPendingMove: the scratch of the pending stack-to-stack moves parks nothing
        busy = {u for w in pending for u in whole[vfp[w]].units}
        parks = [q for t in temps for q in outside(t, busy)]
        try:
            ops = resolve_frame(v8, moves, parks, preserve, trace, free)
        except Stuck:
            break
        used = {len(op[1].units) for op in ops if stack_to_stack(op) and not base.legal(op)}
        if used <= pending:
            return [x for op in ops for x in lower(op)]
        pending |= used
    try:
        return [to_mop(op) for op in resolve_frame(frame, moves, temps, preserve, trace, free)]
    except Stuck as stuck:  # the reference resolver's fall-back, as ``resolve`` has it
        return _fall_back(mm, preserve, trace, str(stuck))
    """,
    "not a bug: V8's ARM lowering of slot-to-slot moves through its VFP scratch "
    "(s28, d14, q7), which no parked value may hold",
    "greedy", "v8-arm")

#: the V8 ARM client with a planted aliasing bug: SetPendingMove's Simd128
#: case forgotten, so the Q scratch q7 that a pending Simd128 slot copy needs
#: is not kept out of the cycle's temporaries; a cycle's value is parked in
#: q7 or in one of its S registers (s28), and the Simd128 copy then writes
#: q7 over it (``v8_arm+simd128_scratch_not_reserved``)
SIMD128_NOT_RESERVED = _resolve(
    "simd128_scratch_not_reserved",
    "busy = {u for w in pending for u in whole[vfp[w]].units}",
    "busy = {u for w in pending if w < 4 for u in whole[vfp[w]].units}  # (no Q case)",
    "a q register (q7, the Q scratch of a Simd128 slot-to-slot move) is written while a "
    "cycle's value is parked in it or in one of its s registers: the Simd128 case of "
    "SetPendingMove is forgotten, so q7 stays among the cycle's temporary locations",
    "greedy", "v8-arm")

#: Parts of slots (issue 23), on a frame whose 16-byte slots lie over two
#: 8-byte ones (``mutants/data/x64-frame.json``: mq0 = m0:m1, mq1 = m1:m2,
#: mq2 = m2:m3).  V8's x64 code generator swaps two Simd128 stack slots by
#: their 8-byte halves through the machine stack (code-generator-x64.cc,
#: AssembleSwap, kStackToStack, Simd128: ``pushq src; popq dst`` for each
#: half, with kScratchDoubleReg holding the other slot).  Written here, not
#: copied: the V8 client above with a 16-byte slot-to-slot mov allowed too,
#: each lowered to its halves through the stack, both pushed before either
#: is popped (``push hi(src); push lo(src); pop lo(dst); pop hi(dst)``, right
#: when the two slots overlap), so it exercises the halves on every 16-byte
#: slot copy, not only in swaps.
V8_X64_FRAME = _resolve(
    "v8_x64_frame",
    """
    return [to_mop(op) for op in resolve_frame(frame, moves, temps, preserve, trace, free)]
    """,
    """
    base = frame
    whole = {p.name: p for p in base.places if p.typ is None}

    def halves(p):  # the two 8-byte slots a 16-byte slot lies over (mq0: m0, m1)
        q = whole.get(p.name)
        if q is None or len(q.parts) != 2 or any(len(h.units) != 1 for h in q.parts):
            return None
        return q.parts

    def slot_copy(op) -> bool:  # a word slot by pushq/popq, a 16-byte one by its halves
        kind, a, b = op
        if not (kind == "mov" and isinstance(b, Place) and a.kind == b.kind == "mem"
                and a.typ == b.typ):
            return False
        if len(a.full or a.units) == len(b.full or b.units) == 1:
            return True
        return (len(a.units) == len(b.units) == 2 and halves(a) is not None
                and halves(b) is not None)

    def lower(op) -> list:
        _, a, b = op
        if len(a.full or a.units) == 1:
            return [_m.MPush(_mplace(b), b.typ), _m.MPop(_mplace(a), a.typ)]
        (lo, hi), (dlo, dhi) = halves(b), halves(a)
        return [_m.MPush(_mplace(hi)), _m.MPush(_mplace(lo)),
                _m.MPop(_mplace(dlo)), _m.MPop(_mplace(dhi))]

    pushpop = Frame(base.places, lambda op: slot_copy(op) or base.legal(op), base.cost,
                    base.scratch, base.unit_bits)
    out = []
    for op in resolve_frame(pushpop, moves, temps, preserve, trace, free):
        out += lower(op) if slot_copy(op) and not base.legal(op) else [to_mop(op)]
    return out
    """,
    "not a bug: V8's x64 slot copies through the stack, a 16-byte slot by its two "
    "8-byte halves",
    "greedy", str(DATA / "x64-frame.json"))

#: the frame client with a planted bug: a 16-byte slot is copied as its low
#: 8-byte half only (``v8_x64_frame+one_half``)
ONE_HALF = _resolve(
    "one_half",
    """
        return [_m.MPush(_mplace(hi)), _m.MPush(_mplace(lo)),
                _m.MPop(_mplace(dlo)), _m.MPop(_mplace(dhi))]
    """,
    """
        return [_m.MPush(_mplace(lo)), _m.MPop(_mplace(dlo))]
    """,
    "a 16-byte slot is copied as one 8-byte half: its high half is never moved",
    "greedy", str(DATA / "x64-frame.json"))

#: clients that pass (``tests/conform/test_conform_machines.py``)
CLIENTS: list[Mutant] = [V8_X64, V8_ARM, V8_X64_FRAME]

#: the V8 clients with their planted bugs, each caught as its own failure class
MUTANTS.append(combine(V8_X64, PUSH_TWICE))
MUTANTS.append(combine(V8_ARM, SIMD128_NOT_RESERVED))
MUTANTS.append(combine(V8_X64_FRAME, ONE_HALF))

BY_NAME = {m.name: m for m in MUTANTS + CLIENTS + [PUSH_TWICE, SIMD128_NOT_RESERVED, ONE_HALF]}
