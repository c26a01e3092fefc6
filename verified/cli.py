"""The ``verified`` command.  Each subcommand lives in its own module, which
provides ``add_arguments(parser)`` and ``run(args) -> int`` (the exit
status); this file only lists them, so ``verified --help`` is the index."""

from __future__ import annotations

import argparse
import importlib
import sys

#: (name, module, one-line help).  Modules are imported only when used.
SUBCOMMANDS = [
    ("check", "verified.protocol",
     "oracle: read JSON-lines requests with a sequence, answer ok/counterexample"),
    ("solve", "verified.solve",
     "reference answers: read JSON-lines requests, answer with our algorithm's sequence"),
    ("conform", "verified.conform", "drive another implementation over the protocol and check every answer (CI gate)"),
    ("vectors", "verified.vectors", "write deterministic JSON-lines test vectors (request, expected state, optimum, reference)"),
    ("ssra", "verified.ssra", "solid-state register allocator: `alloc` a straight-line SSA tape, `check` anyone's allocation of it"),
]

EPILOG = """\
exit status: 0 all ok, 1 some sequence wrong (or a check failed), 2 bad input
or bad use.  Run `verified SUBCOMMAND --help` for each one's protocol.
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Only the chosen subcommand's module is imported (so `verified check`
    does not import Z3 or the allocator)."""
    parser = argparse.ArgumentParser(
        prog="verified",
        description="Formally-checked reference register shuffling: an oracle "
        "for parallel-move sequentialisation, reference algorithms, and tools "
        "to test other implementations against them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, help_text in SUBCOMMANDS:
        p = sub.add_parser(
            name, help=help_text, description=help_text,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(_module=module)
        if only is None or only == name:
            importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    names = {name for name, _, _ in SUBCOMMANDS}
    parser = build_parser(chosen if chosen in names else None)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return importlib.import_module(args._module).run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
