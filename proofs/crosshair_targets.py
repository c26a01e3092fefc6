"""List-shaped entry points for CrossHair, generated from the registry
(one per correct algorithm of the swap and temp models, plus
``xchg-as-published``) and from the mutant catalogue (``mutants/core.py``).

CrossHair handles list-shaped inputs well and dict-shaped ones badly, so
each target takes ``srcs`` (register d receives the original value of
``srcs[d]``; in the temp model register ``len(srcs)`` is the temporary) and
returns the operations in their JSON form.  Its contract is the oracle:

    pre:  all(0 <= s < len(srcs) for s in srcs)
    post: implements(move_of(srcs, MODEL), sequence(__return__), MODEL).ok

and, for an algorithm with a length bound, the registry's bound.  A target
runs the algorithm *without* its own postcondition (``Algorithm.raw``), so
what CrossHair checks is the contract above.  ``proofs/crosshair_run.py``
runs them; ``TARGETS`` lists (name, expect a counterexample).
"""

from __future__ import annotations

import linecache
from typing import Callable, List

import mutants
from mutants.core import BY_NAME
from verified.algorithms import ALGORITHMS
from verified.core.oracle import implements  # noqa: F401  (used by the contracts)
from verified.core.semantics import ParallelMove, sequence  # noqa: F401


def move_of(srcs: List[int], model: str) -> ParallelMove:
    """The move d <- srcs[d] on len(srcs) registers (temporary len(srcs)
    in the temp model)."""
    return ParallelMove.from_map(srcs, temps=[len(srcs)] if model == "temp" else [])


def within_bound(name: str, srcs: List[int], ops: list) -> bool:
    """The registry's length bound of algorithm ``name`` holds."""
    algo = ALGORITHMS[name]
    return algo.bound is None or len(ops) == algo.bound(move_of(srcs, algo.model), "all")


_RUNS: dict[str, Callable] = {}


def _target(label: str, run: Callable, model: str, bounded_by: str | None) -> Callable:
    """Define ``label`` from generated source: CrossHair reads a contract
    from the function's source lines, so the source is registered with
    ``linecache`` under a file name of its own."""
    _RUNS[label] = run
    bound = (f"\n    post: within_bound({bounded_by!r}, srcs, __return__)" if bounded_by else "")
    source = (
        f"def {label}(srcs: List[int]) -> List[list]:\n"
        f'    """{label}: the move d <- srcs[d] ({model} model).\n\n'
        f"    pre: all(0 <= s < len(srcs) for s in srcs)\n"
        f"    post: implements(move_of(srcs, {model!r}), sequence(__return__), {model!r}).ok"
        f"{bound}\n"
        f'    """\n'
        f"    return [op.to_json() for op in _RUNS[{label!r}](move_of(srcs, {model!r}))]\n")
    filename = f"<crosshair target {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), globals())
    return globals()[label]


#: (target name, CrossHair must find a counterexample)
TARGETS: list[tuple[str, bool]] = []

for _name, _algo in ALGORITHMS.items():
    if _algo.model not in ("swap", "temp"):
        continue  # permi: CrossHair does not get through the DP's tables
    _label = _name.replace("-", "_") + "_srcs"
    _target(_label, _algo.raw, _algo.model, _name if _algo.bound is not None else None)
    TARGETS.append((_label, not _algo.correct))

#: the mutants CrossHair must catch (one per family it handles)
CROSSHAIR_MUTANTS = ["leroy_no_cycle", "windmill_no_save", "xchg_no_alias_update",
                     "shuf_swap_as_move"]
for _m in CROSSHAIR_MUTANTS:
    _mutant = BY_NAME[_m]
    _label = f"{_m}_srcs"
    _target(_label, mutants.run(_mutant), _mutant.model, None)
    TARGETS.append((_label, True))
