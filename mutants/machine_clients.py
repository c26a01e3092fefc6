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

from . import Mutant

RESOLVE = "verified.algorithms.resolve"

#: machine files of the mutants that no preset exposes
DATA = Path(__file__).resolve().parent / "data"


def _resolve(name: str, old: str, new: str, why: str, scope: str, machine: str,
             witness: object = None) -> Mutant:
    return Mutant(name, RESOLVE, old, new, why, family="resolve", entry="resolve_request",
                  scope=scope, model=machine, witness=witness)


MUTANTS: list[Mutant] = [
    _resolve(
        "scratch_reused_while_parked",
        """
        if not self.safe(r, want, need):
            continue
        wants_it = any(j.dst is r and j.want == want for j in self.jobs)
        """,
        """
        if any(u in self.goal for u in r.units) and not self.safe(r, want, need):
            continue
        wants_it = any(j.dst is r and j.want == want for j in self.jobs)
        """,
        "a scratch register (a temporary) is taken as always free for a slot-to-slot "
        "split, even while it parks a cycle's value (the JIT bug: cycles among spilled "
        "values miscompiled)",
        "_Run._scratch", "aarch64"),
    _resolve(
        "swap_two_slots",
        """and self.legal(("swap", job.dst, holder)) \\""",
        """and (self.legal(("swap", job.dst, holder))
                         or job.dst.kind == holder.kind == "mem") \\""",
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
        "a register pair is moved as one unit, which the machine does part by part, "
        "low half first: a0:a1 -> a1:a2 becomes mov a1, a0; mov a2, a1 (the high half "
        "is lost)",
        "_split_pair", "riscv64"),
    _resolve(
        "immediate_before_read",
        """
        if job.imm is not None or not self.safe(job.dst, job.want, need):
            return False
        """,
        """
        if job.imm is not None and self.legal(("mov", job.dst, job.imm)):
            self.emit(("mov", job.dst, job.imm), "immediate")
            return True
        if job.imm is not None or not self.safe(job.dst, job.want, need):
            return False
        """,
        "a constant is written as soon as the machine can write it, before the "
        "destination's old value has been read by the moves that need it",
        "_Run.try_job", "x86-64"),
    _resolve(
        "cross_class_scratch",
        """
        if not self.legal(("mov", p, src)) or not self.safe(p, vals, need):
            continue
        rank = (0 if p.kind == "reg" and p.cls == src.cls else
        """,
        """
        if not self.safe(p, vals, need):
            continue
        rank = (0 if p.kind == "reg" else
        """,
        "a cycle's value is parked in the first free register of its width, whatever "
        "its class (one scratch shared by the classes), a mov the machine lacks when "
        "cross_class is false",
        "_Run._free_place", str(DATA / "two-classes.json")),
    _resolve(
        "alias_written_while_half_is_read",
        """
            if need[old] and not [w for w in self.holders(old) if w not in p.units]:
                return False
        """,
        """
            if need[old] and not p.parts and not [w for w in self.holders(old)
                                                  if w not in p.units]:
                return False
        """,
        "an aliased register (d0 = s0:s1) is written as if it were a register of its "
        "own: a value one of its halves still holds for a pending move is not checked",
        "_Run.safe", "armv7-vfp"),
]

BY_NAME = {m.name: m for m in MUTANTS}
