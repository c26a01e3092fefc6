"""The program under test (the *partner* of the protocol): started in its own
process group, fed request lines by one thread, its answer lines and its
stderr read by two others, and killed, with everything it started, when
conform is done with it, exits, or receives SIGTERM, SIGHUP or SIGINT.

Why it never deadlocks: the writer is the only thread that blocks on the
partner's stdin and the reader the only one that blocks on its stdout, so a
partner that stops reading does not stop us from reading, and one that
stops writing does not stop us from writing.  The session's main loop never
blocks on the partner: it waits on the reader's queue with a timeout.  The
writer runs at most ``window`` requests ahead of the answers the main loop
has taken, so memory stays bounded whatever the partner does; a partner
that answers nothing until its input ends therefore hits the per-answer
timeout, and the report says that the protocol is line by line.
"""

from __future__ import annotations

import atexit
import collections
import io
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Iterator

#: Partners alive in this process: killed at exit and on SIGTERM/SIGHUP.
_LIVE: set["Partner"] = set()


class CannotStart(Exception):
    """The program could not be started (no such file, not executable...)."""


class Terminated(BaseException):
    """conform received SIGTERM or SIGHUP.  Raised in the main thread so that
    every ``finally`` (kill the partner, stop the checkers) runs; the command
    then ends with the signal's conventional status (128 + signal number)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


class Partner:
    """One run of the program: ``start``, then the pipes; ``kill`` ends its
    whole process group (it leads one: ``start_new_session``), so helpers it
    started (a shell wrapper's child, say) go too."""

    def __init__(self, argv: list[str]):
        self.argv = list(argv)
        self.proc: subprocess.Popen | None = None
        self._stderr = b""
        self._stderr_limit = 4000
        self._err_thread: threading.Thread | None = None

    def start(self) -> None:
        # a signal between the fork and _LIVE.add would leave a child no
        # clean-up knows of: it is taken once the child is registered
        with _signals_held():
            try:
                self.proc = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, start_new_session=True, bufsize=0)
            except (OSError, ValueError) as e:
                raise CannotStart(f"cannot run {shlex.join(self.argv)}: {e}") from None
            _LIVE.add(self)
        self._err_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_thread.start()

    def _read_stderr(self) -> None:
        fd = self.proc.stderr.fileno()
        try:
            while data := os.read(fd, 1 << 14):
                self._stderr = (self._stderr + data)[-self._stderr_limit:]
        except OSError:
            pass

    def stderr_tail(self) -> str:
        return self._stderr.decode("utf-8", "replace").strip()

    def wait(self, timeout: float) -> int | None:
        """Its exit status, or None if it is still running after ``timeout``."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """SIGKILL to its process group, then reap it.  Idempotent.  A
        SIGTERM or SIGHUP arriving meanwhile is taken after the reaping
        (raised half-way, it left the program a zombie that no clean-up
        knew of any more: issue 21)."""
        with _signals_held():
            self._kill()

    def _kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone (or was never ours to kill)
        try:
            proc.kill()
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self._err_thread is not None:
            _join_started(self._err_thread, 1)
        _LIVE.discard(self)


def _join_started(t: threading.Thread, timeout: float) -> None:
    """Join ``t`` if it was started: SIGTERM/SIGHUP raise ``Terminated``
    anywhere in the main thread, also between creating a thread and starting
    it, and joining an unstarted thread would replace that exit by an error."""
    if t.ident is not None:
        t.join(timeout=timeout)


def kill_all() -> None:
    for p in list(_LIVE):
        p.kill()


atexit.register(kill_all)


#: signals received while held (``_signals_held``), raised when released
_held: list[int] = []
_holding = 0


def _raise_terminated(signum: int, _frame) -> None:
    if _holding:
        _held.append(signum)
        return
    raise Terminated(signum)


class _signals_held:
    """Within it, SIGTERM/SIGHUP do not raise ``Terminated`` at once: the
    first one is raised when the outermost such block ends (so starting or
    reaping a process is never cut in half)."""

    def __enter__(self) -> None:
        global _holding
        _holding += 1

    def __exit__(self, exc_type, *_) -> None:
        global _holding
        _holding -= 1
        if not _holding and _held:
            signum = _held[0]
            _held.clear()
            if exc_type is None or not issubclass(exc_type, Terminated):
                raise Terminated(signum)


class signals_end_partners:
    """Context manager for the command's main thread: SIGTERM and SIGHUP
    raise ``Terminated`` (SIGINT already raises KeyboardInterrupt), so the
    partner's group is killed by the ``finally`` clauses on the way out.
    The previous handlers come back on exit."""

    SIGNALS = (signal.SIGTERM, signal.SIGHUP)

    def __enter__(self) -> "signals_end_partners":
        self.saved = {s: signal.signal(s, _raise_terminated) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for s, h in self.saved.items():
            signal.signal(s, h)
        kill_all()


def die_of(signum: int) -> None:
    """End this process the way ``signum`` would have (status 128 + signum
    to a shell), after the clean-up ``Terminated`` allowed."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _write_all(f, data: bytes) -> None:
    """Write all of ``data`` to the unbuffered pipe ``f``: a raw write may
    write only part of it (a signal arriving mid-write), and a lost tail
    would merge two request lines."""
    view = memoryview(data)
    while view:
        view = view[f.write(view):]


# ---------------------------------------------------------------------------
# The exchange: requests in, answers out
# ---------------------------------------------------------------------------


@dataclass
class Block:
    """Consecutive requests, as written to the partner in one go: the lines
    and, for the checkers, their cases (``CaseType.pack``)."""

    start: int
    lines: list[bytes]
    cases: list
    #: when the writer began writing the block, after generating it (None:
    #: not yet): no answer to it can come before
    sent_at: float | None = None
    #: when the last byte of the block was in the pipe (None: not yet)
    written_at: float | None = None

    @property
    def end(self) -> int:
        return self.start + len(self.lines)


#: the longest answer line read (``--max-line-bytes``): twice the longest
#: answer to the largest request conform sends (a 2^20-register cycle,
#: about 30 MB of swaps), so that a legal answer is never cut
DEFAULT_MAX_LINE = 64 << 20


@dataclass(frozen=True)
class Overlong:
    """The partner's next answer line passed ``Exchange.max_line`` bytes
    (``complete``: with its newline; else without one yet, so far).  Reading
    stops there: the line is garbage whatever follows."""

    size: int
    complete: bool


@dataclass
class Exchange:
    """Writer and reader threads around a started ``Partner``.

    ``blocks`` yields the request blocks lazily (generated on the writer's
    thread).  Each block is appended to ``sent`` *before* it is written, so
    an answer line always finds its request there; the main loop removes a
    block with ``retire`` once every answer to it is in, which frees one
    place of the window.  ``answers`` holds ``(lines, arrival time)``
    batches, then ``None`` at the end of the partner's output; the arrival
    time is ``time.monotonic()`` taken by the reader as soon as the read
    that completed the lines returns, which is what the session judges
    ``--timeout`` by (not when the main loop gets round to the batch)."""

    partner: Partner
    blocks: Iterator[Block]
    window: int = 16  # blocks the writer may run ahead of the answers
    sent: collections.deque = field(default_factory=collections.deque)
    answers: queue.Queue = field(default_factory=lambda: queue.Queue(maxsize=256))
    #: requests handed to the partner so far (final once ``finished`` is set)
    total: int = 0
    #: set when the writer is done, for whatever reason, and before it
    #: closes the partner's input (so before the partner can see its end)
    finished: threading.Event = field(default_factory=threading.Event)
    #: the writer sent every request there is (False: the pipe broke first)
    exhausted: bool = False
    #: an exception raised while generating requests (a bug of ours)
    writer_error: BaseException | None = None
    #: the writer is waiting for answers before it may send more
    window_full: bool = False
    #: an answer line longer than this is garbage (``Overlong``)
    max_line: int = DEFAULT_MAX_LINE

    def __post_init__(self) -> None:
        self._room = threading.Semaphore(self.window)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._write, daemon=True),
                         threading.Thread(target=self._read, daemon=True)]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def retire(self) -> Block:
        block = self.sent.popleft()
        self._room.release()
        return block

    def stop(self) -> None:
        """Let the threads end (call after ``Partner.kill``)."""
        self._stop.set()
        self._room.release()
        for t in self._threads:
            _join_started(t, 2)

    def _write(self) -> None:
        stdin = self.partner.proc.stdin
        try:
            for block in self.blocks:
                while not self._room.acquire(timeout=0.1):
                    self.window_full = True
                    if self._stop.is_set():
                        return
                self.window_full = False
                if self._stop.is_set():
                    return
                block.sent_at = time.monotonic()
                self.sent.append(block)
                self.total = block.end
                _write_all(stdin, b"".join(block.lines))
                block.written_at = time.monotonic()
            self.exhausted = True
        except (BrokenPipeError, OSError, ValueError):
            pass  # the partner closed its input: the reader reports how it ended
        except BaseException as e:  # a bug in a case generator: report it
            self.writer_error = e
        finally:
            # Publish how the writer ended *before* closing the partner's
            # input: the end of its input lets the partner answer its last
            # requests and exit at once, and the main loop, seeing the end
            # of its output, must already know that every request was sent
            # (set after the close, a loaded machine let the main loop take
            # a well-behaved partner's exit for an early one).
            self.finished.set()
            try:
                stdin.close()
            except OSError:
                pass

    def _read(self) -> None:
        """Split the partner's output into lines in time linear in its size:
        the pieces of an unfinished line are kept apart and joined once its
        newline comes (joining at every read made a 16 MB line take
        minutes), and a line longer than ``max_line`` ends the reading."""
        fd = self.partner.proc.stdout.fileno()
        # the unfinished line, ``size`` bytes: a BytesIO hands its buffer
        # over as the line (getvalue), where joining pieces held it twice
        head = io.BytesIO()
        size = 0
        try:
            while not self._stop.is_set():
                data = os.read(fd, 1 << 20 if size else 1 << 16)
                if not data:
                    break
                lines: list[bytes] = []
                start, whole = 0, True
                while True:
                    if whole and not size:
                        # the lines after the unfinished one, at C speed, when
                        # none is too long (else one by one, as below)
                        whole = False
                        parts = (data[start:] if start else data).split(b"\n")
                        tail = parts.pop()
                        if parts and max(map(len, parts)) <= self.max_line:
                            lines += filter(bytes.strip, parts)
                            start = len(data) - len(tail)
                    if (nl := data.find(b"\n", start)) < 0:
                        break
                    line = data[start:nl]
                    if size:
                        head.write(line)
                        line, head, size = head.getvalue(), io.BytesIO(), 0
                    start = nl + 1
                    if len(line) > self.max_line:
                        self._put_lines(lines)
                        self._put(Overlong(len(line), True))
                        return
                    if line.strip():
                        lines.append(line)
                self._put_lines(lines)
                if start < len(data):
                    head.write(data[start:] if start else data)
                    size += len(data) - start
                    if size > self.max_line:
                        self._put(Overlong(size, False))
                        return
        except OSError:
            pass
        rest = head.getvalue()
        if rest.strip():
            self._put(([rest], time.monotonic()))
        self._put(None)

    def _put_lines(self, lines: list[bytes]) -> None:
        if lines:
            self._put((lines, time.monotonic()))

    def _put(self, item) -> None:
        # bounded, but never stuck once the session has stopped listening
        while not self._stop.is_set():
            try:
                self.answers.put(item, timeout=0.1)
                return
            except queue.Full:
                continue
