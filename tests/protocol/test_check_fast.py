"""``verified check``'s plain-line reader (``check.fast_answer``: a request
written as ``json.dumps`` writes it, read from the texts of its moves and
operations) against the long way (the strict reader, ``parse_request``,
``check_request``): on every line it answers, the answer line and the
status are the long way's, byte for byte; every line it leaves (None) is
one it must leave to the long way (bad input, another shape)."""

from __future__ import annotations

import json
import random

from verified.core.semantics import PreconditionError
from verified.tools import check, wire

from tests.protocol.test_compact_reader import EDGES, _mutants
from tests.protocol.test_flat_reader import DUPLICATES
from tests.protocol.test_schemas import _golden_requests

#: plain lines at the edges of what the reader takes or leaves
TRICKY = [
    '{"moves": [], "model": "swap", "sequence": []}',
    '{"moves": [], "registers": 0, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0], [0, 1]], "registers": 2, "model": "swap", "sequence": [["swap", 0, 1]]}',
    '{"moves": [[1, 0], [0, 1]], "registers": 2, "model": "temp", "sequence": [["swap", 0, 1]]}',
    '{"moves": [[1, 0], [1, 2]], "registers": 3, "model": "swap", "sequence": []}',  # twice
    '{"moves": [[1, 0]], "registers": 1, "model": "swap", "sequence": [["mov", 1, 0]]}',  # outside
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 2, 0]]}',
    '{"moves": [["r1", "r0"]], "registers": 2, "model": "swap", "sequence": [["mov", "r1", 0]]}',
    '{"moves": [["r01", 0]], "registers": 2, "model": "swap", "sequence": []}',
    '{"moves": [[true, 0]], "registers": 2, "model": "swap", "sequence": []}',
    '{"moves": [[1.0, 0]], "registers": 2, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0, 2]], "registers": 3, "model": "swap", "sequence": []}',
    '{"moves": [[[1, 0]]], "registers": 3, "model": "swap", "sequence": []}',
    '{"moves": [[]], "registers": 3, "model": "swap", "sequence": []}',
    '{"moves": [["a], [b", 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "sequence": [["mov", "a], [b", 0]]}',
    '{"moves": [[1, 0]], "registers": 99999999, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "registers": 1048576, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "registers": 1048577, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "registers": 2, "model": "spill", "sequence": [["store", 0, 1]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "permi", "sequence": [["perm", [[0, 1], [1, 0]]]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "temp", "sequence": [["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]}',
    '{"moves": [[1, 0], [0, 1]], "registers": 2, "model": "temp", "sequence": [["mov", 1, 0], ["mov", 0, 1]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["jmp", 1, 0]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, NaN]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 1e999]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]]}\r\n',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]]} ',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]]}\n\n',
    '{"moves": [[1, 0]], "registers": 02, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]], "id": 1}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", 1, 0]], ["mov", 1, 0]]}',
    '{"moves": [[1, 0]]], "registers": 2, "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", "\\u0031", 0]]}',
    '{"moves": [[1, 0]], "registers": 2, "model": "swap", "sequence": [["mov", "r\u00e9", 0]]}',
]


def long_way(raw: bytes) -> tuple[str, int]:
    """``serve``'s answer line and status for one line, without the reader."""
    obj = None
    try:
        obj = wire.decode_request_text(wire.decode_utf8(raw))
        answer, status = check._handle_check(obj)
    except PreconditionError as e:
        answer, status = {"error": f"line 1: {e}"}, 2
    return wire._answer_line(answer, obj), status


def _plain_lines(seed: int, k: int) -> list[str]:
    """Requests written plainly, right, wrong, outside the file, repeated
    destinations, named locations, every model."""
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        n = rng.randrange(0, 7)
        moves = [[rng.randrange(n + 1), rng.choice([rng.randrange(n + 1), "t", "r1"])]
                 for _ in range(rng.randrange(0, n + 2))]
        seq = [[rng.choice(["mov", "swap", "load", "store"]), rng.randrange(n + 1),
                rng.choice([rng.randrange(n + 1), "t", "m0"])] for _ in range(rng.randrange(5))]
        req = {"moves": moves}
        if rng.random() < 0.8:
            req["registers"] = n
        req["model"] = rng.choice(["swap", "temp", "permi", "spill"])
        req["sequence"] = seq
        out.append(json.dumps(req))
    return out


def _right_lines(seed: int, k: int) -> list[str]:
    """Right answers, optimal and longer: shuf's sequence after 0 to 2
    swaps that cancel (so the same length comes with different optima)."""
    from verified.algorithms import solve
    from verified.core.semantics import ParallelMove
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        n = rng.randrange(2, 8)
        moves = [[d, rng.randrange(n)] for d in rng.sample(range(n), rng.randrange(n + 1))]
        seq = [op.to_json() for op in solve("shuf", ParallelMove.make(moves, n))]
        a, b = rng.sample(range(n), 2)
        seq = [["swap", a, b]] * (2 * rng.randrange(3)) + seq
        out.append(json.dumps({"moves": moves, "registers": n, "model": "swap", "sequence": seq}))
    return out


def _agree(lines: list[str]) -> int:
    taken = 0
    for line in lines:
        for raw in (line.encode("utf-8", "surrogatepass"),
                    line.encode("utf-8", "surrogatepass") + b"\n"):
            got = check.fast_answer(raw)
            if got is not None:
                taken += 1
                assert got == long_way(raw), raw
    return taken


def test_the_plain_reader_answers_as_the_long_way():
    lines = TRICKY + _golden_requests() + EDGES + DUPLICATES + _plain_lines(1, 3000)
    lines += _right_lines(4, 1000)
    lines += _mutants(TRICKY + _plain_lines(2, 200), 3000, seed=3)
    assert _agree(lines) >= 1500


def test_the_plain_reader_leaves_bad_input_and_other_shapes():
    # bad input, a verdict on an operation that does not read (the long
    # way words it), nested arrays, other spacing, another key, broken JSON
    leaves = [TRICKY[i] for i in (4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 23, 24,
                                  25, 26, 27, 28, 29, 30, 31, 32, 33)]
    assert [line for line in leaves if check.fast_answer(line.encode()) is not None] == []
    takes = [TRICKY[i] for i in (0, 1, 2, 3, 6, 7, 17, 21, 22, 34, 35)]
    assert len(leaves) + len(takes) == len(TRICKY)
    assert [line for line in takes if check.fast_answer(line.encode()) is None] == []


def test_serve_answers_the_same_with_the_reader_and_when_it_fails():
    """``serve`` with the reader, without it, and with a reader that
    raises (a bug of the shorter way): the same bytes and status, the
    long way answering whatever the reader does not."""
    _served_alike(TRICKY + _right_lines(5, 50) + _plain_lines(6, 100))


def _served_alike(lines: list[str]) -> None:
    """``lines`` served with check's reader, without it, and with a reader
    that raises: the same status and bytes, an answer for every line."""
    import io
    data = "\n".join(line.rstrip("\n") for line in lines).encode() + b"\n"

    def broken(raw: bytes):
        raise KeyError("a bug")

    served = []
    for fast in (None, check.fast_answer, broken):
        out = io.StringIO()
        served.append((wire.serve(io.BytesIO(data), out, check._handle_check, {}, fast),
                       out.getvalue()))
    assert served[0] == served[1] == served[2]
    assert served[0][1].count("\n") == len(lines)
