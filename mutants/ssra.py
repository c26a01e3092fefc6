"""Mutants of the solid-state register allocator
(``verified/ssra/allocator.py``): each one small textual edit of one method
of the real allocator (the engine in ``mutants/__init__.py``), so a mutant
is the real code with exactly one bug, not a second implementation that
could drift.

``witness`` is a concrete program (tape text and register count) on which
the mutant's allocation is REJECTED by ``verified.ssra.check``;
``tests/ssra/test_ssra_mutants.py`` asserts that, and that the correct
allocator is accepted on the same program.  ``PERFORMANCE_MUTANTS`` are
edits that keep every allocation correct but change which register is
evicted: no semantic checker can reject them; the write-up's load/store
counts do.
"""

from __future__ import annotations

from verified import ssra

from . import Mutant, run

ALLOCATOR = "verified.ssra.allocator"


def _m(name: str, scope: str, old: str, new: str, why: str,
       witness: tuple[str, int] | None = None) -> Mutant:
    return Mutant(name, ALLOCATOR, old, new, why, family="ssra", entry="RegisterAllocator",
                  scope=scope, witness=witness)


def allocate(mutant: Mutant, tape: ssra.Tape, registers: int) -> ssra.Allocation:
    """The mutant's allocation of ``tape``."""
    return run(mutant)(registers).run(tape)


MUTANTS = [
    _m(
        "store_after_op", "RegisterAllocator._inputs_M_R",
        old="""
            self.out.append((OP, i, r_x, (r_x, a_z)))
            self.rebind_register(lhs, r_x)
            self.out.append((STORE, r_x, a_y))
        """,
        new="""
            self.out.append((STORE, r_x, a_y))
            self.out.append((OP, i, r_x, (r_x, a_z)))
            self.rebind_register(lhs, r_x)
        """,
        why="M/R case: the STORE that saves the lhs for later code is placed "
            "after the operation (forward), when its register already holds "
            "the output",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($2, $1)\n$4 = FOO($3, $0)\n', 2),
    ),
    _m(
        "forgotten_load", "RegisterAllocator.get_register",
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
    _m(
        "lru_wrong_end", "Lru.pop",
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
    _m(
        "repeated_input_uu", "",
        old='("U", "="): RegisterAllocator._inputs_SAME_U,',
        new='("U", "="): RegisterAllocator._inputs_U_U,',
        why="U/U case ignores a repeated input ($x = OP($y, $y)): the same "
            "variable is bound to two registers, only one of which is ever "
            "written",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n', 2),
    ),
    _m(
        "repeated_input_mm", "",
        old='("M", "="): RegisterAllocator._inputs_SAME_M,',
        new='("M", "="): RegisterAllocator._inputs_M_M,',
        why="M/M case ignores a repeated input: the slot is released twice, "
            "so two later values share it",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ),
    _m(
        "wrong_register_freed", "RegisterAllocator.op_reg",
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
    _m(
        "operands_swapped_mu", "RegisterAllocator._inputs_M_U",
        old="self.out.append((OP, i, r_x, (r_a, r_x)))",
        new="self.out.append((OP, i, r_x, (r_x, r_a)))",
        why="M/U case emits the operands in the wrong order (FOO(rhs, lhs))",
        witness=('$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $0)\n$3 = FOO($2, $1)\n$4 = FOO($0, $3)\n$5 = NEG($4)\n$6 = FOO($4, $2)\n', 2),
    ),
    _m(
        "slot_released_at_eviction", "RegisterAllocator.get_register",
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
    _m(
        "output_store_skipped", "RegisterAllocator.get_out_reg",
        old="""
            self.out.append((STORE, reg, a))
        """,
        new="""
            pass
        """,
        why="an output later code expects in memory is never stored there",
        witness=('$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($2, $0)\n$4 = FOO($3, $1)\n', 2),
    ),
    _m(
        "no_poke_on_use", "RegisterAllocator.get_allocation",
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
    _m(
        "memory_never_reused", "RegisterAllocator.release_mem",
        old="""
            self.spare_memory.append(slot)
        """,
        new="""
            pass
        """,
        why="a memory slot freed by a STORE is never handed out again",
    ),
    _m(
        "lru_second_newest", "Lru.pop",
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
