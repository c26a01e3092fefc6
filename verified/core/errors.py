"""The error every precondition raises and the one register-count check,
apart from the rest of the semantics: ``verified ssra`` needs only these,
and importing ``semantics.py`` (its dataclasses, ``typing``, ``compact.py``)
took a short command longer than its own work (docs/ssra.md).
``semantics.py`` re-exports them: one class, one validator, wherever they
are imported from."""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import TypeVar

    _C = TypeVar("_C", bound=type)

#: Largest register file a request may declare, and so register numbers are
#: 0..MAX_REGISTERS-1.  The oracle touches only the locations a sequence
#: writes, but a file this size is already far past any machine; the cap
#: keeps nonsense input (2**31 - 1 registers) from costing gigabytes in
#: tools that do materialise the file.
MAX_REGISTERS = 1 << 20


def python_class(cls: _C) -> _C:
    """Mark a class that stays an ordinary Python class in the compiled build
    (setup.py): mypyc compiles a class into a native one only when it has no
    decorator it does not know, and interpreted modules may subclass only
    ordinary classes (``MachineVerdict(Verdict)``, ``Stuck(PreconditionError)``);
    exceptions other than Exception and ValueError need it too.  Does
    nothing at run time."""
    return cls


@python_class
class PreconditionError(ValueError):
    """A parallel move, operation or request that violates a precondition
    (repeated destination, unknown location, temporary inside a move...).
    The message names the offending pair or operation and says what to do."""


def check_registers(value: object, least: int = 0, what: str = '"registers"') -> int:
    """Validate a register count (a request's ``"registers"``, a command's
    ``--registers``): a whole number in ``least..MAX_REGISTERS``.  The one
    validator and the one message, wherever a register count comes from."""
    if isinstance(value, bool) or not isinstance(value, int) or not (
            least <= value <= MAX_REGISTERS):
        raise PreconditionError(
            f"{what} must be a whole number in {least}..{MAX_REGISTERS}, not {value!r}")
    return value
