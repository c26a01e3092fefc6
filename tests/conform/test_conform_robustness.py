"""conform against hostile options, machine files and signals (issue 21):
each failure the newcomer audit found, pinned with its exact message."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified.tools.conform import partner

from tests.support import peak_bytes, verified


@pytest.mark.parametrize("content, message", [
    # check and solve accept a machine with no classes (only empty moves)
    ('{"classes": {}}', "the machine has no registers, so every parallel move on it is "
     "empty: nothing to test"),
    ('{"classes": {"g": {"registers": ["a", "b"]}}, "classes": {"g": {"registers": ["a"]}}}',
     'the key "classes" appears twice in one object'),
    ('{"classes": {"g": {"registers": ["a", "b"], "width": NaN}}}',
     "not JSON: NaN is not a JSON value"),
    ('{"classes": {"": {"registers": ["a", "b"]}}}', '"machine": a class name must be a name '
     "(a letter or _, then letters, digits, _), not ''"),
])
@pytest.mark.parametrize("mode", [[], ["--random", "3"]])
def test_bad_machine_files_are_bad_use(tmp_path, content, message, mode):
    f = tmp_path / "m.json"
    f.write_text(content)
    proc = verified("conform", "--cmd", "true", "--machine", str(f), *mode, usage_error=True)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"verified conform: error: --machine {f}: {message}\n"


def test_random_with_every_location_a_temporary(tmp_path):
    f = tmp_path / "m.json"
    f.write_text('{"classes": {"g": {"registers": ["a"]}}}')
    proc = verified("conform", "--cmd", "true", "--machine", str(f), "--random", "3",
                    usage_error=True)
    assert proc.returncode == 2
    assert proc.stderr == (f"verified conform: error: --machine {f}: every location "
                           f"overlaps a temporary (a): no move to test\n")


@pytest.mark.parametrize("k", ["100000000000000000000000000", "1000000000001"])
def test_random_beyond_any_run(k):
    proc = verified("conform", "--cmd", "true", "--model", "swap", "--random", k,
                    usage_error=True)
    assert proc.returncode == 2
    assert proc.stderr == (f"verified conform: error: --random must be at most "
                           f"1,000,000,000,000 (10^12), not {k}\n")


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None  # reaped


def test_a_signal_while_reaping_the_program_still_reaps_it(monkeypatch):
    """Issue 21: SIGTERM arriving while ``Partner.kill`` waited for the
    program raised ``Terminated`` out of the wait: the program was left a
    zombie, and no clean-up knew of it any more.  Now the signal is taken
    after the reaping."""
    p = partner.Partner(["sleep", "60"])
    real_wait = subprocess.Popen.wait

    def wait_signalled(self, timeout=None):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, mid-wait
        return real_wait(self, timeout)

    with pytest.raises(partner.Terminated) as got:
        with partner.signals_end_partners():
            p.start()
            monkeypatch.setattr(subprocess.Popen, "wait", wait_signalled)
            p.kill()
    monkeypatch.undo()
    assert got.value.signum == signal.SIGTERM
    assert p.proc.returncode == -signal.SIGKILL
    assert _state(p.proc.pid) is None
    assert p not in partner._LIVE


def test_a_signal_while_starting_the_program_still_kills_it(monkeypatch):
    """The same between the fork and the registration of the program."""
    p = partner.Partner(["sleep", "60"])
    real_init = subprocess.Popen.__init__

    def init_signalled(self, *a, **k):
        real_init(self, *a, **k)
        os.kill(os.getpid(), signal.SIGHUP)

    monkeypatch.setattr(subprocess.Popen, "__init__", init_signalled)
    with pytest.raises(partner.Terminated) as got:
        with partner.signals_end_partners():
            p.start()
    monkeypatch.undo()
    assert got.value.signum == signal.SIGHUP
    assert p.proc.returncode == -signal.SIGKILL  # killed and reaped on the way out
    assert _state(p.proc.pid) is None


CRASH_36 = """import sys, json
n = 0
for line in sys.stdin:
    n += 1
    if n == 36:
        sys.exit(3)
    print(json.dumps({"unsupported": "x"}), flush=True)
"""


def test_a_crash_that_needs_the_earlier_requests_says_so_and_offers_their_replay(tmp_path):
    """Issue 21: a program that crashes on its 36th request, whatever it
    is, was reported with "same failure when sent alone: no" and no further
    clue.  The report now names what differs (the 35 requests before it),
    sends them again with the case to a fresh process, and gives the
    replay command and its file."""
    client = tmp_path / "crash36.py"
    client.write_text(CRASH_36)
    cmd = f"python3 {client}"
    proc = verified("conform", "--cmd", cmd, "--model", "swap", "-n", "3", "--allow-refusals",
                    "--progress", "never")
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    i = lines.index("  same failure when sent alone to a fresh process: no")
    assert lines[i - 2] == ("BROKEN PROGRAM (crash): the program exited with status 3 after "
                            "35 of 75 answers; it was on case #35")
    assert lines[i + 1] == ("  what differs is the 35 requests before it (cases #0..#34); "
                            "sent again with them to a fresh process: yes")
    assert lines[i + 2].startswith(f"  replay: python3 {client} < ")
    replay = Path(lines[i + 2].rsplit(" < ", 1)[1])
    try:
        sent = replay.read_text().splitlines()
        assert len(sent) == 36
        again = subprocess.run(["python3", str(client)], stdin=replay.open("rb"),
                               capture_output=True)
        assert again.returncode == 3 and len(again.stdout.splitlines()) == 35
    finally:
        replay.unlink()
    js = verified("conform", "--cmd", cmd, "--model", "swap", "-n", "3", "--allow-refusals",
                  "--progress", "never", "--json")
    import json
    b = json.loads(js.stdout)["broken"]
    Path(b["with_prefix"]["file"]).unlink()
    assert {k: v for k, v in b["with_prefix"].items() if k not in ("file", "replay")} == {
        "first_case": 0, "requests": 36, "reproduced": True}
    assert b["reproduced_alone"] is False


# ---------------------------------------------------------------------------
# The answer reader: lines in linear time, --max-line-bytes, bounded reports
# ---------------------------------------------------------------------------


def _lines_read(tmp_path, data: bytes, max_line: int) -> list:
    """What ``Exchange``'s reader hands the session for ``data`` as the
    partner's whole output (``cat`` of a file)."""
    import queue

    f = tmp_path / "out"
    f.write_bytes(data)
    p = partner.Partner(["cat", str(f)])
    p.start()
    ex = partner.Exchange(p, iter(()), max_line=max_line)
    ex.start()
    got = []
    while True:
        item = ex.answers.get(timeout=30)
        if item is None or isinstance(item, partner.Overlong):
            got.append(item)
            break
        got += item[0]
    p.kill()
    ex.stop()
    return got


def test_the_reader_splits_lines_like_split_whatever_their_length(tmp_path):
    import random

    rng = random.Random(21)
    lines = [b"x" * rng.choice([0, 1, 100, 70_000, 1_500_000]) + b"%d" % i for i in range(40)]
    lines[7] = b"   "  # blank: skipped
    data = b"\n".join(lines)  # the last line has no newline: still an answer
    got = _lines_read(tmp_path, data, 1 << 30)
    assert got == [x for x in lines if x.strip()] + [None]


def test_the_reader_stops_at_max_line(tmp_path):
    got = _lines_read(tmp_path, b"ok\n" + b"y" * 5000 + b"\nnot read\n", 1000)
    assert got[0] == b"ok" and isinstance(got[-1], partner.Overlong)
    assert got[-1].size > 1000 and b"not read" not in got


def _read_at_once(data: bytes, max_line: int) -> list:
    """The reader (``Exchange._read``, run here, not on its thread) over a
    pipe that already holds all of ``data`` and is closed: its first read
    gets all of it, so which line passes ``max_line`` with or without its
    newline does not depend on how the bytes arrive."""
    import os
    import types

    r, w = os.pipe()
    assert len(data) < 60_000  # fits in the pipe's buffer: written whole
    os.write(w, data)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as out:
        ex = partner.Exchange(types.SimpleNamespace(proc=types.SimpleNamespace(stdout=out)),
                              iter(()), max_line=max_line)
        ex._read()
    got = []
    while not ex.answers.empty():
        item = ex.answers.get_nowait()
        got += item[0] if isinstance(item, tuple) else [item]
    return got


def test_an_overlong_line_says_whether_its_newline_came():
    assert _read_at_once(b"ok\n" + b"y" * 5000 + b"\nnot read\n", 1000) == [
        b"ok", partner.Overlong(5000, True)]
    assert _read_at_once(b"ok\n" + b"y" * 5000, 1000) == [b"ok", partner.Overlong(5000, False)]
    assert _read_at_once(b"ok\n" + b"y" * 1000 + b"\n", 1000) == [b"ok", b"y" * 1000, None]


def test_the_reader_asks_for_64_kib_at_a_line_start_and_1_mib_inside_one(monkeypatch):
    """The read sizes are speed, not meaning, but a long answer (30 MB for
    the largest request) read a byte at a time, or a line split into
    64 KiB reads joined at each, took minutes (issue 21); the reader's reads
    are scripted here, each returning at most what it asks for."""
    import types

    stream = bytearray(b"ok\n" + b"y" * 70_000 + b"\nz\n")
    asked = []

    def read(fd, n):
        asked.append(n)
        piece = bytes(stream[:n])
        del stream[:n]
        return piece

    monkeypatch.setattr(partner.os, "read", read)
    proc = types.SimpleNamespace(stdout=types.SimpleNamespace(fileno=lambda: -1))
    ex = partner.Exchange(types.SimpleNamespace(proc=proc), iter(()), max_line=1 << 20)
    ex._read()
    got = []
    while not ex.answers.empty():
        item = ex.answers.get_nowait()
        got += item[0] if isinstance(item, tuple) else [item]
    assert got == [b"ok", b"y" * 70_000, b"z", None]
    assert asked == [1 << 16, 1 << 20, 1 << 16]


def _expected_lines(data: bytes, max_line: int) -> list:
    """What the reader must hand on for ``data``, line by line: every line
    that is not blank, up to the first longer than ``max_line`` (then
    ``Overlong``, its size and whether its newline came, and nothing more);
    a last line without a newline counts; then None."""
    out: list = []
    *whole, last = data.split(b"\n")
    for line in whole:
        if len(line) > max_line:
            return out + [partner.Overlong(len(line), True)]
        if line.strip():
            out.append(line)
    if len(last) > max_line:
        return out + [partner.Overlong(len(last), False)]
    return out + ([last] if last.strip() else []) + [None]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"", b" ", b"\r", b"ok", b"{}", b"y" * 40, b"z" * 90]),
                max_size=30),
       st.lists(st.integers(1, 200), min_size=1, max_size=8), st.booleans())
def test_the_reader_splits_reads_of_any_size_like_line_by_line(lines, sizes, nl):
    """Whatever the partner's output and however the reads cut it (scripted
    reads of the sizes drawn, in turn), the reader hands on the lines a
    line-by-line reading gives, stopping at the first past ``max_line``
    (60 bytes: some are), the whole reads split at once and the lines
    around a cut joined."""
    import types

    data = b"\n".join(lines) + (b"\n" if nl else b"")
    stream = bytearray(data)
    turn = iter(sizes * (len(data) + 1))

    def read(fd, n):
        piece = bytes(stream[:min(n, next(turn))])
        del stream[:len(piece)]
        return piece

    proc = types.SimpleNamespace(stdout=types.SimpleNamespace(fileno=lambda: -1))
    ex = partner.Exchange(types.SimpleNamespace(proc=proc), iter(()), max_line=60)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(partner.os, "read", read)
        ex._read()
    got = []
    while not ex.answers.empty():
        item = ex.answers.get_nowait()
        got += item[0] if isinstance(item, tuple) else [item]
    want = _expected_lines(data, 60)
    if isinstance(want[-1], partner.Overlong) and not got[-1].complete:
        # its newline not read yet: the reader stops as soon as it holds
        # more than 60 bytes of the line, not knowing its length
        assert got[:-1] == want[:-1] and 60 < got[-1].size <= want[-1].size
    else:
        assert got == want


NO_NEWLINE = """import sys, time
sys.stdin.readline()
sys.stdout.write("x" * 5000)
sys.stdout.flush()
time.sleep(600)
"""


def test_an_answer_past_max_line_bytes_is_garbage_with_its_size(tmp_path):
    """Issue 21: 100 MB with no newline was reported as a timeout; now it is
    garbage as soon as it passes --max-line-bytes, its size named."""
    import re

    client = tmp_path / "nonl.py"
    client.write_text(NO_NEWLINE)
    proc = verified("conform", "--cmd", f"python3 {client}", "--model", "swap", "-n", "2",
                    "--random", "1", "--max-line-bytes", "1000", "--timeout", "60",
                    "--progress", "never")
    assert proc.returncode == 2
    line = proc.stdout.splitlines()[2]
    assert re.fullmatch(r"BROKEN PROGRAM \(garbage\): answer #0 is longer than "
                        r"--max-line-bytes 1,000: [1-5],\d\d\d bytes and no newline yet "
                        r"\(not read further\)", line), line


@pytest.mark.parametrize("value", ["0", "-5", str((1 << 40) + 1)])
def test_max_line_bytes_bounds(value):
    proc = verified("conform", "--cmd", "true", "--model", "swap", "--max-line-bytes", value)
    assert proc.returncode == 2
    assert proc.stderr == f"verified conform: error: --max-line-bytes must be 1..2^40, not {value}\n"


HUGE_ANSWER = """import sys, json
for line in sys.stdin:
    print(json.dumps({"sequence": [["swap", 0, 0]] * 200000}), flush=True)
"""


def test_a_huge_answer_is_reported_by_an_excerpt_its_size_and_hash(tmp_path):
    import hashlib
    import json

    client = tmp_path / "huge.py"
    client.write_text(HUGE_ANSWER)
    proc = verified("conform", "--cmd", f"python3 {client}", "--model", "swap", "-n", "3",
                    "--random", "1", "--no-shrink", "--progress", "never", "--json")
    assert proc.returncode == 1
    assert len(proc.stdout) < 20_000  # the answer alone is 3 MB
    raw = (json.dumps({"sequence": [["swap", 0, 0]] * 200000}) + "").encode()
    f = json.loads(proc.stdout)["first_failure"]
    assert f["answer_bytes"] == len(raw)
    assert f["answer_sha256"] == hashlib.sha256(raw).hexdigest()
    assert f["answer"].startswith('{"sequence": [["swap", 0, 0]')
    assert f" ... [{len(raw):,} bytes in all, SHA-256 {f['answer_sha256']}] ... " in f["answer"]
    assert "explain" not in json.loads(proc.stdout)["smallest_failure"]


# -- memory of one huge answer line (issue 21: bounded by the line) ----------


def test_the_reader_holds_a_long_line_about_once(tmp_path):
    """Pieces joined at the newline held the line twice (the 48 MB answer:
    96 MB in the reader); the reader's buffer is now handed over as the
    line."""
    size = 8 << 20
    data = b"z" * size + b"\nok\n"
    got: list = []
    peak = peak_bytes(lambda: got.extend(_lines_read(tmp_path, data, 1 << 30)))
    assert got == [data[:size], b"ok", None]
    assert peak < 1.5 * size, peak / size


def test_a_huge_garbage_answer_is_judged_without_copies_of_it():
    """The garbage reason held the decoded text (in the traceback) and the
    whole line's repr at once: 3 times the line; now about once (the
    text), and the reason names the size in bytes."""
    from verified.tools.conform import checker
    from verified.tools.conform.moves import _LINE_MEMO, answer_effect

    line = b"x" * (4 << 20)
    peak = peak_bytes(lambda: checker.decode_answer(line))
    assert peak < 1.5 * len(line), peak / len(line)
    why = checker.decode_answer(line)
    assert why == ("answer is not JSON (line is not valid JSON: Expecting value at column 1): "
                   "b'" + "x" * 298 + "... (4194304 bytes)")
    # a line of at most 1,200 bytes: its whole repr clipped, as always
    assert checker.clip_line(b"\x00" * 100) == checker.clip(repr(b"\x00" * 100))
    # the answers' memo does not keep a huge line alive
    assert answer_effect(line) is None and line not in _LINE_MEMO
    assert answer_effect(b'{"sequence": []}').ops == [] and b'{"sequence": []}' in _LINE_MEMO
