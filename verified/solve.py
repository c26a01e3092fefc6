"""``verified solve --algorithm NAME``: the other side of the protocol.

Reads request lines (the fields of ``verified check`` without
``sequence``) and answers each with ``{"sequence": [...]}`` computed by our
reference algorithm NAME, so that

    verified conform --cmd "verified solve --algorithm shuf" --model swap

is the self-test, and anyone can diff their outputs against ours.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from typing import Callable

from .protocol import EXIT_BAD_INPUT, EXIT_OK, open_inputs, parse_request, serve
from .semantics import MODELS, Operation, ParallelMove, PreconditionError


@dataclass(frozen=True)
class Algorithm:
    module: str
    function: str
    #: the model whose operations it emits
    model: str
    #: the contract it is written for.  An "all" algorithm's output also
    #: meets "loops"; a "loops" algorithm is told the request's contract
    #: (it is called as f(pm, preserve=...)).
    preserve: str
    summary: str

    def load(self) -> Callable[[ParallelMove], list[Operation]]:
        return getattr(importlib.import_module(self.module), self.function)


#: Every reference algorithm, by its protocol name.
ALGORITHMS: dict[str, Algorithm] = {
    "shuf": Algorithm("verified.shuf", "shuf", "swap", "all",
                      "bitset forward[] masks, move + swap (Register shuffling)"),
    "leroy": Algorithm("verified.parmove", "leroy", "temp", "all",
                       "Leroy et al. recursive post-order, one temporary"),
    "leroy-iterative": Algorithm("verified.parmove", "leroy_iterative", "temp", "all",
                                 "the same with an explicit stack (no recursion limit)"),
    "windmill": Algorithm("verified.parmove", "windmill", "temp", "all",
                          "Kahn: blades first, then break each axle with the temporary"),
    "mincopy": Algorithm("verified.parmove", "mincopy", "temp", "all",
                         "minimum copies: non-loop moves + bare cycles (Boissinot et al.)"),
    "xchg": Algorithm("verified.xchg", "xchg", "swap", "all",
                      "corrected PHI-to-mov/xchg, optimal: non-loop moves - cycles"),
    "xchg-as-published": Algorithm("verified.xchg", "xchg_as_published", "swap", "all",
                                   "the 2007 PHI-to-mov/xchg algorithm as printed (WRONG, kept on purpose)"),
    "greedy": Algorithm("verified.permi", "greedy", "permi", "loops",
                        "GREEDY for out-degree-1 RTGs (Buchwald, Mohr, Rutter)"),
    "permi-optimal": Algorithm("verified.permi", "permi_optimal", "permi", "loops",
                               "optimal copy set (dynamic program) + GREEDY"),
}


def solve(
    name: str, pm: ParallelMove, model: str | None = None, preserve: str = "all"
) -> list[Operation]:
    """Run algorithm ``name`` on ``pm``; if ``model`` is given, refuse when
    the algorithm's operations are not all available in it."""
    if name not in ALGORITHMS:
        raise PreconditionError(
            f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    algo = ALGORITHMS[name]
    if model is not None and not set(MODELS[algo.model]) <= set(MODELS[model]):
        raise PreconditionError(
            f"algorithm {name} emits {algo.model}-model operations, which the "
            f"{model} model does not have"
        )
    if algo.preserve == "loops":
        return algo.load()(pm, preserve=preserve)
    return algo.load()(pm)


SOLVE_HELP = """\
Reads one JSON request per line: {"moves": [[dst, src], ...], "model": M,
"temps": [...], "registers": n, "preserve": "all"|"loops"} (no "sequence")
and answers each with {"sequence": [...]} from the chosen algorithm, or
{"error": "..."} (bad request, or the move is outside the algorithm's
precondition, e.g. a cycle with no temporary for leroy).

algorithms:
""" + "\n".join(
    f"  {name:18} {a.model:5} model, {a.summary}" for name, a in ALGORITHMS.items()
) + """

exit status: 0 every request answered; 2 some line got an error.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = SOLVE_HELP
    parser.add_argument("--algorithm", "-a", required=True, choices=list(ALGORITHMS),
                        metavar="NAME", help="one of: " + ", ".join(ALGORITHMS))
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="JSON-lines request files (default: stdin)")


def run(args: argparse.Namespace) -> int:
    def handle(obj: object) -> tuple[dict, int]:
        req = parse_request(obj, need_sequence=False)
        ops = solve(args.algorithm, req.pm, req.model, req.preserve)
        return {"sequence": [op.to_json() for op in ops]}, EXIT_OK

    status = EXIT_OK
    for stream in open_inputs(args.files):
        if serve(stream, sys.stdout, handle) != EXIT_OK:
            status = EXIT_BAD_INPUT
    return status
