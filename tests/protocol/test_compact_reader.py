"""The compact reader of huge register requests (``wire.decode_compact``,
issue 21: memory bounded by the input) against the strict reader
(``wire.decode_text``), and the compact containers it produces
(``core.compact``) against the plain ones, on every golden request of the
suite, every line of generated vector files, hand-made lines at the edges
of what the compact reader takes, and a few thousand fuzzed and mutated
lines (the schema and hostile strategies of tests/protocol).

The property each time: when the compact reader takes a line, the strict
reader gives the same value (same keys in the same order, same JSON), and
``check`` and ``solve`` give the same answer, or the same error, for both;
otherwise it leaves the line to the strict reader (None).  And served
whole with the compact reader forced on every line, the output is the
same bytes as with the strict reader alone."""

from __future__ import annotations

import io
import json
import random
from itertools import product

import pytest

from verified import cases
from verified.algorithms import ALGORITHMS, MACHINE, solve
from verified.core.compact import DenseState, OpArray, Pairs
from verified.core.graph import analyse, cycle_counts
from verified.core.semantics import ParallelMove, PreconditionError, execute, operation
from verified.tools import check, wire

from tests.protocol import test_fuzz_protocol as hostile
from tests.protocol import test_fuzz_schemas as fuzz
from tests.protocol.test_schemas import _golden_requests
from tests.support import optimum_once, verified

REGISTER_ALGORITHMS = [n for n, a in ALGORITHMS.items() if a.model != MACHINE]


def plain(value: object) -> object:
    """The value with compact containers as the JSON lists they stand for."""
    if isinstance(value, Pairs):
        return [list(p) for p in value]
    if isinstance(value, OpArray):
        return [list(op) for op in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def outcome(fn, obj: object) -> tuple[str, object]:
    try:
        return "answer", fn(obj)
    except PreconditionError as e:
        return "error", str(e)
    except RecursionError:
        return "error", "recursion"


def _solver(name: str):
    def handle(obj: object) -> list:
        req = wire.parse_request(obj, need_sequence=False)
        return [op.to_json() for op in solve(name, req.pm, req.model, req.preserve)]
    return handle


@pytest.fixture(autouse=True)
def _optimum_once(monkeypatch):
    # the golden cross-class request's search, once (tests/support.py)
    optimum_once(monkeypatch)


def agree(line: str, solvers=("xchg",)) -> bool:
    """Assert the two readers agree on ``line``; True when the compact
    reader took it."""
    compact = wire.decode_compact(line)
    if compact is None:
        return False
    strict = wire.decode_text(line)  # must not raise: the compact reader took it
    assert json.dumps(plain(compact)) == json.dumps(strict), line
    assert plain(compact) == strict, line
    assert outcome(check._handle_check, compact) == outcome(check._handle_check, strict), line
    if isinstance(strict, dict) and "sequence" not in strict:
        for name in solvers:
            assert outcome(_solver(name), compact) == outcome(_solver(name), strict), (name, line)
    return True


# -- the lines ----------------------------------------------------------------

#: lines at the edges of what the compact reader takes
EDGES = [
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}',
    '{"moves":[[1,0],[0,1]],"model":"swap","sequence":[["swap",0,1]]}',
    ' \t{ "moves" :\r[ [ 1 , 0 ] ,\n[0,1] ] , "model": "swap", "sequence": [ [ "mov" , 1 , 0 ] ] } \r\n',
    '{"moves": [[1, 0]], "model": "swap", "sequence": [["swap", 0, 1]], "id": {"a": [1, 2.5]}}',
    '{"moves": [[01, 0]], "model": "swap", "sequence": []}',  # a leading zero: not JSON
    '{"moves": [[-0, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[-1, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1048576, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1048575, 0]], "model": "swap", "sequence": [["mov", 1048575, 0]]}',
    '{"moves": [[123456789012345678, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1234567890123456789, 0]], "model": "swap", "sequence": []}',  # 19 digits
    '{"moves": [[1.0, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1e2, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0, 2]], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0],], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0] [0, 1]], "model": "swap", "sequence": []}',
    '{"moves": [], "model": "swap", "sequence": []}',
    '{"moves": [ ], "model": "swap", "sequence": [ ]}',
    '{"moves": [[1, 0], [1, 2]], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "temps": [1], "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "temps": [5, "t"], "registers": 2, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "temps": ["t"], "sequence": [["mov", "t", 0]]}',
    '{"moves": [[1, 0]], "model": "swap", "registers": 1, "sequence": []}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "registers": 4, "sequence": [["swap", 0, 1], ["mov", 3, 2]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "registers": 4, "sequence": [["swap", 0, 1], ["mov", 9, 2]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "temp", "sequence": [["swap", 0, 1]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, -1]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1, 2]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["xchg", 0, 1]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["load", 0, "m0"]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]} x',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}\x0b',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}\xa0',
    '{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]],}',
    '{"moves": [[1, 0]], "model": "swap", "model": "temp", "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "id": {"k": 1, "k": 2}, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "id": NaN, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "id": 1e999, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "id": "\\ud800", "sequence": []}',
    '{"mo\\u0076es": [[1, 0]], "model": "swap", "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "bogus": 1, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "unsupported": "x"}',
    '{"moves": [[1, 0]], "model": "swap", "preserve": "loops", "sequence": [["mov", 1, 0]]}',
    '{"moves": [[1, 0], [2, 2]], "model": "temp", "preserve": "loops", "sequence": [["mov", 1, 0], ["mov", 2, 0]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "temp", "preserve": "loops"}',
    '{"moves": [[1, 0], [0, 1]], "model": "temp"}',
    '{"moves": [[1, 0], [0, 1], [2, 1]], "model": "temp"}',
    '{"moves": [[1, 0], [0, 1]], "model": "permi", "sequence": [["mov", 1, 0]]}',
    '{"moves": [[1, 0], [0, 1]], "model": "spill", "sequence": [["mov", 1, 0]]}',
    '{"moves": [[1, 0]], "model": "swap", "registers": true, "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "sequence": {}}',
    '{"moves": [[1, 0]], "model": "swap", "sequence": [["mov", 1, 0]]',
    '{"moves": [[1, 0]], "model": "swap", "sequence": [["mov", 1, 0]]}}',
    '{}',
    '[]',
    '',
]


def _vector_lines(tmp_path) -> list[str]:
    out: list[str] = []
    for model, extra in [("swap", []), ("temp", ["--temps", "t"]),
                         ("permi", ["--preserve", "loops"])]:
        d = tmp_path / model
        p = verified("vectors", "--out", str(d), "--model", model, "-n", "4",
                     "--exhaustive-max", "3", "--random", "30", *extra)
        assert p.returncode == 0, p.stderr
        for f in sorted(d.glob("*.jsonl")):
            for line in f.read_text().splitlines():
                out.append(line)
                v = json.loads(line)
                out.append(json.dumps({**v["request"], "sequence": v["reference"],
                                       "id": v["id"]}))
                out.append(json.dumps(v["request"]))
    return out


def _mutants(lines: list[str], n: int, seed: int = 1) -> list[str]:
    """``n`` lines each with a few characters flipped, inserted or deleted,
    picked where the compact reader looks (digits, brackets, commas)."""
    rng = random.Random(seed)
    pieces = ["[", "]", ",", "-", "0", "01", "9" * 19, ".5", "e1", " ", "\t", "\x0b",
              '"', "}", "{", ": ", '"swap"', '"mov"', "null"]
    out = []
    for _ in range(n):
        s = list(rng.choice(lines))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(s) + 1)
            op = rng.randrange(3)
            if op == 0 and i < len(s):
                del s[i]
            elif op == 1:
                s[i:i] = rng.choice(pieces)
            elif i < len(s):
                s[i] = rng.choice(pieces)
        out.append("".join(s))
    return out


# -- the tests ----------------------------------------------------------------


def test_the_readers_agree_on_every_golden_request_and_edge():
    lines = _golden_requests() + EDGES
    taken = sum(agree(line, solvers=REGISTER_ALGORITHMS) for line in lines)
    # it must take most golden register requests, or it is not being tested
    assert taken >= 60, taken


def test_the_readers_agree_on_every_vector_line(tmp_path):
    lines = _vector_lines(tmp_path)
    taken = sum(agree(line) for line in lines)
    assert len(lines) > 900 and taken >= len(lines) // 2, (len(lines), taken)


def test_the_readers_agree_on_fuzzed_and_mutated_lines():
    drawn = [x.decode("utf-8", "replace") for x in fuzz.drawn(fuzz.request_lines, 300)]
    drawn += [hostile._encode(r).decode() for r in fuzz.drawn(hostile.requests(), 300)]
    seeds = _golden_requests() + EDGES
    lines = drawn + _mutants(seeds, 2500)
    taken = sum(agree(line) for line in lines)
    assert len(lines) >= 3000 and taken >= 150, (len(lines), taken)


def test_served_with_the_compact_reader_on_every_line_the_bytes_are_the_same(monkeypatch):
    lines = _golden_requests() + EDGES + _mutants(_golden_requests(), 60, seed=2)
    data = b"".join(line.encode("utf-8", "replace") + b"\n" for line in lines)

    def served(handle) -> tuple[int, str]:
        out = io.StringIO()
        return wire.serve(io.BytesIO(data), out, handle), out.getvalue()

    for handle in (check._handle_check, _serving_solver("xchg")):
        monkeypatch.setattr(wire, "COMPACT_FROM", 1 << 62)
        strict = served(handle)
        monkeypatch.setattr(wire, "COMPACT_FROM", 0)
        assert served(handle) == strict


def _serving_solver(name: str):
    def handle(obj):
        return {"sequence": _solver(name)(obj)}, 0
    return handle


def test_a_huge_line_is_read_compactly_and_answered_as_before():
    n = 8_000  # a line past COMPACT_FROM
    req = {"moves": [[(i + 1) % n, i] for i in range(n)], "model": "swap", "registers": n,
           "sequence": [["swap", 0, i] for i in range(1, n)], "id": 7}
    line = json.dumps(req)
    assert len(line) > wire.COMPACT_FROM
    obj = wire.decode_request_text(line)
    assert isinstance(obj["moves"], Pairs) and isinstance(obj["sequence"], OpArray)
    assert agree(line)
    out = io.StringIO()
    assert wire.serve(io.BytesIO(line.encode() + b"\n"), out, check._handle_check) == 0
    assert out.getvalue() == f'{{"id": 7, "ok": true, "length": {n - 1}, "optimal": {n - 1}}}\n'
    # one swap wrong: the same verdict as the strict reader's
    req["sequence"][-1] = ["swap", 1, n - 1]
    assert agree(json.dumps(req))


# -- the containers -----------------------------------------------------------


def test_a_move_from_pairs_equals_the_move_from_lists_and_refuses_alike():
    for moves, regs, temps in [([[1, 0], [0, 1]], None, ()), ([[1, 0], [2, 2]], 4, ["t", 9]),
                               ([], 0, ()), ([[3, 0]], None, [3]), ([[1, 0], [1, 2]], None, ()),
                               ([[1, 0]], 1, ()), ([[1, 0]], 2, [1]), ([[1048576, 0]], None, ())]:
        flat = [x for p in moves for x in p]
        from array import array
        a = outcome(lambda m: ParallelMove.make(m, regs, temps), moves)
        b = outcome(lambda m: ParallelMove.make(m, regs, temps), Pairs(array("q", flat)))
        assert a == b
        if a[0] == "answer":
            assert hash(a[1]) == hash(b[1]) and b[1].source_of == a[1].source_of
            assert tuple(b[1].non_loop_moves) == a[1].non_loop_moves


def test_cycle_counts_agree_with_the_windmills():
    from array import array
    for n in range(1, 6):
        for want in product(range(n), repeat=n):
            for pm in (ParallelMove.from_map(want),
                       ParallelMove.make(Pairs(array("q", [x for i, s in enumerate(want)
                                                           for x in (i, s)])), n)):
                g, c = analyse(pm), cycle_counts(pm)
                on_cycle = sum(len(w.cycle) for w in g.windmills)
                assert (c.non_loop_moves, c.cycles, c.bare_cycles, c.on_cycle) == (
                    g.non_loop_moves, g.cycles, g.bare_cycles, on_cycle), want
    assert cases.exhaustive_count(4) > 0
    named = ParallelMove.make([["rax", "rbx"], ["rbx", "rax"], ["m0", "rax"], [3, 3]])
    g, c = analyse(named), cycle_counts(named)
    assert (c.non_loop_moves, c.cycles, c.bare_cycles, c.on_cycle) == (3, 1, 0, 2)
    assert (g.non_loop_moves, g.cycles, g.bare_cycles) == (3, 1, 0)


def test_dense_state_runs_like_a_dict():
    rng = random.Random(3)
    locs = [0, 1, 2, 3, 7, "t", "m0"]
    for _ in range(300):
        ops = [operation(rng.choice([["mov", rng.choice(locs), rng.choice(locs)],
                                     ["swap", rng.choice(locs), rng.choice(locs)]]))
               for _ in range(rng.randint(0, 8))]
        plain_state = execute(ops)
        dense = execute(ops, DenseState(4))
        assert dict(dense.items()) == plain_state
        assert all(dense.get(k, k) == plain_state.get(k, k) for k in locs)
