"""The solid-state register allocator (SSRA): reverse linear-scan register
allocation of straight-line SSA code, after the seed "The Solid-State
Register Allocator" (``../shared/seeds/003_9eadfd8bc6c11e26.txt``).

Reading order:

1. the SSA tape (``Tape``) and its two parsers: the write-up's syntax
   ``$2 = FOO($0, $1)`` and the ``.vm`` syntax ``_3 mul _1 _2``;
2. ``Lru``: the array-backed doubly-linked list of registers (poke on use,
   pop the oldest);
3. ``RegisterAllocator``: the reverse walk, with the write-up's helper names
   (``get_out_reg``, ``get_register``, ``rebind_register``...), the unary and
   binary cases, and the named states (``TwoInputState``);
4. ``Allocation``: the allocated program, its text and its counts;
5. the checker (``check``): a forward interpreter over symbolic values that
   decides whether an allocated program (ours or anyone's) computes the
   tape;
6. the ``verified ssra`` subcommand.

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

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple, Sequence

from verified.semantics import PreconditionError

# ---------------------------------------------------------------------------
# 1. The SSA tape
# ---------------------------------------------------------------------------


class TapeError(PreconditionError):
    """Bad input: the message names the file (when known) and the line."""


class SsaOp(NamedTuple):
    """One SSA operation ``$out = NAME(args)``.

    ``args`` keeps the source order of the operands: an ``int`` is an SSA
    input (a dense variable index, see ``Tape.names``), a ``str`` is a
    literal immediate (the ``.vm`` format's ``const 2.95``).  ``inputs`` is
    the SSA inputs alone (at most two), kept precomputed because the
    allocator reads it for every operation.  (A ``NamedTuple``: building
    one is several times cheaper than a frozen dataclass.)"""

    out: int
    name: str
    args: tuple
    line: int
    inputs: tuple


@dataclass
class Tape:
    """Straight-line SSA code.  Invariants (checked by the parsers): every
    input is defined by an earlier operation, no variable is defined twice,
    at most two inputs per operation, at least one operation.  The last
    operation's output is the program's result.  Variables are numbered
    densely in order of definition; ``names[v]`` is the source spelling."""

    ops: list[SsaOp]
    names: list[str]
    source: str = "<tape>"

    @property
    def result(self) -> int:
        return self.ops[-1].out

    def live(self) -> list[bool]:
        """``live[i]``: operation ``i`` contributes to the result (the ones
        the allocator emits; the others are dead code and are dropped)."""
        needed = [False] * len(self.names)
        needed[self.result] = True
        live = [False] * len(self.ops)
        for i in range(len(self.ops) - 1, -1, -1):
            op = self.ops[i]
            if needed[op.out]:
                live[i] = True
                for v in op.inputs:
                    needed[v] = True
        return live

    def format_op(self, op: SsaOp) -> str:
        return f"{self.names[op.out]} = {op.name}(" + ", ".join(
            self.names[a] if isinstance(a, int) else a for a in op.args
        ) + ")"

    def text(self) -> str:
        """The tape in the write-up's syntax."""
        return "".join(self.format_op(op) + "\n" for op in self.ops)


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TAPE_VAR = re.compile(r"\$[A-Za-z0-9_]+")
_NAME_RE = re.compile(_NAME)
_new_tuple = tuple.__new__
_LITERAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_VM_VAR = re.compile(r"_[A-Za-z0-9_]+")
RESERVED = ("LOAD", "STORE")


class _TapeBuilder:
    """Shared bookkeeping of both parsers: defines variables, resolves
    inputs, enforces the tape invariants with errors naming the line."""

    def __init__(self, source: str):
        self.source = source
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.ops: list[SsaOp] = []
        self.checked_names: set[str] = set()

    def error(self, line: int, message: str) -> TapeError:
        return TapeError(f"{self.source}:{line}: {message}")

    def add(self, line: int, out: str, name: str, raw_args: Sequence[str],
            var: re.Pattern) -> None:
        """Define ``out = name(raw_args)``; ``var`` recognises variables
        (anything else must be a numeric literal)."""
        if name not in self.checked_names:
            if name.upper() in RESERVED:
                raise self.error(line, f"{name} is reserved for the "
                                 f"allocator's spill code; it cannot be an "
                                 f"SSA operation")
            self.checked_names.add(name)
        index = self.index
        args: list = []
        inputs: list = []
        for a in raw_args:
            v = index.get(a)
            if v is not None:
                args.append(v)
                inputs.append(v)
            elif var.fullmatch(a):
                raise self.error(
                    line, f"{a} is used before it is defined"
                    + (" (an operation cannot read its own output)"
                       if a == out else ""))
            elif _LITERAL.fullmatch(a):
                args.append(a)
            else:
                raise self.error(line, f"operand {a!r} is neither a variable "
                                 f"nor a numeric literal")
        if len(inputs) > 2:
            raise self.error(line, f"{name} has {len(inputs)} inputs; an "
                             f"operation takes 0, 1 or 2")
        if out in index:
            first = self.ops[index[out]].line
            raise self.error(line, f"{out} is defined twice (first on line "
                             f"{first}); SSA variables are assigned once")
        v = index[out] = len(self.names)
        self.names.append(out)
        # tuple.__new__ skips NamedTuple's Python-level __new__ (hot path)
        self.ops.append(_new_tuple(SsaOp, (v, name, tuple(args), line,
                                           tuple(inputs))))

    def finish(self) -> Tape:
        if not self.ops:
            raise TapeError(f"{self.source}: the tape is empty (no operation)")
        return Tape(self.ops, self.names, self.source)


def _lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def parse_tape(text: str, source: str = "<tape>") -> Tape:
    """Parse the write-up's tape syntax: one ``$N = OP($a, $b)`` per line,
    0-2 inputs, blank lines and ``#`` comments ignored; a numeric operand is
    an immediate.  Raises ``TapeError`` naming the line on bad syntax, use
    before definition, a redefined variable or an empty tape."""
    b = _TapeBuilder(source)
    good_names: set[str] = set()
    for number, line in _lines(text):
        # Fast path with str methods; the regex only words the error.
        out, eq, rest = line.partition("=")
        name, paren, tail = rest.partition("(")
        tail = tail.rstrip(" \t;")
        raw = tail[:-1]
        name = name.strip()
        if (not eq or not paren or not tail.endswith(")") or "(" in raw
                or ")" in raw or (name not in good_names
                                  and not _NAME_RE.fullmatch(name))):
            raise b.error(number, f"expected `$N = OP($a, $b)`, got {line!r}")
        good_names.add(name)
        out = out.strip()
        if not _TAPE_VAR.fullmatch(out):
            raise b.error(number, f"the output {out!r} must be a variable "
                          f"like $3")
        args = [a.strip() for a in raw.split(",")] if raw.strip() else []
        if "" in args:
            raise b.error(number, f"empty operand in {line!r}")
        b.add(number, out, name, args, _TAPE_VAR)
    return b.finish()


def parse_vm(text: str, source: str = "<vm>") -> Tape:
    """Parse the ``.vm`` syntax (``_3 mul _1 _2``, ``_0 const 2.95``,
    ``_1 var-x``): constants and variables are zero-input operations.  The
    operation name is upper-cased with ``-`` as ``_`` (``VAR_X``), so the
    allocated program stays in the write-up's syntax (``r0 = CONST(2.95)``).
    Same errors as ``parse_tape``."""
    b = _TapeBuilder(source)
    for number, line in _lines(text):
        words = line.split()
        if len(words) < 2 or not _VM_VAR.fullmatch(words[0]):
            raise b.error(number, f"expected `_id op operands...`, got {line!r}")
        name = words[1].upper().replace("-", "_")
        if not re.fullmatch(_NAME, name):
            raise b.error(number, f"bad operation name {words[1]!r}")
        b.add(number, words[0], name, words[2:], _VM_VAR)
    return b.finish()


def load_tape(path: str) -> Tape:
    """Read a tape file; ``.vm`` files use ``parse_vm``, others
    ``parse_tape``.  I/O problems become ``TapeError``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise TapeError(f"{path}: cannot read: {e}") from None
    if path.endswith(".vm"):
        return parse_vm(text, path)
    return parse_tape(text, path)


# ---------------------------------------------------------------------------
# 2. The LRU register cache
# ---------------------------------------------------------------------------


class Lru:
    """The write-up's LRU cache: a circular doubly-linked list over the
    register numbers ``0..n-1`` backed by two arrays (``prev``, ``next``);
    ``head`` is the newest register and ``prev[head]`` the oldest.

    Invariant (``check_invariant``): following ``next`` from ``head`` visits
    every register exactly once and ``prev`` is its inverse."""

    __slots__ = ("prev", "next", "head")

    def __init__(self, n: int):
        """Registers start in the order ``0 (newest), 1, ..., n-1 (oldest)``
        -- i.e. ``prev[i] = i - 1 mod n``, ``next[i] = i + 1 mod n``."""
        if n < 1:
            raise PreconditionError("an LRU list needs at least one register")
        self.prev = [(i - 1) % n for i in range(n)]
        self.next = [(i + 1) % n for i in range(n)]
        self.head = 0

    def poke(self, i: int) -> None:
        """Mark register ``i`` as newest.  Post: ``head == i``; the relative
        order of the others is unchanged."""
        head = self.head
        if i == head:
            return
        prev, nxt = self.prev, self.next
        if prev[head] != i:
            # Unlink i, then relink it just before the head (the slot of
            # the oldest, which a rotation then turns into the newest).
            p, q = prev[i], nxt[i]
            nxt[p] = q
            prev[q] = p
            before = prev[head]
            nxt[before] = i
            prev[head] = i
            prev[i] = before
            nxt[i] = head
        # else: i is the oldest, already just before the head.
        self.head = i  # rotate

    def pop(self) -> int:
        """The oldest register, which becomes the newest (a rotation)."""
        out = self.prev[self.head]
        self.head = out
        return out

    def order(self) -> list[int]:
        """Newest first (for tests and tracing)."""
        out, i = [], self.head
        for _ in range(len(self.next)):
            out.append(i)
            i = self.next[i]
        return out

    def check_invariant(self) -> None:
        n = len(self.next)
        seen = self.order()
        assert sorted(seen) == list(range(n)), f"LRU list broken: {seen}"
        for i in range(n):
            assert self.prev[self.next[i]] == i, f"LRU prev/next mismatch at {i}"


# ---------------------------------------------------------------------------
# 3. The allocator
# ---------------------------------------------------------------------------

#: ``allocations[v]`` for a variable that no later operation needs.
UNASSIGNED = -1
#: ``registers[r]`` for a free register.
INVALID = -1

#: Allocated operations, assembled in reverse order (then reversed):
#: ``(LOAD, reg, slot)``, ``(STORE, reg, slot)``, ``(OP, tape_index, out_reg,
#: input_regs)``.  Slots use the shared numbering (``slot >= N``).
LOAD, STORE, OP = 0, 1, 2


class TwoInputState(Enum):
    """The 18 states of a two-input operation when the reverse walk arrives
    at it -- output in a Register or Memory, each input in a Register,
    Memory or Unassigned -- plus the 6 states of a repeated input
    (``$x = OP($y, $y)``; "SAME" means both operands are the same variable).

    The value is ``(out, lhs, rhs)`` with ``R``/``M``/``U``."""

    R_RR = ("R", "R", "R")
    R_RM = ("R", "R", "M")
    R_RU = ("R", "R", "U")
    R_MR = ("R", "M", "R")
    R_MM = ("R", "M", "M")
    R_MU = ("R", "M", "U")
    R_UR = ("R", "U", "R")
    R_UM = ("R", "U", "M")
    R_UU = ("R", "U", "U")
    M_RR = ("M", "R", "R")
    M_RM = ("M", "R", "M")
    M_RU = ("M", "R", "U")
    M_MR = ("M", "M", "R")
    M_MM = ("M", "M", "M")
    M_MU = ("M", "M", "U")
    M_UR = ("M", "U", "R")
    M_UM = ("M", "U", "M")
    M_UU = ("M", "U", "U")
    # repeated input: $x = OP($y, $y)
    R_SAME_R = ("R", "R", "=")
    R_SAME_M = ("R", "M", "=")
    R_SAME_U = ("R", "U", "=")
    M_SAME_R = ("M", "R", "=")
    M_SAME_M = ("M", "M", "=")
    M_SAME_U = ("M", "U", "=")

#: A minimal program reaching each named state: ``(state, registers, tape
#: text, index of the operation reached in that state)``.  Found by
#: exhaustive search over tapes of <= 6 operations with 2 or 3 registers,
#: and random search beyond (the states that need 7-9 operations);
#: ``tests/test_ssra_states.py`` checks each and the code it emits, and
#: ``proofs/ssra_states.py`` starts its search for step shapes from them.
STATE_EXAMPLES: list[tuple[str, int, str, int]] = [
    ('R_RR', 3, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('R_RM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n$4 = FOO($1, $3)\n', 2),
    ('R_RU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n', 2),
    ('R_MR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('R_MM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($3, $1)\n$5 = FOO($4, $2)\n$6 = FOO($0, $5)\n', 3),
    ('R_MU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($0, $4)\n', 3),
    ('R_UR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n', 2),
    ('R_UM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($1, $4)\n', 3),
    ('R_UU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n', 2),
    ('M_RR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('M_RM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($1)\n$3 = FOO($2, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($1, $5)\n', 3),
    ('M_RU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($0, $2)\n$5 = FOO($3, $4)\n', 3),
    ('M_MR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($2, $1)\n$5 = FOO($4, $3)\n$6 = FOO($0, $5)\n', 3),
    ('M_MM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $0)\n$3 = BAR()\n$4 = FOO($1, $3)\n$5 = FOO($2, $0)\n$6 = FOO($4, $5)\n$7 = FOO($1, $6)\n$8 = FOO($7, $3)\n', 4),
    ('M_MU', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = FOO($2, $1)\n$4 = FOO($0, $1)\n$5 = FOO($3, $2)\n$6 = FOO($4, $0)\n$7 = FOO($6, $5)\n', 4),
    ('M_UR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('M_UM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n$3 = FOO($2, $0)\n$4 = FOO($3, $2)\n$5 = FOO($0, $1)\n$6 = FOO($2, $5)\n$7 = FOO($4, $6)\n', 4),
    ('M_UU', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = BAR()\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n$5 = FOO($1, $2)\n$6 = FOO($5, $4)\n', 4),
    ('R_SAME_R', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n', 1),
    ('R_SAME_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('R_SAME_U', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n', 1),
    ('M_SAME_R', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('M_SAME_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($1, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($5, $1)\n', 3),
    ('M_SAME_U', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('NONARY_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('NONARY_R', 2, '$0 = BAR()\n', 0),
    ('UNARY_M_M', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($4, $0)\n$6 = FOO($3, $5)\n', 3),
    ('UNARY_M_R', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('UNARY_M_U', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('UNARY_R_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('UNARY_R_R', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $1)\n', 1),
    ('UNARY_R_U', 2, '$0 = BAR()\n$1 = NEG($0)\n', 1),
    ('DEAD', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $0)\n', 1),
]


def state_name(kinds: Sequence[str], repeated: bool = False) -> str:
    """Name of the state at arrival: ``kinds = (out, input...)`` letters.
    Two inputs: a ``TwoInputState`` member name; one input ``"R_M"``
    style (``UNARY_R_M``); none ``NONARY_R``.  An unassigned output is a
    dead operation: ``DEAD`` (nothing is emitted)."""
    if kinds[0] == "U":
        return "DEAD"
    if len(kinds) == 3:
        key = (kinds[0], kinds[1], "=" if repeated else kinds[2])
        return TwoInputState(key).name
    if len(kinds) == 2:
        return f"UNARY_{kinds[0]}_{kinds[1]}"
    return f"NONARY_{kinds[0]}"


class RegisterAllocator:
    """Reverse linear scan with ``n`` registers (``n >= 2``), as in the
    write-up.  ``run(tape)`` may be called once per allocator.

    State (the write-up's fields):

    * ``allocations[v]``: where variable ``v`` lives just after the current
      operation in forward time: a register ``0..n-1``, a memory slot
      ``>= n``, or ``UNASSIGNED``;
    * ``registers[r]``: the variable bound to register ``r`` or ``INVALID``;
    * ``register_lru``: the ``Lru`` of registers;
    * ``spare_registers`` / ``spare_memory``: stacks of free registers and
      slots for reuse;
    * ``total_slots``: registers and slots handed out so far (register 0
      is taken by the result from the start);
    * ``out``: the allocated operations in reverse order.

    Invariant between operations (``check_invariant``): a bound register's
    variable is allocated to it; a spare register is unbound.  (The other
    direction can go stale for variables whose definition the walk has
    passed -- as in the write-up, an output's entry is not always cleared
    when its register is reused for an input; those entries are never read
    again.)"""

    def __init__(self, n: int, trace: list | None = None):
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise PreconditionError(
                f"the allocator needs at least 2 registers, got {n!r}")
        self.n = n
        self.allocations: list[int] = []
        self.registers = [INVALID] * n
        self.register_lru = Lru(n)
        self.spare_registers: list[int] = []
        self.spare_memory: list[int] = []
        self.total_slots = 1
        self.out: list[tuple] = []
        #: when a list, ``run`` appends ``(tape_index, state_name, ops)`` per
        #: operation (ops: the ones emitted for it, in forward order).
        self.trace = trace

    # -- the write-up's helpers ---------------------------------------------

    def get_allocation(self, v: int) -> int:
        """Where ``v`` lives; using it makes its register the newest."""
        a = self.allocations[v]
        if 0 <= a < self.n:
            self.register_lru.poke(a)
        return a

    def get_memory(self) -> int:
        """A free memory slot: a released one if any, else a new one."""
        if self.spare_memory:
            return self.spare_memory.pop()
        slot = self.total_slots
        self.total_slots += 1
        return slot

    def oldest_reg(self) -> int:
        """The least recently used register (it becomes the newest)."""
        return self.register_lru.pop()

    def get_spare_register(self) -> int | None:
        """An unbound register -- a released one, else a never-used one --
        or ``None``."""
        if self.spare_registers:
            return self.spare_registers.pop()
        if self.total_slots < self.n:
            reg = self.total_slots
            assert self.registers[reg] == INVALID
            self.total_slots += 1
            return reg
        return None

    def get_register(self) -> int:
        """A register free for a new binding, by any means: a spare one, or
        else evict the oldest.  Eviction moves its variable to a new memory
        slot for *earlier* forward time and emits ``LOAD(reg, slot)`` (which
        lands *after* the current operation in forward order)."""
        reg = self.get_spare_register()
        if reg is not None:
            assert self.registers[reg] == INVALID
            self.register_lru.poke(reg)
            return reg
        reg = self.oldest_reg()
        mem = self.get_memory()
        evicted = self.registers[reg]
        self.allocations[evicted] = mem
        self.registers[reg] = INVALID
        self.out.append((LOAD, reg, mem))
        return reg

    def rebind_register(self, v: int, reg: int) -> None:
        """Bind ``reg`` (bound to the current output) to input ``v``, which
        later code expects in memory."""
        assert self.allocations[v] >= self.n
        previous = self.registers[reg]
        assert previous != INVALID
        self.allocations[previous] = UNASSIGNED
        self.registers[reg] = v
        self.allocations[v] = reg
        self.register_lru.poke(reg)

    def bind_register(self, v: int, reg: int) -> None:
        """Bind the unbound ``reg`` to ``v``, which later code expects in
        memory."""
        assert self.allocations[v] >= self.n
        assert self.registers[reg] == INVALID
        self.registers[reg] = v
        self.allocations[v] = reg
        self.register_lru.poke(reg)

    def bind_initial_register(self, v: int, reg: int) -> None:
        """Bind ``reg`` to ``v``, seen for the first time (its last use in
        forward time)."""
        self.registers[reg] = v
        self.allocations[v] = reg
        self.register_lru.poke(reg)

    def release_reg(self, reg: int) -> None:
        """``reg``'s variable is defined here: before this point (forward)
        the register is free."""
        v = self.registers[reg]
        assert v != INVALID
        self.registers[reg] = INVALID
        self.spare_registers.append(reg)
        self.allocations[v] = UNASSIGNED

    def release_mem(self, slot: int) -> None:
        """``slot`` is written here (forward) by a STORE, so it is free
        before this point."""
        assert slot >= self.n
        self.spare_memory.append(slot)

    def get_out_reg(self, v: int) -> int:
        """The register the output ``v`` is computed into, or ``INVALID``
        when no later operation needs ``v`` (a dead operation).  When later
        code expects ``v`` in memory, a register is found (maybe evicting)
        and ``STORE(r, slot)`` goes right after the operation."""
        a = self.get_allocation(v)
        if a == UNASSIGNED:
            return INVALID
        if a < self.n:
            return a
        reg = self.get_register()
        self.out.append((STORE, reg, a))
        self.release_mem(a)
        self.bind_register(v, reg)
        return reg

    # -- the three operation shapes ------------------------------------------

    def op_out_only(self, i: int, op: SsaOp) -> None:
        """``$x = OP()``: compute into ``r_x``, which is free before."""
        r_x = self.get_out_reg(op.out)
        if r_x == INVALID:
            return
        self.out.append((OP, i, r_x, ()))
        self.release_reg(r_x)

    def op_reg(self, i: int, op: SsaOp, arg: int) -> None:
        """``$x = OP($y)``: the input takes over ``r_x`` unless it already
        has a register (then ``r_x`` is released)."""
        r_x = self.get_out_reg(op.out)
        if r_x == INVALID:
            return
        a_y = self.get_allocation(arg)
        if a_y == UNASSIGNED:                    # last use of $y
            self.out.append((OP, i, r_x, (r_x,)))
            self.bind_initial_register(arg, r_x)
        elif a_y < self.n:                       # $y in a register
            assert a_y != r_x
            self.out.append((OP, i, r_x, (a_y,)))
            self.release_reg(r_x)
        else:                                    # $y expected in memory
            self.out.append((OP, i, r_x, (r_x,)))
            self.rebind_register(arg, r_x)
            self.out.append((STORE, r_x, a_y))   # before the op, forward
            self.release_mem(a_y)

    def op_reg_reg(self, i: int, op: SsaOp, lhs: int, rhs: int) -> None:
        """``$x = OP($y, $z)``: the nine (lhs, rhs) cases below, reached
        after ``get_out_reg`` has placed the output (which turns the 18
        arrival states, ``TwoInputState``, into these nine arms: an output
        in memory only adds a STORE after the op and maybe an eviction
        LOAD, which can move an input from a register to memory).  A
        repeated input (``lhs == rhs``) can only be in the R/R, M/M or U/U
        arms; there it needs one register, not two."""
        n = self.n
        r_x = self.get_out_reg(op.out)
        if r_x == INVALID:
            return
        a_y = self.get_allocation(lhs)
        a_z = self.get_allocation(rhs)
        out = self.out
        y_reg = 0 <= a_y < n
        z_reg = 0 <= a_z < n
        if y_reg and z_reg:
            # R/R (also SAME R): both inputs in registers; r_x is free before.
            out.append((OP, i, r_x, (a_y, a_z)))
            self.release_reg(r_x)
        elif a_y >= n and z_reg:
            # M/R: lhs takes r_x, stored to its slot before the op.
            out.append((OP, i, r_x, (r_x, a_z)))
            self.rebind_register(lhs, r_x)
            out.append((STORE, r_x, a_y))
            self.release_mem(a_y)
        elif y_reg and a_z >= n:
            # R/M: rhs takes r_x, stored to its slot before the op.
            out.append((OP, i, r_x, (a_y, r_x)))
            self.rebind_register(rhs, r_x)
            out.append((STORE, r_x, a_z))
            self.release_mem(a_z)
        elif a_y >= n and a_z >= n:
            if lhs == rhs:
                # SAME M: one register, one store.
                out.append((OP, i, r_x, (r_x, r_x)))
                self.rebind_register(lhs, r_x)
                out.append((STORE, r_x, a_y))
                self.release_mem(a_y)
            else:
                # M/M: lhs takes r_x, rhs a second register; both stored.
                r_a = self.get_register()
                out.append((OP, i, r_x, (r_x, r_a)))
                self.rebind_register(lhs, r_x)
                self.bind_register(rhs, r_a)
                out.append((STORE, r_x, a_y))
                self.release_mem(a_y)
                out.append((STORE, r_a, a_z))
                self.release_mem(a_z)
        elif a_y == UNASSIGNED and z_reg:
            # U/R: lhs (last use) takes r_x.
            out.append((OP, i, r_x, (r_x, a_z)))
            self.bind_initial_register(lhs, r_x)
        elif y_reg and a_z == UNASSIGNED:
            # R/U: rhs (last use) takes r_x.
            out.append((OP, i, r_x, (a_y, r_x)))
            self.bind_initial_register(rhs, r_x)
        elif a_y == UNASSIGNED and a_z == UNASSIGNED:
            if lhs == rhs:
                # SAME U: the input takes r_x.
                out.append((OP, i, r_x, (r_x, r_x)))
                self.bind_initial_register(lhs, r_x)
            else:
                # U/U: lhs takes r_x, rhs a second register.
                r_a = self.get_register()
                out.append((OP, i, r_x, (r_x, r_a)))
                self.bind_initial_register(lhs, r_x)
                self.bind_initial_register(rhs, r_a)
        elif a_y == UNASSIGNED:
            # U/M: lhs takes r_x; rhs a second register, stored before.
            r_a = self.get_register()
            assert r_a != r_x
            out.append((OP, i, r_x, (r_x, r_a)))
            self.bind_initial_register(lhs, r_x)
            self.bind_register(rhs, r_a)
            out.append((STORE, r_a, a_z))
            self.release_mem(a_z)
        else:
            # M/U: rhs takes r_x; lhs a second register, stored before.
            assert a_y >= n and a_z == UNASSIGNED
            r_a = self.get_register()
            assert r_a != r_x
            out.append((OP, i, r_x, (r_a, r_x)))
            self.bind_register(lhs, r_a)
            self.bind_initial_register(rhs, r_x)
            out.append((STORE, r_a, a_y))
            self.release_mem(a_y)

    # -- the walk ------------------------------------------------------------

    def start(self, tape: Tape) -> None:
        """Prepare to walk ``tape``: the result is bound to ``r0``."""
        if self.out or self.total_slots != 1:
            raise PreconditionError("a RegisterAllocator runs only once")
        self.allocations = [UNASSIGNED] * len(tape.names)
        self.bind_initial_register(tape.result, 0)

    def step(self, i: int, op: SsaOp) -> None:
        """Process operation ``i`` of the reverse walk (``run`` does the
        same, inlined; ``proofs/ssra_states.py`` steps one at a time)."""
        ins = op.inputs
        if len(ins) == 2:
            self.op_reg_reg(i, op, ins[0], ins[1])
        elif len(ins) == 1:
            self.op_reg(i, op, ins[0])
        else:
            self.op_out_only(i, op)

    def arrival_state(self, op: SsaOp) -> str:
        """The state's name when the walk arrives at ``op`` (tracing only;
        looks without poking the LRU)."""
        def kind(v: int) -> str:
            a = self.allocations[v]
            return "U" if a == UNASSIGNED else "R" if a < self.n else "M"
        ins = op.inputs
        repeated = len(ins) == 2 and ins[0] == ins[1]
        return state_name([kind(op.out)] + [kind(v) for v in ins], repeated)

    def run(self, tape: Tape) -> "Allocation":
        """Allocate ``tape``.  Pre: a valid ``Tape`` (parsers check it).
        Post: ``Allocation`` whose program ``check`` accepts (asserted by the
        tests for every program they build, not here: it would double the
        cost)."""
        self.start(tape)
        ops = tape.ops
        trace = self.trace
        op_reg_reg, op_reg, op_out_only = self.op_reg_reg, self.op_reg, self.op_out_only
        for i in range(len(ops) - 1, -1, -1):
            op = ops[i]
            ins = op.inputs
            if trace is not None:
                state, before = self.arrival_state(op), len(self.out)
            if len(ins) == 2:
                op_reg_reg(i, op, ins[0], ins[1])
            elif len(ins) == 1:
                op_reg(i, op, ins[0])
            else:
                op_out_only(i, op)
            if trace is not None:
                trace.append((i, state, self.out[before:][::-1]))
        self.out.reverse()
        return Allocation(tape, self.n, self.out)

    def check_invariant(self) -> None:
        self.register_lru.check_invariant()
        for r, v in enumerate(self.registers):
            if v != INVALID:
                assert self.allocations[v] == r, (r, v)
        for r in self.spare_registers:
            assert self.registers[r] == INVALID


def allocate(tape: Tape, registers: int, trace: list | None = None) -> "Allocation":
    """Allocate ``tape`` with ``registers`` registers (``>= 2``, else
    ``PreconditionError``).  The result is in ``r0``."""
    return RegisterAllocator(registers, trace).run(tape)


# ---------------------------------------------------------------------------
# 4. The allocated program
# ---------------------------------------------------------------------------


@dataclass
class Allocation:
    """An allocated program: ``ops`` in forward order (``LOAD``/``STORE``/
    ``OP`` tuples, see ``OP``), for ``registers`` registers."""

    tape: Tape
    registers: int
    ops: list[tuple]
    _counts: dict | None = field(default=None, repr=False)

    def counts(self) -> dict:
        """``loads``, ``stores``, ``memory_slots`` (distinct slots),
        ``highest_offset`` (the largest ``k`` in ``mem + k``, the write-up's
        "memory words"; -1 when none), ``registers_used`` and
        ``operations`` (emitted SSA operations; dead ones are dropped)."""
        if self._counts is None:
            loads = stores = ops = 0
            slots: set[int] = set()
            regs: set[int] = set()
            for o in self.ops:
                if o[0] == OP:
                    ops += 1
                    regs.add(o[2])
                    regs.update(o[3])
                else:
                    regs.add(o[1])
                    slots.add(o[2])
                    if o[0] == LOAD:
                        loads += 1
                    else:
                        stores += 1
            self._counts = {
                "registers": self.registers,
                "loads": loads,
                "stores": stores,
                "memory_slots": len(slots),
                "highest_offset": max(slots) - self.registers if slots else -1,
                "registers_used": len(regs),
                "operations": ops,
            }
        return dict(self._counts)

    def lines(self) -> list[str]:
        """The program in the write-up's syntax: ``r0 = FOO(r0, r1)``,
        ``STORE(r0, mem + 0)``, ``r1 = LOAD(mem + 0)``.  (Same text as
        ``format_asm`` line by line, with one ``%`` template per tape
        operation for speed; a test compares the two.)"""
        n, ops = self.registers, self.tape.ops
        templates: dict[int, str] = {}
        out = []
        for o in self.ops:
            kind = o[0]
            if kind == OP:
                t = templates.get(o[1])
                if t is None:
                    op = ops[o[1]]
                    t = templates[o[1]] = f"r%d = {op.name}(" + ", ".join(
                        a if isinstance(a, str) else "r%d" for a in op.args) + ")"
                out.append(t % ((o[2],) + o[3]))
            elif kind == LOAD:
                out.append(f"r{o[1]} = LOAD(mem + {o[2] - n})")
            else:
                out.append(f"STORE(r{o[1]}, mem + {o[2] - n})")
        return out

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines())


def format_asm(tape: Tape, n: int, o: tuple) -> str:
    if o[0] == LOAD:
        return f"r{o[1]} = LOAD(mem + {o[2] - n})"
    if o[0] == STORE:
        return f"STORE(r{o[1]}, mem + {o[2] - n})"
    op = tape.ops[o[1]]
    regs = iter(o[3])
    args = ", ".join(a if isinstance(a, str) else f"r{next(regs)}"
                     for a in op.args)
    return f"r{o[2]} = {op.name}({args})"


# ---------------------------------------------------------------------------
# 5. The checker
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AsmLine:
    """One parsed line of an allocated program: ``kind`` is ``"load"``,
    ``"store"`` or ``"op"``; for ``op``, ``args`` mixes register numbers
    (``int``) and literals (``str``) in source order."""

    kind: str
    line: int
    reg: int = -1
    slot: int = -1
    name: str = ""
    args: tuple[int | str, ...] = ()


_REG = r"r(0|[1-9][0-9]*)"
_MEM = r"mem\s*\+\s*(0|[1-9][0-9]*)"
_ASM_LOAD = re.compile(rf"{_REG}\s*=\s*LOAD\(\s*{_MEM}\s*\)")
_ASM_LOAD2 = re.compile(rf"LOAD\(\s*{_REG}\s*,\s*{_MEM}\s*\)")  # the write-up's prose form
_ASM_STORE = re.compile(rf"STORE\(\s*{_REG}\s*,\s*{_MEM}\s*\)")
_ASM_OP = re.compile(rf"{_REG}\s*=\s*({_NAME})\s*\(([^()]*)\)")
_ASM_ARG_REG = re.compile(_REG)


def parse_allocated(text: str, source: str = "<allocated>") -> list[AsmLine]:
    """Parse an allocated program in the write-up's syntax (blank lines and
    ``#`` comments ignored; ``;`` at the end allowed).  ``TapeError`` names
    the line of anything else."""
    out: list[AsmLine] = []
    for number, line in _lines(text):
        line = line.rstrip(";").strip()
        m = _ASM_LOAD.fullmatch(line) or _ASM_LOAD2.fullmatch(line)
        if m:
            out.append(AsmLine("load", number, reg=int(m.group(1)),
                               slot=int(m.group(2))))
            continue
        m = _ASM_STORE.fullmatch(line)
        if m:
            out.append(AsmLine("store", number, reg=int(m.group(1)),
                               slot=int(m.group(2))))
            continue
        m = _ASM_OP.fullmatch(line)
        if m and m.group(2) not in RESERVED:
            raw = m.group(3).strip()
            args: list[int | str] = []
            for a in ([x.strip() for x in raw.split(",")] if raw else []):
                rm = _ASM_ARG_REG.fullmatch(a)
                if rm:
                    args.append(int(rm.group(1)))
                elif _LITERAL.fullmatch(a):
                    args.append(a)
                else:
                    raise TapeError(f"{source}:{number}: operand {a!r} is "
                                    f"neither a register rN nor a literal")
            out.append(AsmLine("op", number, reg=int(m.group(1)),
                               name=m.group(2), args=tuple(args)))
            continue
        raise TapeError(f"{source}:{number}: expected `rX = OP(rY, rZ)`, "
                        f"`STORE(rX, mem + k)` or `rX = LOAD(mem + k)`, got "
                        f"{line!r}")
    return out


def asm_lines(allocation: Allocation) -> list[AsmLine]:
    """Our own allocation as ``AsmLine``s (no text round trip)."""
    n, tape = allocation.registers, allocation.tape
    out = []
    for number, o in enumerate(allocation.ops, start=1):
        if o[0] == LOAD:
            out.append(AsmLine("load", number, reg=o[1], slot=o[2] - n))
        elif o[0] == STORE:
            out.append(AsmLine("store", number, reg=o[1], slot=o[2] - n))
        else:
            regs = iter(o[3])
            op = tape.ops[o[1]]
            args = tuple(a if isinstance(a, str) else next(regs) for a in op.args)
            out.append(AsmLine("op", number, reg=o[2], name=op.name, args=args))
    return out


@dataclass
class Verdict:
    """``ok``; else ``line`` (1-based line of the allocated program, 0 for
    the end) and ``reason``.  ``counts`` as ``Allocation.counts``."""

    ok: bool
    reason: str = ""
    line: int = 0
    counts: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        d: dict = {"ok": self.ok}
        if not self.ok:
            d["line"] = self.line
            d["reason"] = self.reason
        d.update(self.counts)
        return d


def check(tape: Tape, program: Allocation | str | Sequence[AsmLine],
          registers: int, strict: bool = False) -> Verdict:
    """Decide whether ``program`` computes ``tape`` on a machine with
    ``registers`` registers and unbounded memory.

    The machine is interpreted forward over *symbolic values*: every
    register and memory slot starts empty; an operation line reads its
    input registers and writes a new symbolic value to its output register.
    The program is accepted iff

    * every register it names is below ``registers``;
    * nothing is read before it is written (register or memory slot);
    * every operation reads exactly the values an SSA operation of the tape
      with the same name and literals reads: it then computes that SSA
      operation's value;
    * at the end ``r0`` holds the tape's result.

    Values are compared as terms (value numbering): two tape operations
    with the same name, literals and input values compute the same value,
    so an allocator may compute either (or drop dead code, or reorder
    independent operations).  With ``strict=True`` the values are the SSA
    variables themselves and the operation lines must be exactly the tape's
    live operations in tape order -- the contract our allocator meets.

    ``program`` may be our ``Allocation``, its text, or parsed lines; a
    ``TapeError`` (bad syntax, naming the line) propagates."""
    if isinstance(registers, bool) or not isinstance(registers, int) or registers < 1:
        raise PreconditionError(f"registers must be a whole number >= 1, "
                                f"not {registers!r}")
    if isinstance(program, Allocation):
        lines = asm_lines(program)
    elif isinstance(program, str):
        lines = parse_allocated(program)
    else:
        lines = list(program)
    names = tape.names

    # Values: strict -> SSA variable index; else term id (the SSA variable
    # that first computed the term stands for the term).
    term_of_var: list[int] = []
    by_key: dict[tuple, int] = {}
    for op in tape.ops:
        key = (op.name, tuple(a if isinstance(a, str) else term_of_var[a]
                              for a in op.args))
        term_of_var.append(by_key.setdefault(key, op.out) if not strict else op.out)
    assert len(term_of_var) == len(names)
    live_ops = [op for op, alive in zip(tape.ops, tape.live()) if alive]

    regs: list[int | None] = [None] * registers
    mem: dict[int, int] = {}
    loads = stores = computed = 0
    used_regs: set[int] = set()
    highest = -1

    def fail(line: int, reason: str) -> Verdict:
        return Verdict(False, reason, line)

    def reg_ok(r: int, ln: AsmLine) -> str | None:
        if r >= registers:
            return f"uses r{r} but the machine has only {registers} registers (r0..r{registers - 1})"
        used_regs.add(r)
        return None

    for ln in lines:
        bad = reg_ok(ln.reg, ln)
        if bad:
            return fail(ln.line, bad)
        if ln.kind == "load":
            if ln.slot not in mem:
                return fail(ln.line, f"r{ln.reg} = LOAD(mem + {ln.slot}) reads "
                            f"mem + {ln.slot} before anything was stored there")
            regs[ln.reg] = mem[ln.slot]
            loads += 1
            highest = max(highest, ln.slot)
        elif ln.kind == "store":
            if regs[ln.reg] is None:
                return fail(ln.line, f"STORE(r{ln.reg}, mem + {ln.slot}) reads "
                            f"r{ln.reg} before any value was written to it")
            mem[ln.slot] = regs[ln.reg]
            stores += 1
            highest = max(highest, ln.slot)
        else:
            values: list[int | str] = []
            for a in ln.args:
                if isinstance(a, str):
                    values.append(a)
                    continue
                bad = reg_ok(a, ln)
                if bad:
                    return fail(ln.line, bad)
                if regs[a] is None:
                    return fail(ln.line, f"{ln.name} reads r{a} before any "
                                f"value was written to it")
                values.append(regs[a])
            shown = ", ".join(v if isinstance(v, str) else names[v] for v in values)
            if strict:
                if computed >= len(live_ops):
                    return fail(ln.line, f"{ln.name}({shown}) is one operation "
                                f"more than the tape's {len(live_ops)} live ones")
                want = live_ops[computed]
                want_vals = tuple(a if isinstance(a, str) else a for a in want.args)
                if want.name != ln.name or tuple(values) != want_vals:
                    return fail(ln.line, f"computes {ln.name}({shown}) where "
                                f"the tape's next live operation is "
                                f"{tape.format_op(want)} (line {want.line})")
                result = want.out
            else:
                key = (ln.name, tuple(values))
                if key not in by_key:
                    return fail(ln.line, f"computes {ln.name}({shown}), a value "
                                f"the tape never computes (an input is the "
                                f"wrong value, or the operation is wrong)")
                result = by_key[key]
            computed += 1
            regs[ln.reg] = result
    if strict and computed != len(live_ops):
        want = live_ops[computed]
        return fail(0, f"the program stops before the tape's live operation "
                    f"{tape.format_op(want)} (line {want.line})")
    final = term_of_var[tape.result]
    if regs[0] != final:
        got = "nothing" if regs[0] is None else names[regs[0]]
        return fail(0, f"at the end r0 holds {got}, not the result "
                    f"{names[tape.result]}")
    return Verdict(True, counts={
        "registers": registers, "loads": loads, "stores": stores,
        "memory_slots": len(mem), "highest_offset": highest,
        "registers_used": len(used_regs), "operations": computed,
    })


# ---------------------------------------------------------------------------
# 6. `verified ssra`
# ---------------------------------------------------------------------------

HELP = ("SSRA: allocate straight-line SSA code (reverse linear scan), or "
        "check anyone's allocation against the tape")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Tapes: `$N = OP($a, $b)` lines, or the .vm format (`_3 mul _1 _2`) "
        "for files ending in .vm.\nexit status: 0 ok, 1 allocation rejected "
        "(check), 2 bad input or bad use.")
    sub = parser.add_subparsers(dest="ssra_command", metavar="ACTION")
    a = sub.add_parser("alloc", help="allocate a tape; print the program "
                       "(or JSON with counts)")
    a.add_argument("tape", metavar="TAPE")
    a.add_argument("--registers", "-n", type=int, required=True, metavar="N",
                   help="register count (>= 2)")
    a.add_argument("--json", action="store_true",
                   help="print {\"program\": [lines], \"counts\": {...}}")
    a.add_argument("--counts", action="store_true",
                   help="print only the counts (JSON)")
    c = sub.add_parser("check", help="check an allocated program against a "
                       "tape (exit 0 ok, 1 rejected, 2 bad input)")
    c.add_argument("tape", metavar="TAPE")
    c.add_argument("allocated", metavar="ALLOCATED",
                   help="allocated program in the write-up's syntax ('-' = stdin)")
    c.add_argument("--registers", "-n", type=int, required=True, metavar="N")
    c.add_argument("--strict", action="store_true",
                   help="also require exactly the tape's live operations, in "
                   "tape order, reading the same SSA variables")


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "ssra_command", None)
    if action is None:
        print("verified ssra: choose an action: alloc or check", file=sys.stderr)
        return 2
    try:
        tape = load_tape(args.tape)
        if action == "alloc":
            allocation = allocate(tape, args.registers)
            if args.counts:
                print(json.dumps(allocation.counts()))
            elif args.json:
                print(json.dumps({"program": allocation.lines(),
                                  "counts": allocation.counts()}))
            else:
                sys.stdout.write(allocation.text())
            return 0
        if args.allocated == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            source = args.allocated
            try:
                with open(args.allocated, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError) as e:
                raise TapeError(f"{args.allocated}: cannot read: {e}") from None
        lines = parse_allocated(text, source)
        verdict = check(tape, lines, args.registers, strict=args.strict)
        print(json.dumps(verdict.to_json()))
        return 0 if verdict.ok else 1
    except PreconditionError as e:
        print(f"verified ssra: error: {e}", file=sys.stderr)
        return 2
