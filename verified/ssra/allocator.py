"""The allocator: reverse linear scan with an LRU register cache
(``Lru``, ``RegisterAllocator``) and the allocated program (``Allocation``).
See the package docstring (``verified/ssra/__init__.py``) for how the reverse
walk works."""

from __future__ import annotations

from ..core.errors import PreconditionError
from .tape import Tape, pause_collector, resume_collector

# neither `dataclasses` nor `typing` at run time (start-up time: tape.py),
# nor `enum`: the named states (``TwoInputState``, states.py) are for
# tracing, the proofs and the tests, imported where they are used
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from .ssaop import SsaOp

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


def state_name(kinds: Sequence[str], repeated: bool = False) -> str:
    """Name of the state at arrival: ``kinds = (out, input...)`` letters.
    Two inputs: a ``TwoInputState`` member name; one input ``"R_M"``
    style (``UNARY_R_M``); none ``NONARY_R``.  An unassigned output is a
    dead operation: ``DEAD`` (nothing is emitted)."""
    if kinds[0] == "U":
        return "DEAD"
    if len(kinds) == 3:
        from .states import TwoInputState
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

    def op_out_only(self, i: int, out: int) -> None:
        """``$x = OP()``: compute into ``r_x``, which is free before."""
        r_x = self.get_out_reg(out)
        if r_x == INVALID:
            return
        self.out.append((OP, i, r_x, ()))
        self.release_reg(r_x)

    def op_reg(self, i: int, out: int, arg: int) -> None:
        """``$x = OP($y)``: the input takes over ``r_x`` unless it already
        has a register (then ``r_x`` is released)."""
        r_x = self.get_out_reg(out)
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

    def op_reg_reg(self, i: int, out: int, lhs: int, rhs: int) -> None:
        """``$x = OP($y, $z)``: ``get_out_reg`` places the output (the ``R``
        or ``M`` half of the 18 arrival states, ``TwoInputState``: an output
        in memory only adds a STORE after the op and maybe an eviction LOAD,
        which can move an input from a register to memory), then the inputs'
        kinds *at that point* choose one arm of ``INPUT_ARMS``: each
        combination of input kinds is one method below.  A repeated input
        (``lhs == rhs``, "SAME") can only be in the R, M or U arms; there it
        needs one register, not two."""
        r_x = self.get_out_reg(out)
        if r_x == INVALID:
            return
        a_y = self.get_allocation(lhs)
        a_z = self.get_allocation(rhs)
        n = self.n
        y = "U" if a_y == UNASSIGNED else "R" if a_y < n else "M"
        z = "=" if lhs == rhs else "U" if a_z == UNASSIGNED else "R" if a_z < n else "M"
        INPUT_ARMS[y, z](self, i, r_x, lhs, rhs, a_y, a_z)

    # -- the arms: one per combination of input kinds (lhs, rhs) ------------

    def _inputs_R_R(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """R/R (also SAME R): both inputs in registers; r_x is free before."""
        self.out.append((OP, i, r_x, (a_y, a_z)))
        self.release_reg(r_x)

    def _inputs_M_R(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """M/R: lhs takes r_x, stored to its slot before the op."""
        self.out.append((OP, i, r_x, (r_x, a_z)))
        self.rebind_register(lhs, r_x)
        self.out.append((STORE, r_x, a_y))
        self.release_mem(a_y)

    def _inputs_R_M(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """R/M: rhs takes r_x, stored to its slot before the op."""
        self.out.append((OP, i, r_x, (a_y, r_x)))
        self.rebind_register(rhs, r_x)
        self.out.append((STORE, r_x, a_z))
        self.release_mem(a_z)

    def _inputs_SAME_M(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """SAME M: one register, one store."""
        self.out.append((OP, i, r_x, (r_x, r_x)))
        self.rebind_register(lhs, r_x)
        self.out.append((STORE, r_x, a_y))
        self.release_mem(a_y)

    def _inputs_M_M(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """M/M: lhs takes r_x, rhs a second register; both stored."""
        r_a = self.get_register()
        self.out.append((OP, i, r_x, (r_x, r_a)))
        self.rebind_register(lhs, r_x)
        self.bind_register(rhs, r_a)
        self.out.append((STORE, r_x, a_y))
        self.release_mem(a_y)
        self.out.append((STORE, r_a, a_z))
        self.release_mem(a_z)

    def _inputs_U_R(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """U/R: lhs (last use) takes r_x."""
        self.out.append((OP, i, r_x, (r_x, a_z)))
        self.bind_initial_register(lhs, r_x)

    def _inputs_R_U(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """R/U: rhs (last use) takes r_x."""
        self.out.append((OP, i, r_x, (a_y, r_x)))
        self.bind_initial_register(rhs, r_x)

    def _inputs_SAME_U(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """SAME U: the input takes r_x."""
        self.out.append((OP, i, r_x, (r_x, r_x)))
        self.bind_initial_register(lhs, r_x)

    def _inputs_U_U(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """U/U: lhs takes r_x, rhs a second register."""
        r_a = self.get_register()
        self.out.append((OP, i, r_x, (r_x, r_a)))
        self.bind_initial_register(lhs, r_x)
        self.bind_initial_register(rhs, r_a)

    def _inputs_U_M(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """U/M: lhs takes r_x; rhs a second register, stored before."""
        r_a = self.get_register()
        assert r_a != r_x
        self.out.append((OP, i, r_x, (r_x, r_a)))
        self.bind_initial_register(lhs, r_x)
        self.bind_register(rhs, r_a)
        self.out.append((STORE, r_a, a_z))
        self.release_mem(a_z)

    def _inputs_M_U(self, i, r_x, lhs, rhs, a_y, a_z) -> None:
        """M/U: rhs takes r_x; lhs a second register, stored before."""
        r_a = self.get_register()
        assert r_a != r_x
        self.out.append((OP, i, r_x, (r_a, r_x)))
        self.bind_register(lhs, r_a)
        self.bind_initial_register(rhs, r_x)
        self.out.append((STORE, r_a, a_y))
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
            self.op_reg_reg(i, op.out, ins[0], ins[1])
        elif len(ins) == 1:
            self.op_reg(i, op.out, ins[0])
        else:
            self.op_out_only(i, op.out)

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
        inputs = tape.inputs               # operation i defines variable i
        trace = self.trace
        op_reg_reg, op_reg, op_out_only = self.op_reg_reg, self.op_reg, self.op_out_only
        for i in range(len(inputs) - 1, -1, -1):
            ins = inputs[i]
            if trace is not None:
                state, before = self.arrival_state(tape.ops[i]), len(self.out)
            if len(ins) == 2:
                op_reg_reg(i, i, ins[0], ins[1])
            elif len(ins) == 1:
                op_reg(i, i, ins[0])
            else:
                op_out_only(i, i)
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


#: The arm of ``op_reg_reg`` for each combination of input kinds once the
#: output is placed: (lhs, rhs) with ``R`` register, ``M`` memory, ``U``
#: unassigned, and ``=`` for a repeated input (rhs is lhs).
INPUT_ARMS = {
    ("R", "R"): RegisterAllocator._inputs_R_R,
    ("R", "="): RegisterAllocator._inputs_R_R,
    ("M", "R"): RegisterAllocator._inputs_M_R,
    ("R", "M"): RegisterAllocator._inputs_R_M,
    ("M", "M"): RegisterAllocator._inputs_M_M,
    ("M", "="): RegisterAllocator._inputs_SAME_M,
    ("U", "R"): RegisterAllocator._inputs_U_R,
    ("R", "U"): RegisterAllocator._inputs_R_U,
    ("U", "U"): RegisterAllocator._inputs_U_U,
    ("U", "="): RegisterAllocator._inputs_SAME_U,
    ("U", "M"): RegisterAllocator._inputs_U_M,
    ("M", "U"): RegisterAllocator._inputs_M_U,
}


def allocate(tape: Tape, registers: int, trace: list | None = None) -> "Allocation":
    """Allocate ``tape`` with ``registers`` registers (``>= 2``, else
    ``PreconditionError``).  The result is in ``r0``.

    Run with the cyclic collector paused (``tape.pause_collector``)."""
    collecting = pause_collector()
    try:
        return RegisterAllocator(registers, trace).run(tape)
    finally:
        resume_collector(collecting)


# ---------------------------------------------------------------------------
# 4. The allocated program
# ---------------------------------------------------------------------------


class Allocation:
    """An allocated program: ``ops`` in forward order (``LOAD``/``STORE``/
    ``OP`` tuples, see ``OP``), for ``registers`` registers.  (A plain class
    with what ``@dataclass`` would write, ``_counts`` compared but not
    shown, as ``Tape``.)"""

    __slots__ = ("tape", "registers", "ops", "_counts")
    __match_args__ = ("tape", "registers", "ops", "_counts")

    def __init__(self, tape: Tape, registers: int, ops: list[tuple],
                 _counts: dict | None = None) -> None:
        self.tape = tape
        self.registers = registers
        self.ops = ops
        self._counts = _counts

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Allocation)
        return ((self.tape, self.registers, self.ops, self._counts)
                == (other.tape, other.registers, other.ops, other._counts))

    def __repr__(self) -> str:
        return (f"Allocation(tape={self.tape!r}, registers={self.registers!r}, "
                f"ops={self.ops!r})")

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
        ``format_asm`` line by line -- a test compares the two -- with the
        register names spelled once and an f-string per line shape; run
        with the cyclic collector paused, ``tape.pause_collector``.)"""
        collecting = pause_collector()
        try:
            return self._lines()
        finally:
            resume_collector(collecting)

    def _lines(self) -> list[str]:
        n, tape = self.registers, self.tape
        opnames, args, inputs = tape.opnames, tape.args, tape.inputs
        reg = [f"r{k}" for k in range(n)]
        out: list[str] = []
        put = out.append
        for o in self.ops:
            kind = o[0]
            if kind == OP:
                i, regs = o[1], o[3]
                if args[i] is inputs[i]:        # no literal operand
                    if len(regs) == 2:
                        put(f"{reg[o[2]]} = {opnames[i]}({reg[regs[0]]}, {reg[regs[1]]})")
                    elif regs:
                        put(f"{reg[o[2]]} = {opnames[i]}({reg[regs[0]]})")
                    else:
                        put(f"{reg[o[2]]} = {opnames[i]}()")
                else:
                    put(format_asm(tape, n, o))
            elif kind == LOAD:
                put(f"{reg[o[1]]} = LOAD(mem + {o[2] - n})")
            else:
                put(f"STORE({reg[o[1]]}, mem + {o[2] - n})")
        return out

    def text(self) -> str:
        lines = self.lines()
        return "\n".join(lines) + "\n" if lines else ""


def format_asm(tape: Tape, n: int, o: tuple) -> str:
    if o[0] == LOAD:
        return f"r{o[1]} = LOAD(mem + {o[2] - n})"
    if o[0] == STORE:
        return f"STORE(r{o[1]}, mem + {o[2] - n})"
    regs = iter(o[3])
    args = ", ".join(a if isinstance(a, str) else f"r{next(regs)}"
                     for a in tape.args[o[1]])
    return f"r{o[2]} = {tape.opnames[o[1]]}({args})"
