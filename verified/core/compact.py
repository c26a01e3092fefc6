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
* ``DenseMap``: a mapping register -> register (a move's ``source_of``);
* ``DenseState``: a machine state (``semantics.State``) whose registers
  0..n-1 live in an array, anything else in a dict.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, MutableMapping, Sequence
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
    location never written is absent."""

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
        value = self.get(key, self)
        if value is self:
            raise KeyError(key)
        return value

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
