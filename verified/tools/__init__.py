"""The tools, on top of the algorithms and the allocator: the wire format
(``wire.py``) and the commands ``check``, ``solve``, ``conform``,
``vectors`` and the exhaustive runner (``exhaustive.py``).  Each command
module provides ``add_arguments(parser)`` and ``run(args) -> int``."""
