"""The self-test: `verified conform --cmd "verified solve --algorithm X"`
passes for every reference algorithm in the registry, in its own model and
contract, and fails (exit 1, shrunk counterexample) for xchg-as-published.

Each algorithm is taken from ``solve.ALGORITHMS`` at collection time, so a
new algorithm is covered as soon as it is registered; one whose module does
not exist yet is skipped with a message."""

from __future__ import annotations

import importlib
import json
import shlex
import sys

import pytest

from verified import cases
from verified.core.oracle import implements
from verified.core.semantics import ParallelMove, sequence
from verified.algorithms import ALGORITHMS

from tests.support import conform_json

WRONG_ON_PURPOSE = {"xchg-as-published"}

#: Algorithms with a narrower precondition than "any parallel move": the
#: conform option that restricts the cases to their domain.
DOMAIN = {"greedy": ["--no-fan-out"]}


def _solve_cmd(name: str) -> str:
    return shlex.join([sys.executable, "-m", "verified.cli", "solve", "--algorithm", name])


def _args(name: str, n: int) -> list[str]:
    a = ALGORITHMS[name]
    try:
        importlib.import_module(a.module)
    except ImportError:
        pytest.skip(f"{name}: module {a.module} does not exist yet")
    return ["--cmd", _solve_cmd(name), "--model", a.model, "--preserve", a.preserve,
            "--registers", str(n), "--optimal", *DOMAIN.get(name, [])]


#: machine algorithms are driven through machine requests (tests/machines)
MACHINE_ONES = {n for n, a in ALGORITHMS.items() if a.model == "machine"}
CORRECT = [n for n in ALGORITHMS if n not in WRONG_ON_PURPOSE | MACHINE_ONES]


@pytest.mark.parametrize("name", CORRECT)
def test_reference_algorithm_conforms(name):
    code, r, _ = conform_json(*_args(name, 4))
    assert code == 0, r
    assert r["failures"] == 0 and r["run"] == r["planned"] > 0
    if not DOMAIN.get(name):
        assert r["run"] == cases.exhaustive_count(4)
    if ALGORITHMS[name].model == "temp":
        assert r["temps"] == ["t"]  # the default temporary was sent


@pytest.mark.slow
@pytest.mark.parametrize("name", CORRECT)
def test_reference_algorithm_conforms_n5(name):
    # n = 5 through the protocol (the same algorithms run in-process on
    # every map up to n = 7 in tests/test_algorithms.py); n = 6 here cost
    # two minutes of `make verify`'s 20
    code, r, _ = conform_json(*_args(name, 5), timeout=1200)
    assert code == 0, r
    assert r["failures"] == 0 and r["run"] == r["planned"] > 0


def test_xchg_as_published_fails_with_a_shrunk_counterexample():
    code, r, _ = conform_json(*_args("xchg-as-published", 4))
    assert code == 1
    assert r["failures"] > 0
    small = r["smallest_failure"]
    assert small["fails_alone"]
    req = small["request"]
    # the smallest is tiny: the module docstring's r2 <- r0, r1 <- r2 shape
    assert req["registers"] <= 3 and len(req["moves"]) <= 2
    pm = ParallelMove.make(req["moves"], req["registers"], req["temps"])
    assert not implements(pm, sequence(json.loads(small["answer"])["sequence"]), "swap").ok


def test_every_registered_algorithm_is_covered():
    assert set(CORRECT) | WRONG_ON_PURPOSE | MACHINE_ONES == set(ALGORITHMS)
    assert {"greedy", "permi-optimal"} <= set(ALGORITHMS)
