"""Deliberately broken variants of the algorithms.

A checker that cannot fail is a defect, so every checker (the oracle, the
Hypothesis properties, the Z3 proofs, CrossHair) is shown to catch these.

Most mutants here are *derived from the real source*: ``derive`` takes a
function of ``verified/``, replaces one exact snippet of its source, and
compiles the result with assertions stripped (``optimize=1``) and the
run-time postconditions switched off, so what catches the mutant is the
checker under test, not the algorithm's own asserts.  If the real code
changes so that the snippet no longer occurs exactly once, ``derive``
fails loudly instead of silently testing nothing.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable


def _no_check(*_args, **_kwargs) -> None:
    return None


@dataclass(frozen=True)
class Mutant:
    name: str
    #: the algorithm family it breaks ("shuf", "leroy", "windmill", ...)
    family: str
    #: the model whose operations it emits
    model: str
    #: what was broken, in words
    description: str
    run: Callable  # (ParallelMove) -> list[Operation]


def derive(
    target: Callable | type,
    old: str,
    new: str,
    entry: Callable | None = None,
    extra: tuple = (),
) -> Callable:
    """Recompile ``target`` (a function or class of a verified/ module) with
    ``old`` replaced by ``new`` and return ``entry`` (default: target)
    re-bound in the mutated namespace.  ``extra`` lists further functions of
    the same module to re-bind so they call the mutated code."""
    module_globals = inspect.getmodule(target).__dict__
    namespace = dict(module_globals)
    namespace["ensure"] = _no_check
    namespace["_check_temp"] = _no_check
    source = textwrap.dedent(inspect.getsource(target))
    count = source.count(old)
    if count != 1:
        raise AssertionError(
            f"mutant snippet occurs {count} times in {target.__qualname__}, "
            f"expected once: {old!r}"
        )
    _exec(source.replace(old, new), namespace, target.__qualname__)
    for fn in ((entry,) if entry is not None else ()) + extra:
        _exec(textwrap.dedent(inspect.getsource(fn)), namespace, fn.__qualname__)
    name = (entry or target).__name__
    return namespace[name]


def _exec(source: str, namespace: dict, label: str) -> None:
    code = compile(source, f"<mutant of {label}>", "exec", optimize=1)
    exec(code, namespace)
