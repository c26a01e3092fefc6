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
* ``FAILED``: ``{"failure": "why"}``, the program's own failure (an abort, a
  failed internal check): neither a refusal nor a sequence; it always fails
  the run, and is reported and shrunk apart;
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

OK, REFUSED_OK, WRONG, REFUSED, FAILED, GARBAGE, INTERNAL = (
    "ok", "refused-ok", "wrong", "refused", "failed", "garbage", "internal")

#: the answer fields that decline a case ("error" is the older spelling)
REFUSAL_KEYS = ("unsupported", "error")
#: the answer field of the program's own failure (``docs/conform.md``)
FAILURE_KEY = "failure"


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

    def sure_until(self, cases: list, lines: list[bytes], i: int) -> int:
        """The first index from ``i`` on whose answer ``correct`` is not
        sure of (``len(cases)``: none), for the packed ``cases`` and their
        answer ``lines``: ``check_chunk`` calls it once per run of correct
        answers.  By default ``correct`` on each; a case type may answer
        with a tighter loop, never another opinion."""
        correct = self.correct
        n = len(cases)
        while i < n and correct(cases[i], lines[i]):
            i += 1
        return i

    def forget(self) -> None:
        """Drop what ``correct`` memoised (the session calls it when it
        ends: a memo of tens of thousands of objects left for the
        interpreter's exit is walked by each of its collections)."""

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

    def failure_class(self, case: Any, answer: object, verdict: dict) -> str:
        """The class of a wrong answer (``docs/conform.md``, "Failure
        classes"): what kind of mistake the verdict names, with every
        location by its kind rather than its name, so that the same bug on
        other registers is one class.  By default the verdict's reason with
        its numbers as N."""
        return "wrong: " + number_free(str(verdict.get("reason", "")))


def clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def clip_line(line: bytes, limit: int = 300) -> str:
    """``clip(repr(line))``; for a line of more than ``4 * limit`` bytes
    the repr of its first ``limit`` bytes, clipped, and its size in bytes
    (the repr of a 48 MB line is 48 MB more)."""
    if len(line) <= 4 * limit:
        return clip(repr(line), limit)
    return repr(line[:limit])[:limit] + f"... ({len(line)} bytes)"


def decode_answer(line: bytes) -> "dict | str":
    """The answer object, or why the line is not one (a garbage reason).
    Decoded like a request (``wire.decode_line``): duplicate keys, NaN and
    invalid UTF-8 are not answers."""
    try:
        obj = decode_line(line)
    except PreconditionError as e:
        why = str(e)
    else:
        if not isinstance(obj, dict):
            return f"answer is not a JSON object: {clip_line(line)}"
        return obj
    # outside the handler: its traceback, and the decoded text it holds, gone
    return f"answer is not JSON ({why}): {clip_line(line)}"


def classify(ct: CaseType, case: Any, line: bytes, optimal: bool) -> tuple[str, object]:
    """Classify one answer line.  Returns ``(kind, detail)``: for OK the gap
    to the optimum (``optimal``) or None; for WRONG the verdict; for
    REFUSED, REFUSED_OK and FAILED ``{"key": ..., "why": ...}``; for GARBAGE
    and INTERNAL a message."""
    kind, detail, _ = classify_full(ct, case, line, optimal)
    return kind, detail


def classify_full(ct: CaseType, case: Any, line: bytes,
                  optimal: bool) -> tuple[str, object, str | None]:
    """``classify`` and the failure class (``Tally.classes``): for WRONG
    ``ct.failure_class``, for FAILED the failure's text with its numbers as
    N, else None."""
    try:
        obj = decode_answer(line)
        if isinstance(obj, str):
            return GARBAGE, obj, None
        key = ct.answer_key
        if len(obj) != 1:  # exactly one field: the fast path needs no set
            return GARBAGE, _fields_problem(obj, key, line), None
        if key in obj:
            j = ct.judge(case, obj[key])
            if not j.ok:
                return WRONG, j.detail, ct.failure_class(case, obj[key], j.detail)
            return OK, ct.gap(case, j) if optimal else None, None
        for k in REFUSAL_KEYS:
            if k in obj:
                said = {"key": k, "why": _why(obj[k])}
                return (REFUSED if ct.solvable(case) else REFUSED_OK), said, None
        if FAILURE_KEY in obj:
            said = {"key": FAILURE_KEY, "why": _why(obj[FAILURE_KEY])}
            return FAILED, said, "failure: " + number_free(said["why"])
        return GARBAGE, _fields_problem(obj, key, line), None
    except Exception as e:  # a bug of ours; never let it pass as ok
        return INTERNAL, f"{type(e).__name__}: {e}", None


def _why(value: object) -> str:
    return clip(value if isinstance(value, str) else json.dumps(value))


def _fields_problem(obj: dict, key: str, line: bytes) -> str:
    """Why an object is not an answer: an answer has exactly one of its
    fields; an unknown field or two of them is garbage, never a sequence."""
    fields = (key, *REFUSAL_KEYS, FAILURE_KEY)
    named = ", ".join(f'"{k}"' for k in fields)
    unknown = [k for k in obj if k not in fields]
    if unknown:
        return (f"answer has unknown field(s) {', '.join(json.dumps(k) for k in unknown)}; "
                f"an answer has exactly one of {named}: {clip_line(line)}")
    if obj:
        both = " and ".join(f'"{k}"' for k in obj)
        return f"answer has both {both}; an answer has exactly one of {named}: {clip_line(line)}"
    return f"answer has none of {named}: {clip_line(line)}"


def number_free(text: str) -> str:
    """``text`` with every run of digits as N: what groups "line 4: r0 must
    go to r1" with "line 8: r1 must go to r0".  Only for grouping: reports
    print the program's own text."""
    return re.sub(r"\d+", "N", text)


# ---------------------------------------------------------------------------
# The bounded summary of a run
# ---------------------------------------------------------------------------

#: how many of the first failures of each kind a report keeps
FIRST = 3
#: how many distinct refusal (and failure) texts are counted one by one
REASONS = 20
#: how many failure classes are counted one by one (the rest: OTHER_CLASSES)
CLASSES = 100
OTHER_CLASSES = "(other classes)"
OTHER_REASONS = "(other reasons)"


@dataclass
class Example:
    """One reported case: where it was, its size, the verdict, its failure
    class; the request and answer bytes are attached by the session (which
    still holds them)."""

    index: int
    size: tuple
    detail: object
    request: bytes = b""
    answer: bytes = b""
    cls: str | None = None

    def key(self) -> tuple:
        return (self.size, self.index)


@dataclass
class Reason:
    """One group of refusal or failure texts (equal but for their numbers):
    the first text as the program wrote it, how many, and whether other
    texts of the group differ from it."""

    text: str
    count: int = 0
    varies: bool = False


@dataclass
class ClassStat:
    """One failure class: its kind (WRONG or FAILED), how many answers, and
    the smallest case."""

    kind: str
    count: int
    smallest: Example | None


@dataclass
class Tally:
    """Counts per kind, the first and the smallest case of each failing
    kind, the failure classes (count and smallest case of each), refusal
    and failure texts, and the gap histogram with the smallest case of each
    bucket.  Bounded whatever the number of cases."""

    counts: collections.Counter = field(default_factory=collections.Counter)
    first: dict = field(default_factory=dict)  # kind -> [Example]
    smallest: dict = field(default_factory=dict)  # kind -> Example
    #: kind (REFUSED, FAILED) -> number-free text -> Reason
    reasons: dict = field(default_factory=dict)
    #: class key -> ClassStat (WRONG and FAILED answers)
    classes: dict = field(default_factory=dict)
    gaps: collections.Counter = field(default_factory=collections.Counter)
    gap_smallest: dict = field(default_factory=dict)  # gap -> Example

    def add(self, index: int, kind: str, detail: object, size: tuple,
            cls: str | None = None) -> None:
        self.counts[kind] += 1
        if kind in (OK, REFUSED_OK):
            return
        ex = Example(index, size, detail, cls=cls)
        first = self.first.setdefault(kind, [])
        if len(first) < FIRST:
            first.append(ex)
        best = self.smallest.get(kind)
        if best is None or ex.key() < best.key():
            self.smallest[kind] = ex
        if kind in (REFUSED, FAILED):
            why = detail["why"]
            self._reason(kind, number_free(why), Reason(why, 1))
        if cls is not None:
            self._class(cls, ClassStat(kind, 1, ex))

    def add_gap(self, index: int, gap: int | None, size: tuple) -> None:
        self._gap(gap, Example(index, size, None))

    def _gap(self, gap, ex: Example, count: int = 1) -> None:
        self.gaps[gap] += count
        best = self.gap_smallest.get(gap)
        if best is None or ex.key() < best.key():
            self.gap_smallest[gap] = ex

    def _reason(self, kind: str, group: str, r: Reason) -> None:
        mine = self.reasons.setdefault(kind, {})
        if group not in mine and len(mine) >= REASONS:
            group = OTHER_REASONS
            r = Reason(OTHER_REASONS, r.count)
        have = mine.get(group)
        if have is None:
            mine[group] = Reason(r.text, r.count, r.varies)
        else:
            have.count += r.count
            have.varies = have.varies or r.varies or have.text != r.text

    def _class(self, cls: str, c: ClassStat) -> None:
        if cls not in self.classes and len(self.classes) >= CLASSES:
            cls, c = OTHER_CLASSES, ClassStat(c.kind, c.count, None)
        have = self.classes.get(cls)
        if have is None:
            self.classes[cls] = ClassStat(c.kind, c.count, c.smallest)
            return
        have.count += c.count
        if c.smallest is not None and (have.smallest is None
                                       or c.smallest.key() < have.smallest.key()):
            have.smallest = c.smallest

    def merge(self, other: "Tally") -> None:
        self.counts.update(other.counts)
        for kind, exs in other.first.items():
            mine = self.first.setdefault(kind, [])
            mine.extend(exs[:FIRST - len(mine)])
        for kind, ex in other.smallest.items():
            best = self.smallest.get(kind)
            if best is None or ex.key() < best.key():
                self.smallest[kind] = ex
        for kind, groups in other.reasons.items():
            for group, r in groups.items():
                self._reason(kind, group, r)
        for cls, c in other.classes.items():
            self._class(cls, c)
        for gap, n in other.gaps.items():
            self._gap(gap, other.gap_smallest[gap], n)

    def reason_counts(self, kind: str) -> dict[str, int]:
        """The texts of one kind (REFUSED, FAILED), most frequent first, each
        as the program wrote it (the first of its group)."""
        groups = sorted(self.reasons.get(kind, {}).values(), key=lambda r: -r.count)
        return {r.text + (" (and texts that differ from it only in numbers)"
                          if r.varies else ""): r.count for r in groups}

    def smallest_of(self, cls: str) -> Example | None:
        c = self.classes.get(cls)
        return None if c is None else c.smallest

    def examples(self) -> list[Example]:
        out = [e for exs in self.first.values() for e in exs]
        out += list(self.smallest.values()) + list(self.gap_smallest.values())
        out += [c.smallest for c in self.classes.values() if c.smallest is not None]
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
    cases, answers = chunk.cases, chunk.answers
    n = len(cases)
    off = -1
    while (off := off + 1) < n:
        if not optimal:  # --optimal needs each case's gap
            sure = ct.sure_until(cases, answers, off)
            if sure > off:
                tally.counts[OK] += sure - off
                off = sure
                if off == n:
                    break
        packed, line = cases[off], answers[off]
        case = unpack(packed)
        kind, detail, cls = classify_full(ct, case, line, optimal)
        if kind == GARBAGE:
            res.garbage = (off, detail)
            break
        if kind == OK:
            tally.counts[OK] += 1
            if optimal:
                tally.add_gap(chunk.start + off, detail, ct.size(case))
            continue
        if kind == REFUSED_OK:  # only counted (``Tally.add``): no size to compute
            tally.counts[REFUSED_OK] += 1
            continue
        if kind in (WRONG, REFUSED, FAILED):
            to = _fits_neighbours(ct, chunk, off, line)
            res.fits.append((off, to))
            if to:
                tally = after
        tally.add(chunk.start + off, kind, detail, ct.size(case), cls)
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
