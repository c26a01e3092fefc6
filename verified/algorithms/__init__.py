"""The reference algorithms, one file per algorithm family, each on top of
``verified.core`` and registered once in ``registry.ALGORITHMS`` (the
``@algorithm`` line on its function is its contract).

The first use of this package's ``ALGORITHMS`` (or ``solve``,
``solve_machine``, ``Algorithm``, ``MACHINE``, a family module as an
attribute) registers them all; ``ALGORITHMS`` is in this order (the order of
``verified solve --help`` and of the docs):

* ``shuf.py``: the bitset shuffler (swap model);
* ``leroy.py``: Leroy et al., recursive and iterative (temp model);
* ``windmill.py``: the windmill family: windmill, mincopy (temp model);
* ``xchg.py``: the 2007 mov/xchg algorithm as published and corrected;
* ``greedy.py``, ``copyset.py``: GREEDY and the optimal copy set (permi);
* ``resolve.py``: the reference resolver for machines (model "machine");

and alongside: ``optimum.py`` (the closed forms), ``search.py`` (the permi
ground-truth search), ``machine_optimum.py`` (the optimum on a machine), ``temporary.py`` (the temporary of the temp model).

Importing the package alone (as ``verified check`` does, for
``optimum.py``) loads none of them: the families and the registry with
the machine model beneath it were most of ``check``'s start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for mypy (and mypyc's compiled importers): their types
    from .registry import ALGORITHMS, MACHINE, Algorithm, solve, solve_machine

#: the families, in the order of the docs
_FAMILIES = ("shuf", "leroy", "windmill", "xchg", "greedy", "copyset", "resolve")
#: the registry's names this package gives
_EXPORTS = ("ALGORITHMS", "MACHINE", "Algorithm", "solve", "solve_machine")

__all__ = list(_EXPORTS)


def _load() -> None:
    """Import every family (each registers its algorithms) and put
    ``ALGORITHMS`` in the order of the docs: by family as listed above,
    then by place in the file, which is the order of registration within a
    module (each ``@algorithm`` runs as its definition is reached, top to
    bottom; the sort is stable).  Not the functions' line numbers: a
    function compiled by mypyc (docs/fast.md) has no ``__code__``.  Once;
    the registry's own dict, reordered."""
    import importlib

    from . import registry
    # by module name: ``from . import shuf`` would ask this package's
    # ``__getattr__`` for ``shuf`` first, which would load again
    families = [importlib.import_module(f"{__name__}.{name}").__name__ for name in _FAMILIES]
    order = sorted(registry.ALGORITHMS.values(), key=lambda a: families.index(a.module))
    registry.ALGORITHMS.clear()
    registry.ALGORITHMS.update((a.name, a) for a in order)
    names = globals()
    for name in _EXPORTS:
        names[name] = getattr(registry, name)


def __getattr__(name: str) -> object:
    # PEP 562: called only for a name not yet set here
    if name in _EXPORTS or name in _FAMILIES:
        _load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
