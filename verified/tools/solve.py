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

from ..algorithms import ALGORITHMS, MACHINE, solve, solve_machine
from ..algorithms.shuf import MAX_MOVES as SHUF_MAX_MOVES
from ..core.compact import OpLog
from ..core.exits import EXIT_OK
from ..core.machine import MachineRequest
from .wire import Streamed, parse_any, serve_paths


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

    return serve_paths(args.files, sys.stdout, handle, "solve")
