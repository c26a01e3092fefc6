"""``verified ssra alloc`` / ``verified ssra check``."""

from __future__ import annotations

import sys

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from ..core.errors import MAX_REGISTERS, PreconditionError, check_registers
from .allocator import allocate
from .tape import load_tape, read_text

# json and the checker are imported where they are used: `alloc` without
# --json/--counts needs neither; nor argparse: a plain `alloc` command line
# is read by `plain_alloc_args` (start-up time, docs/ssra.md)
TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse

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


class PlainAllocArgs:
    """What the parser's Namespace holds for an ``alloc`` command line (the
    attributes ``run`` reads), without argparse."""

    ssra_command = "alloc"

    def __init__(self, tape: str, registers: int, json: bool, counts: bool) -> None:
        self.tape = tape
        self.registers = registers
        self.json = json
        self.counts = counts


#: the options of `alloc` read by `plain_alloc_args`, exactly as spelled
_FLAGS = {"--json": "json", "--counts": "counts"}
_REGISTERS = ("--registers", "-n")


def plain_alloc_args(argv: list[str]) -> "PlainAllocArgs | None":
    """The arguments after ``ssra alloc`` when they are the plain form: one
    TAPE, ``--registers N`` or ``-n N`` once, ``--json`` and ``--counts``,
    each word whole, in any order, no word (but N) starting with ``-``, N a
    whole number ``int`` reads.  Then the parser would give the same values
    (tests/ssra/test_ssra_cli_fast.py compares the two); anything else, and
    every usage error, is None: the parser decides and words it."""
    tape = registers = None
    flags = {"json": False, "counts": False}
    words = iter(argv)
    for word in words:
        if word in _FLAGS:
            flags[_FLAGS[word]] = True
        elif word in _REGISTERS:
            value = next(words, None)
            if registers is not None or value is None or value.startswith("-"):
                return None
            try:
                registers = int(value)
            except ValueError:
                return None
        elif word.startswith("-") or tape is not None:
            return None
        else:
            tape = word
    if tape is None or registers is None:
        return None
    return PlainAllocArgs(tape, registers, flags["json"], flags["counts"])


def run(args: "argparse.Namespace | PlainAllocArgs") -> int:
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
