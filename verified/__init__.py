"""verified: formally-checked reference register shuffling.

The layers, each importing only the ones below it (``tests/test_layers.py``
checks it):

1. ``verified.core``: semantics, the oracle, the transfer graph;
2. ``verified.algorithms`` (the registry, the optimum, one file per
   algorithm) and ``verified.cases`` (every case generator);
3. ``verified.ssra``: the solid-state register allocator and its checker;
4. ``verified.tools``: the wire format and the commands ``check``,
   ``solve``, ``conform``, ``vectors``, ``exhaustive``;
5. ``verified.cli``: the ``verified`` command.

``proofs/``, ``mutants/`` and ``tests/`` stand above all of it; nothing in
``verified`` imports them.  The reference documentation is ``docs/``.
"""
