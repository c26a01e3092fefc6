"""The one list of reference algorithms, and where each one's contract is
written: the ``@algorithm(...)`` line on top of its function.

The decorator records the algorithm under its protocol name (the name
``verified solve --algorithm NAME`` takes) with its model, the contract it is
written for, its exact length bound, whether that bound is the optimum, its
source and the file of its proof, and wraps the function so that every call
checks the postcondition once (``core.oracle.ensure``: the sequence
implements the move, and has exactly the bound's length).  Nothing else in
the project lists the algorithms: ``solve``, ``exhaustive``, ``vectors``, the
benchmarks, the proofs, the CrossHair targets and the tests all read
``ALGORITHMS``.  ``docs/algorithms.md`` and the README are checked against
it by ``tests/test_docs.py``.

An algorithm function takes ``(pm, ...)`` and returns its operations.  Extra
keyword arguments pass through (``trace=`` hooks, ``temp=``, ``preserve=``
for the algorithms written for the "loops" contract and for those that take
a ``preserve`` parameter to use what "loops" frees).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..core import machine as _machine
from ..core.oracle import CONTRACTS_ON, PostconditionError, ensure
from ..core.semantics import MODELS, Operation, ParallelMove, PreconditionError

#: the model of an algorithm that works on a machine (``core.machine``):
#: it takes a ``MachineMove`` instead of a ``ParallelMove``, its bound is a
#: cost bound (``cost <= bound``), its postcondition ``ensure_machine``
MACHINE = "machine"

#: the length bound: (pm, preserve) -> exact number of operations
Bound = Callable[[ParallelMove, str], int]
#: an extra shape check on the output: (pm, ops) -> None or why it is wrong
Shape = Callable[[ParallelMove, list], "str | None"]


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm (its contract, in one place)."""

    name: str
    #: the checked entry point (postcondition on every call)
    function: Callable[..., list[Operation]]
    #: the same function without the postcondition (mutants, CrossHair)
    raw: Callable[..., list[Operation]]
    #: the model whose operations it emits
    model: str
    #: the contract it is written for.  An "all" algorithm's output also
    #: meets "loops"; a "loops" algorithm is told the request's contract
    #: (called as f(pm, preserve=...)).
    preserve: str
    #: exact length of every output, or None (no claim)
    bound: Bound | None
    #: the bound in words, as the docs print it
    bound_text: str
    #: the bound is the optimum of the model (proved in ``proof``)
    optimal: bool
    #: a sequence for every move in its domain (False: kept on purpose wrong)
    correct: bool
    summary: str
    #: where the algorithm comes from (paper, write-up)
    source: str
    #: the file of its proof, relative to the repository root
    proof: str | None
    #: the module that defines it
    module: str
    shape: Shape | None = None
    #: the function takes ``preserve=`` and is told the request's contract
    #: (every "loops" algorithm; an "all" one such as mincopy that also uses
    #: the dead locations "loops" frees)
    told_contract: bool = False
    #: what ``function`` checks after each call of ``raw``:
    #: ``postcondition(pm, ops, contract)`` raises when ``ops`` break the
    #: contract (None for an algorithm kept wrong on purpose).  The one
    #: body of the check: a caller that already knows the contract (the
    #: exhaustive runner, told "all") calls ``raw`` and this, without the
    #: wrapper's argument plumbing
    postcondition: "Callable[[Any, Any, Any], None] | None" = None

    def __call__(self, pm: ParallelMove, **kwargs) -> list[Operation]:
        return self.function(pm, **kwargs)


#: Every reference algorithm, by protocol name, in registration order.
ALGORITHMS: dict[str, Algorithm] = {}

_RAW = [0]  # > 0 while a mutant module is being defined (see ``raw_definitions``)


@contextlib.contextmanager
def raw_definitions() -> Iterator[None]:
    """While active, ``@algorithm`` returns the function unchanged: no
    postcondition, no registration.  The mutant loader (``mutants/``) uses it
    so that a mutated copy of a module neither replaces the real algorithm
    nor is caught by its own postcondition (the checkers under test must
    catch it)."""
    _RAW[0] += 1
    try:
        yield
    finally:
        _RAW[0] -= 1


def algorithm(
    name: str, *, model: str, summary: str, source: str,
    bound: Bound | None = None, bound_text: str = "none", optimal: bool = False,
    preserve: str = "all", correct: bool = True, proof: str | None = None,
    shape: Shape | None = None,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as algorithm ``name``; see the
    module docstring."""
    if model not in MODELS and model != MACHINE:
        raise ValueError(f"unknown model {model!r}")

    def register(fn: Callable[..., list[Operation]]) -> Callable[..., list[Operation]]:
        if _RAW[0]:
            return fn
        if name in ALGORITHMS:
            raise ValueError(f"algorithm {name!r} is registered twice")

        signature = inspect.signature(fn)
        told = preserve == "loops" or "preserve" in signature.parameters
        asked = _asked_contract(signature)

        def postcondition(pm: Any, ops: Any, contract: Any) -> None:
            if model == MACHINE:
                ensure_machine(pm, ops, contract,
                               None if bound is None else bound(pm, contract), name)
                return
            length = None if bound is None else bound(pm, contract)
            ensure(pm, ops, model, contract, length=length, algorithm=name)
            if shape is not None and (why := shape(pm, ops)) is not None:
                raise PostconditionError(f"{name} on {pm}: {why}")

        # (Any, not ParallelMove: a machine algorithm takes a MachineMove,
        # and the compiled build checks the types it is told)
        @functools.wraps(fn)
        def checked(pm: Any, *args: Any, **kwargs: Any) -> Any:
            ops = fn(pm, *args, **kwargs)
            if correct:
                contract = "all"
                if model == MACHINE:
                    contract = asked(pm, args, kwargs, "all")
                elif told:  # the contract it was asked for
                    contract = asked(pm, args, kwargs, None)
                postcondition(pm, ops, contract)
            return ops

        checked.algorithm = name  # type: ignore[attr-defined]
        ALGORITHMS[name] = Algorithm(
            name, checked, fn, model, preserve, bound, bound_text, optimal,
            correct, summary, source, proof, fn.__module__, shape, told,
            postcondition if correct else None)
        return checked

    return register


def _asked_contract(signature: inspect.Signature) -> Callable[..., str]:
    """``asked(pm, args, kwargs, fallback)``: the contract a call that has
    just run asked for, as ``signature.bind(pm, *args, **kwargs)`` with its
    defaults applied says (``fallback`` when the function has no
    ``preserve``; None: it must have one).  When ``preserve`` is a
    parameter a keyword can give and nothing but the move came
    positionally (every call in the project), it is read from the
    keywords: binding cost about a tenth of check_all('mincopy', 6).  Any
    other call is bound, and a call binding refuses although the function
    took it (a positional-only ``preserve`` given by keyword into
    ``**kwargs``) fails as it did."""
    param = signature.parameters.get("preserve")
    # (without a default, a call that does not give it failed before this)
    direct = param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD,
                                                  param.KEYWORD_ONLY)
    default = None if param is None else param.default

    # (Any: it returns what the call gave, a str or not, as it was given)
    def asked(pm: object, args: tuple, kwargs: dict, fallback: str | None) -> Any:
        if direct and not args:
            return kwargs.get("preserve", default)
        bound_args = signature.bind(pm, *args, **kwargs)
        bound_args.apply_defaults()
        if fallback is None:
            return bound_args.arguments["preserve"]
        return bound_args.arguments.get("preserve", fallback)

    return asked


def ensure_machine(mm: "_machine.MachineMove", ops: list, preserve: str,
                   cost_bound: int | None, algorithm: str) -> None:
    """The postcondition of a machine algorithm: the machine oracle
    (``core.machine.implements``) accepts ``ops``, and their total cost is
    at most ``cost_bound``."""
    if not CONTRACTS_ON:
        return
    verdict = _machine.implements(mm, ops, preserve)
    if not verdict.ok:
        raise PostconditionError(f"{algorithm} on {mm}: {verdict.reason}")
    cost: Any = verdict.cost  # an int when ok (compared as given)
    if cost_bound is not None and cost > cost_bound:
        raise PostconditionError(
            f"{algorithm} on {mm}: cost {verdict.cost}, its bound says at most {cost_bound}")


def solve_machine(name: str, mm: "_machine.MachineMove", preserve: str = "all") -> list:
    """Run machine algorithm ``name`` on ``mm``; refuse a round-1 algorithm
    by name (it cannot read a machine)."""
    algo = ALGORITHMS.get(name)
    if algo is None:
        raise PreconditionError(
            f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    if algo.model != MACHINE:
        machine_ones = [a.name for a in ALGORITHMS.values() if a.model == MACHINE]
        raise PreconditionError(
            f"algorithm {name} works on abstract registers (the {algo.model} model), not "
            f"on a machine; for a request with \"machine\" use {', '.join(machine_ones)}")
    return algo.function(mm, preserve=preserve)


def solve(
    name: str, pm: ParallelMove, model: str | None = None, preserve: str = "all"
) -> list[Operation]:
    """Run algorithm ``name`` on ``pm``; if ``model`` is given, refuse when
    the algorithm's operations are not all available in it."""
    algo = ALGORITHMS.get(name)
    if algo is None:
        raise PreconditionError(
            f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    if algo.model == MACHINE:
        raise PreconditionError(
            f'algorithm {name} works on a machine: the request needs "machine" (a preset '
            f"such as \"x86-64\", or a machine object; docs/machines.md)")
    if model is not None and not set(MODELS[algo.model]) <= set(MODELS[model]):
        raise PreconditionError(
            f"algorithm {name} emits {algo.model}-model operations, which the "
            f"{model} model does not have")
    if algo.told_contract:
        return algo.function(pm, preserve=preserve)
    return algo.function(pm)
