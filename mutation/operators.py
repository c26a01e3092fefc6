"""Two mutation operators that cosmic-ray's core set lacks, written against
its ``Operator`` interface (``mutation_positions`` / ``mutate`` over parso
nodes) so they run through the same visitor as the core operators.

* ``DeleteStatement``: one simple statement inside a function body becomes
  ``pass`` (a deleted ``raise``, assignment, call or ``return``).  The
  independent run that prompted issue 13 found its worst survivor this way:
  deleting the ``raise`` for an unknown contract.
* ``SwapArguments``: two adjacent positional arguments of a call change
  places (``Mov(dst, src)`` -> ``Mov(src, dst)``).

Docstrings and ``pass`` itself are never deleted (deleting them changes
nothing), and neither is a statement outside a function (a module-level
deletion only breaks an import, which says nothing about the tests).
"""

from __future__ import annotations

from cosmic_ray.operators.operator import Example, Operator
from parso.python.tree import Keyword

#: statement node types a ``simple_stmt`` holds that DeleteStatement removes
_DELETABLE = {"expr_stmt", "return_stmt", "raise_stmt", "atom_expr", "assert_stmt",
              "del_stmt", "power"}


def _inside_function(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("funcdef", "lambdef"):
            return True
        if parent.type == "classdef":
            return False
        parent = parent.parent
    return False


class DeleteStatement(Operator):
    """Replace one simple statement in a function body with ``pass``."""

    def mutation_positions(self, node):
        if (node.type in _DELETABLE and node.parent is not None
                and node.parent.type == "simple_stmt" and _inside_function(node)):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        assert index == 0
        first = node.get_first_leaf()
        return Keyword("pass", node.start_pos, prefix=first.prefix)

    @classmethod
    def examples(cls):
        return (
            Example("def f(x):\n    raise E(x)\n", "def f(x):\n    pass\n"),
            Example("def f(x):\n    y = x\n    return y\n", "def f(x):\n    y = x\n    pass\n",
                    occurrence=1),
        )


def _positional_args(arglist) -> list:
    """The positional arguments of an ``arglist`` node, or [] when the call
    has a keyword or starred argument before the last positional one."""
    args = [c for c in arglist.children if c.type != "operator"]
    out = []
    for a in args:
        if a.type == "argument":  # keyword, *args or **kwargs
            break
        out.append(a)
    return out


class SwapArguments(Operator):
    """Swap two adjacent positional arguments of a call."""

    def mutation_positions(self, node):
        if node.type == "arglist" and node.parent is not None and node.parent.type == "trailer":
            args = _positional_args(node)
            for a, b in zip(args, args[1:]):
                yield (a.start_pos, b.end_pos)

    def mutate(self, node, index):
        args = _positional_args(node)
        a, b = args[index], args[index + 1]
        ia, ib = node.children.index(a), node.children.index(b)
        a_prefix, b_prefix = a.get_first_leaf().prefix, b.get_first_leaf().prefix
        node.children[ia], node.children[ib] = b, a
        b.get_first_leaf().prefix, a.get_first_leaf().prefix = a_prefix, b_prefix
        b.parent = a.parent = node
        return node

    @classmethod
    def examples(cls):
        return (
            Example("f(a, b)", "f(b, a)"),
            Example("f(a, b, c)", "f(a, c, b)", occurrence=1),
            Example("f(a, b, k=1)", "f(b, a, k=1)"),
        )


#: name -> operator class, the runner's extra operators
EXTRA_OPERATORS = {
    "verified/DeleteStatement": DeleteStatement,
    "verified/SwapArguments": SwapArguments,
}
