"""Machines, part 5: the parallel move on a machine, the verdict, the request.

``MachineMove`` (with its preconditions), ``implements`` and ``judge`` (the
verdict: the first illegal operation, else the first wrong unit), and the
request parser and checker that ``verified check`` uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from ..oracle import Verdict, check_contract
from ..semantics import PreconditionError
from .description import MEMO_LIMIT, UNDEFINED, Machine, Unit, Value, _short, machine
from .locations import Imm, MLoc, Place, holds, imm_fits, parse_loc, units, value_type, values, width
from .operations import MOperation, cost, illegal, parse_op, reserved_write
from .semantics import STACK, UNDERFLOW, MState, execute


def format_move(dst: MLoc, src: MLoc, typ: str | None = None) -> str:
    return f"{dst} <- {src}" + (f" ({typ})" if typ else "")


def _not_reserved(m: Machine, locs: tuple, what: str) -> None:
    """A request never names a reserved register (bad input)."""
    reserved = m.reserved_units()
    for loc in locs:
        if isinstance(loc, Place) and set(units(m, loc)) & reserved:
            name = next(r for r in m.reserved if set(m.lookup(r).units) & set(units(m, loc)))
            raise PreconditionError(
                f"{what}: {name} is reserved on {m.name} (reserved: {', '.join(m.reserved)}); "
                f"a move or temporary never names a reserved register")


def _checked_pair(m: Machine, i: int, pair: object, memo: dict) -> tuple[Place, MLoc, str | None]:
    """Move ``i`` of a request read and checked on its own (every
    precondition but the disjoint destinations, which ``MachineMove.make``
    checks across moves): (dst, src, type name or None), kept in ``memo``
    when the pair is all names (``Memo``: a run's moves repeat the same few
    hundred pairs; ``i`` is only ever in an error, never kept)."""
    if not isinstance(pair, list) or len(pair) not in (2, 3):
        raise PreconditionError(f"move #{i} must be a [dst, src] pair (or [dst, src, "
                                f"TYPE]), not {_short(pair)}")
    try:
        dst = parse_loc(m, pair[0], allow_imm=False)
        src = parse_loc(m, pair[1])
        t = value_type(m, pair[2]) if len(pair) == 3 else None
    except PreconditionError as e:
        raise PreconditionError(f"move #{i} {_short(pair)}: {e}") from None
    _not_reserved(m, (dst, src), f"move {format_move(dst, src)}")
    wd, ws = width(m, dst), width(m, src)
    typ = None if t is None else t.name
    if t is not None:
        for loc in (dst, src):
            reason = None if isinstance(loc, Imm) else holds(m, loc, t)
            if reason is not None:
                raise PreconditionError(f"move {format_move(dst, src, typ)}: {reason}")
        ws = wd = None  # a typed move needs no equal widths
    if isinstance(src, Imm):
        reason = imm_fits(m, src, wd if t is None else t.width)
        if reason is not None:
            raise PreconditionError(f"move {format_move(dst, src, typ)}: {reason}")
    if ws is not None and wd != ws:
        raise PreconditionError(
            f"move {format_move(dst, src)}: {dst} has width {wd} but {src} has "
            f"width {ws}; a move needs equal widths")
    key = tuple(pair)
    if all(type(v) is str for v in key) and len(memo) < MEMO_LIMIT:
        memo[key] = (dst, src, typ)
    return dst, src, typ


@dataclass(frozen=True)
class MachineMove:
    """A parallel move on a machine: ``[dst, src]`` pairs (or typed
    ``[dst, src, TYPE]`` triples) executed at once, plus declared
    temporaries.  Preconditions (``make``): every name exists; no
    destination is an immediate; an untyped pair has equal widths, a typed
    one's locations can both hold its type; a constant fits its width; the
    destinations' units are pairwise disjoint (through an alias or a list);
    temporaries are registers or slots whose units no move and no other
    temporary touches.  A typed move's value is the low units of both
    locations; the rest of its destination is neither required nor kept."""

    machine: Machine
    moves: tuple[tuple[Place, MLoc], ...]
    temps: tuple[Place, ...] = ()
    #: each move's type (None: untyped); empty when no move is typed
    types: tuple[str | None, ...] = ()

    @staticmethod
    def make(m: Machine, moves: Iterable[object], temps: Iterable[object] = ()) -> "MachineMove":
        pairs: list[tuple[Place, MLoc]] = []
        types: list[str | None] = []
        owner: dict[Unit, int] = {}
        memo = m.memo.table(_checked_pair)
        for i, pair in enumerate(moves):
            # a pair of names read before is looked up (a str equals only a
            # str); one with a list or an immediate inside is read afresh
            try:
                hit = memo.get(tuple(pair)) if type(pair) is list else None
            except TypeError:
                hit = None
            dst, src, typ = hit if hit is not None else _checked_pair(m, i, pair, memo)
            for u in units(m, dst):
                if u in owner:
                    d2, s2 = pairs[owner[u]]
                    raise PreconditionError(
                        f"destinations overlap: {format_move(d2, s2)} and "
                        f"{format_move(dst, src)} both write unit {u}; a parallel move "
                        f"needs disjoint destinations")
                owner[u] = len(pairs)
            pairs.append((dst, src))
            types.append(typ)
        touched: set = set()  # the units the moves touch, once there is a temporary
        temp_list: list[Place] = []
        seen: dict[Unit, Place] = {}
        for t in temps:
            if not touched and pairs:
                touched = {u for d, s in pairs for u in (*units(m, d), *units(m, s))}
            try:
                place = parse_loc(m, t, allow_imm=False)
            except PreconditionError as e:
                raise PreconditionError(f"temporary {_short(t)}: {e}") from None
            _not_reserved(m, (place,), f"temporary {place}")
            for u in units(m, place):
                if u in touched:
                    users = [format_move(d, s) for d, s in pairs
                             if u in units(m, d) or u in units(m, s)]
                    raise PreconditionError(
                        f"temporary {place} overlaps the move {', '.join(users)} (unit "
                        f"{u}); a temporary must be a location the moves do not touch")
                if u in seen:
                    raise PreconditionError(f"temporaries {seen[u]} and {place} overlap "
                                            f"(unit {u}); declare each once")
                seen[u] = place
            temp_list.append(place)
        return MachineMove(m, tuple(pairs), tuple(temp_list),
                           tuple(types) if any(types) else ())

    def type_of(self, i: int) -> str | None:
        """The type of move ``i`` (None: untyped)."""
        return self.types[i] if self.types else None

    def value_units(self, i: int) -> tuple[Unit, ...]:
        """The units of move ``i``'s destination that must hold its value:
        all of them, or a typed move's low ``width`` units."""
        return _value_units(self.machine, self.moves[i][0], self.type_of(i))

    def typed_moves(self) -> Iterable[tuple[Place, MLoc, str | None]]:
        """(dst, src, type) for every move."""
        return ((d, s, self.type_of(i)) for i, (d, s) in enumerate(self.moves))

    def wanted(self, i: int) -> tuple[tuple[Unit, Value], ...]:
        """(unit, value) for each unit of move ``i``'s destination that must
        hold its value (``value_units``, low unit first) and the original
        value it must hold."""
        d, s = self.moves[i]
        return wanted_values(self.machine, d, s, self.type_of(i))

    def expected(self) -> dict[Unit, Value]:
        """unit -> the value it must hold afterwards, destinations only (in
        move order, low unit first; a typed move's low units only)."""
        out: dict[Unit, Value] = {}
        for i in range(len(self.moves)):
            out.update(self.wanted(i))
        return out

    def written(self) -> frozenset[Unit]:
        """Every unit of every destination (a typed move's other units
        count as written: they need not keep their value)."""
        m = self.machine
        return frozenset().union(*[units(m, d) for d, _ in self.moves])

    def temp_units(self) -> frozenset[Unit]:
        # one frozenset per declared temporaries (a run's requests share them)
        return self.machine.memo.ask(_temp_units, self.temps, self.machine, self.temps)

    def judged(self) -> tuple:
        """What ``judge`` reads of the move for every answer, made once per
        move (kept on it, not a field: equality and hashing are the
        fields'): (destination, ``wanted(i)``) for each move ``i`` in
        order, ``written()``, ``temp_units()``."""
        got = self.__dict__.get("_judged")
        if got is None:
            got = (tuple((d, self.wanted(i)) for i, (d, _) in enumerate(self.moves)),
                   self.written(), self.temp_units())
            object.__setattr__(self, "_judged", got)
        return got

    def to_json(self) -> dict:
        return {"moves": [[d.to_json(), s.to_json()] + ([t] if t else [])
                          for d, s, t in self.typed_moves()],
                "temps": [t.to_json() for t in self.temps]}

    def __str__(self) -> str:
        return "(" + ", ".join(format_move(d, s, t) for d, s, t in self.typed_moves()) + ")"


def _value_units(m: Machine, d: Place, t: str | None) -> tuple[Unit, ...]:
    du = units(m, d)
    return du if t is None else du[:m.type(t).width]


def wanted_values(m: Machine, d: Place, s: MLoc, t: str | None) -> tuple[tuple[Unit, Value], ...]:
    """``MachineMove.wanted`` of a move ``d <- s`` of type ``t``: its value
    units zipped with the source's values; remembered by the machine
    (``Memo``: a run's cases repeat the same few hundred moves, and
    ``judge`` asks this of every move of every answer)."""
    return m.memo.ask(_wanted_values, (d, s, t), m, d, s, t)


def _wanted_values(m: Machine, d: Place, s: MLoc, t: str | None) -> tuple:
    """``wanted_values`` without the memo."""
    du = _value_units(m, d, t)
    return tuple(zip(du, values(m, s, len(du))))


def _temp_units(m: Machine, temps: tuple) -> frozenset[Unit]:
    return frozenset(u for t in temps for u in units(m, t))


@dataclass(frozen=True)
class MachineVerdict(Verdict):
    """The oracle's answer on a machine: a ``Verdict`` plus the sequence's
    cost (None when the sequence is not legal) and, for a wrong value, the
    unit that holds it (``location`` is the register or slot it belongs
    to)."""

    cost: int | None = None
    unit: Unit | None = None

    def to_json(self) -> dict:
        out: dict = {"ok": self.ok, "length": self.length}
        if self.cost is not None:
            out["cost"] = self.cost
        if not self.ok:
            out["reason"] = self.reason
            if self.unit is not None:
                out["counterexample"] = {"location": self.location, "unit": self.unit,
                                         "expected": self.expected, "got": self.got}
            if self.op_index is not None:
                out["operation"] = self.op_index
        return out


def read_machine_sequence(m: Machine, raw: object,
                          read: "Callable[[Machine, object], tuple[MOperation, str | None]] | None"
                          = None) -> "list[MOperation] | MachineVerdict":
    """The operations of a JSON ``"sequence"`` on machine ``m``, or the
    verdict saying why it is not one: anything wrong inside the sequence
    (malformed, an unknown name, an operation the machine lacks) is a
    verdict with the operation's index, never bad input (the rule of
    ``oracle.read_sequence``).  ``read`` (default ``_read_op``) reads one
    item: a caller that read each operation's text once (``verified
    check``'s plain lines) passes what it kept, read by ``_read_op``."""
    if read is None:
        read = _read_op
    if not isinstance(raw, list):
        return MachineVerdict(False, 0, reason=f'"sequence" must be a list of operations, '
                              f"not {_short(raw)}")
    ops = []
    for i, value in enumerate(raw):
        try:
            op, reason = read(m, value)
        except PreconditionError as e:
            return MachineVerdict(False, len(raw), reason=f"operation #{i}: {e}", op_index=i)
        if reason is not None:
            return MachineVerdict(False, len(raw), op_index=i,
                                  reason=f"operation #{i}: {reason}")
        ops.append(op)
    return ops


def _read_op(m: Machine, value: object) -> tuple[MOperation, str | None]:
    """One operation of a sequence and why the machine (or its profile)
    forbids it, or None; PreconditionError when it is not an operation.  An
    operation whose operands are all names (``["mov", "rax", "rcx"]``, the
    usual case) is remembered by the machine (``Memo``): a run's
    answers repeat the same few hundred operations."""
    memo = m.memo.table(_read_op)
    if type(value) is list:
        # looked up before its operands' types are: a key equal to a kept
        # one (all names: a str equals only a str) is that operation; an
        # unhashable one (a list operand, an immediate) is read afresh
        try:
            hit = memo.get(tuple(value))
        except TypeError:
            hit = None
        if hit is not None:
            return hit
    key = tuple(value) if type(value) is list and all(type(v) is str for v in value) else None
    op = parse_op(m, value)
    out = (op, illegal(m, op) or reserved_write(m, op))
    if key is not None and len(memo) < MEMO_LIMIT:
        memo[key] = out
    return out


def implements(mm: MachineMove, ops: Sequence[MOperation], preserve: str = "all") -> MachineVerdict:
    """Decide whether ``ops`` implements ``mm`` on its machine under the
    contract ``preserve``: the first illegal operation, else (after running
    the whole sequence) the first wrong unit, destinations first in move
    order, then (under "all") every other unit that is not a temporary's."""
    check_contract(preserve)
    m = mm.machine
    for i, op in enumerate(ops):
        reason = illegal(m, op) or reserved_write(m, op)
        if reason is not None:
            return MachineVerdict(False, len(ops), op_index=i,
                                  reason=f"operation #{i}: {reason}")
    return judge(mm, execute(m, ops), preserve, len(ops), cost(m, ops))


def judge(mm: MachineMove, state: MState, preserve: str = "all", length: int = 0,
          total: int | None = None) -> MachineVerdict:
    """Judge a final per-unit state against the contract: first the stack
    (a pop from an empty stack, then words left pushed: a sequence must
    leave the stack as it found it), then the units."""
    m = mm.machine
    if UNDERFLOW in state:
        at, need, had = state[UNDERFLOW]
        return MachineVerdict(
            False, length, op_index=at, cost=total,
            reason=f"operation #{at} pops {need} word(s) from a stack that holds {had}: a pop "
            f"from an empty stack takes a value that was never pushed")
    left = len(state.get(STACK, ()))
    if left:
        return MachineVerdict(
            False, length, cost=total,
            reason=f"the stack is left with {left} word{'s' if left != 1 else ''} pushed; a "
            f"sequence must pop every word it pushes")
    by_move, dest, temps = mm.judged()
    for d, wanted in by_move:
        for u, want in wanted:
            got = state.get(u, u)
            if got != want:
                return MachineVerdict(
                    False, length, location=d.to_json(), expected=want, got=got,
                    unit=u, cost=total,
                    reason=f"destination {d} (unit {u}) must hold {_wanted(want)} but "
                    f"holds {_held(got)}")
    if preserve == "all":
        # a unit the sequence never wrote is not in the state: it kept its
        # value; only when some other unit changed, find the first in order
        if all(v == u or u in dest or u in temps or u == STACK for u, v in state.items()):
            return MachineVerdict(True, length, cost=total)
        for u in m.units():
            if u in dest or u in temps:
                continue
            got = state.get(u, u)
            if got != u:
                name = m.owner(u)
                return MachineVerdict(
                    False, length, location=name, expected=u, got=got, unit=u, cost=total,
                    reason=f"{name} (unit {u}) is not a destination, so it must keep its "
                    f"own value, but it was clobbered with {_held(got)}")
    return MachineVerdict(True, length, cost=total)


def _wanted(v: Value) -> str:
    return f"the immediate piece {v}" if v.startswith("#") else f"the original value of {v}"


def _held(v: Value) -> str:
    if v == UNDEFINED:
        return "an undefined value (the rest of a typed write's destination)"
    return f"the immediate piece {v}" if v.startswith("#") else f"that of {v}"


# -- the request ----------------------------------------------------------

MACHINE_REQUEST_KEYS = ("id", "machine", "moves", "temps", "preserve", "sequence")
_MACHINE_REQUEST_KEYS = frozenset(MACHINE_REQUEST_KEYS)


@dataclass(frozen=True)
class MachineRequest:
    """A parsed request carrying ``"machine"``."""

    move: MachineMove
    preserve: str = "all"
    #: the "sequence" as sent (judged by ``read_machine_sequence``), or None
    sequence: object = None
    id: object = None

    @property
    def machine(self) -> Machine:
        return self.move.machine


@dataclass(frozen=True)
class MachineOptimum:
    """The optimum of a machine request: the minimum total cost, or None
    with ``note`` saying why (not computed, too large, or no legal sequence
    exists).  The contract of ``verified.algorithms.machine_optimum.optimum``."""

    cost: int | None
    note: str | None = None


def parse_machine_request(obj: dict, need_sequence: bool) -> MachineRequest:
    """Validate a decoded request that has ``"machine"``; raise
    PreconditionError naming the problem.  ``"model"`` and ``"registers"``
    do not go with a machine (it says both)."""
    for key in ("model", "registers"):
        if key in obj:
            raise PreconditionError(
                f'"{key}" does not go with "machine": the machine says which registers '
                f"and operations exist; drop \"{key}\"")
    unknown = ([] if _MACHINE_REQUEST_KEYS.issuperset(obj)
               else sorted(set(obj) - set(MACHINE_REQUEST_KEYS)))
    if unknown:
        raise PreconditionError(
            f"unknown field(s) {', '.join(map(repr, unknown))}; a machine request has "
            f"{', '.join(MACHINE_REQUEST_KEYS)}")
    m = machine(obj["machine"])
    if "moves" not in obj:
        raise PreconditionError('missing "moves": a list of [dst, src] pairs')
    moves = obj["moves"]
    if not isinstance(moves, list):
        raise PreconditionError(f'"moves" must be a list of [dst, src] pairs, not '
                                f"{_short(moves)}")
    preserve = obj.get("preserve", "all")
    if not isinstance(preserve, str):
        raise PreconditionError(f'"preserve" must be "all" or "loops", not {preserve!r}')
    check_contract(preserve)
    temps = obj.get("temps", [])
    if not isinstance(temps, list):
        raise PreconditionError(f'"temps" must be a list of locations, not {_short(temps)}')
    mm = MachineMove.make(m, moves, temps)
    if need_sequence and "sequence" not in obj:
        raise PreconditionError('missing "sequence": the operations to check')
    return MachineRequest(mm, preserve, obj.get("sequence"), obj.get("id"))


def check_machine_request(req: MachineRequest) -> MachineVerdict:
    """The verdict on a parsed machine request's sequence."""
    ops = read_machine_sequence(req.machine, req.sequence)
    if isinstance(ops, MachineVerdict):
        return ops
    # read_machine_sequence has judged every operation's legality: run and
    # judge the contract (``implements`` without its second legality pass)
    m = req.machine
    return judge(req.move, execute(m, ops), req.preserve, len(ops), cost(m, ops))
