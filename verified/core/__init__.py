"""The core: what a parallel move is, what the operations do, and whether a
sequence implements a move.  It imports nothing else of the project; every
other layer stands on it.

* ``semantics.py``: locations, ``ParallelMove``, the operations and models,
  and the one interpreter ``execute``;
* ``oracle.py``: ``implements`` / ``judge`` (the verdict) and ``ensure``
  (every algorithm's postcondition);
* ``graph.py``: the transfer graph and its windmills;
* ``compact.py``: array-backed stand-ins for the containers above (pairs,
  a sequence, ``source_of``, a machine state) that huge register requests
  are held in, read through the same protocols;
* ``exits.py``: the exit-status contract of every command.
"""
