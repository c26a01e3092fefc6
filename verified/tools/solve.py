"""``verified solve --algorithm NAME``: the other side of the protocol.

Reads request lines (the fields of ``verified check`` without
``sequence``) and answers each with ``{"sequence": [...]}`` computed by our
reference algorithm NAME, so that

    verified conform --cmd "verified solve --algorithm shuf" --model swap

is the self-test, and anyone can diff their outputs against ours.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..algorithms import ALGORITHMS, MACHINE, solve, solve_machine
from ..algorithms.shuf import MAX_MOVES as SHUF_MAX_MOVES
from ..core.compact import OpLog
from ..core.exits import EXIT_OK
from ..core.machine import MachineRequest
from ..core.memo import remember
from ..core.semantics import PreconditionError
from .wire import Streamed, _answer_line, _decoder, decode_request_text, parse_any, serve_paths


SOLVE_HELP = """\
Reads one JSON request per line: {"moves": [[dst, src], ...], "model": M,
"temps": [...], "registers": n, "preserve": "all"|"loops"} (no "sequence")
and answers each with {"sequence": [...]} from the chosen algorithm, or
{"error": "..."} (bad request, or the move is outside the algorithm's
precondition, e.g. a cycle with no temporary for leroy).

algorithms:
""" + "\n".join(
    f"  {name:18} {a.model:5} model, {a.summary}" for name, a in ALGORITHMS.items()
    if a.model != MACHINE
) + """

on a machine (a request with "machine": a preset name or a machine object,
docs/machines.md; answered with {"sequence": [...]} over the machine's
names; {"error": "line N: no sequence exists: ..."} when the search
proved that no legal sequence exists, {"error": "line N: resolve found no
sequence: ..."} when it got stuck on a machine too large for the search):
""" + "\n".join(
    f"  {name:18} {a.summary}" for name, a in ALGORITHMS.items() if a.model == MACHINE
) + """

size limits: shuf refuses more than {shuf_max:,} non-loop moves (it rescans
its masks for every action: minutes beyond that); use xchg, the same swap
model, optimal, linear time.  leroy recurses once per move of a chain: use
leroy-iterative for long chains.

exit status (docs/exit-codes.md): 0 every request answered; 2 some line got
an error (bad request, or outside the algorithm's precondition) or some FILE
could not be read (each FILE is still served; an unreadable one is named on
stderr).  solve judges nothing, so it never exits 1.
""".format(shuf_max=SHUF_MAX_MOVES)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = SOLVE_HELP
    parser.add_argument("--algorithm", "-a", required=True, choices=list(ALGORITHMS),
                        metavar="NAME", help="one of: " + ", ".join(ALGORITHMS))
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="JSON-lines request files (default: stdin)")


#: a machine request line as conform and vectors write it: the machine
#: object first (``MachineLines``)
MACHINE_HEAD = '{"machine": {'
#: ``MachineLines`` keeps at most this many machine texts (a run repeats one)
MACHINE_TEXTS = 64


class MachineLines:
    """A shorter way to read a machine request line whose machine object
    comes first (``serve``'s ``fast``): the object's text is read and its
    machine built once per distinct text (a run repeats one machine on
    every line; issue 20: reading it again was a third of answering a small
    request), the rest of the line by the usual reader.  The answer is
    ``handle``'s, made from the same request; any line it does not take
    whole (another layout, a key twice, bad JSON, a bad machine) goes the
    usual way, which reads it and says what is wrong."""

    def __init__(self, handle: "Callable[[object], tuple[dict, int]]") -> None:
        self.handle = handle
        #: machine text -> machine (only texts that made a machine)
        self.machines: dict = {}
        #: the refusal of the line just read (``PreconditionError``): the
        #: usual way, which numbers the line, raises it again without
        #: solving the request a second time (``take``)
        self.refused: "PreconditionError | None" = None

    def machine_of(self, text: str) -> "tuple[object, int]":
        """(the machine, where its text ends) of a line that starts with
        ``MACHINE_HEAD`` (what the strict reader or ``machine`` raise on a
        bad one, ``serve`` sends the usual way)."""
        start = len(MACHINE_HEAD) - 1
        for known, m in self.machines.items():
            if text.startswith(known, start):
                return m, start + len(known)
        from ..core.machine import machine
        obj, end = _decoder().raw_decode(text, start)
        return remember(self.machines, text[start:end], machine(obj), MACHINE_TEXTS), end

    def __call__(self, raw: bytes) -> "tuple[str, int] | None":
        self.refused = None
        if not raw.startswith(MACHINE_HEAD.encode()):
            return None
        text = raw.decode("utf-8")
        got = self.machine_of(text)
        if not text.startswith(", ", got[1]):
            return None
        rest = decode_request_text("{" + text[got[1] + 2:])
        if not isinstance(rest, dict) or "machine" in rest:
            return None
        obj = {"machine": got[0], **rest}
        try:
            answer, status = self.handle(obj)
        except PreconditionError as e:
            self.refused = e
            return None
        line = _answer_line(answer, obj)
        return None if line is None else (line, status)

    def take(self) -> None:
        """Raise the refusal of the line just read, if there was one."""
        refused, self.refused = self.refused, None
        if refused is not None:
            raise refused


def run(args: argparse.Namespace) -> int:
    def handle(obj: object) -> tuple[dict, int]:
        req = parse_any(obj, need_sequence=False)
        if isinstance(req, MachineRequest):
            ops = solve_machine(args.algorithm, req.move, req.preserve)
        else:
            ops = solve(args.algorithm, req.pm, req.model, req.preserve)
        if isinstance(ops, OpLog):
            # a huge request's output in compact form (xchg): each operation's
            # JSON made from the arrays as it is written, never all held
            return {"sequence": Streamed(ops.json())}, EXIT_OK
        return {"sequence": [op.to_json() for op in ops]}, EXIT_OK

    lines = MachineLines(handle)

    def handle_line(obj: object) -> tuple[dict, int]:
        lines.take()
        return handle(obj)

    return serve_paths(args.files, sys.stdout, handle_line, "solve", fast=lines)
