"""Mutants of ``verified explain``'s "first value destroyed" finder
(``verified/tools/explain.py``: ``first_loss`` and ``needed_by``): each one
small edit of the real code (the engine in ``mutants/__init__.py``).

``witness`` is ``(request, sequence)``, each as JSON text (a mutant is
hashable), on which the mutant's answer differs
from the definition the tests check it against
(``tests/cli/test_explain.py``: after running each prefix through
``execute``, the first operation after which a needed value is held by no
location).  The tests also find each mutant on a random corpus, without
the witness.
"""

from __future__ import annotations

from . import Mutant

EXPLAIN = "verified.tools.explain"

CHAIN = ('{"moves": [[1, 0], [2, 1]], "model": "swap", "registers": 3}',
         '[["mov", 1, 0], ["mov", 2, 1]]')


def _m(name: str, scope: str, old: str, new: str, why: str, witness: tuple) -> Mutant:
    return Mutant(name, EXPLAIN, old, new, why, family="explain", entry="first_loss",
                  scope=scope, witness=witness)


MUTANTS = [
    _m("loss_never_reported", "first_loss",
       "            if not copies(value):", "            if False:",
       "the finder never reports a destroyed value", CHAIN),
    _m("loss_ignores_new_copies", "first_loss",
       "            copies(value_of(state, loc)).add(loc)\n", "            pass\n",
       "a value copied elsewhere is not counted as a copy",
       ('{"moves": [[1, 0], [0, 1]], "model": "temp", "temps": ["t"]}',
        '[["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]')),
    _m("loss_checked_before_the_operation_lands", "first_loss",
       """
        for loc in written:
            copies(value_of(state, loc)).add(loc)
        for loc in written:
            value = before[loc]
       """,
       """
        for loc in written:
            value = before[loc]
            copies(value_of(state, loc)).add(loc)
       """,
       "each written location is checked before the operation's other writes "
       "land (a swap looks like a loss)",
       ('{"moves": [[1, 0], [0, 1]], "model": "swap"}', '[["swap", 0, 1]]')),
    _m("loss_forgets_what_must_keep_its_value", "needed_by",
       '    if (preserve == "all" and value not in pm.source_of',
       '    if (False and value not in pm.source_of',
       'under "all", a location that is no destination is not seen to need its own value',
       ('{"moves": [[1, 0]], "model": "temp", "registers": 3}',
        '[["mov", 1, 0], ["mov", 2, 0]]')),
    _m("loss_of_a_dead_value_reported", "needed_by",
       "        return value\n    return None\n", "        return value\n    return value\n",
       "a value nobody needs (a temporary's, a dead register's) counts as needed",
       ('{"moves": [[1, 0]], "model": "temp", "temps": ["t"]}',
        '[["mov", "t", 0], ["mov", 1, "t"]]')),
    _m("loss_blames_the_next_operation", "first_loss",
       "return Loss(index, op, loc, value, needer)",
       "return Loss(index + 1, op, loc, value, needer)",
       "the operation after the one that destroyed the value is blamed", CHAIN),
]

#: the same finder on machines, unit by unit (``machine_first_loss`` and
#: ``unit_needed_by``); witnesses are machine requests
SWAP = ('{"machine": "x86-64", "moves": [["rax", "rcx"], ["rcx", "rax"]], "temps": ["r15"]}',
        '[["mov", "r15", "rax"], ["mov", "rax", "rcx"], ["mov", "rcx", "r15"]]')
CLOBBER = ('{"machine": "x86-64", "moves": [["rax", "rcx"], ["rcx", "rax"]], "temps": []}',
           '[["mov", "rax", "rcx"]]')


def _mm(name: str, scope: str, old: str, new: str, why: str, witness: tuple) -> Mutant:
    return Mutant(name, EXPLAIN, old, new, why, family="explain", entry="machine_first_loss",
                  scope=scope, witness=witness)


MACHINE_MUTANTS = [
    _mm("unit_loss_never_reported", "machine_first_loss",
        "            if not copies(value):", "            if False:",
        "the machine finder never reports a destroyed value", CLOBBER),
    _mm("unit_loss_ignores_new_copies", "machine_first_loss",
        "            copies(state.get(u, u)).add(u)\n", "            pass\n",
        "a value copied to another unit is not counted as a copy", SWAP),
    _mm("unit_loss_forgets_what_must_keep_its_value", "unit_needed_by",
        '    if preserve == "all" and value not in want', '    if False and value not in want',
        'under "all", a unit that is no destination\'s is not seen to need its own value',
        ('{"machine": "x86-64", "moves": [["rcx", "rax"]], "temps": []}',
         '[["mov", "rdx", "rax"], ["mov", "rcx", "rdx"]]')),
    _mm("unit_loss_blames_the_next_operation", "machine_first_loss",
        "return UnitLoss(index, op, u, value, needer)",
        "return UnitLoss(index + 1, op, u, value, needer)",
        "the operation after the one that destroyed the value is blamed", CLOBBER),
]

BY_NAME = {m.name: m for m in MUTANTS + MACHINE_MUTANTS}
