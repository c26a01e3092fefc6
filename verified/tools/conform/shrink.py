"""Shrinking a wrong answer: re-run the program, each time in a fresh
process, on ever smaller cases it still answers wrongly
(``CaseType.shrink_candidates``: for parallel moves, fewer moves with the
same register numbers and the same declared register count, so an adapter
that maps registers to something else sees the registers it failed on)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .checker import WRONG, CaseType, Example
from .session import Suite, run_session


@dataclass
class Shrunk:
    case: Any
    example: Example
    steps: int
    #: does the case fail on its own, sent first to a fresh process?  (A
    #: program whose answers depend on earlier requests may not.)
    reproduced: bool


def _run(argv: list[str], ct: CaseType, cases: list, timeout: float):
    return run_session(argv, Suite(ct, lambda: cases, len(cases), "shrinking"), False, timeout)


def shrink(argv: list[str], ct: CaseType, case: Any, found: Example, timeout: float,
           max_rounds: int = 200) -> Shrunk:
    alone = _run(argv, ct, [case], timeout).tally.smallest.get(WRONG)
    if alone is None:
        return Shrunk(case, found, 0, False)
    best, steps = (case, alone), 0
    for _ in range(max_rounds):
        cands = ct.shrink_candidates(best[0])
        if not cands:
            break
        smallest = _run(argv, ct, cands, timeout).tally.smallest.get(WRONG)
        if smallest is None:
            break
        best = (cands[smallest.index], smallest)
        steps += 1
    return Shrunk(best[0], best[1], steps, True)
