"""The reference algorithms, one file per algorithm family, each on top of
``verified.core`` and registered once in ``registry.ALGORITHMS`` (the
``@algorithm`` line on its function is its contract).

Importing this package registers them all; ``ALGORITHMS`` is in this order (the order of
``verified solve --help`` and of the docs):

* ``shuf.py``: the bitset shuffler (swap model);
* ``leroy.py``: Leroy et al., recursive and iterative (temp model);
* ``windmill.py``: the windmill family: windmill, mincopy (temp model);
* ``xchg.py``: the 2007 mov/xchg algorithm as published and corrected;
* ``greedy.py``, ``copyset.py``: GREEDY and the optimal copy set (permi);
* ``resolve.py``: the reference resolver for machines (model "machine");

and alongside: ``optimum.py`` (the closed forms), ``search.py`` (the permi
ground-truth search), ``machine_optimum.py`` (the optimum on a machine), ``temporary.py`` (the temporary of the temp model).
"""

from . import copyset, greedy, leroy, resolve, shuf, windmill, xchg
from .registry import ALGORITHMS, MACHINE, Algorithm, solve, solve_machine

#: the order of the docs: by family as listed above, then by place in the
#: file, which is the order of registration within a module (each
#: ``@algorithm`` runs as its definition is reached, top to bottom; the sort
#: is stable).  Not the functions' line numbers: a function compiled by
#: mypyc (docs/fast.md) has no ``__code__``.
_FAMILIES = [m.__name__ for m in (shuf, leroy, windmill, xchg, greedy, copyset, resolve)]
_order = sorted(ALGORITHMS.values(), key=lambda a: _FAMILIES.index(a.module))
ALGORITHMS.clear()
ALGORITHMS.update((a.name, a) for a in _order)

__all__ = ["ALGORITHMS", "MACHINE", "Algorithm", "solve", "solve_machine"]
