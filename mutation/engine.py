"""Where mutants come from: cosmic-ray's operators (and the two in
``operators.py``) applied to the modules of ``verified/``.

A mutation site is (file, operator, occurrence): the ``occurrence``-th
place in the file where ``operator`` applies, counted in cosmic-ray's own
order (a pre-order walk of the parso tree), so ``mutate`` reproduces it with
cosmic-ray's ``MutationVisitor``.

Left out, because they are not operations of the program:

* sites inside type annotations: every module starts with ``from __future__
  import annotations``, so an annotation is never evaluated and mutating one
  (``int | None`` -> ``int & None``) cannot change behaviour;
* the bare ``*`` and ``/`` of a parameter list (``def f(a, *, b)``), which
  cosmic-ray 8.7 takes for binary operators.
"""

from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass
from pathlib import Path

import cosmic_ray.plugins
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import MutationVisitor

from .operators import EXTRA_OPERATORS


@dataclass(frozen=True)
class Site:
    """One mutant: the ``occurrence``-th application of ``operator`` in
    ``path`` (relative to the repository root), starting on ``line``."""

    path: str
    operator: str
    occurrence: int
    line: int
    #: where the operator applies: ((line, col), (line, col)); several
    #: operators (``+`` -> ``-``, ``+`` -> ``*``, ...) share one place
    span: tuple = ()
    #: the enclosing definitions, e.g. "RegisterAllocator.op_reg_reg"
    #: ("" at module level): what the equivalent list names
    scope: str = ""

    @property
    def place(self) -> tuple:
        """(file, span, operator family): the sampling unit, so that the
        eleven replacements of one ``+`` count as one place, not eleven."""
        family = self.operator.split("_")[0]
        return (self.path, self.span, family)


@dataclass(frozen=True)
class Mutant:
    site: Site
    #: the mutated module's source
    code: str
    #: the changed lines, stripped: what the equivalent list matches on
    before: str
    after: str
    #: unified diff against the original
    diff: str
    #: the unchanged line above the change, stripped (tells apart two
    #: identical edits in one function)
    context: str = ""


def operators() -> dict[str, object]:
    """Every operator the runner uses, by name, instantiated: cosmic-ray's
    core operators that take no arguments (VariableReplacer and
    VariableInserter need a variable name and draw random numbers: left
    out), then ours."""
    out: dict[str, object] = {}
    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if cls.arguments():
            continue
        out[name] = cls()
    for name, cls in EXTRA_OPERATORS.items():
        out[name] = cls()
    return out


def _annotation_spans(tree) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    spans = []
    for node in ast_nodes(tree):
        kids = getattr(node, "children", ())
        if node.type == "tfpdef" and len(kids) >= 3:  # name ':' annotation
            spans.append((kids[2].start_pos, kids[-1].end_pos))
        elif node.type == "funcdef":
            for i, k in enumerate(kids):
                if k.type == "operator" and k.value == "->":
                    spans.append((kids[i + 1].start_pos, kids[i + 1].end_pos))
        elif node.type == "annassign":  # ':' annotation ['=' value]
            spans.append((kids[1].start_pos, kids[1].end_pos))
    return spans


def _scope(node) -> str:
    names = []
    parent = node.parent
    while parent is not None:
        if parent.type in ("funcdef", "classdef"):
            names.append(parent.name.value)
        parent = parent.parent
    return ".".join(reversed(names))


def sites(root: Path, path: str, ops: dict[str, object]) -> list[Site]:
    """All mutation sites of one file, in a fixed order."""
    tree = get_ast((root / path).read_text(encoding="utf-8"))
    spans = _annotation_spans(tree)
    counts = dict.fromkeys(ops, 0)
    out: list[Site] = []
    for node in ast_nodes(tree):
        for name, op in ops.items():
            for start, end in op.mutation_positions(node):
                occurrence = counts[name]
                counts[name] += 1
                if any(s <= start and end <= e for s, e in spans):
                    continue
                if node.type == "operator" and node.parent.type in ("parameters", "lambdef"):
                    continue
                out.append(Site(path, name, occurrence, start[0], (start, end), _scope(node)))
    return out


def mutate(root: Path, site: Site, ops: dict[str, object]) -> Mutant | None:
    """The mutant at ``site``, or None when it is no mutant at all: the
    code does not change, or it no longer compiles (cosmic-ray calls such
    a mutant incompetent; it tests nothing)."""
    original = (root / site.path).read_text(encoding="utf-8")
    code = MutationVisitor.mutate_code(original, ops[site.operator], site.occurrence)
    if code is None or code == original:
        return None
    try:
        with warnings.catch_warnings():  # `x is "literal"` mutants warn; they still run
            warnings.simplefilter("ignore")
            compile(code, site.path, "exec")
    except (SyntaxError, ValueError):
        return None
    old, new = original.splitlines(), code.splitlines()
    removed, added, first = [], [], None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            first = i1 if first is None else first
            removed += [l.strip() for l in old[i1:i2]]
            added += [l.strip() for l in new[j1:j2]]
    diff = "\n".join(difflib.unified_diff(old, new, f"a/{site.path}", f"b/{site.path}",
                                          lineterm="", n=2))
    context = old[first - 1].strip() if first else ""
    return Mutant(site, code, "\n".join(removed), "\n".join(added), diff, context)


def modules(root: Path) -> list[str]:
    """Every module of ``verified/``, relative paths, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "verified").rglob("*.py"))
