"""``verified conform``: drive another implementation over the JSON-lines
protocol and check every answer with the oracle (``docs/conform.md``;
``docs/protocol.md`` read backwards: we send the requests, the program
answers).

    verified conform --cmd "./my_shuffler --json" --model swap \\
        --registers 6 --exhaustive --optimal

The parts, each in its own module:

* ``partner.py``: the program under test, in its own process group; the
  writer and reader threads that never deadlock; killing the group on exit,
  SIGTERM, SIGHUP and SIGINT;
* ``checker.py``: classifying one answer against the request it answers
  (in worker processes), and the bounded ``Tally`` of a run;
* ``session.py``: one session: stream the requests, pair the answers, check
  them as they come, notice a protocol break;
* ``shrink.py``: the smallest failing case, by re-running the program;
* ``moves.py``, ``machines.py`` and ``tapes.py``: the kinds of case
  (parallel moves; parallel moves on a machine for ``--machine``; SSA
  tapes for ``--allocator``), each a ``checker.CaseType``;
* ``cli.py``: the options, the run and the report.
"""

from .checker import (
    FAILED,
    GARBAGE,
    INTERNAL,
    OK,
    REFUSED,
    REFUSED_OK,
    WRONG,
    classify,
    classify_full,
)
from .cli import add_arguments, run
from .moves import MoveType, parse_sequence

__all__ = ["add_arguments", "run", "classify", "classify_full", "MoveType", "parse_sequence",
           "OK", "REFUSED_OK", "WRONG", "REFUSED", "FAILED", "GARBAGE", "INTERNAL"]
