"""``SsaOp``, the record view of one tape operation (``Tape.ops``).  Its own
module: `collections` (for ``namedtuple``) is not imported by `verified ssra
alloc`, which reads the tape's columns (start-up time, docs/ssra.md)."""

from __future__ import annotations

from collections import namedtuple

SsaOp = namedtuple("SsaOp", ["out", "name", "args", "line", "inputs"])
# setattr, not an assignment: mypy does not know it as a ClassVar (mypyc
# refused the assignment when this was in the compiled tape.py)
setattr(SsaOp, "__doc__", """One SSA operation ``$out = NAME(args)``.

``args`` keeps the source order of the operands: an ``int`` is an SSA
input (a dense variable index, see ``Tape.names``), a ``str`` is a
literal immediate (the ``.vm`` format's ``const 2.95``).  ``inputs`` is
the SSA inputs alone (at most two), kept precomputed because the
allocator reads it for every operation.  (A named tuple: building one is
several times cheaper than a frozen dataclass.)""")
