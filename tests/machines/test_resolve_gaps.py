"""What issue 22's mutation run of the resolver and the machine optimum
(``make mutation MODULES='verified/algorithms/resolve.py
verified/algorithms/machine_optimum.py'``, docs/mutation.md) found
unpinned: each test kills one surviving mutant, named in its docstring.
Golden answers and exact texts on small machines, no timing."""

from __future__ import annotations

from verified.algorithms import machine_optimum as O
from verified.core import machine as M

from .resolve_cases import requests, small

NO_FREE_UNIT = (
    "every unit of small-noswap-immreg must keep or pass on its value (preserve all, no "
    "temporary, every destination's old value read elsewhere) and small-noswap-immreg has "
    "no swap and no push, so the first operation that changes anything overwrites the only "
    "copy of a value the move needs (the no-free-unit lemma, "
    "verified/algorithms/machine_optimum.py)")


def test_the_no_free_unit_lemma_proves_exactly_the_unsolvable_permutations():
    """On the small machine without swap or temporary, the lemma proves the
    49 requests whose goal is a permutation that moves something (the 23
    permutations of 4 locations, a fixed point written as a self-move or as
    no move), each one the search proves has no sequence, and no other: a
    request already done (the identity, 16 ways to write it, ``[]`` among
    them) has the empty sequence.  Mutant machine_optimum.py:502 ``goal[u]
    > u``: the done test never holds, so the lemma "proved" those 16."""
    m = small(swap="noswap", m2m=False, imm_mem=False, temp="none")
    proved = [mm for mm in requests(m) if O.no_free_unit(mm, "all") is not None]
    assert len(proved) == 49
    for mm in proved:
        assert O.no_free_unit(mm, "all") == NO_FREE_UNIT
        assert O.search(mm) == (None, O.NO_SEQUENCE), mm.to_json()
    done = M.MachineMove.make(m, [["a", "a"], ["m1", "m1"]])
    assert (O.no_free_unit(done, "all"), O.search(done)) == (None, (0, None))
    assert O.no_free_unit(M.MachineMove.make(m, []), "all") is None
