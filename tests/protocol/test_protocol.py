"""`verified check` and `verified solve` as a compiler's test suite uses
them: JSON lines in and out, the exit codes, bad lines answered with an
error while the next line is still served."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "verified.cli"]


def run(args, lines) -> tuple[int, list[dict], str]:
    data = b"".join((l if isinstance(l, bytes) else json.dumps(l).encode()) + b"\n" for l in lines)
    p = subprocess.run(CLI + args, input=data, capture_output=True, timeout=120)
    out = [json.loads(l) for l in p.stdout.decode().splitlines()]
    return p.returncode, out, p.stderr.decode()


def test_permi_figure1_optimum():
    """Buchwald, Mohr and Rutter (WADS 2015), Figure 1 left: the RTG has
    optimum 2 under "loops"; adding the loop [1, 1] makes it 3.  (The
    README's oracle examples run in test_golden_check.py.)"""
    moves = [[2, 1], [3, 1], [5, 4], [6, 5], [4, 6]]
    seq = [["perm", [[5, 4], [6, 5], [4, 6]]], ["mov", 2, 1], ["mov", 3, 1]]
    code, out, _ = run(["check"], [
        {"moves": moves, "model": "permi", "preserve": "loops", "sequence": seq},
        {"moves": moves + [[1, 1]], "model": "permi", "preserve": "loops", "sequence": seq},
    ])
    assert out[0]["optimal"] == 2 and out[1]["optimal"] == 3
    assert out[0]["ok"] and out[1]["ok"] and code == 0


def test_bad_lines_get_errors_and_serving_goes_on():
    lines = [
        b"not json",
        b"\xff\xfe",
        {"moves": [[1, 0], [1, 2]], "model": "temp", "sequence": []},
        {"moves": [[1, 0]], "model": "nonsense", "sequence": []},
        {"moves": [[1, 0]], "model": "temp"},
        {"moves": [[1, 0]], "model": "temp", "sequence": [], "temp": ["t"]},
        [1, 2],
        {"moves": [[1, 0]], "model": "temp", "sequence": [["mov", 1, 0]], "id": "last"},
    ]
    code, out, err = run(["check"], lines)
    assert len(out) == len(lines)
    errors = [o["error"] for o in out[:-1]]
    assert all(e.startswith(f"line {i}:") for i, e in enumerate(errors, 1))
    assert "not valid JSON" in errors[0] and "not UTF-8" in errors[1]
    assert "r1 <- r0" in errors[2] and "r1 <- r2" in errors[2]
    assert "unknown model" in errors[3] and 'missing "sequence"' in errors[4]
    assert "unknown field(s) 'temp'" in errors[5]
    assert out[-1] == {"id": "last", "ok": True, "length": 1, "optimal": 1}
    assert code == 2 and "Traceback" not in err


def test_anything_wrong_inside_the_sequence_is_a_verdict_not_bad_input():
    """One rule (docs/protocol.md): an unknown, malformed or oversized
    operation is a wrong sequence (ok: false, its index, exit 1), like an
    operation the model lacks; only a malformed request is bad input."""
    moves = [[1, 0], [0, 1]]
    code, out, _ = run(["check"], [
        {"moves": moves, "model": "temp", "temps": ["t"], "sequence": [["jmp", 1]]},
        {"moves": moves, "model": "permi", "sequence": [
            ["perm", [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]]]]},
        {"moves": moves, "model": "swap", "sequence": [["swap", 0, 1], ["mov", 1]]},
        {"moves": moves, "model": "swap", "sequence": "swap 0, 1"},
        {"moves": moves, "model": "temp", "temps": ["t"], "sequence": [["swap", 0, 1]]},
    ])
    assert out == [
        {"ok": False, "length": 1, "operation": 0, "optimal": 3,
         "reason": "operation #0: unknown operation 'jmp'; known: mov, swap, perm, load, store"},
        {"ok": False, "length": 1, "operation": 0, "optimal": 1,
         "reason": "operation #0: perm (r0 <- r1, r1 <- r2, r2 <- r3, r3 <- r4, "
                   "r4 <- r5, r5 <- r0) permutes 6 locations; one permutation "
                   "instruction handles at most 5"},
        {"ok": False, "length": 2, "operation": 1, "optimal": 1,
         "reason": "operation #1: mov takes 2 operand(s), got 1 in ['mov', 1]"},
        {"ok": False, "length": 0, "optimal": 1,
         "reason": "\"sequence\" must be a list of operations, not 'swap 0, 1'"},
        {"ok": False, "length": 1, "operation": 0, "optimal": 3,
         "reason": "operation #0 (swap r0, r1) is not available in the temp model "
                   "(it has: mov)"},
    ]
    assert code == 1


def test_wrong_answer_outranks_bad_input_in_the_exit_code():
    code, out, _ = run(["check"], [
        b"{",
        {"moves": [[1, 0], [0, 1]], "model": "temp", "temps": ["t"],
         "sequence": [["mov", 1, 0], ["mov", 0, 1]]},
    ])
    assert code == 1 and "error" in out[0] and out[1]["ok"] is False


@pytest.mark.parametrize("name,model", [
    ("shuf", "swap"), ("xchg", "swap"), ("leroy", "temp"), ("leroy-iterative", "temp"),
    ("windmill", "temp"), ("mincopy", "temp")])
def test_solve_then_check_roundtrip(name, model):
    reqs = [{"moves": [[1, 0], [0, 1], [2, 0]], "model": model, "temps": ["t"]},
            {"moves": [["rax", "rbx"], ["rbx", "rcx"], ["rcx", "rax"]], "model": model,
             "temps": ["t"]}]
    code, answers, _ = run(["solve", "--algorithm", name], reqs)
    assert code == 0 and all("sequence" in a for a in answers)
    checks = [dict(r, sequence=a["sequence"]) for r, a in zip(reqs, answers)]
    code, verdicts, _ = run(["check"], checks)
    assert code == 0 and all(v["ok"] for v in verdicts)


def test_solve_refuses_what_the_algorithm_cannot_do():
    code, out, _ = run(["solve", "--algorithm", "shuf"], [
        {"moves": [[1, 0], [0, 1]], "model": "temp", "temps": ["t"]},
        {"moves": [[1, 0], [0, 1]], "model": "temp"},
    ])
    assert code == 2 and "emits swap-model operations" in out[0]["error"]
    code, out, _ = run(["solve", "--algorithm", "leroy"], [
        {"moves": [[1, 0], [0, 1]], "model": "temp"}])
    assert code == 2 and "needs a temporary" in out[0]["error"]


def test_help_answers_real_questions():
    p = subprocess.run(CLI + ["check", "--help"], capture_output=True, text=True)
    assert p.returncode == 0
    for word in ("preserve", "temps", "registers", "exit status", "perm"):
        assert word in p.stdout
    p = subprocess.run(CLI + ["solve", "--help"], capture_output=True, text=True)
    assert "xchg-as-published" in p.stdout and "WRONG" in p.stdout
    p = subprocess.run(CLI, capture_output=True, text=True)
    assert p.returncode == 2 and "check" in p.stdout


class _CountingOut:
    """A text output that records what is written and each flush."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.flushed: list[int] = []  # how many parts were out at each flush

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        self.flushed.append(len(self.parts))


class _WatchedReads:
    """A binary stream that records, at each read, how many answer parts
    were written and how many flushed (``_CountingOut``)."""

    def __init__(self, stream, out: _CountingOut) -> None:
        self.stream, self.out = stream, out
        self.seen: list[tuple[int, int]] = []

    def _saw(self) -> None:
        self.seen.append((len(self.out.parts), (self.out.flushed or [0])[-1]))

    def read1(self, n: int) -> bytes:
        self._saw()
        return self.stream.read1(n)

    def readline(self) -> bytes:
        self._saw()
        return self.stream.readline()

    def fileno(self) -> int:
        return self.stream.fileno()


def test_answers_to_a_pipe_are_flushed_before_each_read_and_a_file_at_its_end(tmp_path):
    """A partner on a pipe waits for an answer before it writes the next
    request: every answer made is flushed before each read that may wait
    (the lines one read brought are answered, then flushed at once).  A
    regular file waits on no one: its answers are flushed once, at its
    end.  The bytes are the same either way."""
    import os
    import threading
    import time
    from verified.tools.check import _handle_check
    from verified.tools.wire import serve

    lines = (b'{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}\n'
             b'{"moves": [[1, 0]], "model": "temp", "sequence": [["mov", 0, 1]]}\n'
             b'not json\n')
    path = tmp_path / "requests.jsonl"
    path.write_bytes(lines)
    from_file = _CountingOut()
    with open(path, "rb") as f:
        assert serve(f, from_file, _handle_check) == 1
    first = lines.index(b"\n") + 1
    r, w = os.pipe()
    os.write(w, lines[:first])
    from_pipe = _CountingOut()

    def partner() -> None:
        # writes the rest once the first answer is out (as a partner that
        # waits for it would), or after 10 s: then the test fails, not hangs
        deadline = time.monotonic() + 10
        while not from_pipe.flushed and time.monotonic() < deadline:
            time.sleep(0.01)
        os.write(w, lines[first:])
        os.close(w)

    later = threading.Thread(target=partner)
    with os.fdopen(r, "rb") as f:
        reads = _WatchedReads(f, from_pipe)
        later.start()
        assert serve(reads, from_pipe, _handle_check) == 1
        later.join()
    assert "".join(from_file.parts) == "".join(from_pipe.parts)
    assert "".join(from_pipe.parts).count("\n") == 3
    # at every read, everything written was flushed; the first answer was
    # out before the read that waited for the rest
    assert all(written == flushed for written, flushed in reads.seen), reads.seen
    assert reads.seen[0] == (0, 0) and reads.seen[1][0] > 0, reads.seen
    assert from_file.flushed == [len(from_file.parts)]
