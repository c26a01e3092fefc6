"""The core: what a parallel move is, what the operations do, and whether a
sequence implements a move.  It imports nothing else of the project; every
other layer stands on it.

* ``semantics.py``: locations, ``ParallelMove``, the operations and models,
  and the one interpreter ``execute``;
* ``oracle.py``: ``implements`` / ``judge`` (the verdict) and ``ensure``
  (every algorithm's postcondition);
* ``graph.py``: the transfer graph and its windmills;
* ``exits.py``: the exit-status contract of every command.
"""
