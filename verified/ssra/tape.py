"""The SSA tape of the solid-state register allocator: straight-line SSA
code, and its two parsers (the write-up's ``$2 = FOO($0, $1)`` lines and the
``.vm`` syntax ``_3 mul _1 _2``).  Errors name the file and the line."""

from __future__ import annotations

import gc

from ..core.errors import PreconditionError, python_class

# `dataclasses` and `typing` are not imported at run time: with what they
# import they were a sixth of a whole `verified ssra alloc` process
# (docs/ssra.md); the annotations below are strings (PEP 563)
TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import re
    from typing import Sequence

    from .ssaop import SsaOp


@python_class
class TapeError(PreconditionError):
    """Bad input: the message names the file (when known) and the line."""


class Tape:
    """Straight-line SSA code, one column per field (no per-operation
    object on the hot path; ``ops`` builds the ``SsaOp`` view on demand).

    Invariants (checked by the parsers): operation ``i`` defines variable
    ``i`` (variables are numbered densely in order of definition, so no
    variable is defined twice), every input is defined by an earlier
    operation, at most two inputs per operation, at least one operation.
    The last operation's output is the program's result.

    * ``names[v]``: the source spelling of variable ``v``;
    * ``opnames[i]``, ``args[i]``, ``inputs[i]``, ``lines[i]``: operation
      ``i``'s name, operands (``SsaOp.args``), SSA inputs and source line.
      When an operation has no literal operand its ``args`` tuple *is* its
      ``inputs`` tuple (the printer relies on that identity only as a
      shortcut: it checks it).

    A plain class with what ``@dataclass`` would write (``__init__``,
    ``__repr__``, ``__eq__`` on every field but ``_ops``): see the imports."""

    __slots__ = ("names", "opnames", "args", "inputs", "lines", "source", "_ops")
    __match_args__ = ("names", "opnames", "args", "inputs", "lines", "source")

    def __init__(self, names: list[str], opnames: list[str], args: list[tuple],
                 inputs: list[tuple], lines: list[int], source: str = "<tape>",
                 _ops: "list[SsaOp] | None" = None) -> None:
        self.names = names
        self.opnames = opnames
        self.args = args
        self.inputs = inputs
        self.lines = lines
        self.source = source
        self._ops = _ops

    def _key(self) -> tuple:
        return (self.names, self.opnames, self.args, self.inputs, self.lines, self.source)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Tape)
        return self._key() == other._key()

    def __repr__(self) -> str:
        return (f"Tape(names={self.names!r}, opnames={self.opnames!r}, args={self.args!r}, "
                f"inputs={self.inputs!r}, lines={self.lines!r}, source={self.source!r})")

    @classmethod
    def from_ops(cls, ops: Sequence[SsaOp], names: list[str], source: str = "<tape>") -> "Tape":
        """A tape from ``SsaOp`` records (built by hand, e.g. in
        ``proofs/``); operation ``i`` must define variable ``i``."""
        if any(op.out != i for i, op in enumerate(ops)):
            raise TapeError(f"{source}: operation i must define variable i")
        return cls(list(names), [op.name for op in ops], [op.args for op in ops],
                   [op.inputs for op in ops], [op.line for op in ops], source)

    @property
    def result(self) -> int:
        return len(self.names) - 1

    @property
    def ops(self) -> list[SsaOp]:
        """The operations as ``SsaOp`` records (built once, on first use:
        the checker, the tracer and the tests read them; the allocator and
        the printer read the columns)."""
        if self._ops is None:
            from .ssaop import SsaOp
            self._ops = [_new_tuple(SsaOp, row) for row in zip(
                range(len(self.names)), self.opnames, self.args, self.lines, self.inputs)]
        return self._ops

    def live(self) -> list[bool]:
        """``live[i]``: operation ``i`` contributes to the result (the ones
        the allocator emits; the others are dead code and are dropped)."""
        needed = [False] * len(self.names)
        needed[self.result] = True
        inputs = self.inputs
        for i in range(len(needed) - 1, -1, -1):
            if needed[i]:
                for v in inputs[i]:
                    needed[v] = True
        return needed

    def format_op(self, op: SsaOp) -> str:
        return f"{self.names[op.out]} = {op.name}(" + ", ".join(
            self.names[a] if isinstance(a, int) else a for a in op.args
        ) + ")"

    def text(self) -> str:
        """The tape in the write-up's syntax."""
        return "".join(self.format_op(op) + "\n" for op in self.ops)


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_new_tuple = tuple.__new__
RESERVED = ("LOAD", "STORE")

#: The patterns of the syntax, by name, compiled (and `re` imported) on
#: first use: a tape in the commonest spelling is read without them
#: (``_parse_canonical``; `re` with `enum` was a sixth of a whole `verified
#: ssra alloc` process, docs/ssra.md).  ``(?m)``: ``re.M``.
_PATTERN_SOURCES = {
    "tape_var": r"\$[A-Za-z0-9_]+",
    "name": _NAME,
    "literal": r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?",
    "vm_var": r"_[A-Za-z0-9_]+",
    # the plain tape line (see _parse_plain)
    "plain_line":
        r"(?m)^[ \t]*+(\$[A-Za-z0-9_]++)[ \t]*+=[ \t]*+([A-Za-z_][A-Za-z0-9_]*+)[ \t]*+"
        r"\([ \t]*+(?:(\$[A-Za-z0-9_]++)[ \t]*+(?:,[ \t]*+(\$[A-Za-z0-9_]++)[ \t]*+)?)?\)"
        r"[ \t;]*+$|^[ \t]*+(?:#.*)?$",
}
_PATTERNS: "dict[str, re.Pattern[str]]" = {}


def _pattern(name: str) -> "re.Pattern[str]":
    """The compiled pattern ``name`` of ``_PATTERN_SOURCES``."""
    pattern = _PATTERNS.get(name)
    if pattern is None:
        import re
        pattern = _PATTERNS[name] = re.compile(_PATTERN_SOURCES[name])
    return pattern


class _TapeBuilder:
    """Shared bookkeeping of both line parsers: defines variables, resolves
    inputs, enforces the tape invariants with errors naming the line."""

    def __init__(self, source: str):
        self.source = source
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.opnames: list[str] = []
        self.args: list[tuple] = []
        self.inputs: list[tuple] = []
        self.lines: list[int] = []
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
            elif _pattern("literal").fullmatch(a):
                args.append(a)
            else:
                raise self.error(line, f"operand {a!r} is neither a variable "
                                 f"nor a numeric literal")
        if len(inputs) > 2:
            raise self.error(line, f"{name} has {len(inputs)} inputs; an "
                             f"operation takes 0, 1 or 2")
        if out in index:
            first = self.lines[index[out]]
            raise self.error(line, f"{out} is defined twice (first on line "
                             f"{first}); SSA variables are assigned once")
        index[out] = len(self.names)
        self.names.append(out)
        self.opnames.append(name)
        ins = tuple(inputs)
        # no literal: args *is* inputs (the Tape docstring)
        self.args.append(ins if len(args) == len(ins) else tuple(args))
        self.inputs.append(ins)
        self.lines.append(line)

    def finish(self) -> Tape:
        if not self.names:
            raise TapeError(f"{self.source}: the tape is empty (no operation)")
        return Tape(self.names, self.opnames, self.args, self.inputs, self.lines,
                    self.source)


def _lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


#: ``_PATTERN_SOURCES["plain_line"]``: the plain tape line of the
#: write-up's syntax, and blank and comment lines (captured as four empty
#: strings): one ``findall`` over the text reads a whole plain tape.
#: Anything else (literal operands, three or more operands, odd whitespace,
#: any error) is left to the line parser.  (Possessive ``*+``/``++``: each
#: is followed by a character its class cannot match, so giving characters
#: back could never help a match; the pattern matches what its plain form
#: matches, with no backtracking state kept: a quarter faster on the
#: write-up's tape.)
#: ASCII characters that ``str.splitlines`` or ``str.strip`` treat as line
#: ends or spaces but the pattern above does not
_ODD_SPACE = "\r\x0b\x0c\x1c\x1d\x1e\x1f"
_BLANK_ROW = ("", "", "", "")


def _parse_canonical(text: str, source: str) -> Tape | None:
    """The first fast path of ``parse_tape``, with str methods alone (no
    `re` to import): the same ``Tape`` as the line parser when every line
    is spelled exactly ``$N = OP()``, ``$N = OP($a)`` or ``$N = OP($a,
    $b)`` (single spaces as shown, none at either end), no line is blank
    or a comment, and the tape is valid; else ``None``.  Agreement with the
    line parser is tested (tests/ssra/test_ssra_fast_paths.py)."""
    if not text.isascii() or any(c in text for c in _ODD_SPACE):
        return None
    rows = text.split("\n")
    if not rows[-1]:
        rows.pop()                       # the final newline
    index: dict[str, int] = {}
    names: list[str] = []
    opnames: list[str] = []
    inputs: list[tuple] = []
    try:
        for i, line in enumerate(rows):
            out, _, rest = line.partition(" = ")
            name, _, tail = rest.partition("(")
            if tail[-1:] != ")":
                return None
            if tail == ")":
                inputs.append(())
            else:
                # a KeyError: not an earlier variable (undefined, used
                # before its definition, or not spelled as above)
                a, comma, b = tail[:-1].partition(", ")
                inputs.append((index[a], index[b]) if comma else (index[a],))
            index[out] = i
            names.append(out)
            opnames.append(name)
    except KeyError:
        return None
    n = len(names)
    if not n or len(index) != n:
        return None                      # empty, or a variable defined twice
    # every output `$` and one or more of [A-Za-z0-9_] (the text is ASCII,
    # where "x" + s is an identifier exactly when s is of those characters):
    # no output holds a newline, so n `$` in all, n of them after a newline
    # of the joined column (or at its start), is one `$` each, in front
    joined = "\n".join(names)
    if (joined.count("$") != n or ("\n" + joined).count("\n$") != n
            or min(map(len, names)) < 2
            or not ("x" + joined.replace("$", "").replace("\n", "")).isidentifier()):
        return None
    if any(not name.isidentifier() or name.upper() in RESERVED for name in set(opnames)):
        return None
    # line k + 1 is variable k + 1's number (and line n is n): the index's
    # own int objects, in order, rather than n new ones
    lines = list(index.values())
    lines.append(n)
    del lines[0]
    return Tape(names, opnames, inputs, inputs, lines, source)


def _parse_plain(text: str, source: str) -> Tape | None:
    """The fast path of ``parse_tape``: the same ``Tape`` as the line parser
    when every line is a plain ``$N = OP($a, $b)`` line with at most two
    variable operands (or blank, or a comment) and the tape is valid; else
    ``None``, and the line parser decides (and words any error).  Agreement
    of the two is tested (tests/ssra/test_ssra.py)."""
    if not text.isascii() or any(c in text for c in _ODD_SPACE):
        return None
    rows = _pattern("plain_line").findall(text)
    if len(rows) != text.count("\n") + 1:
        return None                      # some line is not plain
    blank = rows.count(_BLANK_ROW)
    if blank == len(rows):
        return None                      # empty: the line parser says so
    if blank == 1 and not rows[-1][0]:   # only the end of the text
        rows.pop()
        lines = list(range(1, len(rows) + 1))
    else:
        lines = [k for k, row in enumerate(rows, 1) if row[0]]
        rows = [row for row in rows if row[0]]
    index: dict[str, int] = {}
    inputs: list[tuple] = []
    add = inputs.append
    try:
        for i, (out, _, a, b) in enumerate(rows):
            # a KeyError is an input used before it is defined
            if b:
                add((index[a], index[b]))
            elif a:
                add((index[a],))
            else:
                add(())
            index[out] = i
    except KeyError:
        return None
    if len(index) != len(rows):
        return None                      # a variable defined twice
    opnames = [row[1] for row in rows]
    if any(name.upper() in RESERVED for name in set(opnames)):
        return None
    return Tape([row[0] for row in rows], opnames, inputs, inputs, lines, source)


def parse_tape(text: str, source: str = "<tape>") -> Tape:
    """Parse the write-up's tape syntax: one ``$N = OP($a, $b)`` per line,
    0-2 inputs, blank lines and ``#`` comments ignored; a numeric operand is
    an immediate.  Raises ``TapeError`` naming the line on bad syntax, use
    before definition, a redefined variable or an empty tape.

    A tape in the commonest spelling is read by ``_parse_canonical``, a
    plain tape in one pass (``_parse_plain``); anything else, and every
    error, goes to the line parser ``_parse_lines``, which is the
    specification of the syntax.  (The cyclic collector is paused while
    reading: ``pause_collector``.)"""
    collecting = pause_collector()
    try:
        tape = _parse_canonical(text, source)
        if tape is None:
            tape = _parse_plain(text, source)
        return tape if tape is not None else _parse_lines(text, source)
    finally:
        resume_collector(collecting)


def pause_collector() -> bool:
    """Pause the cyclic garbage collector; whether it was on, for
    ``resume_collector``.  The readers, the allocator and the printer
    (``parse_tape``, ``parse_vm``, ``allocate``, ``Allocation.lines``) each
    run so, in ``try``/``finally``: they make no reference cycles on their
    way (an error's, if any, is collected once the collector is back), and
    the collections that their thousands of new tuples set off walk the
    growing columns again and again, a tenth of parse + allocate + print
    (docs/ssra.md).  A pause left just before (the reader's) hands its
    deferred collection to the next allocation the collector tracks, so
    nothing is allocated before the pause (a ``with`` block's context
    manager would be: its bound ``__enter__`` and ``__exit__``).  As
    ``gc.disable``, the pause is the whole process's, not one thread's."""
    on = gc.isenabled()
    gc.disable()
    return on


def resume_collector(was_on: bool) -> None:
    """The collector back as it was before ``pause_collector``."""
    if was_on:
        gc.enable()


def _parse_lines(text: str, source: str) -> Tape:
    """``parse_tape`` line by line, every check with its message."""
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
                                  and not _pattern("name").fullmatch(name))):
            raise b.error(number, f"expected `$N = OP($a, $b)`, got {line!r}")
        good_names.add(name)
        out = out.strip()
        if not _pattern("tape_var").fullmatch(out):
            raise b.error(number, f"the output {out!r} must be a variable "
                          f"like $3")
        args = [a.strip() for a in raw.split(",")] if raw.strip() else []
        if "" in args:
            raise b.error(number, f"empty operand in {line!r}")
        b.add(number, out, name, args, _pattern("tape_var"))
    return b.finish()


def parse_vm(text: str, source: str = "<vm>") -> Tape:
    """Parse the ``.vm`` syntax (``_3 mul _1 _2``, ``_0 const 2.95``,
    ``_1 var-x``): constants and variables are zero-input operations.  The
    operation name is upper-cased with ``-`` as ``_`` (``VAR_X``), so the
    allocated program stays in the write-up's syntax (``r0 = CONST(2.95)``).
    Same errors as ``parse_tape``; read with the collector paused, as it."""
    collecting = pause_collector()
    try:
        return _read_vm(text, source)
    finally:
        resume_collector(collecting)


def _read_vm(text: str, source: str) -> Tape:
    b = _TapeBuilder(source)
    for number, line in _lines(text):
        words = line.split()
        if len(words) < 2 or not _pattern("vm_var").fullmatch(words[0]):
            raise b.error(number, f"expected `_id op operands...`, got {line!r}")
        name = words[1].upper().replace("-", "_")
        if not _pattern("name").fullmatch(name):
            raise b.error(number, f"bad operation name {words[1]!r}")
        b.add(number, words[0], name, words[2:], _pattern("vm_var"))
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
