"""``verified conform``: drive another implementation over the JSON-lines
protocol and check every answer with the oracle (DESIGN.md, "The oracle
protocol", read backwards).

    verified conform --cmd "./my_shuffler --json" --model swap \\
        --registers 6 --exhaustive --optimal

For each case conform writes one request line to PROGRAM's stdin

    {"moves": [[1, 0], [0, 1]], "model": "swap", "temps": [], "registers": 2}

and reads one answer line back, ``{"sequence": [...]}`` (or ``{"error":
"..."}``, which is right only when no sequence exists).  Each answer is
checked with ``oracle.implements`` (the one interpreter, the same verdict as
``verified check``).  The report gives the cases run, the failures, the
smallest failing case (shrunk by re-running PROGRAM on smaller cases: fewest
registers, then fewest moves) and, with ``--optimal``, the distribution of
the gap to the optimum.

Robustness: PROGRAM runs in its own process group; a reader thread collects
its output, a writer thread feeds it, so a program that hangs (per-case
timeout), crashes, exits early or prints something that is not an answer
is reported with the case it was on, and conform never hangs itself.

Throughput: requests are pipelined (all request lines are written through
the pipe while answers are read), and the answers are checked in chunks by
a pool of worker processes (``--jobs``, default: every core).  Nothing in a
check is skipped for speed: every answer is parsed with
``semantics.sequence`` and judged by ``oracle.implements``.

Exit status: 0 every answer correct; 1 some answer wrong; 2 bad use, or the
program is broken (hang, crash, early exit, garbage).
"""

from __future__ import annotations

import argparse
import collections
import functools
import itertools
import json
import multiprocessing
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple, Sequence

from .oracle import implements, optimum
from .protocol import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG, MAX_REQUEST_REGISTERS
from .semantics import (
    Location,
    ParallelMove,
    PreconditionError,
    location,
    sequence,
)

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


class Case(NamedTuple):
    """One parallel move over the register file r0..r{registers-1}."""

    registers: int
    moves: tuple[tuple[int, int], ...]

    @property
    def size(self) -> tuple[int, int]:
        """What shrinking minimises: fewest registers, then fewest moves."""
        return (self.registers, len(self.moves))


def exhaustive_cases(max_registers: int, smallest: int = 1) -> Iterator[Case]:
    """Every parallel move over r0..r{n-1} for n = smallest..max_registers:
    each register is either not a destination or a destination of any
    register (self-moves included), (n+1)^n moves for each n."""
    for n in range(smallest, max_registers + 1):
        choices = [None, *range(n)]
        for srcs in itertools.product(choices, repeat=n):
            yield Case(n, tuple((d, s) for d, s in enumerate(srcs) if s is not None))


def exhaustive_count(max_registers: int) -> int:
    return sum((n + 1) ** n for n in range(1, max_registers + 1))


def random_case(rng: random.Random, n: int) -> Case:
    """A random parallel move over n registers.  Half of them are dense
    permutations of a random subset (long cycles), the other half random
    functions of random density (fan-out, blades, windmills)."""
    if n == 0:
        return Case(0, ())
    if rng.random() < 0.5:
        dsts = rng.sample(range(n), rng.randint(1, n))
        srcs = dsts[:]
        rng.shuffle(srcs)
        moves = sorted(zip(dsts, srcs))
        # sometimes let a few destinations read elsewhere (blades on cycles)
        for i in range(len(moves)):
            if rng.random() < 0.15:
                moves[i] = (moves[i][0], rng.randrange(n))
        return Case(n, tuple(moves))
    density = rng.random()
    return Case(n, tuple(
        (d, rng.randrange(n)) for d in range(n) if rng.random() < density
    ))


def random_cases(n: int, k: int, seed: int) -> list[Case]:
    rng = random.Random(f"verified-conform:{n}:{seed}")
    return [random_case(rng, n) for _ in range(k)]


def no_fan_out(case: Case) -> bool:
    """No location is read by two moves (self-moves count): the transfer
    graph has out-degree <= 1, GREEDY's precondition."""
    srcs = [s for _, s in case.moves]
    return len(srcs) == len(set(srcs))


def shrink_candidates(case: Case) -> list[Case]:
    """Strictly smaller cases (by ``Case.size``) one step away: drop one
    register (with the moves naming it; the others renumbered), or drop one
    move."""
    out = set()
    n = case.registers
    if n > 1:
        for k in range(n):
            def re(x: int) -> int:
                return x - (x > k)
            out.add(Case(n - 1, tuple(
                (re(d), re(s)) for d, s in case.moves if k not in (d, s)
            )))
    for i in range(len(case.moves)):
        out.add(Case(n, case.moves[:i] + case.moves[i + 1:]))
    return sorted(c for c in out if c.size < case.size)


# ---------------------------------------------------------------------------
# Checking one answer (runs in the worker processes)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    model: str
    temps: tuple[Location, ...] = ()
    preserve: str = "all"
    optimal: bool = False

    def request(self, case: Case) -> dict:
        req = {"moves": [list(m) for m in case.moves], "model": self.model,
               "temps": list(self.temps)}
        if self.preserve != "all":
            req["preserve"] = self.preserve
        req["registers"] = case.registers
        return req

    def request_line(self, case: Case) -> bytes:
        """``json.dumps(self.request(case))`` plus a newline, built by hand
        (the hot path of the writer; tests compare the two)."""
        moves = ", ".join([f"[{d}, {s}]" for d, s in case.moves])
        return f'{{"moves": [{moves}]{self._tail}{case.registers}}}\n'.encode()

    @functools.cached_property
    def _tail(self) -> str:
        return (f', "model": {json.dumps(self.model)}, "temps": '
                f'{json.dumps(list(self.temps))}'
                + (f', "preserve": {json.dumps(self.preserve)}'
                   if self.preserve != "all" else "")
                + ', "registers": ')

    def parallel_move(self, case: Case) -> ParallelMove:
        # The request is ours: every generator's output is validated with
        # ParallelMove.make in tests/test_conform.py, and the temporaries
        # once per run in ``_validate``; the answer is what gets checked.
        return ParallelMove(case.moves, case.registers, self.temps, dict(case.moves))


#: Kinds of result.  OK and REFUSED_OK are correct answers.
OK, REFUSED_OK, WRONG, GARBAGE, INTERNAL = "ok", "refused-ok", "wrong", "garbage", "internal"


#: operation() is a pure function of its JSON input; answers repeat the same
#: few operations ("mov", 2, 1) over and over, so parsed operations are
#: memoised.  The key keeps each operand's exact type (True is not 1, 1.0
#: is not 1), and only flat [str, int|str, int|str] lists take this path;
#: everything else, and every error, goes through semantics.sequence.
_OP_MEMO: dict = {}
_FLAT = (int, str)


def parse_sequence(seq: object) -> list:
    """``semantics.sequence(seq)``, memoised per operation."""
    if type(seq) is not list:
        raise PreconditionError(f'"sequence" must be a list, not {_clip(repr(seq))}')
    memo = _OP_MEMO
    ops = []
    for v in seq:
        if type(v) is list and len(v) == 3:
            a, b, c = v
            tb, tc = type(b), type(c)
            if type(a) is str and tb in _FLAT and tc in _FLAT:
                key = (a, tb, b, tc, c)
                op = memo.get(key)
                if op is None:
                    try:
                        op = sequence([v])[0]
                    except PreconditionError:
                        return sequence(seq)  # the exact error message
                    if len(memo) < 100_000:
                        memo[key] = op
                ops.append(op)
                continue
        return sequence(seq)
    return ops


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def check_answer(cfg: Config, case: Case, line: bytes) -> tuple[str, object]:
    """Classify one answer line.  Returns (kind, detail):

    * (OK, gap) with gap = length - optimum when ``cfg.optimal`` (None if
      the optimum is not computed), else (OK, None);
    * (REFUSED_OK, message): an {"error"} answer where no sequence exists;
    * (WRONG, verdict-or-reason dict): the oracle rejects the sequence, the
      sequence is malformed, or a solvable case was refused;
    * (GARBAGE, reason): not an answer at all (the run stops there);
    * (INTERNAL, reason): our own checker failed (reported, exit 2).
    """
    try:
        try:
            obj = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            return GARBAGE, f"answer is not UTF-8: {_clip(repr(line))}"
        except (ValueError, RecursionError):
            return GARBAGE, f"answer is not JSON: {_clip(repr(line))}"
        if not isinstance(obj, dict):
            return GARBAGE, f"answer is not a JSON object: {_clip(repr(line))}"
        pm = cfg.parallel_move(case)
        if "sequence" in obj:
            try:
                ops = parse_sequence(obj["sequence"])
            except PreconditionError as e:
                return WRONG, {"reason": f"malformed sequence: {e}"}
            verdict = implements(pm, ops, cfg.model, cfg.preserve)
            if not verdict.ok:
                return WRONG, verdict.to_json()
            if cfg.optimal:
                best = optimum(pm, cfg.model, cfg.preserve).length
                return OK, None if best is None else len(ops) - best
            return OK, None
        if "error" in obj:
            best = optimum(pm, cfg.model, cfg.preserve) if cfg.model == "temp" else None
            if best is not None and best.length is None:
                return REFUSED_OK, obj["error"]
            return WRONG, {"reason": "refused a case that has a solution: "
                           f"{_clip(repr(obj['error']))}"}
        return GARBAGE, f'answer has neither "sequence" nor "error": {_clip(repr(line))}'
    except Exception as e:  # a bug of ours; never let it pass as ok
        return INTERNAL, f"{type(e).__name__}: {e}"


_WORKER: dict = {}


def _worker_init(cfg: Config, cases: Sequence[Case]) -> None:
    """Pool initializer.  The pool is forked after the cases are generated,
    so ``cases`` is inherited, not pickled; a task names only its range."""
    _WORKER["cfg"], _WORKER["cases"] = cfg, cases
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_range(start: int, lines: Sequence[bytes]):
    return _check_chunk(_WORKER["cases"][start:start + len(lines)], lines, _WORKER["cfg"])


def _check_chunk(cases: Sequence[Case], lines: Sequence[bytes], cfg: Config):
    """Check a chunk: returns (ok, refused_ok, gap counts, [(offset, kind,
    detail)] for every answer that is not correct)."""
    ok = refused = 0
    gaps: collections.Counter = collections.Counter()
    bad = []
    for i, (case, line) in enumerate(zip(cases, lines)):
        kind, detail = check_answer(cfg, case, line)
        if kind == OK:
            ok += 1
            if cfg.optimal:
                gaps[detail] += 1
        elif kind == REFUSED_OK:
            refused += 1
        else:
            bad.append((i, kind, detail))
    return ok, refused, gaps, bad


class _Done:
    """An already computed chunk result (inline checking)."""

    def __init__(self, value):
        self.value = value

    def ready(self) -> bool:
        return True

    def get(self):
        return self.value


# ---------------------------------------------------------------------------
# Running the program
# ---------------------------------------------------------------------------


@dataclass
class Failure:
    index: int
    case: Case
    kind: str
    detail: object
    answer: bytes


@dataclass
class Broken:
    """The program stopped being a protocol partner."""

    kind: str  # "timeout", "crash", "exited early", "garbage", "extra output", "cannot start"
    message: str
    index: int | None = None  # the case it was on
    case: Case | None = None
    stderr: str = ""


@dataclass
class Session:
    total: int
    answered: int = 0
    ok: int = 0
    refused_ok: int = 0
    gaps: collections.Counter = field(default_factory=collections.Counter)
    failures: list[Failure] = field(default_factory=list)
    internal: list[Failure] = field(default_factory=list)
    broken: Broken | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class _Tail:
    """The last bytes of the program's stderr."""

    def __init__(self, limit: int = 4000):
        self.data = b""
        self.limit = limit

    def text(self) -> str:
        return self.data.decode("utf-8", "replace").strip()


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


def _kill(proc: subprocess.Popen) -> None:
    """End the program we started (and its process group, which it leads)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def run_session(
    argv: Sequence[str],
    cases: Sequence[Case],
    cfg: Config,
    timeout: float,
    pool=None,
    chunk: int = 1024,
    progress: Callable[[int, int, float], None] | None = None,
) -> Session:
    """Start PROGRAM, send every case, collect and check every answer."""
    s = Session(total=len(cases))
    t0 = time.monotonic()
    if not cases:
        return s
    try:
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, bufsize=0,
        )
    except OSError as e:
        s.broken = Broken("cannot start", f"cannot run {shlex.join(argv)}: {e}")
        return s
    # Writer: all request lines, in blocks; remembers when each block was in.
    block = 256
    written: list[float] = []
    def writer() -> None:
        try:
            for b in range(0, len(cases), block):
                data = b"".join(cfg.request_line(c) for c in cases[b:b + block])
                proc.stdin.write(data)
                written.append(time.monotonic())
        except (BrokenPipeError, OSError, ValueError):
            pass
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    answers: queue.Queue = queue.Queue()
    def reader() -> None:
        fd = proc.stdout.fileno()
        rest = b""
        try:
            while True:
                data = os.read(fd, 1 << 16)
                if not data:
                    break
                parts = (rest + data).split(b"\n")
                rest = parts.pop()
                lines = [p for p in parts if p.strip()]
                if lines:
                    answers.put((lines, time.monotonic()))
        except OSError:
            pass
        if rest.strip():
            answers.put(([rest], time.monotonic()))
        answers.put(None)

    tail = _Tail()
    def err_reader() -> None:
        try:
            while data := os.read(proc.stderr.fileno(), 1 << 14):
                tail.data = (tail.data + data)[-tail.limit:]
        except OSError:
            pass

    threads = [threading.Thread(target=f, daemon=True) for f in (writer, reader, err_reader)]
    for t in threads:
        t.start()

    pending: collections.deque = collections.deque()  # (start index, async result)
    buf: list[bytes] = []
    buf_start = 0
    received = 0
    last = time.monotonic()
    last_progress = 0.0
    stop_at: int | None = None  # first garbage index: nothing after counts

    def submit() -> None:
        nonlocal buf, buf_start
        if not buf:
            return
        sub = cases[buf_start:buf_start + len(buf)]
        if pool is None:
            res = _Done(_check_chunk(sub, buf, cfg))
        else:
            res = pool.apply_async(_check_range, (buf_start, buf))
        pending.append((buf_start, res))
        buf_start += len(buf)
        buf = []

    def collect(block_until_done: bool) -> None:
        nonlocal stop_at
        while pending and (block_until_done or pending[0][1].ready()):
            start, res = pending.popleft()
            ok, refused, gaps, bad = res.get()
            if stop_at is not None:
                continue
            garbage = [b for b in bad if b[1] == GARBAGE]
            if garbage:
                g = garbage[0][0]
                stop_at = start + g
                bad = [b for b in bad if b[0] < g]
                # count the correct answers before the garbage exactly
                sub = cases[start:start + g]
                ok, refused, gaps, _ = _check_chunk(sub, chunk_lines[start][:g], cfg)
                s.broken = Broken("garbage", garbage[0][2], stop_at, cases[stop_at])
            s.ok += ok
            s.refused_ok += refused
            s.gaps.update(gaps)
            for off, kind, detail in bad:
                i = start + off
                f = Failure(i, cases[i], kind, detail, chunk_lines[start][off])
                (s.internal if kind == INTERNAL else s.failures).append(f)
            chunk_lines.pop(start, None)

    chunk_lines: dict[int, list[bytes]] = {}
    try:
        while received < len(cases) and stop_at is None:
            k = received // block
            due = max(last, written[k] if k < len(written) else last) + timeout
            now = time.monotonic()
            try:
                item = answers.get(timeout=max(0.0, min(due - now, 0.25)))
            except queue.Empty:
                now = time.monotonic()
                k = received // block
                due = max(last, written[k] if k < len(written) else last) + timeout
                if now >= due:
                    s.broken = Broken(
                        "timeout",
                        f"no answer to case #{received} within {timeout:g} s "
                        f"(the program hangs, or is far too slow)",
                        received, cases[received])
                    break
                item = False
            if item is None:  # end of output before every answer
                try:
                    code = proc.wait(timeout=timeout)
                    how = _describe_exit(code)
                    kind = "crash" if code != 0 else "exited early"
                except subprocess.TimeoutExpired:
                    how, kind = "closed its output but kept running", "exited early"
                s.broken = Broken(
                    kind, f"the program {how} after {received} of {len(cases)} "
                    f"answers; it was on case #{received}", received, cases[received])
                break
            if item:
                lines, last = item
                for line in lines:
                    if received >= len(cases):
                        s.broken = Broken("extra output", "the program printed more "
                                          f"answer lines than requests: {_clip(repr(line))}")
                        break
                    if not buf:
                        chunk_lines[buf_start] = buf
                    buf.append(line)
                    received += 1
                    if len(buf) >= chunk:
                        submit()
            collect(False)
            if progress and time.monotonic() - last_progress >= 0.5:
                last_progress = time.monotonic()
                progress(received, len(cases), last_progress - t0)
        if s.broken is None and stop_at is None:
            # every answer is in: the program must now end quietly
            try:
                item = answers.get(timeout=timeout)
                if item:
                    s.broken = Broken("extra output", "the program printed more "
                                      f"answer lines than requests: {_clip(repr(item[0][0]))}")
            except queue.Empty:
                s.notes.append(f"the program did not exit within {timeout:g} s after "
                               f"its input ended; it was stopped")
        submit()
        collect(True)
    finally:
        _kill(proc)
        for t in threads:
            t.join(timeout=1)
        s.seconds = time.monotonic() - t0
    s.answered = received if stop_at is None else stop_at
    if s.broken is not None:
        s.broken.stderr = tail.text()
    s.failures.sort(key=lambda f: f.index)
    return s


# ---------------------------------------------------------------------------
# Shrinking
# ---------------------------------------------------------------------------


@dataclass
class Shrunk:
    case: Case
    detail: object
    answer: bytes
    steps: int
    reproduced: bool


def _is_failure(f: Failure) -> bool:
    return f.kind == WRONG


def shrink(argv: Sequence[str], failure: Failure, cfg: Config, timeout: float,
           max_rounds: int = 200,
           domain: Callable[[Case], bool] = lambda c: True) -> Shrunk:
    """Re-run PROGRAM, each time in a fresh process, on ever smaller cases
    that it still answers wrongly.  Reports whether the original case fails
    on its own (a program whose answers depend on earlier requests may not)."""
    alone = run_session(argv, [failure.case], cfg, timeout)
    if not alone.failures:
        return Shrunk(failure.case, failure.detail, failure.answer, 0, False)
    best = alone.failures[0]
    steps = 0
    for _ in range(max_rounds):
        cands = [c for c in shrink_candidates(best.case) if domain(c)]
        if not cands:
            break
        sess = run_session(argv, cands, cfg, timeout)
        failing = [f for f in sess.failures if _is_failure(f)]
        if not failing:
            break
        best = min(failing, key=lambda f: (f.case.size, f.case))
        steps += 1
    return Shrunk(best.case, best.detail, best.answer, steps, True)


# ---------------------------------------------------------------------------
# The subcommand
# ---------------------------------------------------------------------------

HELP = """\
Drives PROGRAM over the JSON-lines protocol: one request per line on its
stdin ({"moves": [[dst, src], ...], "model": M, "temps": [...],
"registers": n}), one answer per line on its stdout ({"sequence": [...]},
or {"error": "..."} when no sequence exists).  Every answer is checked by
the oracle.  Reports the cases run, the failures, the smallest failing case
(shrunk: fewest registers, then fewest moves) and, with --optimal, the gap
to the optimum.  A program that hangs (--timeout per case), crashes, exits
early or prints garbage is reported with the case it was on.

exit status: 0 every answer correct; 1 some answer wrong; 2 bad use or a
broken program (hang, crash, early exit, garbage).

example:
  verified conform --cmd "./shuf_client" --model swap --registers 6 --exhaustive
"""


def _temp_arg(text: str) -> Location:
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    try:
        return location(value)
    except PreconditionError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("--cmd", required=True, metavar='"PROGRAM ARGS"',
                        help="the program to test (split like a shell would, not run by one)")
    parser.add_argument("--model", required=True, choices=["temp", "swap", "permi"])
    parser.add_argument("--temps", nargs="*", type=_temp_arg, default=None, metavar="LOC",
                        help='temporaries to declare (default: t for --model temp, '
                        'none otherwise); a number is a register, e.g. 16')
    parser.add_argument("--registers", "-n", type=int, default=4, metavar="N",
                        help="register count: every n <= N with --exhaustive, "
                        "exactly N with --random (default 4)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exhaustive", action="store_true",
                      help="every parallel move over n = 1..N registers (the default)")
    mode.add_argument("--random", type=int, metavar="K", help="K seeded random cases")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed for --random (default 0)")
    parser.add_argument("--no-fan-out", action="store_true",
                        help="only moves where no location is read twice (out-degree <= 1, "
                        "e.g. for GREEDY); shrinking stays inside this domain")
    parser.add_argument("--preserve", choices=["all", "loops"], default="all",
                        help='the contract (default "all"; "loops" is sent in each request)')
    parser.add_argument("--optimal", action="store_true",
                        help="also report the distribution of answer length - optimum")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="longest wait for any one answer (default 10)")
    parser.add_argument("--jobs", "-j", type=int, default=0, metavar="J",
                        help="checker processes (default: one per core; 1 = check inline)")
    parser.add_argument("--no-shrink", action="store_true",
                        help="report the first failure without shrinking it")
    parser.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                        help="progress and ETA on stderr (auto: when stderr is a terminal, "
                        "or every 10 s on long runs)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as one JSON object instead of text")


def _progress_printer(mode: str) -> Callable[[int, int, float], None] | None:
    if mode == "never":
        return None
    tty = sys.stderr.isatty()
    if mode == "auto" and not tty:
        state = {"last": 0.0}

        def every_10s(done: int, total: int, elapsed: float) -> None:
            if elapsed - state["last"] >= 10:
                state["last"] = elapsed
                print(_progress_text(done, total, elapsed), file=sys.stderr, flush=True)
        return every_10s

    def live(done: int, total: int, elapsed: float) -> None:
        end = "\r" if tty else "\n"
        print(_progress_text(done, total, elapsed), end=end, file=sys.stderr, flush=True)
    return live


def _progress_text(done: int, total: int, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = (total - done) / rate if rate > 0 else float("inf")
    eta_s = f"{eta:.0f} s" if eta != float("inf") else "?"
    return (f"conform: {done:,}/{total:,} cases ({100 * done / max(total, 1):.0f}%), "
            f"{rate:,.0f}/s, ETA {eta_s}   ")


def _validate(args: argparse.Namespace) -> tuple[list[str], Config, list[Case], str]:
    try:
        argv = shlex.split(args.cmd)
    except ValueError as e:
        raise PreconditionError(f"--cmd: {e}") from None
    if not argv:
        raise PreconditionError("--cmd is empty")
    if not 1 <= args.registers <= MAX_REQUEST_REGISTERS:
        raise PreconditionError(f"--registers must be in 1..{MAX_REQUEST_REGISTERS}")
    temps = args.temps
    if temps is None:
        temps = ["t"] if args.model == "temp" else []
    # temporaries must lie outside every register file we will send
    ParallelMove.make([], registers=args.registers, temps=temps)
    cfg = Config(args.model, tuple(temps), args.preserve, args.optimal)
    if args.random is not None:
        if args.random < 0:
            raise PreconditionError("--random needs K >= 0")
        if args.no_fan_out:
            rng = random.Random(f"verified-conform:{args.registers}:{args.seed}:no-fan-out")
            cases = []
            while len(cases) < args.random:
                c = random_case(rng, args.registers)
                if no_fan_out(c):
                    cases.append(c)
        else:
            cases = random_cases(args.registers, args.random, args.seed)
        what = f"{args.random:,} random cases over {args.registers} registers (seed {args.seed})"
    else:
        if args.registers > 7:
            raise PreconditionError(
                f"--exhaustive over {args.registers} registers is "
                f"{exhaustive_count(args.registers):,} cases; use --random K beyond 7")
        cases = list(exhaustive_cases(args.registers))
        what = f"exhaustive, every parallel move over 1..{args.registers} registers"
        if args.no_fan_out:
            cases = [c for c in cases if no_fan_out(c)]
    if args.no_fan_out:
        what += ", no fan-out"
    return argv, cfg, cases, what


def _fmt_case(cfg: Config, case: Case) -> str:
    return json.dumps(cfg.request(case))


def _fmt_moves(case: Case) -> str:
    return "(" + ", ".join(f"r{d} <- r{s}" for d, s in case.moves) + ")"


def run(args: argparse.Namespace) -> int:
    try:
        argv, cfg, cases, what = _validate(args)
    except PreconditionError as e:
        print(f"verified conform: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    jobs = args.jobs or os.cpu_count() or 1
    pool = None
    if jobs > 1 and len(cases) >= 4096:
        # forked before any thread of ours exists
        pool = multiprocessing.get_context("fork").Pool(jobs, _worker_init, (cfg, cases))
    try:
        sess = run_session(argv, cases, cfg, args.timeout, pool,
                           progress=_progress_printer(args.progress))
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    if args.progress != "never" and sys.stderr.isatty():
        print(" " * 70, end="\r", file=sys.stderr)

    shrunk = None
    if sess.failures and not args.no_shrink:
        first = min(sess.failures, key=lambda f: (f.case.size, f.index))
        shrunk = shrink(argv, first, cfg, args.timeout,
                        domain=no_fan_out if args.no_fan_out else (lambda c: True))
    alone = None
    if sess.broken and sess.broken.case is not None:
        # does the case it was on break it on its own?
        again = run_session(argv, [sess.broken.case], cfg, args.timeout)
        alone = again.broken is not None and again.broken.kind == sess.broken.kind

    status = (EXIT_WRONG if sess.failures
              else EXIT_BAD_INPUT if (sess.broken or sess.internal) else EXIT_OK)
    report = _report(args, cfg, what, sess, shrunk, alone, status)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_text(report))
    return status


def _report(args, cfg: Config, what: str, sess: Session, shrunk: Shrunk | None,
            alone: bool | None, status: int) -> dict:
    rate = sess.answered / sess.seconds if sess.seconds > 0 else 0.0
    r: dict = {
        "program": args.cmd, "model": cfg.model, "temps": list(cfg.temps),
        "preserve": cfg.preserve, "cases": what, "planned": sess.total,
        "run": sess.answered, "correct": sess.ok + sess.refused_ok,
        "refused_unsolvable": sess.refused_ok, "failures": len(sess.failures),
        "seconds": round(sess.seconds, 3), "cases_per_second": round(rate),
        "exit": status,
    }
    if sess.failures:
        f = sess.failures[0]
        r["first_failure"] = {"case": f.index, "request": cfg.request(f.case),
                              "answer": f.answer.decode("utf-8", "replace"),
                              "verdict": f.detail}
    if shrunk is not None:
        r["smallest_failure"] = {
            "request": cfg.request(shrunk.case), "moves": _fmt_moves(shrunk.case),
            "answer": shrunk.answer.decode("utf-8", "replace"), "verdict": shrunk.detail,
            "shrink_steps": shrunk.steps, "fails_alone": shrunk.reproduced,
        }
    if sess.broken:
        b = sess.broken
        r["broken"] = {"kind": b.kind, "message": b.message, "stderr": b.stderr[-1500:]}
        if b.case is not None:
            r["broken"]["case"] = b.index
            r["broken"]["request"] = cfg.request(b.case)
            r["broken"]["reproduced_alone"] = alone
    if sess.internal:
        r["internal_errors"] = [
            {"case": f.index, "request": cfg.request(f.case), "error": f.detail}
            for f in sess.internal[:5]]
    if cfg.optimal:
        r["gap_to_optimum"] = {str(k): v for k, v in sorted(
            sess.gaps.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))}
    if sess.notes:
        r["notes"] = sess.notes
    return r


def _text(r: dict) -> str:
    out = [f"conform: {r['program']}",
           f"  model {r['model']}, temps {json.dumps(r['temps'])}, preserve {r['preserve']}; {r['cases']}",
           f"cases run: {r['run']:,} of {r['planned']:,} in {r['seconds']:.2f} s "
           f"({r['cases_per_second']:,} cases/s)",
           f"correct: {r['correct']:,}" + (f" (of which {r['refused_unsolvable']:,} "
                                            f"rightly refused: no sequence exists)"
                                            if r['refused_unsolvable'] else ""),
           f"failures: {r['failures']:,}"]
    if "first_failure" in r:
        f = r["first_failure"]
        out += [f"first failure: case #{f['case']}",
                f"  request: {json.dumps(f['request'])}",
                f"  answer:  {f['answer']}",
                f"  verdict: {json.dumps(f['verdict'])}"]
    if "smallest_failure" in r:
        f = r["smallest_failure"]
        how = (f"shrunk in {f['shrink_steps']} step(s), re-run alone in a fresh process"
               if f["fails_alone"] else
               "NOT reproduced in a fresh process (the program's answers depend on "
               "earlier requests); shown as found")
        out += [f"smallest failing case ({how}):",
                f"  moves:   {f['moves']}",
                f"  request: {json.dumps(f['request'])}",
                f"  answer:  {f['answer']}",
                f"  verdict: {json.dumps(f['verdict'])}"]
    if "broken" in r:
        b = r["broken"]
        out.append(f"BROKEN PROGRAM ({b['kind']}): {b['message']}")
        if "request" in b:
            rep = {True: "yes", False: "no", None: "not tried"}[b.get("reproduced_alone")]
            out.append(f"  case #{b['case']}: {json.dumps(b['request'])}")
            out.append(f"  same failure when sent alone to a fresh process: {rep}")
        if b["stderr"]:
            out.append("  its stderr (last lines):")
            out += ["    " + ln for ln in b["stderr"].splitlines()[-10:]]
    for e in r.get("internal_errors", []):
        out.append(f"INTERNAL ERROR of the checker on case #{e['case']} "
                   f"{json.dumps(e['request'])}: {e['error']} (please report)")
    if "gap_to_optimum" in r:
        total = sum(r["gap_to_optimum"].values()) or 1
        out.append("gap to the optimum (answer length - optimal length), correct answers:")
        for k, v in r["gap_to_optimum"].items():
            label = "unknown" if k == "None" else f"+{k}"
            out.append(f"  {label:>7}: {v:>9,}  {100 * v / total:5.1f}%")
    for n in r.get("notes", []):
        out.append(f"note: {n}")
    verdict = {0: "PASS", 1: "FAIL: wrong answers", 2: "FAIL: broken program or bad use"}
    out.append(f"result: {verdict[r['exit']]} (exit {r['exit']})")
    return "\n".join(out)
