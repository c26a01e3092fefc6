"""Mutants of the parallel-move algorithms (shuf, leroy, windmill, mincopy,
xchg), at least five per family: each one snippet changed in the real
source (see ``mutants/__init__.py``).

``witness`` is the smallest register map (``want[d]`` = the register whose
original value d must hold; temporary ``"t"`` declared) on which the oracle
rejects the mutant: fewest registers, then fewest non-loop moves, then
lexicographically first.  ``tests/test_mutants.py`` re-derives it by
exhaustive search and checks Hypothesis and ``ensure`` catch each mutant;
``z3`` names the same bug in the proofs' models where they have it.
"""

from __future__ import annotations

from . import Mutant

SHUF = "verified.algorithms.shuf"
LEROY = "verified.algorithms.leroy"
WINDMILL = "verified.algorithms.windmill"
XCHG = "verified.algorithms.xchg"


def _shuf(name: str, old: str, new: str, why: str, witness: tuple, scope: str,
          z3: str | None = None) -> Mutant:
    return Mutant(name, SHUF, old, new, why, family="shuf", entry="shuf", scope=scope,
                  model="swap", z3=z3, witness=witness)


def _leroy(name: str, old: str, new: str, why: str, witness: tuple,
           entry: str = "leroy", z3: str | None = None) -> Mutant:
    return Mutant(name, LEROY, old, new, why, family="leroy", entry=entry, scope=entry,
                  model="temp", z3=z3, witness=witness)


def _blades(name: str, family: str, old: str, new: str, why: str, witness: tuple,
            z3: str | None = None) -> Mutant:
    return Mutant(name, WINDMILL, old, new, why, family=family, entry=family,
                  scope="_blades_then_axle", model="temp", z3=z3, witness=witness)


def _xchg(name: str, old: str, new: str, why: str, witness: tuple,
          z3: str | None = None) -> Mutant:
    return Mutant(name, XCHG, old, new, why, family="xchg", entry="xchg", scope="xchg",
                  model="swap", z3=z3, witness=witness)


MUTANTS: list[Mutant] = [
    # -- shuf ---------------------------------------------------------------
    _shuf("shuf_no_mask_swap",
          "                tmp = forward[nxt] & ~(1 << i)\n"
          "                forward[nxt] = forward[i] & ~(1 << nxt)\n"
          "                forward[i] = tmp\n",
          "                forward[i] &= ~(1 << nxt)\n",
          "after a swap, only clear the bit instead of trading the two masks",
          (1, 0), "Shuf.next_action", z3="no_mask_swap"),
    _shuf("shuf_swap_as_move",
          'action = Action("swap", i, nxt)', 'action = Action("move", i, nxt)',
          "emit a move where the cycle needs a swap", (1, 0), "Shuf.next_action"),
    _shuf("shuf_move_reversed",
          'action = Action("move", i, nxt)', 'action = Action("move", nxt, i)',
          "MOVE copies next -> i instead of i -> next", (0, 0), "Shuf.next_action"),
    _shuf("shuf_add_reversed",
          "self.forward[src] |= 1 << dst", "self.forward[dst] |= 1 << src",
          "shuf_add records src in forward[dst] (edge reversed)", (0, 0), "Shuf.add",
          z3="add_reversed"),
    _shuf("shuf_skip_slot0",
          "        i = 0\n        while i < self.count:",
          "        i = 1\n        while i < self.count:",
          "the scan starts at slot 1, so work pending in slot 0 is never done",
          (0, 0), "Shuf.next_action", z3="skip_slot0"),
    # -- leroy --------------------------------------------------------------
    _leroy("leroy_no_cycle",
           "                t = tmp(src[j])\n"
           "                out.append(Mov(t, src[j]))\n"
           "                src[j] = t\n",
           "                pass\n",
           "forget the cycle case: never save the value into the temporary", (1, 0)),
    _leroy("leroy_no_redirect", "                src[j] = t\n", "",
           "save into the temporary but keep reading the overwritten source", (1, 0)),
    _leroy("leroy_preorder",
           "        status[i] = BEING_MOVED\n",
           "        status[i] = BEING_MOVED\n"
           "        out.append(Mov(dst[i], src[i]))\n",
           "emit the move before its dependents (pre-order instead of post-order)", (1, 0)),
    _leroy("leroy_temp_from_dst",
           "out.append(Mov(t, src[j]))", "out.append(Mov(t, dst[j]))",
           "save the destination instead of the source into the temporary", (1, 0)),
    _leroy("leroy_children_of_src",
           "for j in readers.get(dst[i], ()):\n"
           "            if src[j] != dst[i]:",
           "for j in readers.get(src[i], ()):\n"
           "            if src[j] != src[i]:",
           "visit the readers of the move's source instead of its destination", (1, 0)),
    _leroy("leroy_iterative_no_redirect", "                    src[j] = t\n", "",
           "iterative twin: save into the temporary but keep reading the source", (1, 0),
           entry="leroy_iterative"),
    # -- windmill -----------------------------------------------------------
    _blades("windmill_all_ready", "windmill",
            "ready = deque(d for d, _ in moves if pending_reads.get(d, 0) == 0)",
            "ready = deque(d for d, _ in moves)",
            "Kahn starts with every move ready (ignores pending readers)", (1, 0)),
    _blades("windmill_release_early", "windmill",
            "if pending_reads[s] == 0 and s in source_of",
            "if pending_reads[s] <= 1 and s in source_of",
            "a source is released while one reader is still pending", (1, 0, 0)),
    _blades("windmill_axle_wrong_order", "windmill",
            "for i in range(k - 1, 0, -1):", "for i in range(1, k):",
            "unroll the axle forwards, overwriting values not yet copied", (1, 2, 0)),
    _blades("windmill_no_save", "windmill",
            "        out.append(Mov(saved, c[0]))\n", "",
            "break the axle without saving its value in the temporary", (1, 0),
            z3="no_save"),
    _blades("windmill_restore_from_axle", "windmill",
            "out.append(Mov(c[1], saved))", "out.append(Mov(c[1], c[0]))",
            "close the axle from the overwritten location, not the saved copy", (1, 0),
            z3="restore_from_axle"),
    # -- mincopy ------------------------------------------------------------
    _blades("mincopy_copy_is_source", "mincopy",
            "copy_of.setdefault(s, d)", "copy_of.setdefault(s, s)",
            "record the axle location itself as its blade copy", (1, 0, 0),
            z3="copy_is_source"),
    _blades("mincopy_restore_from_axle", "mincopy",
            "out.append(Mov(c[1], saved))", "out.append(Mov(c[1], c[0]))",
            "close the axle from the overwritten location, not the blade copy", (1, 0),
            z3="restore_from_axle"),
    _blades("mincopy_no_save", "mincopy",
            "        out.append(Mov(saved, c[0]))\n", "",
            "bare cycle broken without saving into the temporary", (1, 0)),
    _blades("mincopy_axle_wrong_order", "mincopy",
            "for i in range(k - 1, 0, -1):", "for i in range(1, k):",
            "unroll the axle forwards", (1, 2, 0)),
    _blades("mincopy_release_early", "mincopy",
            "if pending_reads[s] == 0 and s in source_of",
            "if pending_reads[s] <= 1 and s in source_of",
            "a source is released while one reader is still pending", (1, 0, 0, 1)),
    # -- xchg ---------------------------------------------------------------
    _xchg("xchg_no_alias_update", "                alias[d] = where(s)\n", "",
          "after an exchange, forget to record where the old value went", (1, 0),
          z3="no_alias_update"),
    _xchg("xchg_alias_off_by_one", "alias[d] = where(s)", "alias[s] = d",
          "alias update off by one: records the source, not the destination", (1, 0)),
    _xchg("xchg_swap_on_tree_edge",
          "out.append(Mov(d, where(s)))", "out.append(Swap(d, where(s)))",
          "exchange instead of move on a blade (the published bug 2)", (0, 0)),
    _xchg("xchg_move_in_cycle",
          "out.append(Swap(d, where(s)))", "out.append(Mov(d, where(s)))",
          "move instead of exchange on the axle", (1, 0)),
    _xchg("xchg_release_early",
          "if edges[s] == 0 and s in pending:", "if edges[s] <= 1 and s in pending:",
          "a source is released while one reader is still pending", (1, 0, 0),
          z3="release_early"),
]

BY_NAME = {m.name: m for m in MUTANTS}
