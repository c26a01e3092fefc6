"""The ``verified conform`` command line: options, their validation, the run
(session, shrinking, re-running a broken case alone) and the report (text,
or one JSON object with ``--json``).  ``docs/conform.md`` is the reference;
its options table and the README's are generated from this parser
(``options_markdown``) and compared by a test."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shlex
import sys
from typing import Any, Callable

from ...core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from ...core.semantics import (
    MODELS,
    ParallelMove,
    PreconditionError,
    check_registers,
    loc_name,
    location,
)
from ... import cases as gen
from . import moves as mv
from .checker import (
    FAILED,
    FAILURE_KEY,
    INTERNAL,
    OK,
    OTHER_CLASSES,
    REFUSED,
    REFUSED_OK,
    WRONG,
    Example,
    Tally,
)
from .partner import DEFAULT_MAX_LINE, Terminated, die_of, signals_end_partners
from .session import Result, Suite, run_session
from .shrink import Shrunk, shrink

HELP = """\
Drives PROGRAM over the JSON-lines protocol: one request per line on its
stdin, one answer per line on its stdout, each checked by the oracle as it
comes (docs/conform.md).

  request:  {"moves": [[dst, src], ...], "model": M, "temps": [...], "registers": n}
  answer:   {"sequence": [...]}            the operations
            {"unsupported": "why"}         declines the case ({"error": "why"} too):
                                           right only when no sequence exists
            {"failure": "why"}             the program itself failed (an abort, a
                                           failed internal check): always fails the run

With --allocator the requests are straight-line SSA tapes, {"tape": [...],
"registers": n}, and the answers allocated programs, {"program": [...]}.
With --machine they carry the machine (docs/machines.md): {"machine": M,
"moves": [["m0", "m1"], [["a1", "a2"], ["a0", "a1"]], ["rax", {"imm": 7}]],
"temps": ["r15"]}.

Reports the answers checked, the wrong ones (the first, and per failure
class, the kind of mistake the verdict names with locations by kind, the
count and the smallest case, shrunk within its class by re-running PROGRAM
on fewer moves with the same register numbers), the program's own
failures, the solvable cases it declined (each with our sequence as the
witness), and with --optimal the gap to the optimum with the smallest case
of each gap.  A program that hangs (--timeout per answer), crashes, exits
early, prints garbage, or skips or repeats an answer line broke the
protocol: that is reported first, with the case it was on.

exit status: 0 every answer correct; 1 a wrong sequence or allocation, a
{"failure": ...} answer, or a solvable case declined (unless
--allow-refusals); 2 bad use, or a program
that broke the protocol (and nothing wrong before the break).  A wrong
sequence always exits 1.

A run split with --shard I/N (CI matrix jobs, machines, a cluster) is put
back together by `verified conform merge REPORT...`: the one report of the
whole run from the N --json reports.

examples:
  verified conform --cmd ./my_resolver --model swap --registers 6 --exhaustive --optimal
  verified conform --cmd ./my_resolver --model swap --registers 16 --shapes --order shuffled
  verified conform --cmd ./my_allocator --allocator --registers 3 --exhaustive
  verified conform --cmd ./my_resolver --machine x86-64 --random 10000
"""

#: --exhaustive and --shapes stop where the count runs into hours
MAX_EXHAUSTIVE = 7
MAX_SHAPES = 18
MAX_TAPE_OPS = 5
#: --machine: the most cases an exhaustive run may plan
MAX_MACHINE_CASES = 2_000_000
#: --max-classes: each class shown is shrunk by re-running the program; a run
#: counts at most checker.CLASSES classes one by one
DEFAULT_CLASSES = 10
MAX_CLASSES = 100
#: --shard I/N: at most this many shards
MAX_SHARDS = 1_000_000
#: --random K: far beyond any run that can finish (10^12 answers at 10^5
#: a second is four months), and a count every generator can hold
MAX_RANDOM = 10**12


def _temp_arg(text: str):
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    try:
        return location(value)
    except PreconditionError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _shard_arg(text: str) -> tuple[int, int]:
    i, sep, n = text.partition("/")
    try:
        shard = (int(i), int(n))
    except ValueError:
        shard = None
    if not sep or shard is None or not 1 <= shard[0] <= shard[1] <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not I/N with 1 <= I <= N <= {MAX_SHARDS:,} (e.g. 2/4, or "
            f"\"$I/$N\" from a CI matrix)")
    return shard


def shard_range(planned: int, i: int, n: int) -> tuple[int, int]:
    """Shard i of n (1-based): cases lo..hi-1 of the run.  The n ranges are
    consecutive, disjoint and cover 0..planned-1; their sizes differ by at
    most one."""
    return (i - 1) * planned // n, i * planned // n


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("--cmd", required=True, metavar='"PROGRAM ARGS"',
                        help="the program to test (split like a shell would, not run by one)")
    parser.add_argument("--model", choices=list(MODELS), default=None,
                        help="the operations PROGRAM may answer with (required for "
                        "parallel moves; spill = mov, load, store)")
    parser.add_argument("--temps", nargs="*", type=_temp_arg, default=None, metavar="LOC",
                        help='temporaries to declare (default: t for temp, the slot m0 '
                        'for spill, none for swap and permi); a number is a register, e.g. 16')
    parser.add_argument("--registers", "-n", type=int, default=None, metavar="N",
                        help="register count: every n <= N with --exhaustive, exactly N "
                        "with --random and --shapes (default 4)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exhaustive", action="store_true",
                      help=f"every parallel move over 1..N registers, N <= {MAX_EXHAUSTIVE} "
                      f"(the default); with --allocator every tape of <= {MAX_TAPE_OPS} "
                      "operations and the named allocator states")
    mode.add_argument("--random", type=int, metavar="K", help="K seeded random cases (K >= 1)")
    mode.add_argument("--shapes", action="store_true",
                      help="every parallel move on N registers up to renaming "
                      f"(3,799,624 at N = 16; N <= {MAX_SHAPES})")
    parser.add_argument("--relabel", type=int, default=None, metavar="K",
                        help="with --shapes: also send each shape under K random "
                        "renamings of its registers (default 0)")
    parser.add_argument("--order", choices=list(gen.shapes.ORDERS), default=None,
                        help="order of the moves in each request (default sorted, by "
                        "destination); shuffled catches a program that depends on it")
    parser.add_argument("--seed", default=None, metavar="S",
                        help="seed for --random, --relabel and --order shuffled: any "
                        "non-empty text, e.g. a CI build number (default 0)")
    parser.add_argument("--no-fan-out", action="store_true",
                        help="only moves where no location is read twice (out-degree <= 1: "
                        "GREEDY's domain; GREEDY's contract is --preserve loops); "
                        "shrinking stays inside this domain")
    parser.add_argument("--preserve", choices=["all", "loops"], default=None,
                        help='the contract (default "all"; "loops" is sent in each request)')
    parser.add_argument("--optimal", action="store_true",
                        help="also report answer length - optimum, with the smallest "
                        "case of each gap and our optimal sequence")
    parser.add_argument("--allow-refusals", action="store_true",
                        help="declining a solvable case is reported but does not fail "
                        "the run (exit 0)")
    parser.add_argument("--allocator", action="store_true",
                        help="test a register allocator: send SSA tapes, check each "
                        "allocated program (docs/conform.md, 'Allocators')")
    parser.add_argument("--machine", default=None, metavar="PRESET|PROFILE|FILE.json",
                        help="parallel moves on a machine (docs/machines.md): "
                        "--exhaustive over the small machine derived from it, --random K "
                        "over all of it; temps default to a profile's scratch, else one "
                        "scratch register per class")
    parser.add_argument("--max-moves", type=int, default=None, metavar="K",
                        help="with --machine --exhaustive: at most K moves per case "
                        "(default 3; 0 = every assignment)")
    parser.add_argument("--shard", type=_shard_arg, default=None, metavar="I/N",
                        help="run only part I of N (1 <= I <= N) of the cases: the I-th of N "
                        "equal runs of consecutive cases, for any mode; `verified conform "
                        "merge` turns the N --json reports into the report of one run")
    parser.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_LINE, metavar="B",
                        help="an answer line longer than B bytes is garbage, its size "
                        f"named (default {DEFAULT_MAX_LINE:,}: 64 MiB, twice the answer to "
                        "a 2^20-register cycle)")
    parser.add_argument("--types", nargs="+", default=None, metavar="T",
                        help="with --machine on a machine with a types table: only moves "
                        "of these types (default: every type of the machine)")
    parser.add_argument("--cross-class", action="store_true",
                        help="with --machine on a machine with a types table: also values "
                        "outside their type's home class and moves between classes "
                        "(movq rax, xmm0)")
    parser.add_argument("--no-pairs", action="store_true",
                        help="with --machine: no register pairs ([rax, rcx]) in the cases")
    parser.add_argument("--no-immediates", action="store_true",
                        help="with --machine: no immediate sources in the cases")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="longest wait for any one answer (default 10)")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="J",
                        help="checker processes (default: one per core; 1 = check inline)")
    parser.add_argument("--max-classes", type=int, default=None, metavar="K",
                        help=f"failure classes to shrink and print, the most frequent "
                        f"first (default {DEFAULT_CLASSES}; 1..{MAX_CLASSES}); the others "
                        "are counted")
    parser.add_argument("--no-shrink", action="store_true",
                        help="report the smallest wrong answer found without shrinking it")
    parser.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                        help="answers checked and ETA on stderr (auto: live on a "
                        "terminal, else every 10 s)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as one JSON object instead of text")


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


class BadUse(Exception):
    pass


def _need(ok: bool, message: str) -> None:
    if not ok:
        raise BadUse(message)


def _validate_numbers(args: argparse.Namespace) -> None:
    t = args.timeout
    _need(math.isfinite(t) and t > 0,
          f"--timeout must be a finite number of seconds > 0, not {t:g}")
    _need(1 <= args.max_line_bytes <= 1 << 40, f"--max-line-bytes must be 1..2^40, not "
          f"{args.max_line_bytes}")
    if args.jobs is not None:
        _need(1 <= args.jobs <= 256, f"--jobs must be 1..256 (1 = check inline), not {args.jobs}")
    if args.random is not None:
        _need(args.random >= 1, f"--random needs K >= 1, not {args.random}: a run that "
              "checks nothing cannot pass")
        _need(args.random <= MAX_RANDOM, f"--random must be at most {MAX_RANDOM:,} "
              f"(10^12), not {args.random}")
    if args.relabel is not None:
        _need(args.shapes, "--relabel goes with --shapes")
        _need(0 <= args.relabel <= 1000, f"--relabel must be 0..1000, not {args.relabel}")
    if args.max_classes is not None:
        _need(1 <= args.max_classes <= MAX_CLASSES,
              f"--max-classes must be a whole number in 1..{MAX_CLASSES} (the failure "
              f"classes shrunk and printed), not {args.max_classes}")
    if args.seed is not None:
        _need(args.seed.strip() != "", '--seed is empty (an unset CI variable?); give a '
              'number or any text, e.g. --seed "${CI_BUILD_ID:-0}"')


def build_suite(args: argparse.Namespace) -> tuple[list[str], Suite]:
    """Validate the options and build the suite; ``BadUse`` says what is wrong."""
    try:
        argv = shlex.split(args.cmd)
    except ValueError as e:
        raise BadUse(f"--cmd: {e}") from None
    _need(bool(argv), "--cmd is empty")
    _validate_numbers(args)
    seed = args.seed if args.seed is not None else 0
    if args.machine is not None:
        return argv, _machine_suite(args, seed)
    _need(args.max_moves is None, "--max-moves goes with --machine")
    for name, given in (("--types", args.types), ("--cross-class", args.cross_class or None),
                        ("--no-pairs", args.no_pairs or None),
                        ("--no-immediates", args.no_immediates or None)):
        _need(given is None, f"{name} goes with --machine")
    if args.allocator:
        from . import tapes
        for name, given in (("--model", args.model), ("--temps", args.temps),
                            ("--preserve", args.preserve), ("--order", args.order),
                            ("--no-fan-out", args.no_fan_out or None),
                            ("--optimal", args.optimal or None), ("--shapes", args.shapes or None)):
            _need(given is None, f"{name} is for parallel moves, not --allocator")
        if args.registers is None:
            args.registers = 4
        try:
            check_registers(args.registers, least=2, what="--registers")
        except PreconditionError as e:
            raise BadUse(f"{e} (an allocator needs two registers)") from None
        return argv, tapes.suite(args.registers, args.random, seed)
    _need(args.model is not None, "--model is required (temp, swap, permi or spill), "
          "or --allocator")
    if args.registers is None:
        args.registers = 4
    try:
        check_registers(args.registers, least=1, what="--registers")
    except PreconditionError as e:
        raise BadUse(str(e)) from None
    n = args.registers
    preserve = args.preserve or "all"
    temps = mv.DEFAULT_TEMPS[args.model] if args.temps is None else args.temps
    try:  # temporaries must lie outside every register file we send
        ParallelMove.make([], registers=n, temps=temps)
    except PreconditionError as e:
        raise BadUse(f"--temps: {e}") from None
    fan_out = not args.no_fan_out
    ct = mv.MoveType(args.model, tuple(temps), preserve, fan_out)
    order = args.order or "sorted"
    what_order = "" if order == "sorted" else f", moves {order}"
    if args.random is not None:
        k = args.random
        cases = lambda: mv.ordered(mv.random(n, k, seed, fan_out), order, seed)
        what = f"{k:,} random cases over {n} registers (seed {seed})"
        planned = k
    elif args.shapes:
        _need(n <= MAX_SHAPES, f"--shapes over {n} registers is "
              f"{gen.shapes.shape_count(n):,} shapes; use --random K beyond {MAX_SHAPES}")
        _need(fan_out, "--shapes and --no-fan-out do not go together: shapes are total moves")
        relabel = args.relabel or 0
        cases = lambda: mv.shapes(n, relabel, order, seed, preserve)
        planned = gen.shape_case_count(n, relabel)
        what = (f"every parallel move on {n} registers up to renaming "
                f"({gen.shapes.shape_count(n):,} shapes)")
        if relabel:
            what += f", each also under {relabel} random renaming(s) (seed {seed})"
        if order == "shuffled":
            what_order += f" (seed {seed})"
    else:
        _need(n <= MAX_EXHAUSTIVE, f"--exhaustive over {n} registers is "
              f"{gen.exhaustive_count(n):,} cases; use --shapes (every move up to renaming) "
              f"or --random K beyond {MAX_EXHAUSTIVE}")
        cases = lambda: mv.ordered(mv.exhaustive(n, fan_out), order, seed)
        if fan_out and order != "shuffled":  # --shard: case #k without the ones before
            cases.start_at = lambda k: mv.ordered(gen.exhaustive_cases(n, start=k), order, seed)
        planned = mv.exhaustive_planned(n, fan_out)
        what = f"exhaustive, every parallel move over 1..{n} registers"
    if not fan_out:
        what += ", no fan-out"
    return argv, Suite(ct, cases, planned, what + what_order)


def _machine_suite(args: argparse.Namespace, seed: object) -> Suite:
    """``--machine``: the suite over a machine (``tools/conform/machines.py``)."""
    from ...cases import machines as mgen
    from ...core.machine import MachineMove
    from . import machines as mm
    for name, given in (("--model", args.model), ("--registers", args.registers),
                        ("--allocator", args.allocator or None),
                        ("--shapes", args.shapes or None), ("--relabel", args.relabel),
                        ("--no-fan-out", args.no_fan_out or None)):
        _need(given is None, f"{name} does not go with --machine: the machine names its "
              "registers and operations")
    try:
        m = mm.load_machine(args.machine)
    except PreconditionError as e:
        raise BadUse(str(e)) from None
    _need(bool(m.registers()), f"--machine {args.machine}: the machine has no registers, "
          "so every parallel move on it is empty: nothing to test")
    temps = None if args.temps is None else tuple(loc_name(t) for t in args.temps)
    if temps is None and getattr(m, "scratch", ()):  # a profile's scratch: the temps
        temps = tuple(m.scratch)
    preserve = args.preserve or "all"
    order = args.order or "sorted"
    space = _typed_space(args, m)
    if args.random is not None:
        _need(args.max_moves is None, "--max-moves goes with --exhaustive, not --random")
        temps = mgen.scratch_registers(m) if temps is None else temps
        _check_temps(m, temps)
        k = args.random
        if space is not None:
            places = tuple(mgen.typed_sites(m, space, temps))
            cases = lambda: mm.ordered(itertools.islice(
                mgen.random_typed_case_stream(m, places, space, seed, m.name), k),
                order, seed)
        else:
            places = tuple(_narrow(mgen.sites(m, temps, not args.no_pairs), args))
            cases = lambda: mm.ordered(itertools.islice(
                mgen.random_case_stream(places, seed, m.name, mgen.immediate_widths(m)), k),
                order, seed)
        _need(any(p.kind != "imm" for p in places), f"--machine {args.machine}: every "
              f"location overlaps a temporary ({', '.join(temps)}): no move to test")
        ct = mm.MachineType.on(m, temps, preserve, places)
        what = (f"{k:,} random {'typed ' if space else ''}cases over all of {m.name} "
                f"(seed {seed})")
        planned = k
    else:
        limit = 3 if args.max_moves is None else args.max_moves
        _need(limit >= 0, f"--max-moves must be >= 0 (0 = every assignment), not {limit}")
        if temps is not None:
            _check_temps(m, temps)
        try:
            small, temps = mgen.small_machine(m, temps=temps)
        except PreconditionError as e:
            raise BadUse(f"--machine {args.machine}: the small machine derived from it is "
                         f"not a machine: {e}") from None
        _check_temps(small, temps)
        bound = None if limit == 0 else limit
        if space is not None:
            places = tuple(mgen.typed_sites(small, space, temps))
            upper = mgen.typed_exhaustive_bound(small, places, space, bound)
            _need(upper <= MAX_MACHINE_CASES,  # the exact count is slow beyond
                  f"--machine {args.machine} --exhaustive is up to {upper:,} typed cases "
                  f"with --max-moves {limit}; lower --max-moves, narrow with --types, "
                  "--no-pairs or --no-immediates, or use --random K")
            planned = mgen.typed_exhaustive_count(small, places, space, bound)
            cases = lambda: mm.ordered(
                mgen.typed_exhaustive_cases(small, places, space, bound), order, seed)
        else:
            places = tuple(_narrow(mgen.sites(small, temps, pairs=not args.no_pairs), args))
            planned = mgen.exhaustive_count(places, bound)
            cases = lambda: mm.ordered(mgen.exhaustive_cases(places, bound), order, seed)
        _need(planned <= MAX_MACHINE_CASES,
              f"--machine {args.machine} --exhaustive is {planned:,} cases with "
              f"--max-moves {limit}; lower --max-moves or use --random K")
        ct = mm.MachineType.on(small, temps, preserve, places)
        locs = " ".join(str(p.loc) for p in places)
        what = (f"exhaustive over {small.name} ({locs}), every "
                + (f"typed parallel move ({_space_text(space)}) of " if space else
                   "parallel move of ")
                + ("any number of moves" if bound is None else f"at most {bound} moves"))
    if order != "sorted":
        what += f", moves {order}" + (f" (seed {seed})" if order == "shuffled" else "")
    return Suite(ct, cases, planned, what)


def _typed_space(args: argparse.Namespace, m):
    """The typed space of ``--machine`` (``cases.machines.TypedSpace``), or
    None on a machine without a types table (its cases stay untyped), where
    ``--types`` and ``--cross-class`` are bad use."""
    from ...cases import machines as mgen
    if not m.types:
        for name, given in (("--types", args.types), ("--cross-class", args.cross_class or None)):
            _need(given is None, f"{name}: {m.name} has no types table, so its cases are "
                  "untyped (docs/machines.md, 'Typed values')")
        return None
    try:
        return mgen.typed_space(m, args.types, args.cross_class, not args.no_pairs,
                                not args.no_immediates)
    except ValueError as e:
        raise BadUse(f"--types {e}") from None


def _space_text(space) -> str:
    return (f"types {' '.join(space.types)}" + (", cross-class" if space.cross_class else "")
            + ("" if space.pairs else ", no pairs")
            + ("" if space.immediates else ", no immediates"))


def _narrow(places, args: argparse.Namespace) -> list:
    """Untyped sites without the immediate under ``--no-immediates``."""
    return [p for p in places if not (args.no_immediates and p.kind == "imm")]


def _check_temps(m, temps) -> None:
    from ...core.machine import MachineMove
    try:
        MachineMove.make(m, [], list(temps))
    except PreconditionError as e:
        raise BadUse(f"--temps: {e}") from None


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def sharded(suite: Suite, shard: tuple[int, int] | None) -> tuple[Suite, int]:
    """The suite of ``--shard I/N`` (the cases of ``shard_range``, numbered
    as in the whole run: the returned first index), or the whole suite."""
    if shard is None:
        return suite, 0
    lo, hi = shard_range(suite.planned, *shard)
    whole = suite.cases
    start_at = getattr(whole, "start_at", None)

    def cases():
        if start_at is not None:
            return itertools.islice(start_at(lo), hi - lo)
        it = iter(whole())
        next(itertools.islice(it, lo, lo), None)  # generate and drop the cases before
        return itertools.islice(it, hi - lo)

    # the cases before the shard are skipped now, before the program starts,
    # so that their generation never counts against its --timeout
    ready = [cases()]
    return Suite(suite.case_type, lambda: ready.pop() if ready else cases(), hi - lo,
                 suite.description), lo


def run(args: argparse.Namespace) -> int:
    try:
        argv, suite = build_suite(args)
    except BadUse as e:
        print(f"verified conform: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        with signals_end_partners():
            return _run(args, argv, suite)
    except Terminated as t:
        print(f"verified conform: stopped by {_signame(t.signum)}; the program and its "
              f"process group were killed", file=sys.stderr)
        die_of(t.signum)
        return 128 + t.signum  # not reached: the signal ends us


def _signame(signum: int) -> str:
    import signal
    return signal.Signals(signum).name


def _run(args: argparse.Namespace, argv: list[str], whole: Suite) -> int:
    suite, first = sharded(whole, getattr(args, "shard", None))
    jobs = args.jobs or os.cpu_count() or 1
    printer = _progress_printer(args.progress)
    res = run_session(argv, suite, args.optimal, args.timeout, jobs, printer,
                      max_line=args.max_line_bytes)
    if printer is not None and sys.stderr.isatty():
        print(" " * 78, end="\r", file=sys.stderr)
    ct = suite.case_type
    counted = counted_tally(res)
    limit = args.max_classes or DEFAULT_CLASSES
    shrunk_classes = [(cls, c, _shrunk(args, argv, ct, c.smallest))
                      for cls, c in shown_classes(counted, WRONG, limit)]
    failed = [(cls, c, _shrunk(args, argv, ct, c.smallest))
              for cls, c in shown_classes(counted, FAILED, 1)]
    alone = None
    b = res.broken
    if b is not None and b.request is not None and b.kind in (
            "timeout", "crash", "exited early", "garbage"):
        again = run_session(argv, Suite(ct, lambda: [ct.decode(json.loads(b.request))], 1,
                                        "alone"), False, args.timeout,
                            max_line=args.max_line_bytes)
        alone = again.broken is not None and again.broken.kind == b.kind
    prefix = (replay_prefix(argv, suite, b, args.timeout, args.max_line_bytes)
              if alone is False and b.index else None)
    report = make_report(args, suite, res, shrunk_classes, alone, failed, first,
                         whole.planned, prefix)
    print(json.dumps(report, indent=2) if args.json else text_report(report))
    return report["exit"]


def counted_tally(res: Result) -> Tally:
    """The verdicts that count: all of them, except those a skipped or
    repeated answer line caused (``Result.shift_caused``)."""
    counted = Tally()
    counted.merge(res.tally)
    if not res.shift_caused:
        counted.merge(res.after)
    return counted


def shown_classes(t: Tally, kind: str, limit: int) -> list:
    """The ``limit`` most frequent failure classes of ``kind`` (ties: the one
    with the smaller case first), as ``(key, ClassStat)``."""
    mine = [(cls, c) for cls, c in t.classes.items()
            if c.kind == kind and cls != OTHER_CLASSES and c.smallest is not None]
    mine.sort(key=lambda kc: (-kc[1].count, kc[1].smallest.key(), kc[0]))
    return mine[:limit]


def _shrunk(args, argv: list[str], ct, found: Example) -> Shrunk:
    case = ct.decode(json.loads(found.request))
    if args.no_shrink:
        return Shrunk(case, found, 0, False)
    return shrink(argv, ct, case, found, args.timeout)


#: a prefix replay sends at most this many requests (a break after
#: millions of answers is replayed up to its last ones)
MAX_PREFIX = 100_000


def replay_prefix(argv: list[str], suite: Suite, b, timeout: float,
                  max_line: int = DEFAULT_MAX_LINE) -> dict:
    """The break did not happen with its case sent alone: what differs is
    the requests before it.  Send them again, then the case, to a fresh
    process (the last ``MAX_PREFIX`` of them at most), and write them to a
    file so that the user can replay it: ``PROGRAM < FILE``."""
    import tempfile
    ct = suite.case_type
    first = max(0, b.index - MAX_PREFIX + 1)
    n = b.index + 1 - first
    cases = lambda: itertools.islice(suite.cases(), first, b.index + 1)
    again = run_session(argv, Suite(ct, cases, n, "prefix"), False, timeout,
                        max_line=max_line)
    reproduced = (again.broken is not None and again.broken.kind == b.kind
                  and again.broken.index == n - 1)
    fd, path = tempfile.mkstemp(prefix="verified-conform-replay-", suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        for c in cases():
            f.write(ct.encode(c))
    return {"first_case": first, "requests": n, "reproduced": reproduced, "file": path,
            "replay": f"{shlex.join(argv)} < {shlex.quote(path)}"}


def _progress_printer(mode: str) -> Callable[[int, int, float], None] | None:
    if mode == "never":
        return None
    tty = sys.stderr.isatty()
    if mode == "auto" and not tty:
        state = {"last": 0.0}

        def every_10s(done: int, total: int, elapsed: float) -> None:
            if elapsed - state["last"] >= 10:
                state["last"] = elapsed
                print(progress_text(done, total, elapsed), file=sys.stderr, flush=True)
        return every_10s

    def live(done: int, total: int, elapsed: float) -> None:
        print(progress_text(done, total, elapsed), end="\r" if tty else "\n",
              file=sys.stderr, flush=True)
    return live


def progress_text(done: int, total: int, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = f"{(total - done) / rate:.0f} s" if rate > 0 else "?"
    return (f"conform: {done:,}/{total:,} answers checked ({100 * done / max(total, 1):.0f}%), "
            f"{rate:,.0f}/s, ETA {eta}   ")


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


def exit_status(res: Result, allow_refusals: bool) -> int:
    """1 beats 2 beats 0: a wrong answer or a ``{"failure": ...}`` always
    exits 1, whatever ``--allow-refusals`` says; a declined solvable
    case exits 1 unless allowed; a broken program, a checker error or a run
    that checked nothing exits 2."""
    counted = [res.tally] + ([] if res.shift_caused else [res.after])
    wrong = sum(t.counts[WRONG] + t.counts[FAILED] for t in counted)
    refused = sum(t.counts[REFUSED] for t in counted)
    if wrong or (refused and not allow_refusals):
        return EXIT_WRONG
    internal = res.internal or sum(t.counts[INTERNAL] for t in counted)
    if res.broken or internal or res.checked == 0:
        return EXIT_BAD_INPUT
    return EXIT_OK


def _example(ct, ex: Example, with_reference: bool = False, first: int = 0) -> dict:
    req = json.loads(ex.request)
    case = ct.decode(req)
    out: dict[str, Any] = {"case": first + ex.index, "request": req, "what": ct.describe(case),
                           **answer_fields(ex.answer)}
    if ex.detail is not None:
        out["verdict"] = ex.detail
    if with_reference:
        ours, how = ct.reference(case)
        out["ours"] = ours
        out["ours_from"] = how
    return out


#: an answer longer than this is reported by an excerpt, its length and its
#: SHA-256 (a 40 MB answer was carried whole several times: a 54 MB report)
ANSWER_EXCERPT = 2000


def answer_fields(raw: bytes) -> dict:
    """``{"answer": text}``, or for a huge answer an excerpt (its start and
    end, the size and hash between them) with ``answer_bytes`` and
    ``answer_sha256``."""
    if len(raw) <= ANSWER_EXCERPT:
        return {"answer": raw.decode("utf-8", "replace")}
    import hashlib
    half = ANSWER_EXCERPT // 2
    sha = hashlib.sha256(raw).hexdigest()
    text = (raw[:half].decode("utf-8", "replace") + f" ... [{len(raw):,} bytes in all, "
            f"SHA-256 {sha}] ... " + raw[-half:].decode("utf-8", "replace"))
    return {"answer": text, "answer_bytes": len(raw), "answer_sha256": sha}


def _shrunk_example(args, ct, shrunk: Shrunk, found: Example, first: int = 0) -> dict:
    """A shrunk case as the report shows it: the case, how it was shrunk,
    where it was found, and the commands that reproduce its verdict.  A
    shrunk case is numbered in its own re-run; the case as found (nothing
    shrunk) in this run, so past ``first`` in a shard."""
    s = _example(ct, shrunk.example, first=first if shrunk.example is found else 0)
    s.update(shrink_steps=shrunk.steps, fails_alone=shrunk.reproduced,
             shrunk=not args.no_shrink)
    # a huge answer is not replayed on a command line (it was: 17 MB)
    answer = (_answer_value(ct, shrunk.example.answer)
              if len(shrunk.example.answer) <= ANSWER_EXCERPT else None)
    cmd = ct.explain_command(shrunk.case, answer) if answer is not None else None
    if cmd:
        s["explain"] = cmd
    check = getattr(ct, "check_command", None)
    if check is not None and answer is not None:
        s["check"] = check(shrunk.case, answer)
    return s


def _class_entry(args, ct, cls: str, c, shrunk: Shrunk, first: int = 0) -> dict:
    s = _shrunk_example(args, ct, shrunk, c.smallest, first)
    s.update(found_case=first + c.smallest.index, found_request=json.loads(c.smallest.request))
    return {"class": cls, "count": c.count, "smallest": s}


MACHINE_NOTE = ("on a machine, a case counts as having no answer when our resolve "
                "finds none (its contract; the optimum's search confirms it on "
                "machines of at most 8 units only)")


def make_report(args, suite: Suite, res: Result, classes: list, alone: bool | None,
                failed: list = (), first: int = 0, whole: int | None = None,
                prefix: dict | None = None) -> dict:
    """The report as one JSON object; ``classes`` (and ``failed``) are the
    shown failure classes of wrong answers (of ``{"failure"}`` answers),
    each ``(key, ClassStat, Shrunk)``.  With ``--shard`` its case numbers
    are those of the whole run (``first`` is the shard's first case) and a
    "shard" object carries what ``merge`` needs to rebuild the whole run's
    report."""
    ct = suite.case_type

    def example(ex: Example, with_reference: bool = False) -> dict:
        return _example(ct, ex, with_reference, first)

    status = exit_status(res, args.allow_refusals)
    counted = counted_tally(res)
    rate = res.checked / res.seconds if res.seconds > 0 else 0.0
    r: dict[str, Any] = {"program": args.cmd, "exit": status}
    if isinstance(ct, mv.MoveType):
        r.update(model=ct.model, temps=list(ct.temps), preserve=ct.preserve)
    elif getattr(ct, "label", None):
        r.update(machine=ct.label, temps=list(ct.temps), preserve=ct.preserve)
    else:
        r.update(allocator=True)
    r.update({
        "cases": suite.description, "planned": res.planned, "run": res.checked,
        "correct": counted.counts[OK] + counted.counts[REFUSED_OK],
        "refused_unsolvable": counted.counts[REFUSED_OK],
        "failures": counted.counts[WRONG],
        "program_failures": counted.counts[FAILED],
        "refusals": counted.counts[REFUSED],
        "seconds": round(res.seconds, 3), "cases_per_second": round(rate),
    })
    b = res.broken
    if b is not None:
        r["broken"] = {"kind": b.kind, "message": b.message, "stderr": b.stderr[-1500:]}
        if b.index is not None:
            r["broken"]["case"] = first + b.index
        if b.request is not None:
            r["broken"]["request"] = json.loads(b.request)
            r["broken"]["reproduced_alone"] = alone
            if prefix is not None:
                r["broken"]["with_prefix"] = prefix
        if res.shift_caused:
            a = res.after
            r["broken"]["verdicts_caused"] = a.checked - a.counts[OK] - a.counts[REFUSED_OK]
            r["broken"]["answers_out_of_step"] = a.checked
            out_of_step = min((exs[0] for k, exs in a.first.items() if k in (WRONG, REFUSED)),
                              key=lambda e: e.index)
            r["broken"]["first_out_of_step"] = example(out_of_step)
    if counted.counts[WRONG]:
        r["first_failure"] = example(counted.first[WRONG][0])
    if classes:
        entries = [_class_entry(args, ct, cls, c, sh, first) for cls, c, sh in classes]
        wrong_classes = [c for k, c in counted.classes.items() if c.kind == WRONG]
        r["classes"] = len(wrong_classes)
        r["failure_classes"] = entries
        hidden = [c for k, c in counted.classes.items()
                  if c.kind == WRONG and k not in {e["class"] for e in entries}]
        if hidden:
            r["classes_not_shown"] = {"classes": len(hidden),
                                      "answers": sum(c.count for c in hidden)}
            if OTHER_CLASSES in counted.classes:
                r["classes_not_shown"]["more_than_counted"] = True
        # the smallest of every shown class's smallest case: what
        # `verified explain report.json` explains
        best = min(entries, key=lambda e: (ct.size(ct.decode(e["smallest"]["request"])),
                                           e["smallest"]["case"]))
        r["smallest_failure"] = dict(best["smallest"], **{"class": best["class"]})
    if counted.counts[FAILED]:
        fr: dict[str, Any] = {"reasons": counted.reason_counts(FAILED),
                              "first": example(counted.first[FAILED][0])}
        for cls, c, sh in failed:
            fr["smallest"] = _class_entry(args, ct, cls, c, sh, first)["smallest"]
        r["failure_report"] = fr
    if counted.counts[REFUSED]:
        r["refusal_report"] = {
            "allowed": args.allow_refusals,
            "reasons": counted.reason_counts(REFUSED),
            "first": example(counted.first[REFUSED][0], with_reference=True),
            "smallest": example(counted.smallest[REFUSED], with_reference=True),
        }
    internal = list(res.internal) + [
        f"case #{first + e.index}: {e.detail}" for e in counted.first.get(INTERNAL, [])]
    if internal:
        r["internal_errors"] = internal
    if args.optimal:
        r["gap_to_optimum"] = [
            {"gap": gap, "count": n,
             "smallest": example(counted.gap_smallest[gap], with_reference=True)}
            for gap, n in sorted(counted.gaps.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
    notes = list(res.notes)
    if "machine" in r and counted.counts[REFUSED_OK]:
        notes.append(MACHINE_NOTE)
    if notes:
        r["notes"] = notes
    shard = getattr(args, "shard", None)
    if shard is not None:
        r["shard"] = _shard_facts(shard, first, whole, res, counted,
                                 args.max_classes or DEFAULT_CLASSES)
        # the size of each shown class's smallest case, as `merge` ranks them
        r["shard"]["shown_sizes"] = {
            e["class"]: list(ct.size(ct.decode(e["smallest"]["request"])))
            for e in r.get("failure_classes", [])}
    return r


def _shard_facts(shard: tuple[int, int], first: int, whole: int | None, res: Result,
                 counted: Tally, max_classes: int) -> dict:
    """What ``merge`` needs beyond the report itself: which part this is,
    the sizes that rank its examples against other shards' (the smallest
    case of a kind is the least (size, case number)), every failure class
    counted (not only the shown ones) and every refusal or failure text
    group in the order first seen, so the merged counts are one run's."""
    return {
        "index": shard[0], "of": shard[1], "first_case": first, "planned_total": whole,
        "internal": list(res.internal),
        "max_classes": max_classes,
        "sizes": {kind: list(ex.size) for kind, ex in counted.smallest.items()
                  if kind in (REFUSED, FAILED)},
        "gap_sizes": [[gap, list(ex.size)] for gap, ex in counted.gap_smallest.items()],
        "classes": [[key, c.kind, c.count] + ([] if c.smallest is None else
                                              [list(c.smallest.size), first + c.smallest.index])
                    for key, c in counted.classes.items()],
        "reasons": {kind: [[group, r.text, r.count, r.varies] for group, r in groups.items()]
                    for kind, groups in counted.reasons.items()},
    }


def _answer_value(ct, answer: bytes):
    try:
        obj = json.loads(answer)
    except ValueError:
        return None
    return obj.get(ct.answer_key) if isinstance(obj, dict) else None


def _one_line(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n") if "\n" in text else text


VERDICT = {0: "PASS", 1: "FAIL: wrong answers", 2: "FAIL: broken program or bad use"}


def _how(f: dict) -> str:
    """How a smallest case was found: shrunk, or not."""
    if not f["shrunk"]:
        return "as found, not shrunk (--no-shrink)"
    if f["fails_alone"]:
        return f"shrunk in {f['shrink_steps']} step(s), re-run alone in a fresh process"
    return ("NOT reproduced in a fresh process (the program's answers depend on "
            "earlier requests); shown as found")


def _case_lines(f: dict, pad: str, verdict: bool = False) -> list[str]:
    out = [f"{pad}case:    {f['what']}",
           f"{pad}request: {json.dumps(f['request'])}",
           f"{pad}answer:  {f['answer']}"]
    if verdict:
        out.append(f"{pad}verdict: {json.dumps(f['verdict'])}")
    if "explain" in f:
        out.append(f"{pad}explain: {f['explain']}")
    elif "check" in f:
        out.append(f"{pad}check:   {f['check']}")
    return out


def text_report(r: dict) -> str:
    noun = "allocations" if r.get("allocator") else "sequences"
    out = [f"conform: {_one_line(r['program'])}"]
    if r.get("allocator"):
        out.append(f"  allocator; {r['cases']}")
    elif "machine" in r:
        out.append(f"  machine {r['machine']}, temps {json.dumps(r['temps'])}, "
                   f"preserve {r['preserve']}; {r['cases']}")
    else:
        out.append(f"  model {r['model']}, temps {json.dumps(r['temps'])}, "
                   f"preserve {r['preserve']}; {r['cases']}")
    if "shard" in r:
        s = r["shard"]
        out.append(f"  shard {s['index']}/{s['of']}: cases #{s['first_case']}.."
                   f"#{s['first_case'] + r['planned'] - 1} of {s['planned_total']:,} "
                   f"(`verified conform merge` joins the shards' --json reports)")
    if "broken" in r:
        b = r["broken"]
        out.append(f"BROKEN PROGRAM ({b['kind']}): {b['message']}")
        if "request" in b:
            rep = {True: "yes", False: "no", None: "not tried"}[b.get("reproduced_alone")]
            out.append(f"  case #{b['case']}: {json.dumps(b['request'])}")
            out.append(f"  same failure when sent alone to a fresh process: {rep}")
            if "with_prefix" in b:
                p = b["with_prefix"]
                again = "yes" if p["reproduced"] else "no"
                out.append(f"  what differs is the {p['requests'] - 1:,} requests before it "
                           f"(cases #{p['first_case']}..#{b['case'] - 1}); sent again with "
                           f"them to a fresh process: {again}")
                out.append(f"  replay: {p['replay']}")
        if "answers_out_of_step" in b:
            f = b["first_out_of_step"]
            out.append(f"  the {b['answers_out_of_step']:,} answers from case #{b['case']} on "
                       f"are out of step with the requests: their "
                       f"{b['verdicts_caused']:,} failing verdicts are not counted; the first:")
            out.append(f"    case #{f['case']}: {json.dumps(f['request'])}")
            out.append(f"    answer: {f['answer']}")
        if b["stderr"]:
            out.append("  its stderr (last lines):")
            out += ["    " + ln for ln in b["stderr"].splitlines()[-10:]]
    out.append(f"checked: {r['run']:,} of {r['planned']:,} answers in {r['seconds']:.2f} s "
               f"({r['cases_per_second']:,} answers/s)")
    out.append(f"correct: {r['correct']:,}" + (
        f" (of which {r['refused_unsolvable']:,} rightly declined: no answer exists)"
        if r["refused_unsolvable"] else ""))
    classes = r.get("classes", 0)
    out.append(f"wrong {noun}: {r['failures']:,}"
               + (f" in {classes} class{'es' if classes != 1 else ''}" if classes else ""))
    if r["program_failures"]:
        fr = r["failure_report"]
        out.append(f"program failures (the program answered {{\"{FAILURE_KEY}\": ...}}): "
                   f"{r['program_failures']:,}")
        for why, n in fr["reasons"].items():
            out.append(f"  {n:>9,}  {why}")
        if "smallest" in fr:
            out.append(f"  smallest failed case ({_how(fr['smallest'])}):")
            out += _case_lines(fr["smallest"], "    ")
    if r["refusals"]:
        allowed = " (allowed by --allow-refusals)" if r["refusal_report"]["allowed"] else ""
        out.append(f"declined solvable cases: {r['refusals']:,}{allowed}")
    if "refusal_report" in r:
        rr = r["refusal_report"]
        for why, n in rr["reasons"].items():
            out.append(f"  {n:>9,}  {why}")
        s = rr["smallest"]
        out += [f"  smallest declined case: #{s['case']} {s['what']}",
                f"    request: {json.dumps(s['request'])}",
                f"    answer:  {s['answer']}",
                f"    witness: {json.dumps(s['ours'])} ({s['ours_from']})"]
    if "first_failure" in r:
        f = r["first_failure"]
        out += [f"first wrong answer: case #{f['case']} {f['what']}",
                f"  request: {json.dumps(f['request'])}",
                f"  answer:  {f['answer']}",
                f"  verdict: {json.dumps(f['verdict'])}"]
    entries = r.get("failure_classes", [])
    for i, e in enumerate(entries, 1):
        f = e["smallest"]
        what = noun if e["count"] != 1 else noun[:-1]
        out.append(f"class {i} of {classes}: {e['count']:,} wrong {what}: {e['class']}")
        out.append(f"  smallest ({_how(f)}):")
        out += _case_lines(f, "    ", verdict=True)
    if "classes_not_shown" in r:
        h = r["classes_not_shown"]
        more = " (and more not counted one by one)" if h.get("more_than_counted") else ""
        out.append(f"{h['classes']:,} more class(es){more}, {h['answers']:,} wrong {noun}, "
                   f"not shown: raise --max-classes to see them")
    for e in r.get("internal_errors", []):
        out.append(f"INTERNAL ERROR of conform: {e} (please report)")
    if "gap_to_optimum" in r:
        total = sum(g["count"] for g in r["gap_to_optimum"]) or 1
        what = "cost" if "machine" in r else "length"
        out.append(f"gap to the optimum (answer {what} - optimal {what}), correct answers:")
        for g in r["gap_to_optimum"]:
            label = "unknown" if g["gap"] is None else f"+{g['gap']}"
            s = g["smallest"]
            out.append(f"  {label:>7}: {g['count']:>9,}  {100 * g['count'] / total:5.1f}%  "
                       f"smallest: case #{s['case']} {s['what']}")
            out.append(f"           answer: {s['answer']}")
            out.append(f"           ours:   {json.dumps(s['ours'])}")
    for n in r.get("notes", []):
        out.append(f"note: {n}")
    verdict = VERDICT[r["exit"]]
    if r["exit"] == 1 and not r["failures"]:
        verdict = ("FAIL: the program failed" if r["program_failures"]
                   else "FAIL: solvable cases declined")
    if r["exit"] == 2 and r["run"] == 0 and "broken" not in r and "internal_errors" not in r:
        verdict = "FAIL: nothing was checked"
    out.append(f"result: {verdict} (exit {r['exit']})")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# The options table of the docs, from this parser
# ---------------------------------------------------------------------------


def options_markdown() -> str:
    """The markdown table of every option of ``verified conform`` (README and
    docs/conform.md carry it; a test compares them with this)."""
    p = argparse.ArgumentParser(prog="verified conform")
    add_arguments(p)
    rows = ["| option | meaning |", "|---|---|"]
    for a in p._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        if a.choices:
            arg = " " + "\\|".join(a.choices)
        elif a.nargs == 0:
            arg = ""
        elif a.nargs == "*":
            arg = f" {a.metavar}..."
        else:
            arg = f" {a.metavar}".replace("|", "\\|")
        longest, *others = sorted(a.option_strings, key=len, reverse=True)
        names = f"`{longest}{arg}`" + "".join(f" (`{o}`)" for o in others)
        rows.append(f"| {names} | {(a.help or '').replace('|', '/')} |")
    return "\n".join(rows) + "\n"
