"""Mutants of the ``trace=`` hooks of xchg and the windmill family: the
output is unchanged (the oracle cannot see them), only what the hook
reports is wrong, so the agreement checks of
``tests/proofs/test_proofs_symbolic.py`` (``proofs.xchg.agrees``,
``proofs.parmove.windmill_agrees``) must reject each one.  Leroy's are in
``mutants/leroy.py`` (``TRACE``)."""

from __future__ import annotations

from . import Mutant

XCHG = "verified.algorithms.xchg"
WINDMILL = "verified.algorithms.windmill"


def _xchg(name: str, old: str, new: str, why: str) -> Mutant:
    return Mutant(name, XCHG, old, new, why, family="xchg", entry="xchg", scope="xchg",
                  model="swap")


def _windmill(name: str, family: str, old: str, new: str, why: str,
              scope: str = "_blades_then_axle") -> Mutant:
    return Mutant(name, WINDMILL, old, new, why, family=family, entry=family, scope=scope,
                  model="temp")


TRACE_XCHG: list[Mutant] = [
    _xchg("xchg_trace_kahn_as_end", 'note("kahn", d)', 'note("kahn_end", d)',
          "a Kahn step reported as the end of Kahn"),
    _xchg("xchg_trace_walk_reports_start",
          "            d = reader[d]\n            if trace is not None:\n"
          "                note(\"walk\", d, d0)\n",
          "            d = reader[d]\n            if trace is not None:\n"
          "                note(\"walk\", d0, d0)\n",
          "the walk reports its start, not the current location"),
    _xchg("xchg_trace_no_kahn_end",
          "    if trace is not None:\n        note(\"kahn_end\")\n", "",
          "the end of Kahn not reported: the first for-loop state follows a Kahn state"),
    _xchg("xchg_trace_between_off_by_one", 'note("between", d0, d0)',
          'note("between", d0, d0 + 1)', "the for loop reports the next index"),
]

TRACE_WINDMILL: list[Mutant] = [
    _windmill("windmill_trace_axle_as_kahn", "windmill",
              'note("axle", c[(i + 1) % k], c, saved, c[i])', 'note("axle", c[(i + 1) % k])',
              "an axle move reported as if the axle were finished"),
    _windmill("windmill_trace_hole_behind", "windmill",
              'note("axle", c[(i + 1) % k], c, saved, c[i])',
              'note("axle", c[(i + 1) % k], c, saved, c[(i + 1) % k])',
              "the hole reported one location behind"),
    _windmill("mincopy_trace_saved_in_temp", "mincopy",
              'note("start", c[0], c, saved, c[0])', 'note("start", c[0], c, tmp(c[0]), c[0])',
              "mincopy's blade-copy save reported as a save in the temporary"),
    _windmill("windmill_trace_start_unreported", "windmill",
              "    if trace is not None:\n        note(\"start\", c[0], c, saved, c[0])\n", "",
              "the axle's start not reported: its save is not a step"),
]
