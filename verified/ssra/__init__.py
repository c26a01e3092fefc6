"""The solid-state register allocator (SSRA): reverse linear-scan register
allocation of straight-line SSA code, after the write-up "The
Solid-State Register Allocator" (a 2025 write-up; its benchmark tape is
``tests/data/ssra-bench-6362.tape``).

Reading order (one file each):

1. ``tape.py``: the SSA tape (``Tape``) and its two parsers: the
   write-up's syntax ``$2 = FOO($0, $1)`` and the ``.vm`` syntax
   ``_3 mul _1 _2``;
2. ``allocator.py``: ``Lru`` (the array-backed doubly-linked list of
   registers: poke on use, pop the oldest), ``RegisterAllocator`` (the
   reverse walk, with the write-up's helper names ``get_out_reg``,
   ``get_register``, ``rebind_register``...) and ``Allocation`` (the
   allocated program, its text and its counts); its named states
   ``TwoInputState`` are in ``states.py``;
3. ``checker.py``: a forward interpreter over symbolic values that decides
   whether an allocated program (ours or anyone's) computes the tape;
4. ``cli.py``: the ``verified ssra`` subcommand.

How the reverse walk works (the write-up's "one weird trick").  Walking the
tape from the end, the allocator always knows where every value that is
still needed *later in forward time* lives: in a register, in a memory slot,
or nowhere yet ("unassigned": not needed later, or not used at all).  At an
operation ``$x = OP($y, $z)``:

* the output ``$x`` must be in a register ``r_x`` when the operation runs; if
  the later code expects it in memory slot ``m_x``, a ``STORE(r_x, m_x)`` is
  placed *after* the operation; if nothing expects it, the operation is
  dead and emits nothing;
* ``$x`` does not exist before the operation, so ``r_x`` becomes free (in
  reverse) and can hold an input;
* each input must be in a register when the operation runs; if later code
  expects it in memory slot ``m``, a ``STORE(r, m)`` is placed *before* the
  operation, while the input is still in its register ``r``;
* when no register is free, the least recently used one is evicted: in
  forward time its value lived in a fresh memory slot until here, so a
  ``LOAD`` placed *after* the operation brings it back.

Memory slots share one counter with the registers (``total_slots``), as in
the write-up's code: registers are ``0..N-1`` and slot ``s >= N`` is printed
``mem + (s - N)``.  The write-up's "memory words" column is the highest such
offset (``highest_offset`` in ``Allocation.counts()``).
"""

from .allocator import (
    INVALID,
    LOAD,
    OP,
    STORE,
    UNASSIGNED,
    Allocation,
    Lru,
    RegisterAllocator,
    allocate,
    format_asm,
    state_name,
)
from .tape import RESERVED, Tape, TapeError, load_tape, parse_tape, parse_vm

#: the checker's names, the named states and ``SsaOp``, imported on first
#: use (PEP 562): `verified ssra alloc` loads neither the checker nor
#: `enum` nor `collections`
_CHECKER = ("AsmLine", "Verdict", "asm_lines", "check", "parse_allocated")


def __getattr__(name: str):
    if name in _CHECKER:
        from . import checker
        return getattr(checker, name)
    if name == "TwoInputState":
        from .states import TwoInputState
        # kept as a global: later uses (the proofs' targets, in loops) do
        # not come back here
        globals()[name] = TwoInputState
        return TwoInputState
    if name == "SsaOp":
        from .ssaop import SsaOp
        globals()[name] = SsaOp
        return SsaOp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "INVALID", "LOAD", "OP", "STORE", "UNASSIGNED", "Allocation", "Lru", "RegisterAllocator",
    "TwoInputState", "allocate", "format_asm", "state_name", "AsmLine", "Verdict",
    "asm_lines", "check", "parse_allocated", "RESERVED", "SsaOp", "Tape", "TapeError",
    "load_tape", "parse_tape", "parse_vm",
]
