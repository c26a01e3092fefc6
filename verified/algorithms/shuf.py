"""The bitset shuffler of the "Register shuffling" write-up (March 2025):
moves and swaps, no temporary.

State: ``forward[r]`` is a bitset; bit ``d`` set means "the value now in
slot r must end up in slot d".  ``add(dst, src)`` sets bit dst of
forward[src] (and ignores dst == src).  Each ``next_action`` walks from the
first slot with pending work along ``next = lowest set bit``:

* if slot ``next`` holds nothing anybody still needs (forward[next] == 0),
  MOVE i -> next and clear that bit;
* if ``next`` was already visited in this walk, the walk closed a cycle:
  SWAP i, next; the value of i is now home in next, so clear bit next of
  forward[i]; the two masks trade places (the values did), and bit j of
  forward[j] is always cleared (a value at home never moves again).

Invariant (``check_invariant`` below; the same invariant is stated for
Z3 in ``proofs/shuf.py``): for every slot r, no bit r in forward[r]; and the
pending work is exactly the part of the parallel move not yet satisfied.
Loop variant (asserted in ``next_action``): the total number of set bits
in forward[] strictly drops with every action.

Masks are Python ints, so any slot count works (the write-up's C uses
uint16_t for 16 slots).  Contract: the ``@algorithm`` line of ``shuf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional

from ..core.semantics import (
    Mov, Operation, ParallelMove, PreconditionError, Swap, sorted_locations)
from .optimum import moves_minus_cycles
from .registry import algorithm

#: The most non-loop moves ``shuf`` accepts.  Every action rescans the masks
#: from slot 0 and walks a chain of big-integer masks, so a k-cycle costs
#: about k^3/64 steps: a cycle of 4,096 takes 6 to 19 s here (2 cores,
#: loaded), each doubling about 6 times that, 10^5 hours.  ``xchg`` is the linear-time algorithm of the same model.
MAX_MOVES = 4096


@dataclass(frozen=True)
class Action:
    """One action of the write-up's ``struct shuf_action``."""

    kind: str  # "move" or "swap"
    src: int  # the write-up's ``from``
    dst: int  # the write-up's ``to``

    # the dataclass's __init__ written out (see core.semantics.Mov: the
    # compiled build compiles a written one); frozen as before
    def __init__(self, kind: str, src: int, dst: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)


def _lowest_bit(mask: int) -> int:
    """Index of the lowest set bit (the write-up's ``__builtin_ctz``)."""
    return (mask & -mask).bit_length() - 1


class Shuf:
    """``struct shuf`` for ``count`` slots: ``add`` mirrors shuf_add,
    iterating mirrors repeated shuf_next calls."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.forward = [0] * count

    def add(self, dst: int, src: int) -> None:
        """shuf_add: the value now in ``src`` must end in ``dst``.

        pre: 0 <= dst < self.count and 0 <= src < self.count

        Also required: no earlier add named ``dst`` as a destination
        (checked by ParallelMove).
        """
        if not (0 <= dst < self.count and 0 <= src < self.count):
            raise ValueError(f"slot out of range 0..{self.count - 1}: {dst} <- {src}")
        if dst == src:
            return
        self.forward[src] |= 1 << dst

    def pending(self) -> int:
        """The loop variant: total set bits of forward[]."""
        return sum(m.bit_count() for m in self.forward)

    def next_action(self) -> Action | None:
        """shuf_next: the next action, or None when all work is done.

        post: __return__ is not None or self.pending() == 0

        The loop variant strictly drops with every action (asserted).
        """
        forward = self.forward
        visited = 0
        i = 0
        while i < self.count:
            if forward[i] == 0:
                i += 1
                continue
            nxt = _lowest_bit(forward[i])
            assert nxt != i, "invariant: no slot forwards to itself"
            # only forward[i] and forward[nxt] change: the loop variant is
            # checked on them (the other masks' bits are untouched)
            before = forward[i].bit_count() + forward[nxt].bit_count()
            if forward[nxt] == 0:
                forward[i] &= ~(1 << nxt)
                action = Action("move", i, nxt)
                break
            if visited & (1 << nxt):
                tmp = forward[nxt] & ~(1 << i)
                forward[nxt] = forward[i] & ~(1 << nxt)
                forward[i] = tmp
                action = Action("swap", i, nxt)
                break
            visited |= 1 << i
            i = nxt
        else:
            return None
        after = forward[i].bit_count() + forward[nxt].bit_count()
        assert after < before, "loop variant: set bits must drop"
        return action

    def __iter__(self) -> Iterator[Action]:
        while (action := self.next_action()) is not None:
            yield action


@dataclass(frozen=True)
class Step:
    """What ``shuf``'s ``trace=`` hook reports: the ``action`` taken (None
    for the state after the ``add`` calls, before the first action) and
    the masks ``forward`` after it, over ``slots`` (slot i is location
    slots[i])."""

    action: Optional[Action]
    forward: tuple[int, ...]
    slots: tuple


@algorithm(
    "shuf", model="swap", bound=moves_minus_cycles, bound_text="non-loop moves - cycles",
    optimal=True, proof="proofs/shuf.py",
    summary="bitset forward[] masks, move + swap (Register shuffling)",
    source="the write-up \"Register shuffling\" (2025): shuf_add / shuf_next")
def shuf(pm: ParallelMove, trace: Optional[list[Step]] = None) -> list[Operation]:
    """Sequentialise ``pm`` with moves and swaps (swap model, no temporary).

    Destinations are distinct (ParallelMove.make checks it).  Optimal in the
    swap model: non-loop moves - cycles operations.

    Slots are the locations the moves name (others are never touched), so a
    large declared register file costs nothing.  Each action rescans from
    slot 0 and walks the forward chain, as in the write-up (written for 16
    registers): about moves^3 / 64 steps on a long cycle.  Above
    ``MAX_MOVES`` non-loop moves it refuses (PreconditionError) and names
    ``xchg``, which is linear in the same model with the same optimal length.
    ``trace``: a list to which the state after the adds and after each
    action is appended (a ``Step``); None records nothing.
    """
    count = len(pm.non_loop_moves)
    if count > MAX_MOVES:
        raise PreconditionError(
            f"shuf takes at most {MAX_MOVES:,} non-loop moves (it rescans its "
            f"masks for every action, minutes beyond that); this move has "
            f"{count:,}: use xchg (`verified solve -a xchg`), the same swap model, "
            f"optimal, linear time")
    slots = sorted_locations([d for d, _ in pm.moves] + [s for _, s in pm.moves])
    index = {loc: i for i, loc in enumerate(slots)}
    s = Shuf(len(slots))
    for dst, src in pm.moves:
        s.add(index[dst], index[src])
    if trace is None:
        return [Mov(slots[a.dst], slots[a.src]) if a.kind == "move"
                else Swap(slots[a.src], slots[a.dst]) for a in s]
    trace.append(Step(None, tuple(s.forward), tuple(slots)))
    out: list[Operation] = []
    for a in s:
        out.append(Mov(slots[a.dst], slots[a.src]) if a.kind == "move"
                   else Swap(slots[a.src], slots[a.dst]))
        trace.append(Step(a, tuple(s.forward), tuple(slots)))
    return out


def check_invariant(forward: List[int], cur: List[int], want: List[int]) -> None:
    """The shuf invariant, in Python; its Z3 twins are ``invariant``
    (unbounded) and ``bv_invariant`` (n-bit masks) in ``proofs/shuf.py``,
    where it is proved inductive.  ``cur[l]`` is the original slot whose
    value slot l holds now, ``want[d]`` the one d must end with.  Checked
    after every action of random runs by the tests of ``proofs/shuf.py`` (the
    algorithm itself only asserts clause (a) and the loop variant).

    (a) no bit r in forward[r];
    (b) bit d of forward[r] => cur[r] == want[d] and cur[d] != want[d], and
        every unsatisfied d (cur[d] != want[d]) has exactly one such r;
    (e) two different slots with pending work hold different values.
    """
    n = len(forward)
    for r in range(n):
        assert not forward[r] >> r & 1, f"(a): slot {r} forwards to itself"
        for d in range(n):
            if forward[r] >> d & 1:
                assert cur[r] == want[d] and cur[d] != want[d], f"(b): bit {d} of slot {r}"
    for d in range(n):
        owners = [r for r in range(n) if forward[r] >> d & 1]
        if cur[d] != want[d]:
            assert len(owners) == 1, f"(b): unsatisfied slot {d} has sources {owners}"
    busy = [cur[r] for r in range(n) if forward[r]]
    assert len(busy) == len(set(busy)), "(e): two busy slots hold the same value"
