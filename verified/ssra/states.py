"""The named arrival states of the allocator's two-input operations
(``TwoInputState``; ``allocator.state_name`` names every state).  Its own
module: `enum` is not imported by `verified ssra alloc` (start-up time,
docs/ssra.md)."""

from __future__ import annotations

from enum import Enum


class TwoInputState(Enum):
    """The 18 states of a two-input operation when the reverse walk arrives
    at it -- output in a Register or Memory, each input in a Register,
    Memory or Unassigned -- plus the 6 states of a repeated input
    (``$x = OP($y, $y)``; "SAME" means both operands are the same variable).

    The value is ``(out, lhs, rhs)`` with ``R``/``M``/``U``."""

    R_RR = ("R", "R", "R")
    R_RM = ("R", "R", "M")
    R_RU = ("R", "R", "U")
    R_MR = ("R", "M", "R")
    R_MM = ("R", "M", "M")
    R_MU = ("R", "M", "U")
    R_UR = ("R", "U", "R")
    R_UM = ("R", "U", "M")
    R_UU = ("R", "U", "U")
    M_RR = ("M", "R", "R")
    M_RM = ("M", "R", "M")
    M_RU = ("M", "R", "U")
    M_MR = ("M", "M", "R")
    M_MM = ("M", "M", "M")
    M_MU = ("M", "M", "U")
    M_UR = ("M", "U", "R")
    M_UM = ("M", "U", "M")
    M_UU = ("M", "U", "U")
    # repeated input: $x = OP($y, $y)
    R_SAME_R = ("R", "R", "=")
    R_SAME_M = ("R", "M", "=")
    R_SAME_U = ("R", "U", "=")
    M_SAME_R = ("M", "R", "=")
    M_SAME_M = ("M", "M", "=")
    M_SAME_U = ("M", "U", "=")
