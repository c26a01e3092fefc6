"""Compact containers for huge register requests (issue 21: memory bounded by
the input).

A request over 2^20 registers with a million-operation sequence is one
40 MB line; as JSON lists, tuples, dicts and operation objects it took a
gigabyte.  These containers hold the same values in flat ``array``s of
machine integers, and the existing code reads them through the usual
sequence and mapping protocols: ``ParallelMove.make`` (semantics), the
oracle's ``read_sequence`` and ``implements``, and ``execute`` run
unchanged over them; there is no second semantics here, only storage.

* ``Pairs``: ``[dst, src]`` pairs of register numbers, a sequence of
  ``(dst, src)`` tuples (the request's ``"moves"`` as decoded by
  ``tools.wire``'s compact reader, and then the move's ``moves``);
* ``OpArray``: a ``"sequence"`` of ``["mov"|"swap", a, b]`` with register
  numbers, each item the JSON list it was;
* ``LazyOps``: the operations of a sequence already read, rebuilt from the
  sequence on each pass instead of kept;
* ``OpLog``: an algorithm's output on a huge request, appended operation
  by operation and kept as an ``OpArray`` (``algorithms.xchg``);
* ``DenseMap``: a mapping register -> register (a move's ``source_of``);
* ``DenseState``: a machine state (``semantics.State``) whose registers
  0..n-1 live in an array, anything else in a dict; also the tables of an
  algorithm on a huge request (xchg's ``edges``, ``alias``, ``reader``);
* ``DenseSet``: a set of registers 0..n-1, a byte each (xchg's ``pending``).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, MutableMapping, MutableSet, Sequence
from typing import Callable, Iterable, Iterator

#: array type code of the flat storage: signed 64-bit
_CODE = "q"
#: a slot of DenseMap / DenseState that holds nothing (registers are >= 0)
_ABSENT = -1
#: a slot of DenseState whose value is not a register number (in ``other``)
_ELSEWHERE = -2


class Pairs(Sequence):
    """An immutable sequence of ``(dst, src)`` register pairs, stored flat
    (``dst0, src0, dst1, src1, ...``).  Equal to, and hashed as, the tuple
    of its pairs, so a move holding one compares like a move holding a
    tuple."""

    __slots__ = ("_flat",)

    def __init__(self, flat: array) -> None:
        if len(flat) % 2:
            raise ValueError("Pairs needs an even number of values")
        self._flat = flat

    @staticmethod
    def of(pairs: Iterable[tuple[int, int]]) -> "Pairs":
        flat = array(_CODE)
        for d, s in pairs:
            flat.append(d)
            flat.append(s)
        return Pairs(flat)

    def __len__(self) -> int:
        return len(self._flat) // 2

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self)[i]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("Pairs index out of range")
        return self._flat[2 * i], self._flat[2 * i + 1]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        flat = self._flat
        return zip(flat[0::2], flat[1::2])

    def values(self) -> array:
        """Every register named, dst and src, flat (a copy)."""
        return array(_CODE, self._flat)

    def bound(self) -> int:
        """One more than the largest register named (0 when empty): the
        size of an array indexed by every register of the pairs."""
        return max(self._flat) + 1 if self._flat else 0

    def without_loops(self) -> "Pairs":
        """The pairs with ``dst != src``, in order."""
        flat = array(_CODE)
        for d, s in self:
            if d != s:
                flat.append(d)
                flat.append(s)
        return Pairs(flat)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Pairs):
            return self._flat == other._flat
        if isinstance(other, tuple):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class OpArray(Sequence):
    """A JSON ``"sequence"`` of ``["mov", a, b]`` and ``["swap", a, b]``
    with integer operands, stored as one kind byte and two integers per
    operation; each item is the tuple of what JSON's list would hold (a
    tuple: hashable, so equal operations are read once, ``read_sequence``)."""

    __slots__ = ("_kinds", "_flat")
    KINDS = ("mov", "swap")

    def __init__(self, kinds: bytearray, flat: array) -> None:
        if 2 * len(kinds) != len(flat):
            raise ValueError("OpArray needs two operands per kind")
        self._kinds = kinds
        self._flat = flat

    @staticmethod
    def empty() -> "OpArray":
        return OpArray(bytearray(), array(_CODE))

    def append(self, item: Sequence) -> None:
        """Add ``(kind, a, b)``: kind "mov" or "swap", a and b register
        numbers (anything else is refused, the arrays left unchanged)."""
        kind, a, b = item
        code = self.KINDS.index(kind)
        if type(a) is not int or type(b) is not int:
            raise TypeError(f"OpArray holds register numbers, not {item!r}")
        self._flat.append(a)
        try:
            self._flat.append(b)
        except OverflowError:
            self._flat.pop()
            raise
        self._kinds.append(code)

    def __len__(self) -> int:
        return len(self._kinds)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return list(self)[i]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("OpArray index out of range")
        return self.KINDS[self._kinds[i]], self._flat[2 * i], self._flat[2 * i + 1]

    def __iter__(self) -> Iterator[tuple]:
        names = self.KINDS
        flat = self._flat
        return zip(map(names.__getitem__, self._kinds), flat[0::2], flat[1::2])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (OpArray, list)):
            return len(self) == len(other) and all(list(a) == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a list's stand-in

    def __repr__(self) -> str:
        return repr(list(self))


class LazyOps(Sequence):
    """The operations of ``raw`` (each ``read(item)``), built on each pass
    and dropped after it: a million operation objects are not kept.  Only
    for a ``raw`` every item of which ``read`` has already accepted."""

    __slots__ = ("_raw", "_read")

    def __init__(self, raw: Sequence, read: Callable[[object], object]) -> None:
        self._raw = raw
        self._read = read

    def __len__(self) -> int:
        return len(self._raw)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self._read(v) for v in self._raw[i]]
        return self._read(self._raw[i])

    def __iter__(self) -> Iterator:
        return map(self._read, self._raw)


class OpLog(LazyOps):
    """The operations an algorithm emits on a huge request, appended as
    operation objects and kept only as their JSON form (``op.to_json()``,
    ``["mov"|"swap", a, b]`` with register numbers) in an ``OpArray``:
    17 bytes an operation instead of an object of about 200.  Read back,
    ``["mov", a, b]`` is ``build["mov"](a, b)``, an equal operation built
    on each pass; ``json()`` gives the JSON forms without building any."""

    __slots__ = ()

    def __init__(self, build: Mapping[str, Callable[[int, int], object]]) -> None:
        def read(item: tuple) -> object:
            return build[item[0]](item[1], item[2])

        super().__init__(OpArray.empty(), read)  # type: ignore[arg-type]  # OpArray items

    def append(self, op: object) -> None:
        self._raw.append(op.to_json())  # type: ignore[attr-defined]

    def json(self) -> Iterator[tuple]:
        """Each operation's ``to_json()`` form, in order (as a tuple: the
        same JSON)."""
        return iter(self._raw)


class DenseSet(MutableSet):
    """A set of registers 0..size-1, one byte each (a set of a million
    register numbers takes about 60 MB, this 1 MB).  Iterates in register
    order, not insertion order."""

    __slots__ = ("_marks", "_count")

    def __init__(self, size: int, items: Iterable[int] = ()) -> None:
        self._marks = bytearray(size)
        self._count = 0
        for item in items:
            self.add(item)

    def __contains__(self, key: object) -> bool:
        marks = self._marks
        return type(key) is int and 0 <= key < len(marks) and marks[key] == 1

    def add(self, key: int) -> None:
        if not (type(key) is int and 0 <= key < len(self._marks)):
            raise ValueError(f"DenseSet holds registers 0..{len(self._marks) - 1}, not {key!r}")
        if not self._marks[key]:
            self._marks[key] = 1
            self._count += 1

    def discard(self, key: object) -> None:
        marks = self._marks
        if type(key) is int and 0 <= key < len(marks) and marks[key] == 1:
            marks[key] = 0
            self._count -= 1

    def __iter__(self) -> Iterator[int]:
        find = self._marks.find
        key = find(1)
        while key >= 0:
            yield key
            key = find(1, key + 1)

    def __len__(self) -> int:
        return self._count


class DenseMap(Mapping):
    """A mapping from registers 0..size-1 to registers, in an array (a
    dict of a million entries takes about 100 MB, this 8 MB).  Keys are
    kept in insertion order, as a dict's."""

    __slots__ = ("_slots", "_order")

    def __init__(self, size: int) -> None:
        self._slots = array(_CODE, [_ABSENT]) * size
        self._order = array(_CODE)

    def __setitem__(self, key: int, value: int) -> None:
        # built once by its owner (ParallelMove.make), then only read
        if self._slots[key] == _ABSENT:
            self._order.append(key)
        self._slots[key] = value

    def _slot(self, key: object) -> int:
        if type(key) is int and 0 <= key < len(self._slots):
            return self._slots[key]
        return _ABSENT

    def __getitem__(self, key: object) -> int:
        value = self._slot(key)
        if value == _ABSENT:
            raise KeyError(key)
        return value

    # get and __contains__ inline _slot: the oracle asks them per operand
    def get(self, key: object, default=None):
        slots = self._slots
        if type(key) is int and 0 <= key < len(slots):
            value = slots[key]
            if value != _ABSENT:
                return value
        return default

    def __contains__(self, key: object) -> bool:
        slots = self._slots
        return type(key) is int and 0 <= key < len(slots) and slots[key] != _ABSENT

    def __iter__(self) -> Iterator[int]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


class DenseState(MutableMapping):
    """A machine state (location -> symbolic value) for ``execute``:
    registers 0..size-1 holding register values in an array, every other
    location or value in a dict.  Reads like the dict it replaces: a
    location never written is absent.  The same storage serves any table
    from registers to whole numbers >= 0 (xchg's counts and locations)."""

    __slots__ = ("_slots", "_other")

    def __init__(self, size: int) -> None:
        self._slots = array(_CODE, [_ABSENT]) * size
        self._other: dict = {}

    def copy(self) -> "DenseState":
        new = DenseState(0)
        new._slots = array(_CODE, self._slots)
        new._other = dict(self._other)
        return new

    def _dense(self, key: object) -> bool:
        return type(key) is int and 0 <= key < len(self._slots)

    # get and __setitem__ inline _dense: execute calls them per operand
    def get(self, key: object, default=None):
        slots = self._slots
        if type(key) is int and 0 <= key < len(slots):
            value = slots[key]
            if value >= 0:
                return value
            if value == _ABSENT:
                return default
        return self._other.get(key, default)

    def __getitem__(self, key: object):
        slots = self._slots  # get inlined: xchg's tables ask it per step
        if type(key) is int and 0 <= key < len(slots):
            value = slots[key]
            if value >= 0:
                return value
            if value == _ABSENT:
                raise KeyError(key)
        return self._other[key]

    def __setitem__(self, key: object, value: object) -> None:
        slots = self._slots
        if type(key) is int and 0 <= key < len(slots):
            if type(value) is int and value >= 0:
                if slots[key] == _ELSEWHERE:
                    del self._other[key]
                slots[key] = value
                return
            slots[key] = _ELSEWHERE
        self._other[key] = value

    def __delitem__(self, key: object) -> None:
        if self._dense(key) and self._slots[key] >= 0:  # type: ignore[index]
            self._slots[key] = _ABSENT  # type: ignore[index]
            return
        del self._other[key]
        if self._dense(key):
            self._slots[key] = _ABSENT  # type: ignore[index]

    def __iter__(self) -> Iterator:
        slots = self._slots
        for key in range(len(slots)):
            if slots[key] >= 0:
                yield key
        yield from self._other

    def __len__(self) -> int:
        return sum(1 for v in self._slots if v >= 0) + len(self._other)
