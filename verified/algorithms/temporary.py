"""The temporary of the temp-model algorithms (Leroy's, the windmill
family): CompCert's ``temp`` function, which maps a location to the
temporary of its register class.  By default every location uses the
request's first declared temporary; a move with a cycle and no temporary is
outside the precondition (PreconditionError)."""

from __future__ import annotations

from typing import Callable, Optional

from ..core.semantics import Location, Mov, ParallelMove, PreconditionError, loc_name

TempFor = Callable[[Location], Location]


def temp_function(pm: ParallelMove, temp: Optional[TempFor]) -> TempFor:
    """``temp`` if given, else "the first declared temporary", else a
    function that refuses (the move needs a temporary it does not have)."""
    if temp is not None:
        return temp
    if pm.temps:
        t0 = pm.temps[0]
        return lambda _loc: t0

    def missing(loc: Location) -> Location:
        raise PreconditionError(
            f"the move {pm} has a cycle through {loc_name(loc)}; this "
            f'algorithm needs a temporary: declare one (e.g. "temps": ["t"])'
        )

    return missing


def originals_or_temps(pm: ParallelMove, ops: list) -> str | None:
    """Shape postcondition of leroy and windmill: every operation is a mov
    that is an original move or goes to or from a temporary."""
    originals = set(pm.non_loop_moves)
    temps = set(pm.temps)
    for op in ops:
        if not isinstance(op, Mov):
            return f"emitted {op}, which is not a mov"
        if not ((op.dst, op.src) in originals or op.dst in temps or op.src in temps):
            return (f"emitted {op}, which is neither an original move nor a "
                    f"move to or from a temporary")
    return None
