"""The JSON-lines oracle protocol (DESIGN.md, "The oracle protocol") and the
``verified check`` subcommand.

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

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterable, TextIO

from .oracle import check_contract, implements, optimum
from .semantics import (
    MODELS,
    Operation,
    ParallelMove,
    PreconditionError,
    check_model,
    sequence,
)

REQUEST_KEYS = ("id", "moves", "model", "temps", "registers", "preserve", "sequence")

#: Largest declared register file a request may ask for (see parse_request).
MAX_REQUEST_REGISTERS = 1 << 20

#: Exit statuses shared by every subcommand that speaks the protocol.
EXIT_OK, EXIT_WRONG, EXIT_BAD_INPUT = 0, 1, 2


@dataclass(frozen=True)
class Request:
    pm: ParallelMove
    model: str
    preserve: str
    ops: list[Operation] | None  # None when the request carries no sequence
    id: object = None


def parse_request(obj: object, need_sequence: bool) -> Request:
    """Validate one decoded JSON request; raise PreconditionError naming the
    problem (unknown key, missing field, bad move, bad operation)."""
    if not isinstance(obj, dict):
        raise PreconditionError(
            f"a request is a JSON object, got {type(obj).__name__}"
        )
    unknown = sorted(set(obj) - set(REQUEST_KEYS))
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
    if not isinstance(moves, list):
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
    registers = obj.get("registers")
    if (isinstance(registers, int) and not isinstance(registers, bool)
            and registers > MAX_REQUEST_REGISTERS):
        # the oracle materialises the register file (every non-destination
        # must keep its value): 2**31 - 1 registers was a 24 GB request
        raise PreconditionError(
            f'"registers" is {registers}; this oracle takes at most '
            f"{MAX_REQUEST_REGISTERS} per request")
    pm = ParallelMove.make(moves, registers, temps)
    ops = None
    if need_sequence:
        if "sequence" not in obj:
            raise PreconditionError('missing "sequence": the operations to check')
        if not isinstance(obj["sequence"], list):
            raise PreconditionError('"sequence" must be a list of operations')
        ops = sequence(obj["sequence"])
    return Request(pm, model, preserve, ops, obj.get("id"))


def check_request(req: Request) -> dict:
    """The oracle's JSON answer for one parsed request with a sequence."""
    verdict = implements(req.pm, req.ops, req.model, req.preserve)
    out = verdict.to_json()
    best = optimum(req.pm, req.model, req.preserve)
    out["optimal"] = best.length
    if best.note:
        out["optimal_note"] = best.note
    return out


# ---------------------------------------------------------------------------
# JSON-lines serving loop, shared by `check` and `solve`
# ---------------------------------------------------------------------------


def decode_line(raw: bytes) -> object:
    """Bytes of one line -> JSON value, or PreconditionError saying why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PreconditionError(f"line is not UTF-8 ({e.reason} at byte {e.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise PreconditionError(f"line is not valid JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise PreconditionError("line is not valid JSON: nested too deeply") from None
    except PreconditionError:
        raise
    except ValueError:  # an integer literal longer than Python converts (4300 digits)
        raise PreconditionError("line is not valid JSON here: a number has too many "
                                "digits") from None


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


def serve(
    stream: BinaryIO,
    out: TextIO,
    handle: Callable[[object], tuple[dict, int]],
) -> int:
    """Answer each non-blank line of ``stream`` with one JSON line.

    ``handle(decoded) -> (answer, status)``; a PreconditionError (or any
    other exception: never a traceback, the next line is still served)
    becomes ``{"error": ...}`` with status 2.  Returns the exit status:
    1 if any answer was wrong, else 2 if any line was bad, else 0.
    """
    wrong = bad = False
    for lineno, raw in enumerate(stream, 1):
        if not raw.strip():
            continue
        obj = None
        try:
            obj = decode_line(raw)
            answer, status = handle(obj)
        except PreconditionError as e:
            answer, status = {"error": f"line {lineno}: {e}"}, EXIT_BAD_INPUT
        except RecursionError:
            answer, status = {"error": f"line {lineno}: input nested too deeply"}, EXIT_BAD_INPUT
        except Exception as e:  # a bug of ours: report it, keep serving
            answer = {"error": f"line {lineno}: internal error {type(e).__name__}: {e} "
                      "(please report this request)"}
            status = EXIT_BAD_INPUT
        if isinstance(obj, dict) and "id" in obj:
            answer = {"id": obj["id"], **answer}
        wrong |= status == EXIT_WRONG
        bad |= status == EXIT_BAD_INPUT
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return EXIT_WRONG if wrong else EXIT_BAD_INPUT if bad else EXIT_OK


def open_inputs(paths: list[str]) -> Iterable[BinaryIO]:
    if not paths:
        yield sys.stdin.buffer
        return
    for p in paths:
        if p == "-":
            yield sys.stdin.buffer
        else:
            with open(p, "rb") as f:
                yield f


# ---------------------------------------------------------------------------
# `verified check`
# ---------------------------------------------------------------------------

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

answers:
  {"ok": true, "length": 1, "optimal": 1}
  {"ok": false, "length": 2, "optimal": 2, "reason": "...",
   "counterexample": {"location": 2, "expected": "r1", "got": "r0"}}
  {"error": "line 3: destination r1 is written twice: ..."}

exit status: 0 every sequence ok; 1 some sequence wrong; 2 no sequence
wrong but some line was bad input.

example:
  echo '{"moves": [[1,0],[0,1]], "model": "swap", "sequence": [["swap",0,1]]}' \\
    | verified check
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = CHECK_HELP
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="JSON-lines files to check (default: stdin; - is stdin)")


def _handle_check(obj: object) -> tuple[dict, int]:
    answer = check_request(parse_request(obj, need_sequence=True))
    return answer, EXIT_OK if answer["ok"] else EXIT_WRONG


def run(args: argparse.Namespace) -> int:
    status = EXIT_OK
    try:
        for stream in open_inputs(args.files):
            s = serve(stream, sys.stdout, _handle_check)
            status = _worse(status, s)
    except OSError as e:
        print(f"verified check: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return status


def _worse(a: int, b: int) -> int:
    rank = {EXIT_OK: 0, EXIT_BAD_INPUT: 1, EXIT_WRONG: 2}
    return a if rank[a] >= rank[b] else b
