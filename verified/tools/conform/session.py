"""One session: start the program, stream it every request of a suite, pair
each answer line with the request it answers, check the answers in chunks
(in worker processes, or inline), and keep a bounded summary.

Memory is bounded whatever the number of cases: requests are generated
lazily on the writer's thread and at most ``Exchange.window`` blocks run
ahead of the answers; answers are checked as they come and only counts and
a few examples are kept (``checker.Tally``).  Progress counts answers
checked, not received.

A protocol break (the program stops answering, crashes, exits early, prints
something that is not an answer, or more or fewer answers than requests)
ends the session; answers from the first one that is right for a
neighbouring request on (a skipped or repeated answer line) are kept apart
in ``after``, as verdicts the break caused rather than wrong answers.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import queue
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .checker import (
    CaseType,
    CheckerDied,
    CheckerPool,
    Chunk,
    ChunkResult,
    Tally,
    check_chunk,
    clip_line,
)
from .partner import (
    DEFAULT_MAX_LINE,
    Block,
    CannotStart,
    Exchange,
    Overlong,
    Partner,
    describe_exit,
)


@dataclass
class Suite:
    """What a run sends: a case type, the cases (a fresh lazy iterator per
    call), how many there are, and the words for them in the report."""

    case_type: CaseType
    cases: Callable[[], Iterable[Any]]
    planned: int
    description: str


@dataclass
class Break:
    """The program stopped being a protocol partner."""

    #: "cannot start", "timeout", "crash", "exited early", "skipped an
    #: answer", "extra output", "repeated an answer", "garbage"
    kind: str
    message: str
    index: int | None = None  # the case it was on
    request: bytes | None = None
    stderr: str = ""


@dataclass
class Result:
    planned: int
    tally: Tally = field(default_factory=Tally)
    #: verdicts from the first shifted answer on (see the module docstring)
    after: Tally = field(default_factory=Tally)
    #: the first failing answer that is right for a neighbouring request,
    #: and the neighbours ("next", "previous") that every failing answer
    #: from it on is right for
    shift: int | None = None
    shift_fits: set = field(default_factory=set)
    #: every failing answer from ``shift`` on is right for the same neighbour
    shift_consistent: bool = True
    broken: Break | None = None
    internal: list[str] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    sent: int = 0

    @property
    def checked(self) -> int:
        return self.tally.checked + self.after.checked

    @property
    def shift_caused(self) -> bool:
        """Are the verdicts in ``after`` the break's doing (not wrong answers)?
        Only when the program printed exactly one answer too few or too many
        and every failing answer from ``shift`` on is right for the same
        neighbour (``_Loop.name_the_shift``); in doubt, they count as wrong."""
        return (self.shift is not None and self.broken is not None
                and self.broken.kind in ("skipped an answer", "repeated an answer"))


#: A block of requests or a chunk of answers is cut at this many bytes too,
#: so that huge requests (10^6 registers) keep memory bounded.
BLOCK_BYTES = 1 << 16
CHUNK_BYTES = 1 << 20


def _blocks(ct: CaseType, cases: Iterable[Any], size: int) -> Iterator[Block]:
    encode, pack = ct.encode, ct.pack
    start = 0
    lines: list[bytes] = []
    packed: list = []
    nbytes = 0
    for c in cases:
        line = encode(c)
        lines.append(line)
        packed.append(pack(c))
        nbytes += len(line)
        if len(lines) >= size or nbytes >= BLOCK_BYTES:
            yield Block(start, lines, packed)
            start += len(lines)
            lines, packed, nbytes = [], [], 0
    if lines:
        yield Block(start, lines, packed)


#: the collector's thresholds during a session (Python's default: 700, 10,
#: 10): the answers' memo (``moves.answer_effect``) grows to tens of
#: thousands of long-lived objects, and each full collection walks them
#: all again (a quarter of conform's CPU on n <= 6 at the default); the
#: checking loop makes few reference cycles, so collecting less often
#: frees the same memory a little later
GC_THRESHOLDS = (10_000, 10, 10)


@contextlib.contextmanager
def _fewer_collections():
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


# set before the checker processes are forked: they inherit it
@_fewer_collections()
def run_session(
    argv: list[str],
    suite: Suite,
    optimal: bool,
    timeout: float,
    jobs: int = 1,
    progress: Callable[[int, int, float], None] | None = None,
    block: int = 256,
    chunk: int = 1024,
    max_line: int = DEFAULT_MAX_LINE,
) -> Result:
    """Run PROGRAM over every case of ``suite``; see the module docstring."""
    ct = suite.case_type
    res = Result(planned=suite.planned)
    t0 = time.monotonic()
    # forked before any thread of ours exists
    try:
        pool = CheckerPool(jobs, ct, optimal) if jobs > 1 and suite.planned >= 4 * chunk else None
    except OSError as e:  # fork refused (EAGAIN, ENOMEM): said, never swallowed
        res.internal.append(f"cannot start {jobs} checker processes ({type(e).__name__}: {e}); "
                            f"nothing was sent; --jobs 1 checks the answers inline")
        res.seconds = time.monotonic() - t0
        return res
    partner = Partner(argv)
    ex = None
    try:
        try:
            partner.start()
        except CannotStart as e:
            res.broken = Break("cannot start", str(e))
            return res
        ex = Exchange(partner, _blocks(ct, suite.cases(), block), max_line=max_line)
        ex.start()
        _Loop(ex, ct, optimal, timeout, pool, res, chunk, progress, t0).run()
        res.sent = ex.total
        if ex.writer_error is not None:
            e = ex.writer_error
            res.internal.append(f"generating the requests failed: {type(e).__name__}: {e}")
    finally:
        partner.kill()
        if ex is not None:
            ex.stop()
        if pool is not None:
            pool.close()
        ct.forget()
        res.seconds = time.monotonic() - t0
    if res.broken is not None:
        res.broken.stderr = partner.stderr_tail()
    return res


class _Loop:
    """The session's main loop (one instance per session): pair, submit,
    collect, watch the clock."""

    def __init__(self, ex: Exchange, ct: CaseType, optimal: bool, timeout: float,
                 pool: CheckerPool | None, res: Result, chunk: int,
                 progress: Callable | None, t0: float):
        self.ex, self.ct, self.optimal, self.timeout = ex, ct, optimal, timeout
        self.pool, self.res, self.chunk_size, self.progress, self.t0 = (
            pool, res, chunk, progress, t0)
        self.received = 0
        self.last = t0  # when the latest answer arrived
        self.reqs: list[bytes] = []
        self.cases: list = []
        self.answers: list[bytes] = []
        self.start = 0
        self.bytes = 0
        self.prev: tuple[bytes, bytes] | None = None
        self.pending: collections.deque = collections.deque()  # (ticket|result, chunk)
        self.stopped = False  # garbage or a dead checker: take no more
        self.last_progress = 0.0

    # -- pairing answers with requests ---------------------------------------

    def block_of(self, i: int) -> Block | None:
        """The block of request i if it has been handed to the writer."""
        for b in list(self.ex.sent):  # a copy: the writer appends meanwhile
            if b.start <= i < b.end:
                return b
        return None

    def request_of(self, i: int) -> bytes | None:
        b = self.block_of(i)
        return None if b is None else b.lines[i - b.start]

    def take(self, lines: list[bytes]) -> int:
        """Pair answer lines with their requests, in slices; returns how many
        had a request (the rest came before their request was sent)."""
        sent, ex = self.ex.sent, self.ex
        i, n = 0, len(lines)
        while i < n:
            r = self.received
            while sent and sent[0].end <= r:
                ex.retire()
            if not sent or sent[0].start > r:
                return i
            b = sent[0]
            lo = r - b.start
            k = min(n - i, b.end - r, self.chunk_size - len(self.reqs))
            self.reqs += b.lines[lo:lo + k]
            self.cases += b.cases[lo:lo + k]
            got = lines[i:i + k]
            self.answers += got
            self.bytes += sum(map(len, got))
            self.received = r + k
            i += k
            if len(self.reqs) >= self.chunk_size or self.bytes >= CHUNK_BYTES:
                self.submit()
        return n

    # -- checking --------------------------------------------------------------

    def submit(self) -> None:
        if not self.reqs or self.stopped:
            return
        end = self.start + len(self.reqs)
        nb = self.block_of(end)
        c = Chunk(self.start, self.cases, self.answers, self.prev,
                  None if nb is None else nb.cases[end - nb.start])
        reqs = self.reqs
        self.prev = (self.cases[-1], self.answers[-1])
        self.start = end
        self.reqs, self.cases, self.answers, self.bytes = [], [], [], 0
        if self.pool is None:
            self.pending.append((check_chunk(self.ct, self.optimal, c), c, reqs))
        else:
            while len(self.pending) >= 2 * self.pool.size:
                self.collect_one()
            if self.stopped:
                return
            self.pending.append((self.pool.submit(c), c, reqs))
        self.collect(block=False)

    def collect(self, block: bool) -> None:
        while self.pending and not self.stopped:
            head = self.pending[0][0]
            if not block and self.pool is not None and not isinstance(head, ChunkResult) \
                    and not self.pool.ready(head):
                return
            self.collect_one()

    def collect_one(self) -> None:
        got, c, reqs = self.pending.popleft()
        if self.stopped:
            return
        if not isinstance(got, ChunkResult):
            try:
                got = self.pool.result(got)
            except CheckerDied as e:
                self.res.internal.append(str(e))
                self.stopped = True
                return
        self.merge(got, c, reqs)

    def merge(self, r: ChunkResult, c: Chunk, reqs: list[bytes]) -> None:
        res = self.res
        for ex in r.before.examples() + r.after.examples():
            ex.request = reqs[ex.index - c.start]
            ex.answer = c.answers[ex.index - c.start]
        if res.shift is None:
            res.tally.merge(r.before)
            res.after.merge(r.after)
        else:
            res.after.merge(r.before)
            res.after.merge(r.after)
        for off, to in r.fits:
            if res.shift is None:
                if to:
                    res.shift, res.shift_fits = c.start + off, set(to)
            else:
                res.shift_fits &= set(to)
                if not res.shift_fits:
                    res.shift_consistent = False
        if r.garbage is not None:
            off, why = r.garbage
            res.broken = Break("garbage", why, c.start + off, reqs[off])
            self.stopped = True

    # -- the loop --------------------------------------------------------------

    def due(self) -> float:
        """When the answer to request ``received`` is overdue: ``--timeout``
        after the later of the previous answer's arrival and the request's
        block being written (or, while it is still being written, the start
        of that write: no answer can come before it, and a program reading
        a long block slowly is measured from when it began getting it)."""
        since = self.last
        b = self.block_of(self.received)
        if b is not None:
            if b.written_at is not None:
                since = max(since, b.written_at)
            elif b.sent_at is not None:
                since = max(since, b.sent_at)
        return since + self.timeout

    def late(self, arrived: float) -> bool:
        """Did the answer to request ``received``, read at ``arrived`` (the
        reader's stamp), come past its deadline?  Judged by the stamp, not by
        when this loop takes the batch, so an answer is late however busy
        the loop was (checking a chunk, or descheduled on a loaded machine)
        when the deadline passed; the deadline is computed now, with the
        writer's latest stamps, so a writer slow to stamp its block makes it
        later, never earlier.  A line for a request not yet sent is not
        judged here: it is extra output."""
        return self.block_of(self.received) is not None and arrived > self.due()

    def run(self) -> None:
        ex = self.ex
        while not self.stopped:
            if ex.finished.is_set() and self.received >= ex.total:
                if ex.exhausted:
                    self.finish_quietly()
                    break
                if ex.writer_error is not None:
                    break  # run_session reports it
            # Sleep until the deadline, at most 0.25 s at a time (to see the
            # writer finish); how late the loop wakes no longer matters: an
            # answer is judged by the reader's stamp (``late``)
            now = time.monotonic()
            due = self.due()
            try:
                item = ex.answers.get(timeout=max(0.0, min(due - now, 0.25)))
            except queue.Empty:
                item = False
            if item is None:  # the program's output ended
                self.output_ended()
                break
            if isinstance(item, Overlong):
                self.overlong(item)
                break
            if item:
                lines, arrived = item
                if self.late(arrived):
                    self.timed_out()
                    break
                self.last = arrived
                taken = self.take(lines)
                if taken < len(lines):
                    self.extra(lines[taken])
                    break
            elif time.monotonic() >= self.due():
                self.timed_out()
                break
            self.collect(block=False)
            self.tick()
        self.submit()
        self.collect(block=True)
        self.tick(force=True)
        self.name_the_shift()

    def tick(self, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if force or now - self.last_progress >= 0.5:
            self.last_progress = now
            self.progress(self.res.checked, self.res.planned, now - self.t0)

    # -- how it ended ----------------------------------------------------------

    def finish_quietly(self) -> None:
        """Every answer is in: the program must now end without more output."""
        try:
            item = self.ex.answers.get(timeout=self.timeout)
        except queue.Empty:
            self.res.notes.append(f"the program did not exit within {self.timeout:g} s "
                                  f"after its input ended; it was stopped")
            return
        if item:
            self.extra(item[0][0])
            return
        self.exited_after_all()

    def output_ended(self) -> None:
        """The program's output ended while the loop was waiting for more.
        Checked again here, not only at the top of the loop: the writer may
        finish between that check and the end of the output (it marks
        itself finished before closing the program's input, so by now it
        has if the program ended because its input did)."""
        ex = self.ex
        if ex.finished.is_set() and self.received >= ex.total:
            if ex.exhausted:
                self.exited_after_all()
                return
            if ex.writer_error is not None:
                return  # run_session reports it
        self.ended_early()

    def exited_after_all(self) -> None:
        """Every answer is in and the output ended: note an unclean exit."""
        code = self.ex.partner.wait(self.timeout)
        if code not in (0, None):
            self.res.notes.append(f"the program {describe_exit(code)} after answering "
                                  f"every request")

    def extra(self, line: bytes) -> None:
        self.res.broken = Break(
            "extra output",
            f"the program printed more answer lines than it was sent requests: line "
            f"#{self.received + 1} of its output came before request #{self.received + 1} "
            f"was sent: {clip_line(line)}")

    def ended_early(self) -> None:
        code = self.ex.partner.wait(self.timeout)
        if code is None:
            how, kind = "closed its output but kept running", "exited early"
        else:
            how, kind = describe_exit(code), ("crash" if code != 0 else "exited early")
        total = self.res.planned
        i = self.received
        self.res.broken = Break(
            kind, f"the program {how} after {i:,} of {total:,} answers; it was on case #{i}",
            i, self.request_of(i))

    def overlong(self, o: Overlong) -> None:
        i = self.received
        so_far = "" if o.complete else " and no newline yet"
        self.res.broken = Break(
            "garbage", f"answer #{i} is longer than --max-line-bytes {self.ex.max_line:,}: "
            f"{o.size:,} bytes{so_far} (not read further)", i, self.request_of(i))

    def timed_out(self) -> None:
        i = self.received
        msg = (f"no answer to case #{i} within {self.timeout:g} s "
               f"(the program hangs, or is far too slow)")
        if self.ex.window_full:
            msg += (f"; {self.ex.total - i:,} requests were waiting for answers: answer each "
                    f"request line as it comes and flush (conform streams; a program that "
                    f"answers only at the end of its input cannot be tested)")
        self.res.broken = Break("timeout", msg, i, self.request_of(i))

    def name_the_shift(self) -> None:
        """A missing or extra answer line shifts every later answer by one.
        Say so when the program printed exactly one answer too few (and
        ended) or one too many, and every failing answer from the first
        shifted one on is right for the same neighbour; otherwise the
        verdicts stand as they are."""
        res, b, ex = self.res, self.res.broken, self.ex
        if res.shift is None or b is None or not res.shift_consistent:
            return
        s = res.shift
        if (b.kind == "exited early" and "next" in res.shift_fits and ex.exhausted
                and self.received == ex.total - 1):
            b.kind = "skipped an answer"
            b.message = (f"the program answered {self.received:,} of {ex.total:,} requests "
                         f"and ended; from case #{s} on each answer is right for the request "
                         f"after it: it skipped the answer to case #{s} (or just before)")
            b.index, b.request = s, None
        elif b.kind == "extra output" and "previous" in res.shift_fits:
            b.kind = "repeated an answer"
            b.message = (f"the program printed more answer lines than requests; from "
                         f"answer #{s} on each answer is right for the request before it: "
                         f"it printed the answer to case #{s - 1} twice (or just before)")
            b.index, b.request = s, None
