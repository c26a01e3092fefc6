"""Mutants of the core parallel-move algorithms (shuf, leroy, windmill,
mincopy, xchg), at least five per family.  Each is one snippet changed in
the real source (see ``derive``); tests/test_mutants.py proves the oracle
and Hypothesis catch every one of them."""

from __future__ import annotations

import inspect

from verified import parmove, shuf, xchg

from . import Mutant, derive


def _shuf_mutant(old: str, new: str) -> object:
    """Mutate the Shuf class (or shuf itself) and re-bind shuf to it."""
    if old in inspect.getsource(shuf.Shuf):
        return derive(shuf.Shuf, old, new, entry=shuf.shuf)
    return derive(shuf.shuf, old, new)


def _blades_mutant(old: str, new: str, entry) -> object:
    return derive(parmove._blades_then_axle, old, new, entry=entry)


MUTANTS: list[Mutant] = [
    # -- shuf ---------------------------------------------------------------
    Mutant("shuf_no_mask_swap", "shuf", "swap",
           "after a swap, only clear the bit instead of trading the two masks",
           _shuf_mutant(
               "                tmp = forward[nxt] & ~(1 << i)\n"
               "                forward[nxt] = forward[i] & ~(1 << nxt)\n"
               "                forward[i] = tmp\n",
               "                forward[i] &= ~(1 << nxt)\n")),
    Mutant("shuf_swap_as_move", "shuf", "swap",
           "emit a move where the cycle needs a swap",
           _shuf_mutant('action = Action("swap", i, nxt)', 'action = Action("move", i, nxt)')),
    Mutant("shuf_move_reversed", "shuf", "swap",
           "MOVE copies next -> i instead of i -> next",
           _shuf_mutant('action = Action("move", i, nxt)', 'action = Action("move", nxt, i)')),
    Mutant("shuf_add_reversed", "shuf", "swap",
           "shuf_add records src in forward[dst] (edge reversed)",
           _shuf_mutant("self.forward[src] |= 1 << dst", "self.forward[dst] |= 1 << src")),
    Mutant("shuf_skip_slot0", "shuf", "swap",
           "the scan starts at slot 1, so work pending in slot 0 is never done",
           _shuf_mutant("        i = 0\n        while i < self.count:",
                        "        i = 1\n        while i < self.count:")),
    # -- leroy --------------------------------------------------------------
    Mutant("leroy_no_cycle", "leroy", "temp",
           "forget the cycle case: never save the value into the temporary",
           derive(parmove.leroy,
                  "                t = tmp(src[j])\n"
                  "                out.append(Mov(t, src[j]))\n"
                  "                src[j] = t\n",
                  "                pass\n")),
    Mutant("leroy_no_redirect", "leroy", "temp",
           "save into the temporary but keep reading the overwritten source",
           derive(parmove.leroy, "                src[j] = t\n", "")),
    Mutant("leroy_preorder", "leroy", "temp",
           "emit the move before its dependents (pre-order instead of post-order)",
           derive(parmove.leroy,
                  "        status[i] = BEING_MOVED\n",
                  "        status[i] = BEING_MOVED\n"
                  "        out.append(Mov(dst[i], src[i]))\n")),
    Mutant("leroy_temp_from_dst", "leroy", "temp",
           "save the destination instead of the source into the temporary",
           derive(parmove.leroy, "out.append(Mov(t, src[j]))", "out.append(Mov(t, dst[j]))")),
    Mutant("leroy_children_of_src", "leroy", "temp",
           "visit the readers of the move's source instead of its destination",
           derive(parmove.leroy,
                  "for j in readers.get(dst[i], ()):\n"
                  "            if src[j] != dst[i]:",
                  "for j in readers.get(src[i], ()):\n"
                  "            if src[j] != src[i]:")),
    Mutant("leroy_iterative_no_redirect", "leroy", "temp",
           "iterative twin: save into the temporary but keep reading the source",
           derive(parmove.leroy_iterative, "                    src[j] = t\n", "")),
    # -- windmill -----------------------------------------------------------
    Mutant("windmill_all_ready", "windmill", "temp",
           "Kahn starts with every move ready (ignores pending readers)",
           _blades_mutant("ready = deque(d for d, _ in moves if pending_reads.get(d, 0) == 0)",
                          "ready = deque(d for d, _ in moves)", parmove.windmill)),
    Mutant("windmill_release_early", "windmill", "temp",
           "a source is released while one reader is still pending",
           _blades_mutant("if pending_reads[s] == 0 and s in source_of",
                          "if pending_reads[s] <= 1 and s in source_of", parmove.windmill)),
    Mutant("windmill_axle_wrong_order", "windmill", "temp",
           "unroll the axle forwards, overwriting values not yet copied",
           _blades_mutant("for i in range(k - 1, 0, -1):", "for i in range(1, k):",
                          parmove.windmill)),
    Mutant("windmill_no_save", "windmill", "temp",
           "break the axle without saving its value in the temporary",
           _blades_mutant("        out.append(Mov(saved, c[0]))\n", "", parmove.windmill)),
    Mutant("windmill_restore_from_axle", "windmill", "temp",
           "close the axle from the overwritten location, not the saved copy",
           _blades_mutant("out.append(Mov(c[1], saved))", "out.append(Mov(c[1], c[0]))",
                          parmove.windmill)),
    # -- mincopy ------------------------------------------------------------
    Mutant("mincopy_copy_is_source", "mincopy", "temp",
           "record the axle location itself as its blade copy",
           _blades_mutant("copy_of.setdefault(s, d)", "copy_of.setdefault(s, s)",
                          parmove.mincopy)),
    Mutant("mincopy_restore_from_axle", "mincopy", "temp",
           "close the axle from the overwritten location, not the blade copy",
           _blades_mutant("out.append(Mov(c[1], saved))", "out.append(Mov(c[1], c[0]))",
                          parmove.mincopy)),
    Mutant("mincopy_no_save", "mincopy", "temp",
           "bare cycle broken without saving into the temporary",
           _blades_mutant("        out.append(Mov(saved, c[0]))\n", "", parmove.mincopy)),
    Mutant("mincopy_axle_wrong_order", "mincopy", "temp",
           "unroll the axle forwards",
           _blades_mutant("for i in range(k - 1, 0, -1):", "for i in range(1, k):",
                          parmove.mincopy)),
    Mutant("mincopy_release_early", "mincopy", "temp",
           "a source is released while one reader is still pending",
           _blades_mutant("if pending_reads[s] == 0 and s in source_of",
                          "if pending_reads[s] <= 1 and s in source_of", parmove.mincopy)),
    # -- xchg ---------------------------------------------------------------
    Mutant("xchg_no_alias_update", "xchg", "swap",
           "after an exchange, forget to record where the old value went",
           derive(xchg.xchg, "                alias[d] = where(s)\n", "")),
    Mutant("xchg_alias_off_by_one", "xchg", "swap",
           "alias update off by one: records the source, not the destination",
           derive(xchg.xchg, "alias[d] = where(s)", "alias[s] = d")),
    Mutant("xchg_swap_on_tree_edge", "xchg", "swap",
           "exchange instead of move on a blade (the published bug 2)",
           derive(xchg.xchg, "out.append(Mov(d, where(s)))", "out.append(Swap(d, where(s)))")),
    Mutant("xchg_move_in_cycle", "xchg", "swap",
           "move instead of exchange on the axle",
           derive(xchg.xchg, "out.append(Swap(d, where(s)))", "out.append(Mov(d, where(s)))")),
    Mutant("xchg_release_early", "xchg", "swap",
           "a source is released while one reader is still pending",
           derive(xchg.xchg, "if edges[s] == 0 and s in pending:",
                  "if edges[s] <= 1 and s in pending:")),
]

BY_NAME = {m.name: m for m in MUTANTS}
