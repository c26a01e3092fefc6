"""The oracle: does a sequence of operations implement a parallel move, and
how far is it from the optimum?

``implements`` is the postcondition of every algorithm in this package and
the verdict ``verified check`` returns to other implementations.  It runs
the sequence through the one interpreter (``semantics.execute``) from the
state where every location holds its own name, then compares.

Contracts (what must survive the move), chosen per request:

* ``"all"`` (default, CompCert's): every destination holds its source's
  original value; every other location of the register file that is not a
  declared temporary holds its own original value.
* ``"loops"`` (the permutation-instruction paper's RTGs): only destinations
  must hold their values; a location that must keep its own value says so
  with a self-move ``[u, u]``; every other location of the register file is
  dead after the move and may be used as scratch.

In both contracts only the final state counts: a location may be used and
restored in between (a swap followed by the same swap is harmless).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Sequence

from .compact import DenseState, LazyOps, OpArray, Pairs
from .semantics import (
    CONTRACTS,
    MODELS,
    Location,
    Operation,
    ParallelMove,
    PreconditionError,
    State,
    check_model,
    execute,
    format_op,
    loc_name,
    operation,
    python_class,
    reads,
    sorted_locations,
    value_of,
)


def _name_or_none(loc: Location | None) -> str | None:
    # a counterexample always has both (judge); typed so the compiled build
    # answers as the interpreted one would even if it had not
    return None if loc is None else loc_name(loc)


@python_class
@dataclass(frozen=True)
class Verdict:
    """The oracle's answer.  ``ok`` is True only when the sequence is legal
    in the model *and* leaves every checked location as the contract says."""

    ok: bool
    length: int
    #: why the sequence is wrong, in words (None when ok)
    reason: str | None = None
    #: the first wrong location after running a legal sequence
    location: Location | None = None
    expected: Location | None = None
    got: Location | None = None
    #: index of the first illegal operation, if that is the problem
    op_index: int | None = None

    def __bool__(self) -> bool:
        return self.ok

    def to_json(self) -> dict:
        out: dict = {"ok": self.ok, "length": self.length}
        if not self.ok:
            out["reason"] = self.reason
            if self.location is not None:
                out["counterexample"] = {
                    "location": self.location,
                    "expected": _name_or_none(self.expected),
                    "got": _name_or_none(self.got),
                }
            if self.op_index is not None:
                out["operation"] = self.op_index
        return out


def check_contract(preserve: str) -> str:
    if preserve not in CONTRACTS:
        raise PreconditionError(
            f'unknown "preserve" {preserve!r}; choose "all" (every location '
            f'not written keeps its value) or "loops" (only destinations and '
            f'self-moves matter)'
        )
    return preserve


def read_sequence(raw: object) -> "Sequence[Operation] | Verdict":
    """The operations of a JSON ``"sequence"``, or the verdict saying why it
    is not a sequence.  One rule (``docs/protocol.md``): anything wrong
    *inside* the sequence (an unknown or malformed operation, a perm of more
    than 5 locations, and, in ``implements``, an operation the model lacks or
    a location the request does not declare) is a verdict on the sequence,
    ``ok: false`` with the reason and the operation's index; only a malformed
    request is bad input."""
    if isinstance(raw, OpArray):
        # a huge sequence in compact form (tools.wire): each operation is
        # read once here, to find the first bad one, and again on each pass
        # of the oracle (LazyOps), never all kept at once; a repeated
        # operation is read once (a bounded cache: operations are immutable)
        read = functools.lru_cache(maxsize=1 << 12)(operation)
        for i, value in enumerate(raw):
            try:
                read(value)
            except PreconditionError as e:
                return Verdict(False, len(raw), reason=f"operation #{i}: {e}", op_index=i)
        return LazyOps(raw, read)
    if not isinstance(raw, list):
        text = repr(raw)
        text = text if len(text) <= 80 else text[:80] + "..."
        return Verdict(False, 0, reason=f'"sequence" must be a list of operations, not {text}')
    ops = []
    for i, value in enumerate(raw):
        try:
            ops.append(operation(value))
        except PreconditionError as e:
            return Verdict(False, len(raw), reason=f"operation #{i}: {e}", op_index=i)
    return ops


#: operation() is a pure function of its JSON input; sequences repeat the
#: same few operations ("mov", 2, 1) over and over, so ``read_sequence_memo``
#: keeps the parsed ones.  The key keeps each operand's exact type (True is
#: not 1, 1.0 is not 1), and only flat [str, int|str, int|str] lists take
#: this path; everything else, and every error, goes through read_sequence.
_OP_MEMO: dict = {}
_FLAT = (int, str)


def read_sequence_memo(seq: object) -> "Sequence[Operation] | Verdict":
    """``read_sequence(seq)``, memoised per operation: the operations, or
    the verdict on why the sequence is not one."""
    if type(seq) is not list:
        return read_sequence(seq)
    memo = _OP_MEMO
    ops: list[Operation] = []
    for v in seq:
        if type(v) is list and len(v) == 3:
            a, b, c = v
            tb, tc = type(b), type(c)
            if type(a) is str and tb in _FLAT and tc in _FLAT:
                key = (a, tb, b, tc, c)
                op = memo.get(key)
                if op is None:
                    try:
                        op = operation(v)
                    except PreconditionError:
                        return read_sequence(seq)  # the exact verdict
                    if len(memo) < 100_000:
                        memo[key] = op
                ops.append(op)
                continue
        return read_sequence(seq)
    return ops


def implements(
    pm: ParallelMove,
    ops: Sequence[Operation],
    model: str = "temp",
    preserve: str = "all",
) -> Verdict:
    """Decide whether ``ops`` implements ``pm`` in ``model`` under the
    contract ``preserve``.  Returns a Verdict naming the first problem:

    * an operation the model does not have (a swap in the ``temp`` model);
    * an operation naming a location outside the register file and the
      declared temporaries (e.g. a write to an undeclared temporary);
    * otherwise, after running the whole sequence, the first location
      (destinations first, in the move's order) whose value is wrong.
    """
    check_model(model)
    check_contract(preserve)
    allowed = MODELS[model]
    if not _all_declared(pm, ops, allowed):
        return _first_undeclared(pm, ops, model, allowed)
    return judge(pm, execute(ops, _blank_state(pm, ops)), preserve, len(ops))


@dataclass(frozen=True)
class Effect:
    """A sequence of operations with what judging it needs that does not
    depend on the move: the operation classes it uses, the registers and
    other locations it names, and ``execute(ops)``.  For a caller that
    judges the same sequence against many moves (conform: the same answer
    line answers a move at every register count it fits in), so that each
    judgement is ``judge`` alone (``implements_effect``)."""

    ops: Sequence[Operation]
    #: the classes of its operations
    kinds: frozenset
    #: 1 + the largest register number it names (0: none)
    top: int
    #: every location it names that is not a plain register number
    names: frozenset
    #: ``execute(ops)``; read, never written
    state: dict


def effect(ops: Sequence[Operation]) -> Effect:
    """The ``Effect`` of a list of operations (``read_sequence``'s)."""
    return effect_of_facts([op_facts(op) for op in ops])


def op_facts(op: Operation) -> tuple:
    """What ``effect`` reads of one operation: the operation, its class,
    1 + the largest register number it names (0: none) and the other
    locations it names.  Operations repeat: a caller that memoises these
    (conform, per operation text) builds each ``Effect`` with
    ``effect_of_facts`` without asking each operation again."""
    named = {*op.writes(), *op.reads()}
    numbers = [loc for loc in named if type(loc) is int]
    return (op, type(op), max(numbers, default=-1) + 1,
            frozenset(named.difference(numbers)) if len(numbers) < len(named) else _NO_NAMES)


_NO_NAMES: frozenset = frozenset()


def effect_of_facts(facts: Sequence[tuple]) -> Effect:
    """The ``Effect`` of the operations whose ``op_facts`` these are, in
    order (``effect`` is this on each operation's facts)."""
    ops_t, kinds, tops, names = zip(*facts) if facts else ((), (), (0,), ())
    ops = list(ops_t)
    state = execute(ops)
    assert isinstance(state, dict)  # from no state: a plain dict
    return Effect(ops, _interned(frozenset(kinds)), max(tops),
                  frozenset().union(*names) if any(names) else _NO_NAMES, state)


#: the few sets of operation classes, each one object (a memo of Effects
#: holds one per answer: fewer objects for the collector to walk)
_KIND_SETS: dict = {}


def _interned(kinds: frozenset) -> frozenset:
    return _KIND_SETS.setdefault(kinds, kinds)


#: the operation classes of each model, as a set (``implements_effect``)
_KINDS = {model: frozenset(kinds) for model, kinds in MODELS.items()}


def implements_effect(pm: ParallelMove, eff: Effect, model: str = "temp",
                      preserve: str = "all") -> Verdict:
    """``implements(pm, eff.ops, model, preserve)``, the sequence run once
    for all the moves it is judged against.  When ``eff`` shows at a glance
    that every operation is of the model and every location it names is in
    the declared register file or a declared temporary (what
    ``_all_declared`` decides; a sufficient test, not the same one), the
    verdict is ``judge`` on its state, as ``implements`` would compute it
    (the blank state is a plain dict for a move in tuple form); in every
    other case ``implements`` itself answers."""
    check_model(model)
    check_contract(preserve)
    regs = pm.registers
    if (regs is None or eff.top > regs or not eff.kinds <= _KINDS[model]
            or (eff.names and not eff.names <= frozenset(pm.temps))
            # (type checks, not isinstance: the compact forms are ABCs, slow to test)
            or type(pm.moves) is not tuple or type(eff.ops) is not list):
        return implements(pm, eff.ops, model, preserve)
    return judge(pm, eff.state, preserve, len(eff.ops))


def _blank_state(pm: ParallelMove, ops: Sequence[Operation]) -> "State | None":
    """The state ``execute`` starts from (every location its own value):
    a plain dict (None), or for a huge request in compact form an
    array-backed one over the register file."""
    if type(pm.moves) is tuple and type(ops) is list:
        return None  # the common case, without testing against the ABCs
    if isinstance(pm.moves, Pairs) or isinstance(ops, LazyOps):
        if pm.registers is not None:
            return DenseState(pm.registers)
        # the file is what the moves name: an array up to their largest
        # register (any other location, a temporary, lives in the dict)
        named = pm.moves.bound() if isinstance(pm.moves, Pairs) else max(
            (loc + 1 for pair in pm.moves for loc in pair if isinstance(loc, int)), default=0)
        return DenseState(named)
    return None


def _all_declared(pm: ParallelMove, ops: Sequence[Operation], allowed: tuple[type, ...]) -> bool:
    """Is every operation of the model, and every location it writes or
    reads in the register file or a declared temporary?  The hot path of
    ``implements``: no verdict built, no set; when it says no,
    ``_first_undeclared`` finds and words the first problem."""
    temps, regs = pm.temps, pm.registers
    if regs is None:
        return all(isinstance(op, allowed)
                   and all(pm.in_file(loc) or loc in temps for loc in (*op.writes(), *op.reads()))
                   for op in ops)
    # a declared file r0..r{regs-1}, the common case: pm.in_file inlined
    for op in ops:
        if not isinstance(op, allowed):
            return False
        for loc in op.writes():
            if not ((type(loc) is int and loc < regs) or loc in temps):
                return False
        for loc in op.reads():
            if not ((type(loc) is int and loc < regs) or loc in temps):
                return False
    return True


def _first_undeclared(pm: ParallelMove, ops: Sequence[Operation], model: str,
                      allowed: tuple[type, ...]) -> Verdict:
    """The verdict on the first operation the model lacks or the first
    location outside the register file and the temporaries (in operation
    order, its writes before its reads)."""
    temps = set(pm.temps)
    for i, op in enumerate(ops):
        if not isinstance(op, allowed):
            names = ", ".join(t.__name__.lower() for t in allowed)
            return Verdict(
                False, len(ops), op_index=i,
                reason=f"operation #{i} ({format_op(op)}) is not available in "
                f"the {model} model (it has: {names})",
            )
        for loc in (*op.writes(), *reads(op)):
            if not pm.in_file(loc) and loc not in temps:
                verb = "writes" if loc in op.writes() else "reads"
                return Verdict(
                    False, len(ops), op_index=i,
                    reason=f"operation #{i} ({format_op(op)}) {verb} "
                    f"{loc_name(loc)}, which is neither in the register file "
                    f"nor a declared temporary",
                )
    raise AssertionError("_all_declared and _first_undeclared disagree")  # pragma: no cover


def judge(pm: ParallelMove, state: State, preserve: str = "all", length: int = 0) -> Verdict:
    """Judge a final machine state (location -> symbolic value) against the
    contract: the first wrong location, destinations first in move order."""
    get = state.get
    for dst, src in pm.moves:
        got = get(dst, dst)
        if got != src:
            return Verdict(
                False, length, location=dst, expected=src, got=got,
                reason=f"destination {loc_name(dst)} must hold the original "
                f"value of {loc_name(src)} but holds that of {loc_name(got)}",
            )
    if preserve == "all" and _clobbered(pm, state):
        # a location never written holds its own value: only written ones
        # can be clobbered (so a huge declared register file costs nothing);
        # sorted only when one is, to name the first
        for loc in sorted_locations(state):
            if loc in pm.source_of or not pm.in_file(loc):
                continue
            got = value_of(state, loc)
            if got != loc:
                return Verdict(
                    False, length, location=loc, expected=loc, got=got,
                    reason=f"{loc_name(loc)} is not a destination, so it must "
                    f"keep its own value, but it was clobbered with that of "
                    f"{loc_name(got)}",
                )
    return _correct(length)


def _clobbered(pm: ParallelMove, state: State) -> bool:
    """Does some written location of the register file that is not a
    destination hold another value than its own?"""
    source_of = pm.source_of
    regs = pm.registers
    if regs is not None:  # a declared file r0..r{regs-1}: pm.in_file inlined
        for loc, got in state.items():
            if got != loc and type(loc) is int and loc < regs and loc not in source_of:
                return True
        return False
    for loc, got in state.items():
        if got != loc and loc not in source_of and pm.in_file(loc):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _correct(length: int) -> Verdict:
    # a Verdict is immutable: the "ok" one of each length is built once
    return Verdict(True, length)


# ---------------------------------------------------------------------------
# Postconditions of the algorithms
# ---------------------------------------------------------------------------

#: Run-time contracts are on unless VERIFIED_CONTRACTS=0 (benchmarks of the
#: bare algorithms turn them off; the tests never do).
CONTRACTS_ON = os.environ.get("VERIFIED_CONTRACTS", "1") != "0"


@python_class
class PostconditionError(AssertionError):
    """An algorithm returned a sequence that breaks its own contract."""


def ensure(
    pm: ParallelMove,
    ops: Sequence[Operation],
    model: str,
    preserve: str = "all",
    length: int | None = None,
    algorithm: str = "algorithm",
) -> None:
    """The shared postcondition: ``ops`` implements ``pm`` in ``model`` and,
    when given, has exactly ``length`` operations (the algorithm's bound)."""
    if not CONTRACTS_ON:
        return
    verdict = implements(pm, ops, model, preserve)
    if not verdict.ok:
        raise PostconditionError(f"{algorithm} on {pm}: {verdict.reason}")
    if length is not None and len(ops) != length:
        raise PostconditionError(
            f"{algorithm} on {pm}: {len(ops)} operations, its bound says {length}"
        )
