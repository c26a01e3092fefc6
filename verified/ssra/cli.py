"""``verified ssra alloc`` / ``verified ssra check``."""

from __future__ import annotations

import argparse
import sys

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from ..core.errors import MAX_REGISTERS, PreconditionError, check_registers
from .allocator import allocate
from .tape import load_tape, read_text

# json and the checker are imported where they are used: `alloc` without
# --json/--counts needs neither (start-up time, docs/ssra.md)

HELP = ("SSRA: allocate straight-line SSA code (reverse linear scan), or "
        "check anyone's allocation against the tape")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Tapes: `$N = OP($a, $b)` lines, or the .vm format (`_3 mul _1 _2`) "
        "for files ending in .vm.  --registers is a whole number in "
        f"2..{MAX_REGISTERS} (alloc; check accepts 1).\nexit status "
        "(docs/exit-codes.md): 0 ok, 1 allocation rejected (check), 2 bad "
        "input or bad use (an unreadable file, a bad tape or program, "
        "--registers out of range).")
    sub = parser.add_subparsers(dest="ssra_command", metavar="ACTION")
    a = sub.add_parser("alloc", help="allocate a tape; print the program "
                       "(or JSON with counts)")
    a.set_defaults(_parser=a)
    a.add_argument("tape", metavar="TAPE")
    a.add_argument("--registers", "-n", type=int, required=True, metavar="N",
                   help=f"register count (2..{MAX_REGISTERS})")
    a.add_argument("--json", action="store_true",
                   help="print {\"program\": [lines], \"counts\": {...}}")
    a.add_argument("--counts", action="store_true",
                   help="print only the counts (JSON)")
    c = sub.add_parser("check", help="check an allocated program against a "
                       "tape (exit 0 ok, 1 rejected, 2 bad input)")
    c.set_defaults(_parser=c)
    c.add_argument("tape", metavar="TAPE")
    c.add_argument("allocated", metavar="ALLOCATED",
                   help="allocated program in the write-up's syntax ('-' = stdin)")
    c.add_argument("--registers", "-n", type=int, required=True, metavar="N",
                   help=f"register count of the machine (1..{MAX_REGISTERS})")
    c.add_argument("--strict", action="store_true",
                   help="also require exactly the tape's live operations, in "
                   "tape order, reading the same SSA variables")


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "ssra_command", None)
    if action is None:
        print("verified ssra: error: choose an action: alloc or check (see "
              "`verified ssra --help`)", file=sys.stderr)
        return EXIT_BAD_INPUT
    prog = f"verified ssra {action}"
    try:
        # before anything is read or allocated: the allocator and the
        # checker hold one entry per register (99999999999999 must be a
        # clear error, not a MemoryError blamed on the allocation)
        registers = check_registers(args.registers, least=2 if action == "alloc" else 1,
                                    what="--registers")
        tape = load_tape(args.tape)
        if action == "alloc":
            allocation = allocate(tape, registers)
            if args.counts or args.json:
                import json
            if args.counts:
                print(json.dumps(allocation.counts()))
            elif args.json:
                print(json.dumps({"program": allocation.lines(),
                                  "counts": allocation.counts()}))
            else:
                sys.stdout.write(allocation.text())
            return EXIT_OK
        import json

        from .checker import check, parse_allocated
        if args.allocated == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            source = args.allocated
            text = read_text(args.allocated)
        lines = parse_allocated(text, source)
        verdict = check(tape, lines, registers, strict=args.strict)
        print(json.dumps(verdict.to_json()))
        return EXIT_OK if verdict.ok else EXIT_WRONG
    except PreconditionError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
