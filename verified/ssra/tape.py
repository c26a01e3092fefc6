"""The SSA tape of the solid-state register allocator: straight-line SSA
code, and its two parsers (the write-up's ``$2 = FOO($0, $1)`` lines and the
``.vm`` syntax ``_3 mul _1 _2``).  Errors name the file and the line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Sequence

from ..core.semantics import PreconditionError, python_class


@python_class
class TapeError(PreconditionError):
    """Bad input: the message names the file (when known) and the line."""


class SsaOp(NamedTuple):
    """One SSA operation ``$out = NAME(args)``.

    ``args`` keeps the source order of the operands: an ``int`` is an SSA
    input (a dense variable index, see ``Tape.names``), a ``str`` is a
    literal immediate (the ``.vm`` format's ``const 2.95``).  ``inputs`` is
    the SSA inputs alone (at most two), kept precomputed because the
    allocator reads it for every operation.  (A ``NamedTuple``: building
    one is several times cheaper than a frozen dataclass.)"""

    out: int
    name: str
    args: tuple
    line: int
    inputs: tuple


@dataclass
class Tape:
    """Straight-line SSA code.  Invariants (checked by the parsers): every
    input is defined by an earlier operation, no variable is defined twice,
    at most two inputs per operation, at least one operation.  The last
    operation's output is the program's result.  Variables are numbered
    densely in order of definition; ``names[v]`` is the source spelling."""

    ops: list[SsaOp]
    names: list[str]
    source: str = "<tape>"

    @property
    def result(self) -> int:
        return self.ops[-1].out

    def live(self) -> list[bool]:
        """``live[i]``: operation ``i`` contributes to the result (the ones
        the allocator emits; the others are dead code and are dropped)."""
        needed = [False] * len(self.names)
        needed[self.result] = True
        live = [False] * len(self.ops)
        for i in range(len(self.ops) - 1, -1, -1):
            op = self.ops[i]
            if needed[op.out]:
                live[i] = True
                for v in op.inputs:
                    needed[v] = True
        return live

    def format_op(self, op: SsaOp) -> str:
        return f"{self.names[op.out]} = {op.name}(" + ", ".join(
            self.names[a] if isinstance(a, int) else a for a in op.args
        ) + ")"

    def text(self) -> str:
        """The tape in the write-up's syntax."""
        return "".join(self.format_op(op) + "\n" for op in self.ops)


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TAPE_VAR = re.compile(r"\$[A-Za-z0-9_]+")
_NAME_RE = re.compile(_NAME)
_new_tuple = tuple.__new__
_LITERAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_VM_VAR = re.compile(r"_[A-Za-z0-9_]+")
RESERVED = ("LOAD", "STORE")


class _TapeBuilder:
    """Shared bookkeeping of both parsers: defines variables, resolves
    inputs, enforces the tape invariants with errors naming the line."""

    def __init__(self, source: str):
        self.source = source
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.ops: list[SsaOp] = []
        self.checked_names: set[str] = set()

    def error(self, line: int, message: str) -> TapeError:
        return TapeError(f"{self.source}:{line}: {message}")

    def add(self, line: int, out: str, name: str, raw_args: Sequence[str],
            var: re.Pattern) -> None:
        """Define ``out = name(raw_args)``; ``var`` recognises variables
        (anything else must be a numeric literal)."""
        if name not in self.checked_names:
            if name.upper() in RESERVED:
                raise self.error(line, f"{name} is reserved for the "
                                 f"allocator's spill code; it cannot be an "
                                 f"SSA operation")
            self.checked_names.add(name)
        index = self.index
        args: list = []
        inputs: list = []
        for a in raw_args:
            v = index.get(a)
            if v is not None:
                args.append(v)
                inputs.append(v)
            elif var.fullmatch(a):
                raise self.error(
                    line, f"{a} is used before it is defined"
                    + (" (an operation cannot read its own output)"
                       if a == out else ""))
            elif _LITERAL.fullmatch(a):
                args.append(a)
            else:
                raise self.error(line, f"operand {a!r} is neither a variable "
                                 f"nor a numeric literal")
        if len(inputs) > 2:
            raise self.error(line, f"{name} has {len(inputs)} inputs; an "
                             f"operation takes 0, 1 or 2")
        if out in index:
            first = self.ops[index[out]].line
            raise self.error(line, f"{out} is defined twice (first on line "
                             f"{first}); SSA variables are assigned once")
        v = index[out] = len(self.names)
        self.names.append(out)
        # tuple.__new__ skips NamedTuple's Python-level __new__ (hot path)
        self.ops.append(_new_tuple(SsaOp, (v, name, tuple(args), line,
                                           tuple(inputs))))

    def finish(self) -> Tape:
        if not self.ops:
            raise TapeError(f"{self.source}: the tape is empty (no operation)")
        return Tape(self.ops, self.names, self.source)


def _lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def parse_tape(text: str, source: str = "<tape>") -> Tape:
    """Parse the write-up's tape syntax: one ``$N = OP($a, $b)`` per line,
    0-2 inputs, blank lines and ``#`` comments ignored; a numeric operand is
    an immediate.  Raises ``TapeError`` naming the line on bad syntax, use
    before definition, a redefined variable or an empty tape."""
    b = _TapeBuilder(source)
    good_names: set[str] = set()
    for number, line in _lines(text):
        # Fast path with str methods; the regex only words the error.
        out, eq, rest = line.partition("=")
        name, paren, tail = rest.partition("(")
        tail = tail.rstrip(" \t;")
        raw = tail[:-1]
        name = name.strip()
        if (not eq or not paren or not tail.endswith(")") or "(" in raw
                or ")" in raw or (name not in good_names
                                  and not _NAME_RE.fullmatch(name))):
            raise b.error(number, f"expected `$N = OP($a, $b)`, got {line!r}")
        good_names.add(name)
        out = out.strip()
        if not _TAPE_VAR.fullmatch(out):
            raise b.error(number, f"the output {out!r} must be a variable "
                          f"like $3")
        args = [a.strip() for a in raw.split(",")] if raw.strip() else []
        if "" in args:
            raise b.error(number, f"empty operand in {line!r}")
        b.add(number, out, name, args, _TAPE_VAR)
    return b.finish()


def parse_vm(text: str, source: str = "<vm>") -> Tape:
    """Parse the ``.vm`` syntax (``_3 mul _1 _2``, ``_0 const 2.95``,
    ``_1 var-x``): constants and variables are zero-input operations.  The
    operation name is upper-cased with ``-`` as ``_`` (``VAR_X``), so the
    allocated program stays in the write-up's syntax (``r0 = CONST(2.95)``).
    Same errors as ``parse_tape``."""
    b = _TapeBuilder(source)
    for number, line in _lines(text):
        words = line.split()
        if len(words) < 2 or not _VM_VAR.fullmatch(words[0]):
            raise b.error(number, f"expected `_id op operands...`, got {line!r}")
        name = words[1].upper().replace("-", "_")
        if not re.fullmatch(_NAME, name):
            raise b.error(number, f"bad operation name {words[1]!r}")
        b.add(number, words[0], name, words[2:], _VM_VAR)
    return b.finish()


def read_text(path: str) -> str:
    """The UTF-8 text of a file; any I/O or decoding problem becomes one
    ``TapeError`` naming the path (never a traceback)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise TapeError(f"cannot read {path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise TapeError(f"cannot read {path}: {e.strerror or e}") from None


def load_tape(path: str) -> Tape:
    """Read a tape file; ``.vm`` files use ``parse_vm``, others
    ``parse_tape``.  I/O problems become ``TapeError``."""
    text = read_text(path)
    if path.endswith(".vm"):
        return parse_vm(text, path)
    return parse_tape(text, path)
