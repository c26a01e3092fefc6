"""``verified check``: the oracle over the wire (``docs/protocol.md``).
Reads one JSON request per line, answers each with the verdict of
``core.oracle.implements`` and the optimum of ``algorithms.optimum``."""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import re
import sys
from typing import TYPE_CHECKING, Iterator, TextIO

from ..core.exits import EXIT_OK, EXIT_WRONG
from ..core.errors import check_registers
from ..core.oracle import Verdict, implements, read_sequence_memo
from ..core.semantics import ParallelMove, PreconditionError
from ..core.memo import remember
from .wire import (
    OP_TEXT, PAIR_TEXT, PIECE_SEP, Request, decode_line, learn_op_text, learn_pair_text,
    parse_any, serve_paths, texts_read)

if TYPE_CHECKING:  # the machine model is imported at the first machine request
    from ..core.machine import MachineOptimum, MachineRequest


def check_request(req: Request) -> dict:
    """The oracle's JSON answer for one parsed request with a sequence."""
    ops = read_sequence_memo(req.sequence)
    verdict = ops if isinstance(ops, Verdict) else implements(
        req.pm, ops, req.model, req.preserve)
    return _answer(verdict, req.pm, req.model, req.preserve)


def _answer(verdict: Verdict, pm: ParallelMove, model: str, preserve: str) -> dict:
    """The answer: the verdict's fields and the optimum's."""
    out = verdict.to_json()
    best = _optimum()(pm, model, preserve)
    out["optimal"] = best.length
    if best.note:
        out["optimal_note"] = best.note
    return out


#: a register request written as ``json.dumps`` writes it, with these keys
#: in this order: "moves", "registers" (or none), "model", "sequence"; each
#: move's and each operation's text between its brackets is read alone
#: (``wire.texts_read``)
_PLAIN = re.compile(
    rb'\{"moves": \[(?:\[(.*?)\])?\], (?:"registers": (0|[1-9][0-9]{0,7}), )?'
    rb'"model": "(temp|swap|permi|spill)", "sequence": \[(?:\[(.*)\])?\]\}\n?', re.S)
#: longer lines are read the long way (the pattern backtracks)
_PLAIN_MAX = 1 << 12
#: an ok answer line per (length, optimum): ``json.dumps`` once for each
_OK_LINES: dict = {}


def fast_answer(raw: bytes) -> "tuple[str, int] | None":
    """``serve``'s shorter way for check: a machine line written plainly
    (``fast_machine_answer``) or a register line (``fast_register_answer``)."""
    if raw.startswith(MACHINE_HEAD):
        return fast_machine_answer(raw)
    return fast_register_answer(raw)


def fast_register_answer(raw: bytes) -> "tuple[str, int] | None":
    """The answer line ``serve`` would write for ``raw`` and its status, for
    a request line written plainly (``_PLAIN``) that is not bad input;
    None for any other line, which is read the long way.

    Why it is the line's own answer: each move's text, alone in brackets,
    was decoded by the strict reader and read by ``location`` as
    ``ParallelMove.make`` reads a move (``wire.PAIR_TEXT``), each
    operation's as ``read_sequence_memo`` reads it (``wire.OP_TEXT``);
    JSON values joined by ", " inside brackets are the array of exactly
    those values, the rest of the line is ASCII and names four distinct
    keys, so the strict reader would read the object whose arrays these
    are.  ``make``'s checks beyond each move (distinct destinations, the
    declared register file) are ``ParallelMove.of_read_pairs``', and
    anything they refuse goes the long way for its message; the verdict is ``implements``' and the
    optimum ``optimum``'s."""
    if len(raw) > _PLAIN_MAX:
        return None
    m = _PLAIN.fullmatch(raw)
    if m is None:
        return None
    moves_text, regs_text, model_text, seq_text = m.groups()
    pairs = [] if moves_text is None else texts_read(moves_text, PAIR_TEXT, learn_pair_text)
    facts = [] if seq_text is None else texts_read(seq_text, OP_TEXT, learn_op_text)
    if pairs is None or facts is None:
        return None
    n = None
    if regs_text is not None:
        n = int(regs_text)
        try:
            check_registers(n)
        except PreconditionError:
            return None
    pm = ParallelMove.of_read_pairs(tuple(pairs), n)
    if pm is None:
        return None  # make refuses them: the long way words why
    model = model_text.decode()
    # implements itself: faster here than building the Effect for one move
    verdict = implements(pm, [f[0] for f in facts], model, "all")
    status = EXIT_OK if verdict.ok else EXIT_WRONG
    if verdict.ok:
        best = _optimum()(pm, model, "all")
        key = (verdict.length, best.length, best.note)
        line = _OK_LINES.get(key)
        if line is None:
            line = _OK_LINES[key] = json.dumps(_answer(verdict, pm, model, "all")) + "\n"
        return line, status
    return json.dumps(_answer(verdict, pm, model, "all")) + "\n", status


#: how a machine request written by ``json.dumps`` starts
MACHINE_HEAD = b'{"machine": "'
#: a machine request naming a preset or profile, written as ``json.dumps``
#: writes it, with these keys in this order: "machine", "moves", "temps"
#: (or none), "preserve" (or none), "sequence"; the moves' and the
#: operations' texts between their brackets are read alone (``_pieces``)
_MACHINE_PLAIN = re.compile(
    rb'\{"machine": "([A-Za-z0-9_.-]{1,64})", "moves": \[(?:\[(.*?)\])?\], '
    rb'(?:"temps": \[(.*?)\], )?(?:"preserve": "(all|loops)", )?'
    rb'"sequence": \[(?:\[(.*)\])?\]\}\n?', re.S)
#: an item's text -> the JSON value ``[text]`` holds alone (False: it is
#: not one value alone); bounded (``remember``)
_PIECE_VALUE: dict = {}
_PIECE_VALUE_SIZE = 1 << 15
_PIECE_VALUE_MAX = 256


def _piece_value(piece: bytes) -> object:
    """The JSON value ``[piece]`` holds, decoded alone by the strict reader
    and remembered; False when it is not one value (or too long to keep)."""
    return _decoded_alone(piece, _PIECE_VALUE, _PIECE_VALUE_SIZE)


def _decoded_alone(text: bytes, memo: dict, size: int) -> object:
    """``[text]`` decoded by the strict reader, kept in ``memo`` (at most
    ``size`` entries, ``remember``); False when it is not JSON (or too
    long to keep)."""
    value = memo.get(text)
    if value is None:
        if len(text) > _PIECE_VALUE_MAX:
            return False
        try:
            value = decode_line(b"[" + text + b"]")
        except PreconditionError:
            value = False
        remember(memo, text, value, size)
    return value


def _item_texts(text: bytes) -> "list[bytes] | None":
    """The texts of the items of the JSON array ``[[text]]``, each between
    its brackets: ``text`` cut at ``"], ["``, a piece that is not one JSON
    value alone joined with the next (an item with a list inside, as
    ``[["a0", "a1"], "d0"]``); None when the end is reached with no value
    (the caller reads the line the long way).  JSON values joined by ", "
    inside brackets are the array of exactly those values, wherever the
    text was cut (``wire.texts_read``)."""
    out = []
    pending = None
    memo = _PIECE_VALUE
    for piece in text.split(PIECE_SEP):
        if pending is not None:
            piece = pending + PIECE_SEP + piece
        value = memo.get(piece)
        if value is None:
            value = _piece_value(piece)
        if value is False:
            if len(piece) > _PIECE_VALUE_MAX:
                return None
            pending = piece
            continue
        pending = None
        out.append(piece)
    return None if pending is not None else out


def _piece_values(text: bytes) -> "list | None":
    """The values of the items ``_item_texts`` finds in ``text``, or None."""
    items = _item_texts(text)
    return None if items is None else [_PIECE_VALUE[p] if p in _PIECE_VALUE
                                        else _piece_value(p) for p in items]


#: the temporaries' texts (a run's requests share a few) -> their JSON list
_TEMPS_VALUE: dict = {}


def _temps_value(text: bytes) -> "list | None":
    """The JSON list ``[text]``, decoded by the strict reader and remembered,
    or None when it is not one."""
    value = _decoded_alone(text, _TEMPS_VALUE, 1 << 8)
    return value if type(value) is list else None


def fast_machine_answer(raw: bytes) -> "tuple[str, int] | None":
    """The answer line ``serve`` would write for ``raw`` and its status, for
    a machine request written plainly (``_MACHINE_PLAIN``) that is not bad
    input; None for any other line, which is read the long way.

    Why it is the line's own answer: the line is the object whose
    "moves" and "sequence" are the arrays of its pieces' values
    (``_piece_values``), "temps" the list its text decodes to, the rest
    ASCII naming distinct keys.  The request is ``parse_machine_request``'s
    (any PreconditionError, bad input, goes the long way, which words it);
    the verdict is ``check_machine_request``'s: ``read_machine_sequence``
    over what ``_read_op`` made of each operation's text (kept per machine,
    ``_op_facts``), then ``judge`` of the state ``run_effects`` reaches
    with the operations' ``effects``, and the sum of their ``op_cost``
    (``cost``); the answer ``_machine_answer``'s."""
    if len(raw) > _PLAIN_MAX:
        return None
    got = _MACHINE_PLAIN.fullmatch(raw)
    if got is None:
        return None
    name, moves_text, temps_text, preserve, seq_text = got.groups()
    M = _machine()
    try:
        m = M.machine(name.decode())
    except PreconditionError:
        return None
    facts = [] if seq_text is None else _op_facts(m, seq_text)
    if facts is None:
        return None
    req = _machine_request(m, moves_text, temps_text, preserve)
    if req is None:
        return None
    ops = M.read_machine_sequence(m, facts, _read_fact)
    if isinstance(ops, M.MachineVerdict):
        verdict = ops
    else:
        verdict = M.judge(req.move, M.run_effects([f[2] for f in facts]), req.preserve,
                          len(ops), sum([f[3] for f in facts]))
    # json.dumps of the answer, _machine_answer's dict: the verdict's
    # fields, then the optimum's, made once per request (``_optimum_tail``)
    line = json.dumps(verdict.to_json())[:-1] + _optimum_tail(m, req, got.group(2, 3, 4))
    return line, EXIT_OK if verdict.ok else EXIT_WRONG


def _optimum_tail(m, req: MachineRequest, texts: tuple) -> str:
    """``json.dumps`` of ``_optimum_fields(req)`` after the verdict's
    fields: ``, "optimal": ...}`` and the newline; kept in the machine's
    memo by the request's texts and the optimum module's name (a pure
    function of both)."""
    table = m.memo.table(_optimum_tail)
    key = (MACHINE_OPTIMUM, texts)
    tail = table.get(key)
    if tail is None:
        tail = ", " + json.dumps(_optimum_fields(req))[1:] + "\n"
        if len(table) < _machine().description.MEMO_LIMIT:
            table[key] = tail
    return tail


def _machine_request(m, moves_text: "bytes | None", temps_text: "bytes | None",
                     preserve: "bytes | None") -> "MachineRequest | None":
    """``parse_machine_request`` of the request on ``m`` whose "moves"
    items, "temps" items and "preserve" have these texts (None: the key is
    absent) and which has a "sequence" (not read here: the request keeps
    None), or None when it refuses it (bad input, or a text that is not
    what the line's pattern says).  A pure function of the texts, kept in
    the machine's own memo: a run's requests repeat their moves."""
    M = _machine()
    table = m.memo.table(_machine_request)
    key = (moves_text, temps_text, preserve)
    req = table.get(key)
    if req is None:
        req = False
        moves = [] if moves_text is None else _piece_values(moves_text)
        obj: dict = {"machine": m, "moves": moves}
        if temps_text is not None:
            obj["temps"] = [] if not temps_text else _temps_value(temps_text)
        if preserve is not None:
            obj["preserve"] = preserve.decode()
        if moves is not None and obj.get("temps", ()) is not None:
            try:
                req = M.parse_machine_request(obj, False)
            except PreconditionError:
                pass
        if len(table) < M.description.MEMO_LIMIT and len(moves_text or b"") <= _PLAIN_MAX:
            table[key] = req
    return req or None


def _op_facts(m, text: bytes) -> "list | None":
    """For each operation of the sequence whose items are ``text``
    (``_piece_values``' cut), what ``_read_op`` reads from it on ``m``:
    (op, why the machine forbids it or None, its ``effects``, its
    ``op_cost``; the last two None when forbidden), or the message of the
    PreconditionError it raised; None when the text is not such items
    (``_item_texts``).  Kept in the machine's own memo (``Memo``), by
    text."""
    table = m.memo.table(_op_facts)
    out = list(map(table.get, text.split(PIECE_SEP)))
    if None not in out:  # each piece an operation's text seen before
        return out
    items = _item_texts(text)
    if items is None:
        return None
    M = _machine()
    out = []
    for piece in items:
        fact = table.get(piece)
        if fact is None:
            fact = _learn_op_fact(M, m, piece)
            if len(table) < M.description.MEMO_LIMIT:
                table[piece] = fact
        out.append(fact)
    return out


def _learn_op_fact(M, m, piece: bytes) -> "tuple | str":
    """``_op_facts`` of one item's text (one JSON value alone), without
    the memo."""
    value = _PIECE_VALUE[piece] if piece in _PIECE_VALUE else _piece_value(piece)
    try:
        op, reason = M.oracle._read_op(m, value)
    except PreconditionError as e:
        return str(e)
    if reason is not None:
        return (op, reason, None, None)
    return (op, None, M.effects(m, op), M.op_cost(m, op))


def _read_fact(m, fact: "tuple | str") -> tuple:
    """``read_machine_sequence``'s reader over ``_op_facts``: what
    ``_read_op`` returned, or the PreconditionError it raised."""
    if type(fact) is str:
        raise PreconditionError(fact)
    return fact[0], fact[1]


#: the module that computes the optimum of a machine request (a function
#: ``optimum(request: MachineRequest) -> MachineOptimum``); until it exists,
#: ``"optimal"`` is null with an ``"optimal_note"`` saying so
MACHINE_OPTIMUM = "verified.algorithms.machine_optimum"


def machine_optimum(req: MachineRequest) -> MachineOptimum:
    """The optimum of a machine request through the ``MACHINE_OPTIMUM`` hook."""
    module = _optimum_module(MACHINE_OPTIMUM)
    if module is None:
        return _machine().MachineOptimum(None, "the optimum on a machine is not computed by this "
                              "version")
    return module.optimum(req)


@functools.cache
def _optimum():
    # the register optimum (and the transfer graph it counts), imported at
    # the first register request: a run over machine lines never loads them
    from ..algorithms.optimum import optimum
    return optimum


@functools.cache
def _machine():
    # the machine model, imported at the first machine request: a run over
    # register lines never loads the machine descriptions
    from ..core import machine
    return machine


@functools.cache
def _optimum_module(name: str):
    # looked up once per module name: a failed import is not cached by
    # Python, and searching the path again for every line costs more than
    # judging the line
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return None


def check_machine(req: MachineRequest) -> dict:
    """The oracle's JSON answer for a machine request (``docs/machines.md``):
    the verdict, the sequence's cost, and ``"optimal"`` (the minimum total
    cost, or null with ``"optimal_note"``)."""
    return _machine_answer(_machine().check_machine_request(req), req)


def _machine_answer(verdict, req: MachineRequest) -> dict:
    """The answer to a machine request: the verdict's fields and the
    optimum's."""
    out = verdict.to_json()
    out.update(_optimum_fields(req))
    return out


def _optimum_fields(req: MachineRequest) -> dict:
    """``"optimal"`` (the minimum cost, or null) and, with a note,
    ``"optimal_note"``."""
    best = machine_optimum(req)
    out: dict = {"optimal": best.cost}
    if best.note:
        out["optimal_note"] = best.note
    return out


CHECK_HELP = """\
Reads one JSON request per line (from FILEs or stdin) and writes one JSON
answer per line to stdout.

request fields:
  moves      [[dst, src], ...]   the parallel move; destinations distinct
  model      "temp" | "swap" | "permi" | "spill"   which operations are allowed
  sequence   [op, ...]            the sequence to check, each op one of
             ["mov", dst, src]  ["swap", a, b]  ["perm", [[dst, src], ...]]
             ["load", reg, slot]  ["store", reg, slot]
  temps      [loc, ...]           locations the sequence may overwrite freely
  registers  n                    register file r0..r{n-1} (default: the
                                  locations the moves name)
  preserve   "all" (default) | "loops"   what must survive: "all" = every
             location not written by the move keeps its value (CompCert);
             "loops" = only destinations, [u, u] keeps u (permi paper)
  id         anything; echoed back

A location is a register number (3 = r3) or a name ("rax", "m0", "t").

machine requests (docs/machines.md): "machine": a preset (x86-64, aarch64,
riscv64, armv7-vfp; `verified machines`) or a machine object, instead of
"model" and "registers".  Locations are then the machine's register and
slot names, lists of them for multi-register values (["a0", "a1"]), and
{"imm": k} as a source; the answer adds "cost", and an operation the
machine lacks is a wrong sequence (exit 1).
  {"machine": "x86-64", "moves": [["m0","m1"],["m1","m0"]], "temps": ["rax"],
   "sequence": [["mov","rax","m0"],["swap","rax","m1"],["mov","m0","rax"]]}

answers:
  {"ok": true, "length": 1, "optimal": 1}
  {"ok": false, "length": 2, "optimal": 2, "reason": "...",
   "counterexample": {"location": 2, "expected": "r1", "got": "r0"}}
  {"error": "line 3: destination r1 is written twice: ..."}
  a line with "unsupported" or "failure" (a program's answer that is not a
  sequence) is bad input, like any other line that is not a request:
  {"error": "line 1: \"failure\" is an answer that gives no sequence ..."}

exit status (docs/exit-codes.md): 0 every sequence ok; 1 some sequence
wrong (this outranks bad input); 2 no sequence wrong but some line was bad
input or some FILE could not be read (each FILE is still checked; an
unreadable one is named on stderr).

example:
  echo '{"moves": [[1,0],[0,1]], "model": "swap", "sequence": [["swap",0,1]]}' \\
    | verified check
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = CHECK_HELP
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="JSON-lines files to check (default: stdin; - is stdin)")


#: the fields of a program's answer that are not a sequence (``docs/protocol.md``):
#: check judges sequences, so a line carrying one is bad input, named as such
NOT_A_SEQUENCE = {"unsupported": "a declined case", "failure": "the program failed"}


def _handle_check(obj: object) -> tuple[dict, int]:
    if isinstance(obj, dict):
        for key, what in NOT_A_SEQUENCE.items():
            if key in obj:
                raise PreconditionError(
                    f'"{key}" is an answer that gives no sequence ({what}), not a field '
                    f'of a request: check judges a "sequence"; `verified conform` judges '
                    f"declines and failures (docs/conform.md)")
    req = parse_any(obj, need_sequence=True)
    answer = check_request(req) if isinstance(req, Request) else check_machine(req)
    return answer, EXIT_OK if answer["ok"] else EXIT_WRONG


def run(args: argparse.Namespace) -> int:
    # a verdict is a pure function of its line: a repeated line is answered
    # from the memo (small moves repeat: a quarter of 20,000 random ones of
    # 8 registers)
    with _buffered(sys.stdout) as out:
        return serve_paths(args.files, out, _handle_check, "check", memo={},
                           fast=fast_answer)


@contextlib.contextmanager
def _buffered(out: TextIO) -> Iterator[TextIO]:
    """``out`` with its writes buffered while check serves: with
    PYTHONUNBUFFERED set (or ``-u``) each answer line was a system call of
    its own, a tenth of a run's CPU.  ``serve`` flushes before every read
    that may wait and at the end of each file, so a partner that waits for
    an answer gets it, and a file's answers come before the next file's
    messages on stderr; the bytes are the same.  Restored (flushed) after."""
    reconfigure = getattr(out, "reconfigure", None)
    if reconfigure is None or not getattr(out, "write_through", False):
        yield out
        return
    reconfigure(write_through=False)
    try:
        yield out
    finally:
        reconfigure(write_through=True)
