"""Shrinking a failing answer: re-run the program, each time in a fresh
process, on ever smaller cases it still fails on **in the same class**
(``Tally.classes``: a wrong answer's ``CaseType.failure_class``, or a
``{"failure": ...}`` answer's text), so that each distinct bug is shrunk
to its own smallest case and one bug's small case never stands in for
another's.  The candidates are ``CaseType.shrink_candidates``: for
parallel moves, fewer moves with the same register numbers and the same
declared register count, so an adapter that maps registers to something
else sees the registers it failed on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .checker import CaseType, Example
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
    """The smallest case found by greedy rounds: each round sends every
    candidate of the current case and keeps the smallest one that fails in
    ``found.cls``, the class of the answer being shrunk."""
    cls = found.cls
    alone = _run(argv, ct, [case], timeout).tally.smallest_of(cls)
    if alone is None:
        return Shrunk(case, found, 0, False)
    best, steps = (case, alone), 0
    for _ in range(max_rounds):
        cands = ct.shrink_candidates(best[0])
        if not cands:
            break
        smallest = _run(argv, ct, cands, timeout).tally.smallest_of(cls)
        if smallest is None:
            break
        best = (cands[smallest.index], smallest)
        steps += 1
    return Shrunk(best[0], best[1], steps, True)
