"""Classifying answers: one answer line against the request it answers
(``classify``), a chunk of them in a worker process (``check_chunk``,
``CheckerPool``), and the bounded summary a run keeps (``Tally``).

The case a worker judges is the case whose request line was sent: the
request line is ``CaseType.encode(case)`` and the worker gets
``CaseType.pack(case)``; the tests check that decoding the line and
unpacking give the same case, for every generator.

A case type (``CaseType``) is everything conform knows about one kind of
case: parallel moves (``moves.py``) and allocator tapes (``tapes.py``); a
new kind (a machine, say) is one more class with the same methods.

Kinds of outcome:

* ``OK``: a correct answer;
* ``REFUSED_OK``: ``{"unsupported": ...}`` or ``{"error": ...}`` where no
  answer exists (a bare cycle in the temp model with no temporary): right;
* ``WRONG``: the answer is rejected (the verdict says why);
* ``REFUSED``: a case that has an answer was declined; reported apart from
  WRONG, with our reference answer as the witness;
* ``GARBAGE``: the line is not an answer at all (the run stops there);
* ``INTERNAL``: our own checker failed (reported, never counted as ok).
"""

from __future__ import annotations

import collections
import json
import re
import multiprocessing
import queue
import signal
from dataclasses import dataclass, field
from typing import Any

from ...core.semantics import PreconditionError
from ..wire import decode_line

OK, REFUSED_OK, WRONG, REFUSED, GARBAGE, INTERNAL = (
    "ok", "refused-ok", "wrong", "refused", "garbage", "internal")

#: the answer fields that decline a case ("error" is the older spelling)
REFUSAL_KEYS = ("unsupported", "error")


@dataclass(frozen=True)
class Judgement:
    """The verdict on one answer: ``ok``, the verdict as JSON (``detail``)
    and the answer's length (for the optimum's gap)."""

    ok: bool
    detail: dict
    length: int | None = None


class CaseType:
    """The interface of a kind of case (see ``moves.MoveType``).  Instances
    are sent to the worker processes, so they hold only plain settings."""

    #: the answer's field that carries an answer ("sequence", "program")
    answer_key: str = ""
    #: the word for one answer in reports ("sequence", "allocation")
    answer_noun: str = ""

    def encode(self, case: Any) -> bytes:
        """The request line for ``case`` (JSON and a newline)."""
        raise NotImplementedError

    def request(self, case: Any) -> dict:
        raise NotImplementedError

    def decode(self, request: dict) -> Any:
        """The case of one of *our own* request lines (already JSON-decoded)."""
        raise NotImplementedError

    def pack(self, case: Any) -> Any:
        """The case as plain tuples, cheap to send to a worker process (a
        request line costs several times more to decode than this to
        unpickle); ``unpack(pack(c)) == c == decode(json.loads(encode(c)))``
        is checked by the tests for every generator."""
        return case

    def unpack(self, packed: Any) -> Any:
        return packed

    def judge(self, case: Any, answer: object) -> Judgement:
        """Judge ``answer`` (the value of ``answer_key``)."""
        raise NotImplementedError

    def correct(self, packed: Any, line: bytes) -> bool:
        """The hot path of checking, on the packed case: True only when
        ``classify`` would say OK (the line is an answer object with
        ``answer_key`` that ``judge`` accepts); False means "not sure,
        classify it".  The default is never sure."""
        return False

    def solvable(self, case: Any) -> bool:
        """Does ``case`` have an answer (so that declining it is a failure)?"""
        raise NotImplementedError

    def gap(self, case: Any, judgement: Judgement) -> int | None:
        """Answer length - optimum (None: not known)."""
        return None

    def reference(self, case: Any) -> tuple[object | None, str]:
        """Our answer for ``case`` (checked by the oracle) and a note: the
        witness that a refused case has an answer."""
        raise NotImplementedError

    def size(self, case: Any) -> tuple:
        """What 'smallest' means (compared as tuples)."""
        raise NotImplementedError

    def shrink_candidates(self, case: Any) -> list:
        raise NotImplementedError

    def describe(self, case: Any) -> str:
        """One line a person reads: the moves, the tape."""
        raise NotImplementedError

    def explain_command(self, case: Any, answer: object) -> str | None:
        """The command that explains a wrong answer step by step, if any."""
        return None


def clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def decode_answer(line: bytes) -> "dict | str":
    """The answer object, or why the line is not one (a garbage reason).
    Decoded like a request (``wire.decode_line``): duplicate keys, NaN and
    invalid UTF-8 are not answers."""
    try:
        obj = decode_line(line)
    except PreconditionError as e:
        return f"answer is not JSON ({e}): {clip(repr(line))}"
    if not isinstance(obj, dict):
        return f"answer is not a JSON object: {clip(repr(line))}"
    return obj


def classify(ct: CaseType, case: Any, line: bytes, optimal: bool) -> tuple[str, object]:
    """Classify one answer line.  Returns ``(kind, detail)``: for OK the gap
    to the optimum (``optimal``) or None; for WRONG the verdict; for
    REFUSED and REFUSED_OK ``{"key": ..., "why": ...}``; for GARBAGE and
    INTERNAL a message."""
    try:
        obj = decode_answer(line)
        if isinstance(obj, str):
            return GARBAGE, obj
        key = ct.answer_key
        if key in obj:
            j = ct.judge(case, obj[key])
            if not j.ok:
                return WRONG, j.detail
            return OK, ct.gap(case, j) if optimal else None
        for k in REFUSAL_KEYS:
            if k in obj:
                why = obj[k]
                said = {"key": k, "why": clip(why if isinstance(why, str) else json.dumps(why))}
                return (REFUSED if ct.solvable(case) else REFUSED_OK), said
        return GARBAGE, (f'answer has none of "{key}", "unsupported", "error": '
                         f"{clip(repr(line))}")
    except Exception as e:  # a bug of ours; never let it pass as ok
        return INTERNAL, f"{type(e).__name__}: {e}"


def reason_group(why: str) -> str:
    """A refusal's reason with its numbers as N, so that "line 4: r0 must go
    to r1" and "line 8: r1 must go to r0" count as one reason."""
    return re.sub(r"\d+", "N", why)


# ---------------------------------------------------------------------------
# The bounded summary of a run
# ---------------------------------------------------------------------------

#: how many of the first failures of each kind a report keeps
FIRST = 3
#: how many distinct refusal reasons are counted one by one
REASONS = 20


@dataclass
class Example:
    """One reported case: where it was, its size, the verdict; the request
    and answer bytes are attached by the session (which still holds them)."""

    index: int
    size: tuple
    detail: object
    request: bytes = b""
    answer: bytes = b""

    def key(self) -> tuple:
        return (self.size, self.index)


@dataclass
class Tally:
    """Counts per kind, the first and the smallest case of each failing
    kind, refusal reasons, and the gap histogram with the smallest case of
    each bucket.  Bounded whatever the number of cases."""

    counts: collections.Counter = field(default_factory=collections.Counter)
    first: dict = field(default_factory=dict)  # kind -> [Example]
    smallest: dict = field(default_factory=dict)  # kind -> Example
    reasons: collections.Counter = field(default_factory=collections.Counter)
    gaps: collections.Counter = field(default_factory=collections.Counter)
    gap_smallest: dict = field(default_factory=dict)  # gap -> Example

    def add(self, index: int, kind: str, detail: object, size: tuple) -> None:
        self.counts[kind] += 1
        if kind in (OK, REFUSED_OK):
            return
        ex = Example(index, size, detail)
        first = self.first.setdefault(kind, [])
        if len(first) < FIRST:
            first.append(ex)
        best = self.smallest.get(kind)
        if best is None or ex.key() < best.key():
            self.smallest[kind] = ex
        if kind == REFUSED:
            self._reason(reason_group(detail["why"]), 1)

    def add_gap(self, index: int, gap: int | None, size: tuple) -> None:
        self._gap(gap, Example(index, size, None))

    def _gap(self, gap, ex: Example, count: int = 1) -> None:
        self.gaps[gap] += count
        best = self.gap_smallest.get(gap)
        if best is None or ex.key() < best.key():
            self.gap_smallest[gap] = ex

    def _reason(self, why: str, count: int) -> None:
        if why in self.reasons or len(self.reasons) < REASONS:
            self.reasons[why] += count
        else:
            self.reasons["(other reasons)"] += count

    def merge(self, other: "Tally") -> None:
        self.counts.update(other.counts)
        for kind, exs in other.first.items():
            mine = self.first.setdefault(kind, [])
            mine.extend(exs[:FIRST - len(mine)])
        for kind, ex in other.smallest.items():
            best = self.smallest.get(kind)
            if best is None or ex.key() < best.key():
                self.smallest[kind] = ex
        for why, n in other.reasons.items():
            self._reason(why, n)
        for gap, n in other.gaps.items():
            self._gap(gap, other.gap_smallest[gap], n)

    def examples(self) -> list[Example]:
        out = [e for exs in self.first.values() for e in exs]
        out += list(self.smallest.values()) + list(self.gap_smallest.values())
        return out

    @property
    def checked(self) -> int:
        return sum(self.counts.values())


# ---------------------------------------------------------------------------
# A chunk of answers (in a worker process, or inline)
# ---------------------------------------------------------------------------


@dataclass
class Chunk:
    """Answers ``start .. start + len(answers) - 1`` with their cases
    (packed), plus the neighbours a shifted answer would belong to: the
    case and answer just before (``prev``) and the case just after
    (``next``)."""

    start: int
    cases: list
    answers: list[bytes]
    prev: tuple[Any, bytes] | None = None
    next: Any = None


@dataclass
class ChunkResult:
    start: int
    #: answers before the first failing one that is right for a neighbour
    before: Tally
    #: that answer and every later one of the chunk
    after: Tally
    #: every failing answer (WRONG or REFUSED): its offset and the
    #: neighbours its answer is right for: "next" (as if an answer had been
    #: skipped before it), "previous" (as if one had been printed twice),
    #: both (an answer such as [] can be right for both), or neither: ()
    fits: list = field(default_factory=list)
    #: offset and reason of the first line that is not an answer
    garbage: tuple[int, str] | None = None


_GOOD = (OK, REFUSED_OK)


def check_chunk(ct: CaseType, optimal: bool, chunk: Chunk) -> ChunkResult:
    before, after = Tally(), Tally()
    res = ChunkResult(chunk.start, before, after)
    tally = before
    unpack = ct.unpack
    correct = None if optimal else ct.correct  # --optimal needs each case's gap
    for off, (packed, line) in enumerate(zip(chunk.cases, chunk.answers)):
        if correct is not None and correct(packed, line):
            tally.counts[OK] += 1
            continue
        case = unpack(packed)
        kind, detail = classify(ct, case, line, optimal)
        if kind == GARBAGE:
            res.garbage = (off, detail)
            break
        if kind == OK:
            tally.counts[OK] += 1
            if optimal:
                tally.add_gap(chunk.start + off, detail, ct.size(case))
            continue
        if kind in (WRONG, REFUSED):
            to = _fits_neighbours(ct, chunk, off, line)
            res.fits.append((off, to))
            if to:
                tally = after
        tally.add(chunk.start + off, kind, detail, ct.size(case))
    return res


def _fits_neighbours(ct: CaseType, chunk: Chunk, off: int, line: bytes) -> tuple[str, ...]:
    """Is this (failing) answer right for the request after it (as if the
    program had skipped an answer), for the one before it (as if it had
    printed an answer twice), or both?"""
    nxt = chunk.cases[off + 1] if off + 1 < len(chunk.cases) else chunk.next
    prev = chunk.cases[off - 1] if off > 0 else (chunk.prev[0] if chunk.prev else None)
    return tuple(name for name, case in (("next", nxt), ("previous", prev))
                 if case is not None and classify(ct, ct.unpack(case), line, False)[0] in _GOOD)


# ---------------------------------------------------------------------------
# Worker processes
# ---------------------------------------------------------------------------


class CheckerDied(Exception):
    """A checker process ended without answering (killed, out of memory)."""


def _worker(tasks, results, ct: CaseType, optimal: bool) -> None:
    # the command's main process handles ^C and termination, and kills us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    while (chunk := tasks.get()) is not None:
        try:
            out: "ChunkResult | str" = check_chunk(ct, optimal, chunk)
        except Exception as e:  # a bug of ours: the session reports it
            out = f"{type(e).__name__}: {e}"
        results.put((chunk.start, out))


class CheckerPool:
    """``jobs`` forked worker processes that take chunks from one shared
    queue, whichever is free first, and put ``(start, result)`` on one
    results queue; ``result`` hands the results back in the order the
    chunks were submitted (the session merges them in that order).

    Why one shared queue: with chunks dealt round-robin and taken back in
    order, a worker that the machine's scheduler held back (a loaded CI
    machine) held the session and the other workers back with it; on two
    busy cores that made the worker processes slower than checking inline.
    Created before any thread of the session exists (fork copies only the
    calling thread); ``submit`` never blocks (the queue's feeder thread
    writes to the pipe)."""

    def __init__(self, jobs: int, ct: CaseType, optimal: bool):
        ctx = multiprocessing.get_context("fork")
        self._tasks = ctx.Queue()
        self._results = ctx.Queue()
        self.workers = [ctx.Process(target=_worker, args=(self._tasks, self._results, ct, optimal),
                                    daemon=True) for _ in range(jobs)]
        try:
            for p in self.workers:
                p.start()
        except BaseException:  # SIGTERM/SIGHUP mid-start: leave no worker behind
            for p in self.workers:
                if p.pid is not None:
                    p.kill()
            raise
        self._done: dict[int, "ChunkResult | str"] = {}

    @property
    def size(self) -> int:
        return len(self.workers)

    def submit(self, chunk: Chunk) -> int:
        self._tasks.put(chunk)
        return chunk.start

    def ready(self, ticket: int) -> bool:
        while ticket not in self._done:
            try:
                start, out = self._results.get_nowait()
            except queue.Empty:
                return False
            self._done[start] = out
        return True

    def result(self, ticket: int) -> ChunkResult:
        while ticket not in self._done:
            try:
                start, out = self._results.get(timeout=0.5)
            except queue.Empty:
                dead = [p for p in self.workers if p.exitcode is not None]
                if dead:
                    raise CheckerDied(f"checker process {dead[0].pid} ended without answering "
                                      f"(exit code {dead[0].exitcode})") from None
                continue
            self._done[start] = out
        got = self._done.pop(ticket)
        if isinstance(got, str):
            raise CheckerDied(f"a checker process failed: {got}")
        return got

    def close(self) -> None:
        for p in self.workers:
            if p.is_alive():
                p.kill()
        for p in self.workers:
            p.join(timeout=2)
        for q in (self._tasks, self._results):
            q.cancel_join_thread()  # never wait at exit for a pipe no one reads
            q.close()
        self.workers = []
