"""The JSON-lines wire format of the oracle protocol (``docs/protocol.md``):
decoding a line, validating a request, serving a stream line by line.
``check`` and ``solve`` are built on it.

A request is one JSON object per line::

    {"moves": [[1, 0], [0, 1]], "model": "swap", "temps": [],
     "registers": 2, "preserve": "all", "sequence": [["swap", 0, 1]]}

``check`` answers ``{"ok": true, "length": 1, "optimal": 1}`` or, for a
wrong sequence, ``"ok": false`` with ``"reason"`` and (when the sequence is
legal but leaves a wrong value) ``"counterexample": {"location", "expected",
"got"}``.  A bad line gets ``{"error": "..."}`` and the next line is still
served.  An ``"id"`` in the request is echoed in the answer.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
import re
import stat
import sys
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterable, TextIO

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG, worse
from ..core.memo import remember
from ..core.compact import OpArray, Pairs
from ..core.oracle import check_contract, op_facts, read_sequence_memo
from ..core.semantics import MODELS, ParallelMove, PreconditionError, check_model, location

if TYPE_CHECKING:
    from ..core.machine import MachineRequest

REQUEST_KEYS = ("id", "moves", "model", "temps", "registers", "preserve", "sequence")
_KNOWN_KEYS = frozenset(REQUEST_KEYS)


@dataclass(frozen=True)
class Request:
    pm: ParallelMove
    model: str
    preserve: str
    #: the "sequence" as sent (JSON), None when the request carries none;
    #: it is what ``check`` judges (``oracle.read_sequence``), not validated here
    sequence: object = None
    id: object = None


def parse_any(obj: object, need_sequence: bool) -> "Request | MachineRequest":
    """A request with ``"machine"`` (``core.machine.parse_machine_request``,
    ``docs/machines.md``) or without (``parse_request``, exactly as in round 1)."""
    if isinstance(obj, dict) and "machine" in obj:
        # imported at the first machine request: a run over register
        # requests (conform's answers, check's lines) never loads the
        # machine descriptions (a third of conform's start-up)
        from ..core.machine import parse_machine_request
        return parse_machine_request(obj, need_sequence)
    return parse_request(obj, need_sequence)


def parse_request(obj: object, need_sequence: bool) -> Request:
    """Validate one decoded JSON request; raise PreconditionError naming the
    problem (unknown key, missing field, bad move, bad temporary...).  The
    "sequence" is only required to be present (``need_sequence``): what is
    inside it is judged, not validated (``docs/protocol.md``).  A request with
    ``"machine"`` is ``parse_any``'s; here it is refused by name."""
    if isinstance(obj, dict) and "machine" in obj:
        raise PreconditionError(
            '"machine" requests are not served by this command yet (docs/machines.md)')
    if not isinstance(obj, dict):
        raise PreconditionError(
            f"a request is a JSON object, got {type(obj).__name__}"
        )
    unknown = [] if _KNOWN_KEYS.issuperset(obj) else sorted(set(obj) - _KNOWN_KEYS)
    if unknown:
        raise PreconditionError(
            f"unknown field(s) {', '.join(map(repr, unknown))}; a request has "
            f"{', '.join(REQUEST_KEYS)}"
        )
    if "moves" not in obj:
        raise PreconditionError('missing "moves": a list of [dst, src] pairs')
    if "model" not in obj:
        raise PreconditionError(f'missing "model": one of {", ".join(MODELS)}')
    moves = obj["moves"]
    if type(moves) is not list and not isinstance(moves, (list, Pairs)):
        raise PreconditionError(f'"moves" must be a list of [dst, src] pairs, not {moves!r}')
    model = obj["model"]
    if not isinstance(model, str):
        raise PreconditionError(f'"model" must be a string, not {model!r}')
    check_model(model)
    preserve = obj.get("preserve", "all")
    if not isinstance(preserve, str):
        raise PreconditionError(f'"preserve" must be "all" or "loops", not {preserve!r}')
    check_contract(preserve)
    temps = obj.get("temps", [])
    if not isinstance(temps, list):
        raise PreconditionError(f'"temps" must be a list of locations, not {temps!r}')
    pm = ParallelMove.make(moves, obj.get("registers"), temps)
    if need_sequence and "sequence" not in obj:
        raise PreconditionError('missing "sequence": the operations to check')
    return Request(pm, model, preserve, obj.get("sequence"), obj.get("id"))


# ---------------------------------------------------------------------------
# JSON-lines serving loop, shared by `check` and `solve`
# ---------------------------------------------------------------------------


def decode_line(raw: bytes) -> object:
    """Bytes of one line -> JSON value, or PreconditionError saying why not."""
    return decode_text(decode_utf8(raw))


def decode_utf8(raw: bytes) -> str:
    """The text of one line, or PreconditionError if it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PreconditionError(f"line is not UTF-8 ({e.reason} at byte {e.start})") from None


def decode_text(text: str) -> object:
    """The JSON value of one line's text, or PreconditionError saying why
    not (the strict reader: duplicate keys, NaN and overflowing numbers
    refused)."""
    try:
        return _decoder().decode(text)
    except json.JSONDecodeError as e:
        raise PreconditionError(f"line is not valid JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise PreconditionError("line is not valid JSON: nested too deeply") from None
    except PreconditionError:
        raise
    except ValueError:  # an integer literal longer than Python converts (4300 digits)
        raise PreconditionError("line is not valid JSON here: a number has too many "
                                "digits") from None


@functools.cache
def _decoder() -> json.JSONDecoder:
    # one decoder, built once: json.loads with hooks builds a new one per call
    return json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                            object_pairs_hook=_no_duplicate_keys)


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    # {"model": "temp", "model": "swap"} must not silently mean the last one
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise PreconditionError(
                f"line is not a valid request: the key {json.dumps(key)} appears twice")
        out[key] = value
    return out


def _reject_constant(name: str) -> object:
    # NaN and Infinity are not JSON (RFC 8259); accepting them would echo
    # them back in "id" and make our own answer invalid JSON.
    raise PreconditionError(f"line is not valid JSON: {name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise PreconditionError(f"line is not valid JSON: the number {text[:40]} "
                                f"overflows a double")
    return value


# ---------------------------------------------------------------------------
# The compact reader of huge requests (issue 21)
# ---------------------------------------------------------------------------

#: lines from this many bytes on are first offered to ``decode_compact``
COMPACT_FROM = 1 << 16

_WS = r"[ \t\n\r]*"  # JSON's whitespace (RFC 8259), not Python's \s
_INT = r"(-?(?:0|[1-9][0-9]{0,17}))"  # a JSON integer that fits 64 bits
_OPEN = re.compile(_WS + r"\{")
_KEY = re.compile(_WS + '"(' + "|".join(REQUEST_KEYS + ("machine",)) + ')"' + _WS + ":" + _WS)
_NEXT = re.compile(_WS + "([,}])")
_END = re.compile(_WS + r"\Z")
_EMPTY = re.compile(r"\[" + _WS + r"\]")
_PAIR = re.compile(_WS + r"\[" + _WS + _INT + _WS + "," + _WS + _INT + _WS + r"\]"
                   + _WS + r"([,\]])")
_OP = re.compile(_WS + r"\[" + _WS + '"(mov|swap)"' + _WS + "," + _WS + _INT + _WS + ","
                 + _WS + _INT + _WS + r"\]" + _WS + r"([,\]])")
#: one element of a named "moves" pair or "sequence" operation: an integer,
#: or a plain name (no escape, nothing JSON would read otherwise)
_TOKEN = r'(?:-?(?:0|[1-9][0-9]{0,17})|"[A-Za-z0-9_.]{1,64}")'
_TOKENS = re.compile(_TOKEN)
_ITEM = re.compile(_WS + r"\[" + _WS + "(" + _TOKEN + "(?:" + _WS + "," + _WS + _TOKEN + "){1,3})"
                   + _WS + r"\]" + _WS + r"([,\]])")


def decode_compact(text: str) -> dict | None:
    """The request ``decode_text`` reads from ``text``, with its "moves"
    as ``compact.Pairs`` and its "sequence" as ``compact.OpArray`` when
    they hold only integers (a million pairs in 16 MB, not 150), or, when
    they name locations (register names, a machine's), as JSON's lists
    with each distinct name one string (``_named_array``; a machine
    request's are always lists) -- or None whenever the line is anything
    else: another key, a duplicate key, bad JSON.  None sends the line to the strict
    reader, so every error is the strict reader's.  Every other value is
    read by the strict reader's own scanner; ``tests/protocol`` compares
    the two readers on every golden line, vector line and fuzzed line."""
    m = _OPEN.match(text)
    if m is None:
        return None
    pos, out = m.end(), {}
    scan = _decoder().scan_once
    while True:
        m = _KEY.match(text, pos)
        if m is None or m[1] in out:
            return None
        key, pos = m[1], m.end()
        got = (_compact_array(text, pos, _PAIR) if key == "moves"
               else _compact_array(text, pos, _OP) if key == "sequence" else None)
        if got is None and key in ("moves", "sequence"):
            got = _named_array(text, pos)
        if got is None:
            try:
                got = scan(text, pos)
            except Exception:  # StopIteration, JSON and hook errors: the strict reader's
                return None
        out[key], pos = got
        m = _NEXT.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m[1] == "}":
            if not _END.match(text, pos):
                return None
            if "machine" in out:  # the machine reader takes JSON's lists only
                for k in ("moves", "sequence"):
                    if isinstance(out.get(k), (Pairs, OpArray)):
                        out[k] = [list(v) for v in out[k]]
            return out


def _compact_array(text: str, pos: int, item: re.Pattern) -> tuple[object, int] | None:
    """A non-empty JSON array at ``pos`` whose every element ``item``
    matches, as Pairs (two integers each) or OpArray (a kind and two), with
    the position after it; None if it is anything else."""
    if not text.startswith("[", pos) or _EMPTY.match(text, pos):
        return None
    pos += 1
    flat = array("q")
    kinds = bytearray() if item is _OP else None
    match, append = item.match, flat.append
    while True:
        m = match(text, pos)
        if m is None:
            return None
        if kinds is None:
            append(int(m[1]))
            append(int(m[2]))
        else:
            kinds.append(m[1] == "swap")
            append(int(m[2]))
            append(int(m[3]))
        pos = m.end()
        if m.group(m.lastindex) == "]":
            break
    return (Pairs(flat) if kinds is None else OpArray(kinds, flat)), pos


def _named_array(text: str, pos: int) -> tuple[list, int] | None:
    """A non-empty JSON array at ``pos`` of arrays of 2 to 4 integers and
    plain names (register names, a machine's moves and operations), as the
    strict reader's lists, but each distinct name one string object (JSON
    makes a new string per occurrence: a million ``["swap", "rax",
    "rbx"]`` took 240 MB, this 90), with the position after it; None if it
    is anything else."""
    if not text.startswith("[", pos) or _EMPTY.match(text, pos):
        return None
    pos += 1
    out: list = []
    names: dict[str, str] = {}
    match, tokens, name = _ITEM.match, _TOKENS.findall, names.setdefault
    while True:
        m = match(text, pos)
        if m is None:
            return None
        out.append([name(t[1:-1], t[1:-1]) if t[0] == '"' else int(t) for t in tokens(m[1])])
        pos = m.end()
        if m[2] == "]":
            return out, pos


def decode_request_text(text: str) -> object:
    """A request line's value: the compact reader for a long line (when it
    takes the line), else the flat reader (``decode_flat``) when it takes
    it, else the strict one."""
    if len(text) >= COMPACT_FROM:
        obj = decode_compact(text)
        if obj is not None:
            return obj
    else:
        obj = decode_flat(text)
        if obj is not None:
            return obj
    return decode_text(text)


def decode_flat(text: str) -> dict | None:
    """The strict reader's value of a line that is one JSON object with no
    object inside it (a register request), or None for any other line.
    It is read by JSON's own decoder without the duplicate-key hook (a
    Python call per object, half of reading a request line); the hook is
    needed only where a key could repeat, and here none did: with one "{"
    in the line and as many ":" as the object has keys, each key read had
    a colon of its own (a brace or colon inside a string only raises the
    counts, sending the line to the strict reader).  Every error, and so
    every message, is the strict reader's: None on any failure."""
    if not text.startswith("{") or text.count("{") != 1:
        return None
    try:
        # the scanner itself: decode() would look for whitespace around the
        # value with two regular expressions (a line starts with its "{")
        obj, end = _flat_decoder().scan_once(text, 0)
    except Exception:  # JSON, hook and recursion errors: the strict reader words them
        return None
    if (type(obj) is not dict or len(obj) != text.count(":")
            or (end < len(text) and text[end:].strip(" \t\n\r"))):
        return None  # (after the value, only JSON's whitespace)
    return obj


@functools.cache
def _flat_decoder() -> json.JSONDecoder:
    # the strict reader's hooks on constants and floats, not on objects
    return json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


# ---------------------------------------------------------------------------
# The texts of operations and pairs, each read once (conform's answer lines,
# check's request lines)
# ---------------------------------------------------------------------------

#: an answer line written the usual way, ``{"sequence": [[...], ..., [...]]}``:
#: its head, its tail, what stands between two operations, and the empty one
#: (conform's register and machine answer lines are read from their pieces)
ANSWER_HEAD = b'{"sequence": [['
ANSWER_TAIL = b']]}'
PIECE_SEP = b'], ['
ANSWER_EMPTY = b'{"sequence": []}'

#: the text between the brackets of one operation (b'"mov", 2, 1') ->
#: ``oracle.op_facts`` of the operation it reads as, alone in brackets
#: (False: it does not read as one); bounded, emptied when full
OP_TEXT: dict = {}
OP_TEXT_SIZE = 1 << 14
OP_TEXT_MAX = 64


def learn_op_text(piece: bytes) -> "tuple | None":
    """``op_facts`` of the one operation ``[piece]`` reads as (decoded alone
    by the strict reader, read by ``read_sequence_memo``), kept in
    ``OP_TEXT`` (with False when it is not one: never again decoded)."""
    memo = OP_TEXT
    if piece in memo or len(piece) > OP_TEXT_MAX:
        return None  # known not to be one operation alone, or too long to keep
    got: "tuple | bool" = False
    try:
        value = decode_line(b"[" + piece + b"]")
    except PreconditionError:
        pass
    else:
        parsed = read_sequence_memo([value])
        if type(parsed) is list and len(parsed) == 1:
            got = op_facts(parsed[0])
    return remember(memo, piece, got, OP_TEXT_SIZE) or None


#: the text between the brackets of one move (b'2, 1') -> the pair of
#: locations ``ParallelMove.make`` reads from ``[piece]`` decoded alone
#: (False: it is not a pair of locations); bounded as ``OP_TEXT``
PAIR_TEXT: dict = {}


def learn_pair_text(piece: bytes) -> "tuple | None":
    """The (dst, src) ``ParallelMove.make`` reads from the one move
    ``[piece]`` decodes as (a list of two values, each read by
    ``location``), kept in ``PAIR_TEXT`` (False when it is not one)."""
    memo = PAIR_TEXT
    if piece in memo or len(piece) > OP_TEXT_MAX:
        return None
    got: "tuple | bool" = False
    try:
        pair = decode_line(b"[" + piece + b"]")
        if type(pair) is list and len(pair) == 2:
            got = (location(pair[0]), location(pair[1]))
    except PreconditionError:
        pass
    return remember(memo, piece, got, OP_TEXT_SIZE) or None


def texts_read(text: bytes, memo: dict, learn: Callable[[bytes], "tuple | None"]) -> "list | None":
    """What each piece of ``text`` cut at ``b"], ["`` reads as alone
    (``memo``, else ``learn``), or None when one does not read as one
    (the caller reads the line the long way).  JSON values joined by
    ", " inside brackets are the array of exactly those values, however the
    text was cut: a piece that is not a whole value alone fails."""
    pieces = text.split(PIECE_SEP)
    got = list(map(memo.get, pieces))
    if all(got):
        return got
    for i, one in enumerate(got):  # a text not seen yet (or known not to be one)
        if not one:
            one = learn(pieces[i])
            if one is None:
                return None
            got[i] = one
    return got


class Streamed:
    """A JSON array in an answer whose items are made while it is written
    (``_write_answer``): a million-operation ``"sequence"`` is never held
    as a million JSON lists, nor as one string.  The bytes are those of
    ``json.dumps(list(items))``."""

    __slots__ = ("items",)

    #: items encoded per ``json.dumps`` call (C speed, a bounded string)
    CHUNK = 4096

    def __init__(self, items: Iterable) -> None:
        self.items = items

    def write(self, out: TextIO) -> None:
        out.write("[")
        items, sep = iter(self.items), ""
        while chunk := list(itertools.islice(items, self.CHUNK)):
            out.write(sep)
            out.write(json.dumps(chunk)[1:-1])
            sep = ", "
        out.write("]")


def _write_fields(out: TextIO, fields: dict) -> None:
    """``json.dumps(fields)`` without its opening brace, byte for byte (a
    ``Streamed`` value written as it is made)."""
    if not any(isinstance(v, Streamed) for v in fields.values()):
        out.write(json.dumps(fields)[1:])
        return
    sep = ""
    for key, value in fields.items():
        out.write(sep)
        out.write(json.dumps(key))
        out.write(": ")
        if isinstance(value, Streamed):
            value.write(out)
        else:
            out.write(json.dumps(value))
        sep = ", "
    out.write("}")


def _write_answer(out: TextIO, answer: dict, obj: object) -> None:
    """One answer line, ``json.dumps({"id": id, **answer})`` when the
    request has an "id", byte for byte, written in pieces: a 50 MB id is
    not copied into one more string per concatenation, a ``Streamed``
    sequence is written as it is made."""
    if isinstance(obj, dict) and "id" in obj:
        if answer and "id" not in answer:
            out.write('{"id": ')
            out.write(json.dumps(obj["id"]))
            out.write(", ")
            _write_fields(out, answer)
            out.write("\n")
            return
        answer = {"id": obj["id"], **answer}
    out.write("{")
    _write_fields(out, answer)
    out.write("\n")


def serve(
    stream: BinaryIO,
    out: TextIO,
    handle: Callable[[object], tuple[dict, int]],
    memo: "dict[bytes, tuple[str, int]] | None" = None,
    fast: "Callable[[bytes], tuple[str, int] | None] | None" = None,
) -> int:
    """Answer each non-blank line of ``stream`` with one JSON line.

    ``handle(decoded) -> (answer, status)``; a PreconditionError (or any
    other exception: never a traceback, the next line is still served)
    becomes ``{"error": ...}`` with status 2.  Returns the exit status:
    1 if any answer was wrong, else 2 if any line was bad, else 0.

    ``memo``, for a ``handle`` that is a pure function of the line (check's),
    keeps the answer line of each short line that was not bad input (an
    error names its line number) so that a repeated line is answered
    without being read again.

    ``fast(line) -> (answer line, status)``, or None to leave the line to
    ``handle``: the same answer, read a shorter way from a line written
    the usual way (check's ``fast_answer``); it never answers bad input.
    """
    wrong = bad = False
    lineno = 0
    # every answer made is flushed before each read that may wait, for a
    # partner that waits for an answer before it writes the next request
    # (a pipe, a terminal); the lines one read brought are answered first,
    # so a partner that writes ahead gets its answers a read at a time (a
    # system call per line was a tenth of a `check` of 20,000 lines).  A
    # regular file waits on no one: its answers go out in the output's buffer
    flush = out.flush if not _regular_file(stream) else None
    lines = _Lines(stream)
    while True:
        if lines.waits() and flush is not None:
            flush()
        raw = lines.next()
        if raw is None:
            break
        lineno += 1
        if raw.isspace():
            continue
        if memo is not None:
            known = memo.get(raw)
            if known is not None:
                out.write(known[0])
                wrong |= known[1] == EXIT_WRONG
                continue
            key = raw if len(raw) <= MEMO_LINE else None
        if fast is not None:
            try:
                got = fast(raw)
            except Exception:  # a bug of the shorter way: the long way answers
                got = None
            if got is not None:
                line, status = got
                out.write(line)
                wrong |= status == EXIT_WRONG
                if memo is not None and key is not None and len(memo) < MEMO_LINES:
                    memo[key] = got
                continue
        obj = None
        try:
            text = decode_utf8(raw)
            del raw  # the bytes are not needed once decoded: a huge line is held once
            obj = decode_request_text(text)
            del text
            answer, status = handle(obj)
        except PreconditionError as e:
            answer, status = {"error": f"line {lineno}: {e}"}, EXIT_BAD_INPUT
        except RecursionError:
            answer, status = {"error": f"line {lineno}: input nested too deeply"}, EXIT_BAD_INPUT
        except Exception as e:  # a bug of ours: report it, keep serving
            answer = {"error": f"line {lineno}: internal error {type(e).__name__}: {e} "
                      "(please report this request)"}
            status = EXIT_BAD_INPUT
        wrong |= status == EXIT_WRONG
        bad |= status == EXIT_BAD_INPUT
        line = _answer_line(answer, obj)
        if line is None:
            _write_answer(out, answer, obj)
        else:
            out.write(line)
            if (memo is not None and key is not None and status != EXIT_BAD_INPUT
                    and len(memo) < MEMO_LINES):
                memo[key] = (line, status)
        raw = text = obj = answer = key = line = None  # not kept while the next line is read
    out.flush()  # a file's answers out before the next file's messages on stderr
    return EXIT_WRONG if wrong else EXIT_BAD_INPUT if bad else EXIT_OK


#: ``serve``'s memo keeps lines of at most this many bytes, at most this many:
#: about 19 MB with their answers when every line is that long and echoes an
#: "id" as long (measured), a few MB for requests of 100 to 300 bytes
MEMO_LINE = 1 << 9
MEMO_LINES = 1 << 14


def _answer_line(answer: dict, obj: object) -> str | None:
    """``_write_answer``'s bytes as one string, for a small answer with no
    ``Streamed`` value and a request without "id" or with a small one;
    None for any other (written in pieces by ``_write_answer``)."""
    for value in answer.values():
        if isinstance(value, Streamed):
            return None
    if isinstance(obj, dict) and "id" in obj:
        if not answer or "id" in answer:
            return None
        ident = json.dumps(obj["id"])
        if len(ident) > MEMO_LINE:
            return None
        return '{"id": ' + ident + ", " + json.dumps(answer)[1:] + "\n"
    return json.dumps(answer) + "\n"


class _Lines:
    """The lines of a binary stream, each as its ``readline`` returns it,
    read a block at a time (``read1``: what one read brings, one system
    call) and cut at each newline; a line longer than a block is finished
    by ``readline`` and joined once.  ``waits()`` says whether the next
    line needs a read that may wait (so answers are flushed before it)."""

    BLOCK = 1 << 16

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.read1 = getattr(stream, "read1", None)
        self.block = b""  # what the last read brought, from ``self.at`` on
        self.at = 0
        self.done = False

    def waits(self) -> bool:
        return self.block.find(b"\n", self.at) < 0 and not self.done

    def next(self) -> bytes | None:
        if self.read1 is None:  # a stream without read1: a line at a time
            return self.stream.readline() or None
        block, at = self.block, self.at
        end = block.find(b"\n", at)
        if end >= 0:
            self.at = end + 1
            return block[at:end + 1]
        # the rest of the block is the start of a line (or nothing)
        head = block[at:]
        self.block, self.at = b"", 0
        del block
        if self.done:
            return head or None
        more = self.read1(self.BLOCK)
        if not more:
            self.done = True
            return head or None
        end = more.find(b"\n")
        if end < 0:  # a long line: the rest of it at once, joined once
            return head + more + self.stream.readline()
        self.block, self.at = more, end + 1
        return head + more[:end + 1] if head else more[:end + 1]


def _regular_file(stream: BinaryIO) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # no descriptor (a BytesIO): flush
        return False


def serve_paths(
    paths: list[str],
    out: TextIO,
    handle: Callable[[object], tuple[dict, int]],
    command: str,
    memo: "dict[bytes, tuple[str, int]] | None" = None,
    fast: "Callable[[bytes], tuple[str, int] | None] | None" = None,
) -> int:
    """``serve`` every file of ``paths`` in turn (none, or ``-``: stdin).

    A path that cannot be read (missing, a directory, no permission, a read
    error half-way) is reported on stderr as one line, ``verified COMMAND:
    error: cannot read PATH: why``, and the next file is still served: each
    file is checked.  Returns the worst status (``core.exits.worse``: a
    wrong answer outranks bad input).  ``memo``: ``serve``'s, one for
    every file; ``fast``: ``serve``'s."""
    status = EXIT_OK
    for path in paths or ["-"]:
        if path == "-":
            status = worse(status, serve(sys.stdin.buffer, out, handle, memo, fast))
            continue
        try:
            with open(path, "rb") as stream:
                status = worse(status, serve(stream, out, handle, memo, fast))
        except BrokenPipeError:
            raise  # our reader went away, not the file: cli.main ends quietly
        except OSError as e:
            print(f"verified {command}: error: cannot read {path}: "
                  f"{e.strerror or e}", file=sys.stderr)
            status = worse(status, EXIT_BAD_INPUT)
    return status
