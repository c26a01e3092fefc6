"""The resolver's step invariant read two ways (issue 20): ``_Run.keeps``
with ``changed`` (what ``feasible`` passes: only the units a step wrote,
through ``cur``'s index, ``_HeldAfter``) must answer exactly as the same
checks over every unit and place (``changed=None``, ``_HeldAs``).  Each
trial step of the resolver on conform's own random requests is judged both
ways; the two must agree on every one, and the steps must include both
answers and the clauses that only the incremental reading has
(``_HeldAfter.unchanged_goals_held``, a step that takes away the last copy
of a value an untouched unit waits for)."""

from __future__ import annotations

import argparse
import collections

import pytest

from verified.algorithms import resolve as R
from verified.core import machine as M
from verified.core.semantics import PreconditionError
from verified.tools.conform import cli

#: (machine, random cases): conform's own suites, as ``make bench`` sends them
SUITES = [("x86-64", 120), ("armv7-vfp", 60), ("v8-arm", 40), ("aarch64", 40)]


def _cases(machine: str, k: int):
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    _, suite = cli.build_suite(p.parse_args(["--cmd", "x", "--machine", machine,
                                             "--random", str(k)]))
    t = suite.case_type
    return [(t.move(c), t.preserve) for c in suite.cases()]


def _judge_both_ways(monkeypatch) -> collections.Counter:
    """Run the resolver on every suite with each incremental ``keeps``
    compared against the full one; the tally of what was seen."""
    seen: collections.Counter = collections.Counter()
    keeps = R._Run.keeps
    goals_held = R._HeldAfter.unchanged_goals_held

    def both(self, after, allow=(), changed=None):
        got = keeps(self, after, allow, changed)
        if changed is not None:
            # the whole state (``feasible`` passes only the step's writes over ``cur``)
            whole = after.full() if isinstance(after, R._Over) else dict(after)
            full = keeps(self, whole, allow, None)
            assert got == full, (sorted(map(str, changed)), dict(after))
            seen[("incremental", got)] += 1
        return got

    def goals(self, goal):
        ok = goals_held(self, goal)
        seen[("unchanged goals held", ok)] += 1
        return ok

    monkeypatch.setattr(R._Run, "keeps", both)
    monkeypatch.setattr(R._HeldAfter, "unchanged_goals_held", goals)
    for machine, k in SUITES:
        for mm, preserve in _cases(machine, k):
            try:
                R.resolve(mm, preserve)
            except PreconditionError:
                seen["declined"] += 1
    return seen


def test_incremental_invariant_agrees_with_the_full_one(monkeypatch):
    seen = _judge_both_ways(monkeypatch)
    assert seen[("incremental", True)] > 1000 and seen[("incremental", False)] > 1000, seen
    # the clause only the incremental reading has decided some steps
    assert seen[("unchanged goals held", False)] > 0, seen


def test_a_value_missing_before_the_step_is_still_missing_after_it():
    """A state the resolver never reaches (its steps keep (2)): rax waits
    for rbx's value and no unit holds it.  A step elsewhere (rdx <- rsi)
    still breaks (2), read either way: the incremental reading looks at the
    values ``cur`` lacks (``_CurIndex.missing``), not only at those the
    step took away."""
    frame = R.frame_of(M.preset("x86-64"))
    by_name = {p.name: p for p in frame.places if p.typ is None}
    run = R._Run(frame, [], {"rax": "rbx"}, None)
    run.cur["rbx"] = "rcx"
    step = [("mov", by_name["rdx"], by_name["rsi"])]
    assert run.feasible(step) is False
    assert run.keeps(run.cur | {"rdx": "rsi"}) is False
    # and with rbx's value held (in r8), the same step keeps the invariant
    run.cur["r8"] = "rbx"
    assert run.feasible(step) is True
