"""``verified machines``: the preset machine descriptions
(``docs/machines.md``).  ``verified machines`` lists them, one per line
(name, classes, stack, swaps); ``verified machines show NAME`` prints one as
JSON, every field with its default filled in, and its ``"source"``."""

from __future__ import annotations

import argparse
import json
import sys

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK
from ..core.machine import PRESETS, Machine, preset
from ..core.semantics import PreconditionError

MACHINES_HELP = """\
verified machines             list the preset machines
verified machines show NAME   print one as JSON (the "machine" field of a
                              request may be that name or such an object)

exit status: 0; 2 for an unknown NAME or a bad action.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = MACHINES_HELP
    parser.add_argument("action", nargs="?", choices=["list", "show"], default="list",
                        help="list (default) or show")
    parser.add_argument("name", nargs="?", metavar="NAME", help="the preset to show")


def summary(m: Machine) -> str:
    """One line: name, classes (registers x width), stack, swaps, flags."""
    classes = ", ".join(f"{c.name} {len(c.registers)}x{c.width}" for c in m.classes)
    stack = ", ".join(f"{len(g.names)}x{g.width}" for g in m.stack) or "none"
    return (f"{m.name:10} classes: {classes}; slots: {stack}; swap: "
            f"{', '.join(m.swap) or 'none'}; mem_to_mem: {str(m.mem_to_mem).lower()}; "
            f"immediate_to: {', '.join(m.immediate_to)}; cross_class: "
            f"{str(m.cross_class).lower()}")


def run(args: argparse.Namespace) -> int:
    prog = "verified machines"
    if args.action == "list":
        if args.name is not None:
            print(f"{prog}: error: list takes no NAME (did you mean `{prog} show "
                  f"{args.name}`?)", file=sys.stderr)
            return EXIT_BAD_INPUT
        for name in PRESETS:
            print(summary(preset(name)))
        return EXIT_OK
    if args.name is None:
        print(f"{prog}: error: show needs a NAME, one of {', '.join(PRESETS)}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        m = preset(args.name)
    except PreconditionError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(m.to_json(), indent=1))
    return EXIT_OK
