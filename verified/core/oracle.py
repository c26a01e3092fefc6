"""The oracle: does a sequence of operations implement a parallel move, and
how far is it from the optimum?

``implements`` is the postcondition of every algorithm in this package and
the verdict ``verified check`` returns to other implementations.  It runs
the sequence through the one interpreter (``semantics.execute``) from the
state where every location holds its own name, then compares.

Contracts (what must survive the move), chosen per request:

* ``"all"`` (default, CompCert's): every destination holds its source's
  original value; every other location of the register file that is not a
  declared temporary holds its own original value.
* ``"loops"`` (the permutation-instruction paper's RTGs): only destinations
  must hold their values; a location that must keep its own value says so
  with a self-move ``[u, u]``; every other location of the register file is
  dead after the move and may be used as scratch.

In both contracts only the final state counts: a location may be used and
restored in between (a swap followed by the same swap is harmless).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from .semantics import (
    CONTRACTS,
    MODELS,
    Location,
    Operation,
    ParallelMove,
    PreconditionError,
    check_model,
    execute,
    format_op,
    loc_name,
    operation,
    reads,
    sorted_locations,
    value_of,
)


@dataclass(frozen=True)
class Verdict:
    """The oracle's answer.  ``ok`` is True only when the sequence is legal
    in the model *and* leaves every checked location as the contract says."""

    ok: bool
    length: int
    #: why the sequence is wrong, in words (None when ok)
    reason: str | None = None
    #: the first wrong location after running a legal sequence
    location: Location | None = None
    expected: Location | None = None
    got: Location | None = None
    #: index of the first illegal operation, if that is the problem
    op_index: int | None = None

    def __bool__(self) -> bool:
        return self.ok

    def to_json(self) -> dict:
        out: dict = {"ok": self.ok, "length": self.length}
        if not self.ok:
            out["reason"] = self.reason
            if self.location is not None:
                out["counterexample"] = {
                    "location": self.location,
                    "expected": loc_name(self.expected),
                    "got": loc_name(self.got),
                }
            if self.op_index is not None:
                out["operation"] = self.op_index
        return out


def check_contract(preserve: str) -> str:
    if preserve not in CONTRACTS:
        raise PreconditionError(
            f'unknown "preserve" {preserve!r}; choose "all" (every location '
            f'not written keeps its value) or "loops" (only destinations and '
            f'self-moves matter)'
        )
    return preserve


def read_sequence(raw: object) -> "list[Operation] | Verdict":
    """The operations of a JSON ``"sequence"``, or the verdict saying why it
    is not a sequence.  One rule (``docs/protocol.md``): anything wrong
    *inside* the sequence (an unknown or malformed operation, a perm of more
    than 5 locations, and, in ``implements``, an operation the model lacks or
    a location the request does not declare) is a verdict on the sequence,
    ``ok: false`` with the reason and the operation's index; only a malformed
    request is bad input."""
    if not isinstance(raw, list):
        text = repr(raw)
        text = text if len(text) <= 80 else text[:80] + "..."
        return Verdict(False, 0, reason=f'"sequence" must be a list of operations, not {text}')
    ops = []
    for i, value in enumerate(raw):
        try:
            ops.append(operation(value))
        except PreconditionError as e:
            return Verdict(False, len(raw), reason=f"operation #{i}: {e}", op_index=i)
    return ops


def implements(
    pm: ParallelMove,
    ops: Sequence[Operation],
    model: str = "temp",
    preserve: str = "all",
) -> Verdict:
    """Decide whether ``ops`` implements ``pm`` in ``model`` under the
    contract ``preserve``.  Returns a Verdict naming the first problem:

    * an operation the model does not have (a swap in the ``temp`` model);
    * an operation naming a location outside the register file and the
      declared temporaries (e.g. a write to an undeclared temporary);
    * otherwise, after running the whole sequence, the first location
      (destinations first, in the move's order) whose value is wrong.
    """
    check_model(model)
    check_contract(preserve)
    allowed = MODELS[model]
    temps = set(pm.temps)
    for i, op in enumerate(ops):
        if not isinstance(op, allowed):
            names = ", ".join(t.__name__.lower() for t in allowed)
            return Verdict(
                False, len(ops), op_index=i,
                reason=f"operation #{i} ({format_op(op)}) is not available in "
                f"the {model} model (it has: {names})",
            )
        for loc in (*op.writes(), *reads(op)):
            if not pm.in_file(loc) and loc not in temps:
                verb = "writes" if loc in op.writes() else "reads"
                return Verdict(
                    False, len(ops), op_index=i,
                    reason=f"operation #{i} ({format_op(op)}) {verb} "
                    f"{loc_name(loc)}, which is neither in the register file "
                    f"nor a declared temporary",
                )
    return judge(pm, execute(ops), preserve, len(ops))


def judge(pm: ParallelMove, state: dict, preserve: str = "all", length: int = 0) -> Verdict:
    """Judge a final machine state (location -> symbolic value) against the
    contract: the first wrong location, destinations first in move order."""
    for dst, src in pm.moves:
        got = value_of(state, dst)
        if got != src:
            return Verdict(
                False, length, location=dst, expected=src, got=got,
                reason=f"destination {loc_name(dst)} must hold the original "
                f"value of {loc_name(src)} but holds that of {loc_name(got)}",
            )
    if preserve == "all":
        # a location never written holds its own value: only written ones
        # can be clobbered (so a huge declared register file costs nothing)
        for loc in sorted_locations(state):
            if loc in pm.source_of or not pm.in_file(loc):
                continue
            got = value_of(state, loc)
            if got != loc:
                return Verdict(
                    False, length, location=loc, expected=loc, got=got,
                    reason=f"{loc_name(loc)} is not a destination, so it must "
                    f"keep its own value, but it was clobbered with that of "
                    f"{loc_name(got)}",
                )
    return Verdict(True, length)


# ---------------------------------------------------------------------------
# Postconditions of the algorithms
# ---------------------------------------------------------------------------

#: Run-time contracts are on unless VERIFIED_CONTRACTS=0 (benchmarks of the
#: bare algorithms turn them off; the tests never do).
CONTRACTS_ON = os.environ.get("VERIFIED_CONTRACTS", "1") != "0"


class PostconditionError(AssertionError):
    """An algorithm returned a sequence that breaks its own contract."""


def ensure(
    pm: ParallelMove,
    ops: Sequence[Operation],
    model: str,
    preserve: str = "all",
    length: int | None = None,
    algorithm: str = "algorithm",
) -> None:
    """The shared postcondition: ``ops`` implements ``pm`` in ``model`` and,
    when given, has exactly ``length`` operations (the algorithm's bound)."""
    if not CONTRACTS_ON:
        return
    verdict = implements(pm, ops, model, preserve)
    if not verdict.ok:
        raise PostconditionError(f"{algorithm} on {pm}: {verdict.reason}")
    if length is not None and len(ops) != length:
        raise PostconditionError(
            f"{algorithm} on {pm}: {len(ops)} operations, its bound says {length}"
        )
