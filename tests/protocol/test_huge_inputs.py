"""Huge but sparse inputs cost what their moves cost, not what their
declared register file would (issue 14 item 9).  Only structure and answers
are asserted here; the timings are in ``bench/bench_huge.py``."""

from __future__ import annotations

import json
import random

from verified.algorithms import copyset, greedy, solve
from verified.algorithms.optimum import optimum
from verified.core.oracle import implements
from verified.core.semantics import MAX_REGISTERS, ParallelMove

from tests.support import verified


def test_the_permi_rtg_is_linear_in_the_moves():
    """Under "all", a loop on a register the moves do not name is an
    isolated size-1 cycle (no cost, no operation): it is left out, so the
    RTG of a 2-move request over 2^20 registers has the edges of its moves
    and of the named non-destination sources only."""
    sparse = ParallelMove.make([(1, 0), (2, 0), (0, 1), (7, 5)], registers=MAX_REGISTERS)
    named = ParallelMove.make([(1, 0), (2, 0), (0, 1), (7, 5)])
    g = greedy.rtg(sparse, "all")
    assert g.edges == ((0, 1), (0, 2), (1, 0), (5, 7), (5, 5))
    assert g == greedy.rtg(named, "all")  # the file's size changes nothing
    for preserve in ("all", "loops"):
        assert copyset.optimal_length(sparse, preserve) == copyset.optimal_length(named, preserve)
        ops = solve("permi-optimal", sparse, "permi", preserve)
        assert implements(sparse, ops, "permi", preserve).ok
        assert len(ops) == optimum(sparse, "permi", preserve).length


def test_check_on_a_sparse_permi_request_over_2_to_the_20():
    line = {"moves": [[1, 0], [0, 1]], "model": "permi", "registers": MAX_REGISTERS,
            "sequence": [["perm", [[1, 0], [0, 1]]]]}
    p = verified("check", input=(json.dumps(line) + "\n").encode())
    assert p.returncode == 0 and json.loads(p.stdout) == {"ok": True, "length": 1, "optimal": 1}


def test_permi_optimal_on_a_large_random_fan_out_move():
    """3,000 registers, every register a destination of a random one: the
    DP's tables stay short (dominated entries dropped), and the answer is
    still checked by the registry's postcondition and here."""
    rng = random.Random(3000)
    n = 3000
    pm = ParallelMove.make([(d, rng.randrange(n)) for d in range(n)], registers=n)
    for preserve in ("loops", "all"):
        ops = solve("permi-optimal", pm, "permi", preserve)
        assert implements(pm, ops, "permi", preserve).ok
        assert len(ops) == copyset.optimal_length(pm, preserve)
