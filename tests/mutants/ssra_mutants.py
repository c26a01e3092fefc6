"""Deliberately broken variants of the SSRA allocator (``verified/ssra.py``).

Each mutant is one small textual edit of one method of the real allocator
(the way mutation-testing tools work), so a mutant is the real code with
exactly one bug, not a second implementation that could drift.  ``build``
applies the edit and insists that the original text occurs exactly once, so
a refactor of the allocator makes the mutant fail loudly instead of silently
becoming the correct code.

``witness`` is a concrete program (tape text and register count) on which
the mutant's allocation is REJECTED by ``verified.ssra.check``;
``tests/test_ssra_mutants.py`` asserts that, and that the correct allocator
is accepted on the same program.  ``PERFORMANCE_MUTANTS`` are edits that
keep every allocation correct but change which register is evicted: no
semantic checker can reject them; the write-up's load/store counts do.
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from dataclasses import dataclass

from verified import ssra


@dataclass(frozen=True)
class Mutant:
    name: str
    owner: str          # "RegisterAllocator" or "Lru"
    method: str
    old: str            # text replaced (must occur exactly once)
    new: str
    why: str            # the bug, in words
    witness: tuple[str, int] | None = None   # (tape text, registers)


@functools.cache
def build(mutant: Mutant) -> type:
    """The allocator class with the edit applied to ``mutant.method`` of
    ``mutant.owner``.

    Both classes (``Lru`` and ``RegisterAllocator``) are recompiled from
    their source with ``assert`` statements stripped (``optimize=1``), as a
    release build would run: the allocator's own run-time contracts would
    catch several of these bugs first, and the point here is that the
    *checker* catches them from the output alone."""
    namespace = dict(vars(ssra))
    for cls in (ssra.Lru, ssra.RegisterAllocator):   # Lru first: used by the other
        source = textwrap.dedent(inspect.getsource(cls))
        if cls.__name__ == mutant.owner:
            source = _apply(mutant, source)
        exec(compile(source, f"<mutant {mutant.name}: {cls.__name__}>", "exec",
                     optimize=1), namespace)
    return namespace["RegisterAllocator"]


def _apply(mutant: Mutant, class_source: str) -> str:
    """Replace ``mutant.old`` by ``mutant.new`` inside the method's body;
    the old text must occur exactly once there (indentation-insensitive)."""
    method = textwrap.dedent(inspect.getsource(
        getattr(getattr(ssra, mutant.owner), mutant.method)))
    lines = class_source.splitlines()
    first = method.splitlines()[0].strip()
    starts = [k for k, l in enumerate(lines) if l.strip() == first]
    if len(starts) != 1:
        raise AssertionError(f"mutant {mutant.name}: cannot find "
                             f"{mutant.owner}.{mutant.method}")
    lo, hi = starts[0], starts[0] + len(method.splitlines())
    old_lines = textwrap.dedent(mutant.old).strip("\n").splitlines()
    hits = [
        k for k in range(lo, hi - len(old_lines) + 1)
        if [l.strip() for l in lines[k:k + len(old_lines)]]
        == [l.strip() for l in old_lines]
    ]
    if len(hits) != 1:
        raise AssertionError(
            f"mutant {mutant.name}: the text to replace occurs {len(hits)} "
            f"times in {mutant.owner}.{mutant.method} (expected once); "
            f"update the mutant")
    k = hits[0]
    indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
    new_lines = [indent + l if l.strip() else ""
                 for l in textwrap.dedent(mutant.new).strip("\n").splitlines()]
    return "\n".join(lines[:k] + new_lines + lines[k + len(old_lines):])


def allocate(mutant: Mutant, tape: ssra.Tape, registers: int) -> ssra.Allocation:
    return build(mutant)(registers).run(tape)


MUTANTS = [
    Mutant(
        "store_after_op", "RegisterAllocator", "op_reg_reg",
        old="""
            out.append((OP, i, r_x, (r_x, a_z)))
            self.rebind_register(lhs, r_x)
            out.append((STORE, r_x, a_y))
        """,
        new="""
            out.append((STORE, r_x, a_y))
            out.append((OP, i, r_x, (r_x, a_z)))
            self.rebind_register(lhs, r_x)
        """,
        why="M/R case: the STORE that saves the lhs for later code is placed "
            "after the operation (forward), when its register already holds "
            "the output",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($2, $1)\n$4 = FOO($3, $0)\n', 2),
    ),
    Mutant(
        "forgotten_load", "RegisterAllocator", "get_register",
        old="""
            self.out.append((LOAD, reg, mem))
        """,
        new="""
            pass
        """,
        why="eviction moves a variable to memory but emits no LOAD to bring "
            "it back into its register",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ),
    Mutant(
        "lru_wrong_end", "Lru", "pop",
        old="""
            out = self.prev[self.head]
        """,
        new="""
            out = self.head
        """,
        why="pop takes the newest register instead of the oldest: the newest "
            "is the current operation's output register, which gets evicted",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ),
    Mutant(
        "repeated_input_uu", "RegisterAllocator", "op_reg_reg",
        old="""
            elif a_y == UNASSIGNED and a_z == UNASSIGNED:
                if lhs == rhs:
        """,
        new="""
            elif a_y == UNASSIGNED and a_z == UNASSIGNED:
                if False:
        """,
        why="U/U case ignores a repeated input ($x = OP($y, $y)): the same "
            "variable is bound to two registers, only one of which is ever "
            "written",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n', 2),
    ),
    Mutant(
        "repeated_input_mm", "RegisterAllocator", "op_reg_reg",
        old="""
            elif a_y >= n and a_z >= n:
                if lhs == rhs:
        """,
        new="""
            elif a_y >= n and a_z >= n:
                if False:
        """,
        why="M/M case ignores a repeated input: the slot is released twice, "
            "so two later values share it",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ),
    Mutant(
        "wrong_register_freed", "RegisterAllocator", "op_reg",
        old="""
            self.out.append((OP, i, r_x, (a_y,)))
            self.release_reg(r_x)
        """,
        new="""
            self.out.append((OP, i, r_x, (a_y,)))
            self.release_reg(a_y)
        """,
        why="unary R case frees the input's register instead of the "
            "output's: the input's value is overwritten before the operation "
            "reads it",
        witness=('$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($1, $0)\n', 2),
    ),
    Mutant(
        "operands_swapped_mu", "RegisterAllocator", "op_reg_reg",
        old="""
            out.append((OP, i, r_x, (r_a, r_x)))
        """,
        new="""
            out.append((OP, i, r_x, (r_x, r_a)))
        """,
        why="M/U case emits the operands in the wrong order (FOO(rhs, lhs))",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $0)\n$3 = FOO($2, $1)\n$4 = FOO($0, $3)\n$5 = NEG($4)\n$6 = FOO($4, $2)\n', 2),
    ),
    Mutant(
        "slot_released_at_eviction", "RegisterAllocator", "get_register",
        old="""
            mem = self.get_memory()
        """,
        new="""
            mem = self.get_memory()
            self.spare_memory.append(mem)
        """,
        why="a memory slot is handed back as spare while it still holds an "
            "evicted value, so a second eviction clobbers it",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($0, $1)\n$4 = FOO($3, $2)\n', 2),
    ),
    Mutant(
        "output_store_skipped", "RegisterAllocator", "get_out_reg",
        old="""
            self.out.append((STORE, reg, a))
        """,
        new="""
            pass
        """,
        why="an output later code expects in memory is never stored there",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($2, $0)\n$4 = FOO($3, $1)\n', 2),
    ),
    Mutant(
        "no_poke_on_use", "RegisterAllocator", "get_allocation",
        old="""
            self.register_lru.poke(a)
        """,
        new="""
            pass
        """,
        why="using a variable does not refresh its register in the LRU, so the "
            "output register of the current operation can be the oldest and "
            "get evicted",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $1)\n$3 = FOO($1, $0)\n$4 = FOO($3, $2)\n', 2),
    ),
]

#: Mutants that keep every allocation correct (the checker must accept
#: them: rejecting would be a checker bug) but break faithfulness: the
#: write-up's 582/1151/1424 counts catch them.
PERFORMANCE_MUTANTS = [
    Mutant(
        "memory_never_reused", "RegisterAllocator", "release_mem",
        old="""
            self.spare_memory.append(slot)
        """,
        new="""
            pass
        """,
        why="a memory slot freed by a STORE is never handed out again",
    ),
    Mutant(
        "lru_second_newest", "Lru", "pop",
        old="""
            out = self.prev[self.head]
        """,
        new="""
            out = self.next[self.head]
        """,
        why="pop takes the second-newest register instead of the oldest "
            "(correct, since only the newest -- the current output -- must "
            "stay, but it evicts values about to be used)",
    ),
]
