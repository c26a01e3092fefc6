"""Serve a mutant of the machine resolver over the JSON-lines protocol, as
a client program for ``verified conform --machine``:

    verified conform --cmd "python -m mutants.serve swap_two_slots" --machine x86-64

NAME is a mutant of ``mutants/machine_clients.py`` (one edit of the real
``verified/algorithms/resolve.py``, loaded by the one engine,
``NAME+NAME...`` several of them at once (``mutants.combine``),
``mutants.load``: asserts stripped, the registry's postcondition off, so
that what catches it is conform and the oracle).  Each request line is
answered like ``verified solve --algorithm resolve`` answers it (the same
serving loop, ``tools.wire.serve``): ``{"sequence": [...]}``, or
``{"error": ...}`` when the mutated resolver finds no sequence (a refusal
to conform).  ``python -m mutants.serve`` alone lists the names.
"""

from __future__ import annotations

import sys

from verified.core.exits import EXIT_BAD_INPUT, EXIT_OK
from verified.core.machine import MachineRequest
from verified.core.semantics import PreconditionError
from verified.tools.wire import parse_any, serve

from . import combine, run
from .machine_clients import BY_NAME


def handler(name: str):
    resolve = run(combine(*(BY_NAME[n] for n in name.split("+"))))

    def handle(obj: object) -> tuple[dict, int]:
        req = parse_any(obj, need_sequence=False)
        if not isinstance(req, MachineRequest):
            raise PreconditionError('a mutant resolver answers requests with "machine" only')
        ops = resolve(req.move, req.preserve)
        return {"sequence": [op.to_json() for op in ops]}, EXIT_OK

    return handle


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not all(n in BY_NAME for n in argv[0].split("+")):
        print("usage: python -m mutants.serve NAME[+NAME...], NAME one of: "
              + ", ".join(BY_NAME),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    serve(sys.stdin.buffer, sys.stdout, handler(argv[0]))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
