"""The one registry of algorithms (verified/algorithms/registry.py): every
algorithm's contract as registered, exactly, and the wrapper that checks
each call's postcondition, shown to reject wrong, too long and wrongly
shaped outputs.  (A default flipped in ``@algorithm``, e.g. ``correct``
or ``optimal``, survived ``make mutation`` before these tests.)"""

from __future__ import annotations

import inspect

import pytest

from verified.algorithms import ALGORITHMS, solve
from verified.algorithms.optimum import moves_plus_cycles
from verified.algorithms.registry import _asked_contract, algorithm, raw_definitions
from verified.core.oracle import PostconditionError
from verified.core.semantics import Mov, ParallelMove, PreconditionError, Swap

#: name -> (model, contract, optimal, correct, bound in words, module, proof)
REGISTERED = {
    "shuf": ("swap", "all", True, True, "non-loop moves - cycles",
             "verified.algorithms.shuf", "proofs/shuf.py"),
    "leroy": ("temp", "all", False, True, "non-loop moves + cycles",
              "verified.algorithms.leroy", "proofs/leroy.py"),
    "leroy-iterative": ("temp", "all", False, True, "non-loop moves + cycles",
                        "verified.algorithms.leroy", "proofs/leroy.py"),
    "windmill": ("temp", "all", False, True, "non-loop moves + cycles",
                 "verified.algorithms.windmill", "proofs/parmove.py"),
    "mincopy": ("temp", "all", True, True, "non-loop moves + bare cycles",
                "verified.algorithms.windmill", "proofs/parmove.py"),
    "xchg-as-published": ("swap", "all", False, False, "none",
                          "verified.algorithms.xchg", "proofs/xchg.py"),
    "xchg": ("swap", "all", True, True, "non-loop moves - cycles",
             "verified.algorithms.xchg", "proofs/xchg.py"),
    "greedy": ("permi", "loops", True, True,
               "X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3)) (Lemma 3)",
               "verified.algorithms.greedy", "proofs/permi_claims.py"),
    "permi-optimal": ("permi", "loops", True, True, "the copy-set DP's optimum (Theorem 3)",
                      "verified.algorithms.copyset", "proofs/permi_claims.py"),
    "resolve": ("machine", "all", False, True,
                "cost <= 6 * cmax * changed destination units",
                "verified.algorithms.resolve", "proofs/resolve.py"),
}


def test_every_algorithm_is_registered_with_its_contract():
    assert {name: (a.model, a.preserve, a.optimal, a.correct, a.bound_text, a.module, a.proof)
            for name, a in ALGORITHMS.items()} == REGISTERED
    assert list(ALGORITHMS) == list(REGISTERED)  # registration order is the docs' order
    assert all(a.name == name and a.function.algorithm == name for name, a in ALGORITHMS.items())


@pytest.fixture
def register():
    """Register throw-away algorithms for one test, then forget them."""
    added: list[str] = []

    def add(name: str, fn, **contract):
        algorithm(name, summary="test", source="test", **contract)(fn)
        added.append(name)
        return ALGORITHMS[name]

    yield add
    for name in added:
        ALGORITHMS.pop(name, None)


SWAP = ParallelMove.make([(1, 0), (0, 1)], temps=["t"])


def test_the_wrapper_rejects_a_wrong_sequence(register):
    a = register("test-wrong", lambda pm: [Mov(1, 0)], model="temp")
    with pytest.raises(PostconditionError) as e:
        a(SWAP)
    assert str(e.value) == ("test-wrong on (r1 <- r0, r0 <- r1): destination r0 must hold "
                            "the original value of r1 but holds that of r0")
    assert a.raw(SWAP) == [Mov(1, 0)]  # the raw function is not checked


def test_the_wrapper_enforces_the_exact_bound(register):
    three_swaps = lambda pm: [Swap(0, 1)] * 3  # noqa: E731 - correct, but 3 > 1
    a = register("test-long", three_swaps, model="swap",
                 bound=lambda pm, _p: 1, bound_text="one")
    with pytest.raises(PostconditionError) as e:
        a(SWAP)
    assert str(e.value) == "test-long on (r1 <- r0, r0 <- r1): 3 operations, its bound says 1"


def test_the_wrapper_checks_the_shape(register):
    via_t = lambda pm: [Mov("t", 0), Mov(0, 1), Mov(1, "t")]  # noqa: E731
    a = register("test-shape", via_t, model="temp", bound=moves_plus_cycles,
                 shape=lambda pm, ops: "no temporaries, please")
    with pytest.raises(PostconditionError) as e:
        a(SWAP)
    assert str(e.value) == "test-shape on (r1 <- r0, r0 <- r1): no temporaries, please"


def test_an_algorithm_kept_wrong_is_not_checked(register):
    a = register("test-kept-wrong", lambda pm: [Mov(1, 0)], model="temp", correct=False)
    assert a(SWAP) == [Mov(1, 0)]


def test_a_loops_algorithm_is_checked_against_the_contract_it_was_asked_for(register):
    # r2 is clobbered: wrong under "all", fine under "loops"
    pm = ParallelMove.make([(1, 0)], registers=3)
    clobber = lambda pm, preserve="all": [Mov(2, 0), Mov(1, 2)]  # noqa: E731
    a = register("test-loops", clobber, model="temp", preserve="loops")
    assert a(pm, preserve="loops") == [Mov(2, 0), Mov(1, 2)]
    with pytest.raises(PostconditionError, match="r2 is not a destination"):
        a(pm, preserve="all")
    with pytest.raises(PostconditionError, match="r2 is not a destination"):
        a(pm)  # the default contract is the function's own default


def _bound_contract(fn, args: tuple, kwargs: dict, fallback):
    """What the wrapper read before it read the keywords: the signature bound."""
    bound_args = inspect.signature(fn).bind(SWAP, *args, **kwargs)
    bound_args.apply_defaults()
    if fallback is None:
        return bound_args.arguments["preserve"]
    return bound_args.arguments.get("preserve", fallback)


def _outcome(f, *args) -> tuple:
    try:
        return ("contract", f(*args))
    except (TypeError, KeyError) as e:
        return ("raises", type(e))


def test_the_contract_asked_for_is_what_binding_the_call_says():
    """``_asked_contract`` reads ``preserve`` from the keywords when it can:
    the same answer as binding the call, for every signature and call shape
    here (positional, by keyword, defaulted, beside other keywords, a
    ``preserve`` without default or positional only, none at all), the
    error included where binding refuses a call the function accepts."""
    def plain(pm, preserve="all"): ...
    def keyword_only(pm, *, trace=None, preserve="loops"): ...
    def with_extra(pm, temp="t", preserve="all", **more): ...
    def positional_only(pm, preserve="all", /, **more): ...
    def no_default(pm, preserve): ...
    def without(pm, trace=None): ...
    calls = [((), {}), ((), {"preserve": "loops"}), ((), {"preserve": "all", "trace": []}),
             (("loops",), {}), (("t", "loops"), {}), ((), {"trace": []}), ((), {"x": 1})]
    compared = 0
    for fn in (plain, keyword_only, with_extra, positional_only, no_default, without):
        asked = _asked_contract(inspect.signature(fn))
        for args, kwargs in calls:
            try:
                fn(SWAP, *args, **kwargs)
            except TypeError:
                continue  # a call the function itself refuses: the wrapper never asks
            for fallback in (None, "all"):
                assert (_outcome(asked, SWAP, args, kwargs, fallback)
                        == _outcome(_bound_contract, fn, args, kwargs, fallback)), (
                    fn, args, kwargs, fallback)
                compared += 1
    assert compared == 50


def test_registration_refuses_nonsense(register):
    register("test-once", lambda pm: [], model="swap")
    with pytest.raises(ValueError, match="algorithm 'test-once' is registered twice"):
        algorithm("test-once", model="swap", summary="", source="")(lambda pm: [])
    with pytest.raises(ValueError, match="unknown model 'stack'"):
        algorithm("test-stack", model="stack", summary="", source="")
    with raw_definitions():
        fn = lambda pm: []  # noqa: E731
        assert algorithm("test-raw", model="swap", summary="", source="")(fn) is fn
    assert "test-raw" not in ALGORITHMS


def test_solve_refusals_are_exact():
    with pytest.raises(PreconditionError) as e:
        solve("quicksort", SWAP)
    assert str(e.value) == ("unknown algorithm 'quicksort'; choose one of "
                            + ", ".join(REGISTERED))
    with pytest.raises(PreconditionError) as e:
        solve("shuf", SWAP, model="temp")
    assert str(e.value) == ("algorithm shuf emits swap-model operations, which the temp "
                            "model does not have")
    assert solve("leroy", SWAP, model="swap") == [Mov("t", 0), Mov(0, 1), Mov(1, "t")]
