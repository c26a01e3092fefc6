"""The one semantics of parallel moves and of the machine operations that
implement them.  Everything else in the project (the oracle, every
algorithm's postcondition, the tests, the CLI, the cross-checks of the Z3
encodings in ``proofs/``) runs sequences through ``execute`` below; there is
no second interpreter.

Order of the math, as in CompCert's ``lib/Parmov.v``:

1. locations and the parallel move itself (with its precondition: distinct
   destinations);
2. operations and the operation models that say which ones an algorithm may
   emit;
3. ``execute``: the state after running a sequence from the state where
   every location holds its own name (a distinct symbolic value).

What "implements" means is decided in ``verified/oracle.py``.
"""

from __future__ import annotations

import functools
import re
from types import MappingProxyType
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence, Union, cast

from .compact import DenseMap, DenseState, Pairs
# defined apart so that `verified ssra` need not import this module
from .errors import MAX_REGISTERS, PreconditionError, check_registers, python_class

# ---------------------------------------------------------------------------
# Locations
# ---------------------------------------------------------------------------

#: A location: ``3`` is register ``r3``; a string names anything else
#: (``"rax"``, a memory slot ``"m0"``, a temporary ``"t"``).  The string
#: ``"r3"`` is normalised to the integer ``3`` so the two spellings cannot
#: name two different locations.
Location = Union[int, str]

MAX_REGISTER = MAX_REGISTERS - 1

_REGISTER_NAME = re.compile(r"r(0|[1-9][0-9]*)")


def location(value: object) -> Location:
    """Validate and normalise one location (from Python or from JSON)."""
    if type(value) is int and 0 <= value <= MAX_REGISTER:  # the common case, fast
        return value
    original = value
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise PreconditionError(
            f"a location is a register number (int >= 0) or a name (string), "
            f"not {value!r}"
        )
    if isinstance(value, int):
        if not 0 <= value <= MAX_REGISTER:
            raise PreconditionError(
                f"register number {value} is out of range 0..{MAX_REGISTER}"
            )
        # the object itself, an int subclass too (an IntEnum of registers):
        # the compiled build would hand back a plain int for ``value``
        return cast(Location, original)
    if value == "":
        raise PreconditionError("a location name must not be empty")
    match = _REGISTER_NAME.fullmatch(value)
    if match:
        return location(int(match.group(1)))
    return value


def loc_name(loc: Location) -> str:
    """Human/JSON name of a location and of the symbolic value it holds
    initially: ``3 -> "r3"``, ``"rax" -> "rax"``."""
    return f"r{loc}" if isinstance(loc, int) else loc


def _sort_key(loc: Location) -> tuple[int, int, str]:
    return (0, loc, "") if isinstance(loc, int) else (1, 0, loc)


def sorted_locations(locs: Iterable[Location]) -> list[Location]:
    """Registers by number first, then names alphabetically (deterministic)."""
    unique = set(locs)
    try:
        # only registers, or only names: their own order is the key's, with
        # no key to call (an algorithm sorts its slots on every call).  With
        # both, the sort must compare a register with a name somewhere (two
        # neighbours of any finished order), which raises TypeError
        return sorted(unique)
    except TypeError:
        return sorted(unique, key=_sort_key)


# ---------------------------------------------------------------------------
# Parallel moves
# ---------------------------------------------------------------------------


def _dense_size(pairs: "Pairs") -> int:
    """The size of an array indexed by every register ``pairs`` names
    (values out of range are refused by ``location`` before they are used)."""
    values = pairs.values()
    return min(max(values), MAX_REGISTER) + 1 if len(values) else 0



#: ``ParallelMove``'s default ``_source_of``: "not given" (a new dict then,
#: as the dataclass's default_factory would make)
_NOT_GIVEN: Mapping = MappingProxyType({})


def _inside_file(pairs: Iterable[tuple[Location, Location]], n: int) -> bool:
    """Every location of every pair a register of the file r0..r{n-1} (the
    common case, one pass: ``make`` looks at each location only otherwise)."""
    return all(type(d) is int and d < n and type(s) is int and s < n for d, s in pairs)


@dataclass(frozen=True)
class ParallelMove:
    """A set of ``dst <- src`` moves executed at once.

    Precondition (checked by ``make``): destinations are distinct.  A source
    may feed several destinations (fan-out); ``r <- r`` is a no-op (under the
    "loops" contract it says that ``r`` must keep its value).

    ``registers`` is the register file when declared (``r0..r{n-1}``), else
    ``None`` and the file is the set of locations the moves name.
    ``temps`` are locations outside the moves that a sequence may overwrite.
    """

    # a tuple, or compact Pairs for a huge request (core.compact): a Sequence,
    # so the compiled build (docs/fast.md) takes both as the interpreted one does
    moves: Sequence[tuple[Location, Location]]
    registers: int | None = None
    temps: tuple[Location, ...] = ()
    _source_of: Mapping[Location, Location] = field(
        default_factory=dict, compare=False, repr=False
    )

    # The dataclass's __init__ written out (see Mov: the compiled build
    # compiles a written one; every exhaustive map builds a move): the same
    # parameters and defaults, ``_source_of`` a new dict when not given
    def __init__(self, moves: Sequence[tuple[Location, Location]],
                 registers: int | None = None, temps: tuple[Location, ...] = (),
                 _source_of: Mapping[Location, Location] = _NOT_GIVEN) -> None:
        object.__setattr__(self, "moves", moves)
        object.__setattr__(self, "registers", registers)
        object.__setattr__(self, "temps", temps)
        object.__setattr__(self, "_source_of", {} if _source_of is _NOT_GIVEN else _source_of)

    @staticmethod
    def make(
        moves: Iterable[Sequence[object]],
        registers: object = None,
        temps: Iterable[object] = (),
    ) -> "ParallelMove":
        """Build and validate a parallel move from ``[dst, src]`` pairs."""
        # any object: this is where a request's "registers" is validated (the
        # compiled build would reject a float before the message could)
        n = None if registers is None else check_registers(registers)
        # huge register requests arrive as compact Pairs (tools.wire): the
        # same checks below, over an array-backed source_of, and the Pairs
        # themselves kept as the moves (each pair checked to be a location)
        # (a list or a tuple first: Pairs is an ABC, slow to test against)
        compact = type(moves) is not list and type(moves) is not tuple and isinstance(
            moves, Pairs)
        listed: list[tuple[Location, Location]] = []
        source_of: "dict[Location, Location] | DenseMap" = (
            DenseMap(_dense_size(moves)) if compact and isinstance(moves, Pairs) else {})
        for i, pair in enumerate(moves):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise PreconditionError(
                    f"move #{i} must be a [dst, src] pair, not {pair!r}"
                )
            dst, src = location(pair[0]), location(pair[1])
            if dst in source_of:
                raise PreconditionError(
                    f"destination {loc_name(dst)} is written twice: by "
                    f"{loc_name(dst)} <- {loc_name(source_of[dst])} and by "
                    f"{loc_name(dst)} <- {loc_name(src)}; a parallel move "
                    f"needs distinct destinations"
                )
            # a DenseMap only ever gets registers (ints): Pairs hold nothing else
            source_of[dst] = src  # type: ignore[index,assignment]
            if not compact:
                listed.append((dst, src))
        # a Sequence, not a list: the compiled build checks the type it is told
        pairs: Sequence[tuple[Location, Location]] = (
            moves if compact and isinstance(moves, Pairs) else tuple(listed))  # Pairs: every value checked above
        temp_list: list[Location] = []
        for t in temps:
            t = location(t)
            if t in temp_list:
                raise PreconditionError(f"temporary {loc_name(t)} is declared twice")
            temp_list.append(t)
        # the temporaries the moves name, found in one pass over the moves
        # (not a set of every location named: that is the move's size again)
        wanted = set(temp_list)
        named = {loc for d, s in pairs for loc in (d, s)
                 if loc in wanted} if wanted else set()
        for t in temp_list:
            if t in named:
                users = [
                    f"{loc_name(d)} <- {loc_name(s)}"
                    for d, s in pairs
                    if t in (d, s)
                ]
                raise PreconditionError(
                    f"temporary {loc_name(t)} appears in the move "
                    f"{', '.join(users)}; a temporary must be a location the "
                    f"moves do not name"
                )
        if n is not None:
            # every pair a plain register of the file (the common case, one
            # pass) needs no look at each location; otherwise they are
            # looked at one by one, and the first outside the file is named
            if not _inside_file(pairs, n):
                for d, s in pairs:
                    for loc in (d, s):
                        if not (isinstance(loc, int) and loc < n):
                            raise PreconditionError(
                                f"move {loc_name(d)} <- {loc_name(s)} names "
                                f"{loc_name(loc)}, which is outside the declared "
                                f"register file r0..r{n - 1}"
                                if n
                                else f"move {loc_name(d)} <- {loc_name(s)} names "
                                f"{loc_name(loc)} but the register file is empty"
                            )
            for t in temp_list:
                if isinstance(t, int) and t < n:
                    raise PreconditionError(
                        f"temporary {loc_name(t)} lies inside the register "
                        f"file r0..r{n - 1}; name a location outside "
                        f"it (e.g. {n} or \"t\")"
                    )
        return ParallelMove(pairs, n, tuple(temp_list), source_of)

    @staticmethod
    def trusted(
        moves: tuple[tuple[Location, Location], ...],
        registers: int | None,
        temps: tuple[Location, ...] = (),
    ) -> "ParallelMove":
        """The move ``make`` would build from these (already normalised)
        pairs, without checking them: only for a generator whose every
        output ``make`` accepts by construction (the exhaustive maps,
        conform's own requests; tests compare the two).  Never for input."""
        return ParallelMove(moves, registers, temps, dict(moves))

    @staticmethod
    def of_read_pairs(
        pairs: tuple[tuple[Location, Location], ...],
        registers: int | None,
    ) -> "ParallelMove | None":
        """The move ``make(pairs, registers)`` builds from pairs already
        read by ``location`` (no temporaries), when ``make`` accepts them:
        distinct destinations, each location inside the declared file; None
        when it would refuse them (``make`` then words why).  ``registers``
        must already be one ``check_registers`` accepts.  For a reader that
        reads each move's text once (``verified check``'s plain lines)."""
        source_of = dict(pairs)
        if len(source_of) != len(pairs):
            return None
        if registers is not None and not _inside_file(pairs, registers):
            return None
        return ParallelMove(pairs, registers, (), source_of)

    @staticmethod
    def from_map(want: Sequence[int], temps: Iterable[object] = ()) -> "ParallelMove":
        """The shuffling write-up's form: ``want[i]`` is the register whose
        original value register ``i`` must hold (``{3, 0, 1, 2}``)."""
        return ParallelMove.make(
            [(i, s) for i, s in enumerate(want)], registers=len(want), temps=temps
        )

    # -- derived views -----------------------------------------------------

    @property
    def source_of(self) -> Mapping[Location, Location]:
        """dst -> src for every move (self-moves included)."""
        return self._source_of

    @property
    def non_loop_moves(self) -> Sequence[tuple[Location, Location]]:
        """The moves with ``dst != src``: the ones that do anything (a
        tuple, or for a move in compact form its Pairs)."""
        if type(self.moves) is not tuple and isinstance(self.moves, Pairs):
            # (a tuple first: Pairs is an ABC, slow to test against)
            return self.moves.without_loops()
        # each move's own pair, not a copy (the moves are pairs: make and
        # trusted build them so); the algorithms ask on every call
        return tuple([pair for pair in self.moves if pair[0] != pair[1]])

    def locations(self) -> list[Location]:
        """The register file: ``r0..r{n-1}`` if declared, else every location
        the moves name (temporaries excluded)."""
        if self.registers is not None:
            return list(range(self.registers))
        return sorted_locations(
            [d for d, _ in self.moves] + [s for _, s in self.moves]
        )

    def in_file(self, loc: Location) -> bool:
        """Is ``loc`` in the register file (see ``locations``)?  O(1)."""
        if self.registers is not None:
            return type(loc) is int and loc < self.registers
        return loc in self._source_of or loc in self._sources

    @functools.cached_property
    def _sources(self) -> frozenset:
        return frozenset(s for _, s in self.moves)

    def file_size(self) -> int:
        """Number of locations in the register file.  O(moves)."""
        if self.registers is not None:
            return self.registers
        return len(set(self._source_of) | self._sources)

    def expected(self, loc: Location) -> Location:
        """The symbolic value ``loc`` must hold after the move (under
        CompCert's contract): its source's original value, or its own."""
        return self._source_of.get(loc, loc)

    def __str__(self) -> str:
        return "(" + ", ".join(
            f"{loc_name(d)} <- {loc_name(s)}" for d, s in self.moves
        ) + ")"


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------

#: Largest permutation one ``perm`` operation may perform (the paper's permi5;
#: permi23 is a 2-cycle and a 3-cycle together, also 5 registers).
MAX_PERM = 5


@dataclass(frozen=True)
class Mov:
    """``mov dst, src``: copy."""

    dst: Location
    src: Location

    # The __init__ the dataclass would generate, written out: the compiled
    # build (docs/fast.md) runs a generated __init__ as interpreted code
    # (about 290 ns a call here) and compiles a written one (about 45 ns);
    # every algorithm builds one operation per output step.  Frozen as
    # before: only __init__ sets the fields, as the generated one does.
    def __init__(self, dst: Location, src: Location) -> None:
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "src", src)

    def writes(self) -> tuple[Location, ...]:
        return (self.dst,)

    def reads(self) -> tuple[Location, ...]:
        return (self.src,)

    def to_json(self) -> list:
        return ["mov", self.dst, self.src]


@dataclass(frozen=True)
class Swap:
    """``swap a, b``: exchange (x86 ``xchg``, or three XORs)."""

    a: Location
    b: Location

    def __init__(self, a: Location, b: Location) -> None:  # written out: see Mov
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def writes(self) -> tuple[Location, ...]:
        return (self.a, self.b)

    def reads(self) -> tuple[Location, ...]:
        return (self.a, self.b)

    def to_json(self) -> list:
        return ["swap", self.a, self.b]


@dataclass(frozen=True)
class Perm:
    """One permutation instruction: every ``dst <- src`` at once, where the
    destinations are distinct and are exactly the sources."""

    pairs: tuple[tuple[Location, Location], ...]

    def writes(self) -> tuple[Location, ...]:
        return tuple(d for d, _ in self.pairs)

    def reads(self) -> tuple[Location, ...]:
        return tuple(s for _, s in self.pairs)

    def to_json(self) -> list:
        return ["perm", [[d, s] for d, s in self.pairs]]


@dataclass(frozen=True)
class Load:
    """``reg = LOAD(slot)``: memory to register (spill model)."""

    reg: Location
    slot: Location

    def writes(self) -> tuple[Location, ...]:
        return (self.reg,)

    def reads(self) -> tuple[Location, ...]:
        return (self.slot,)

    def to_json(self) -> list:
        return ["load", self.reg, self.slot]


@dataclass(frozen=True)
class Store:
    """``STORE(reg, slot)``: register to memory (spill model)."""

    reg: Location
    slot: Location

    def writes(self) -> tuple[Location, ...]:
        return (self.slot,)

    def reads(self) -> tuple[Location, ...]:
        return (self.reg,)

    def to_json(self) -> list:
        return ["store", self.reg, self.slot]


Operation = Union[Mov, Swap, Perm, Load, Store]

#: Which operations each model may emit.  Every model has ``mov``.
MODELS: dict[str, tuple[type, ...]] = {
    "temp": (Mov,),
    "swap": (Mov, Swap),
    "permi": (Mov, Perm),
    "spill": (Mov, Load, Store),
}

#: The two contracts a request can ask for (see oracle.py).
CONTRACTS = ("all", "loops")


def check_model(model: str) -> str:
    if model not in MODELS:
        raise PreconditionError(
            f"unknown model {model!r}; choose one of {', '.join(MODELS)}"
        )
    return model


def operation(value: object) -> Operation:
    """Parse one operation from its JSON form (``docs/protocol.md``) and check its
    own well-formedness (a perm is a permutation of at most 5 locations)."""
    if isinstance(value, (Mov, Swap, Perm, Load, Store)):
        op = value
    else:
        if not isinstance(value, (list, tuple)) or not value or not isinstance(value[0], str):
            raise PreconditionError(
                f'an operation is ["mov", dst, src], ["swap", a, b], '
                f'["perm", [[dst, src], ...]], ["load", reg, slot] or '
                f'["store", reg, slot]; got {value!r}'
            )
        kind, args = value[0], list(value[1:])
        arity = {"mov": 2, "swap": 2, "perm": 1, "load": 2, "store": 2}
        if kind not in arity:
            raise PreconditionError(
                f"unknown operation {kind!r}; known: {', '.join(arity)}"
            )
        if len(args) != arity[kind]:
            raise PreconditionError(
                f"{kind} takes {arity[kind]} operand(s), got {len(args)} in {value!r}"
            )
        if kind == "perm":
            raw = args[0]
            if not isinstance(raw, (list, tuple)) or not all(
                isinstance(p, (list, tuple)) and len(p) == 2 for p in raw
            ):
                raise PreconditionError(
                    f'perm takes a list of [dst, src] pairs, got {raw!r}'
                )
            op = Perm(tuple((location(d), location(s)) for d, s in raw))
        else:
            x, y = location(args[0]), location(args[1])
            if kind in ("load", "store") and not (type(x) is int and type(y) is str):
                # the spill model's operand roles: a register (a number) then a
                # slot (a name); swapped roles must not pass as a mov
                raise PreconditionError(
                    f'{kind} takes a register then a memory slot, ["{kind}", reg, '
                    f'slot] (e.g. ["{kind}", 0, "m0"]); got {value!r}')
            op = cast(Operation, {"mov": Mov, "swap": Swap, "load": Load, "store": Store}[kind](x, y))
    if isinstance(op, Perm):
        dsts = [d for d, _ in op.pairs]
        srcs = [s for _, s in op.pairs]
        if len(set(dsts)) != len(dsts) or set(dsts) != set(srcs):
            raise PreconditionError(
                f"{format_op(op)} is not a permutation: its destinations "
                f"must be distinct and be exactly its sources"
            )
        if len(dsts) > MAX_PERM:
            raise PreconditionError(
                f"{format_op(op)} permutes {len(dsts)} locations; one "
                f"permutation instruction handles at most {MAX_PERM}"
            )
    return op


def sequence(values: Iterable[object]) -> list[Operation]:
    """Parse a whole sequence, naming the index of a bad operation."""
    if isinstance(values, (str, bytes, dict)):
        raise PreconditionError(f'"sequence" must be a list of operations, not {values!r}')
    ops = []
    for i, v in enumerate(values):
        try:
            ops.append(operation(v))
        except PreconditionError as e:
            raise PreconditionError(f"operation #{i}: {e}") from None
    return ops


def format_op(op: Operation) -> str:
    """Assembly-like text: ``mov r1, r0``; ``perm (r1 <- r0, r0 <- r1)``."""
    if isinstance(op, Mov):
        return f"mov {loc_name(op.dst)}, {loc_name(op.src)}"
    if isinstance(op, Swap):
        return f"swap {loc_name(op.a)}, {loc_name(op.b)}"
    if isinstance(op, Perm):
        return "perm (" + ", ".join(
            f"{loc_name(d)} <- {loc_name(s)}" for d, s in op.pairs
        ) + ")"
    if isinstance(op, Load):
        return f"{loc_name(op.reg)} = LOAD({loc_name(op.slot)})"
    return f"STORE({loc_name(op.reg)}, {loc_name(op.slot)})"


def reads(op: Operation) -> tuple[Location, ...]:
    """The locations ``op`` reads (each operation class says, beside what it
    writes)."""
    return op.reads()


# ---------------------------------------------------------------------------
# The interpreter
# ---------------------------------------------------------------------------

#: A machine state: location -> the symbolic value it holds.  A symbolic
#: value is the *location whose original content it is*; locations absent
#: from the mapping still hold their own original value.  A dict, or for a
#: huge request in compact form a ``compact.DenseState`` (the same reads
#: and writes); the union keeps the compiled build from insisting on a dict.
State = Union[dict, DenseState]


def step(state: State, op: Operation) -> None:
    """Run one operation on ``state`` in place."""
    get = state.get
    if isinstance(op, Mov):
        state[op.dst] = get(op.src, op.src)
    elif isinstance(op, Swap):
        va, vb = get(op.a, op.a), get(op.b, op.b)
        state[op.a], state[op.b] = vb, va
    elif isinstance(op, Perm):
        values = [get(s, s) for _, s in op.pairs]
        for (d, _), v in zip(op.pairs, values):
            state[d] = v
    elif isinstance(op, Load):
        state[op.reg] = get(op.slot, op.slot)
    elif isinstance(op, Store):
        state[op.slot] = get(op.reg, op.reg)
    else:  # pragma: no cover - operation() only builds the five kinds
        raise TypeError(f"not an operation: {op!r}")


def execute(ops: Iterable[Operation], state: State | None = None) -> State:
    """The state after running ``ops`` from ``state`` (default: every
    location holds its own name).  Returns the (new) state."""
    state = {} if state is None else state.copy()  # a dict, or a compact.DenseState
    for op in ops:
        step(state, op)
    return state


def value_of(state: State, loc: Location) -> Location:
    """The symbolic value in ``loc`` (its own name if never written)."""
    return state.get(loc, loc)
