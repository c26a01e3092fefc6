"""xchg on a huge request in compact form (issue 21: memory bounded by the
input): the one algorithm keeps its tables in arrays (``core.compact``:
``DenseState``, ``DenseSet``) and its output as an ``OpLog`` when the move
came from the compact reader, and ``verified solve`` writes that output as
it is made (``wire.Streamed``).

What is pinned: the compact run is the plain run step by step (every
``trace=`` state equal, the same operations), on every register map of up
to 4 registers and on random moves with fan-out and self-moves; the
streamed answer is ``json.dumps``'s bytes; ``solve`` serves the same bytes
with the compact reader forced on every line as with the strict reader
alone; and the compact run's peak allocation is bounded per register
(the plain one's is several times it)."""

from __future__ import annotations

import argparse
import io
import json
import random
from array import array
from itertools import product

import pytest

from verified.algorithms import solve
from verified.algorithms.xchg import xchg
from verified.core.compact import DenseSet, OpLog, Pairs
from verified.core.semantics import Mov, ParallelMove, Swap
from verified.tools import solve as solve_tool
from verified.tools import wire

from tests.protocol.test_schemas import _golden_requests
from tests.support import peak_bytes


def _both(pairs: list[tuple[int, int]], registers: int | None) -> tuple[ParallelMove, ParallelMove]:
    plain = ParallelMove.make([list(p) for p in pairs], registers)
    compact = ParallelMove.make(Pairs(array("q", [x for p in pairs for x in p])), registers)
    return plain, compact


def _moves() -> list[tuple[list[tuple[int, int]], int | None]]:
    out: list[tuple[list[tuple[int, int]], int | None]] = []
    for n in range(1, 5):
        out += [(list(enumerate(want)), n) for want in product(range(n), repeat=n)]
    rng = random.Random(21)
    for _ in range(400):
        n = rng.randint(2, 12)
        dsts = rng.sample(range(n), rng.randint(1, n))
        out.append(([(d, rng.randrange(n)) for d in dsts], rng.choice([None, n, n + 3])))
    return out


def test_xchg_on_a_compact_move_runs_step_for_step_as_on_a_plain_one():
    compared = 0
    for pairs, registers in _moves():
        plain, compact = _both(pairs, registers)
        plain_steps: list = []
        compact_steps: list = []
        ops = xchg(plain, trace=plain_steps)
        compact_ops = xchg(compact, trace=compact_steps)
        assert isinstance(compact.moves, Pairs) and isinstance(compact_ops, OpLog)
        assert [op.to_json() for op in compact_ops] == [op.to_json() for op in ops], pairs
        assert list(compact_ops.json()) == [tuple(op.to_json()) for op in ops]
        assert compact_steps == plain_steps, pairs
        compared += len(plain_steps)
    assert compared > 6_000, compared


def test_dense_set_is_a_set():
    rng = random.Random(5)
    for _ in range(200):
        size = rng.randint(0, 40)
        items = [rng.randrange(size) for _ in range(rng.randint(0, 30))] if size else []
        dense, plain = DenseSet(size, items), set(items)
        for _ in range(20):
            x = rng.randrange(-2, size + 2)
            assert (x in dense) == (x in plain)
            dense.discard(x)
            plain.discard(x)
            assert len(dense) == len(plain) and sorted(dense) == sorted(plain)
    for bad in (-1, 3, "r1", 1.0):
        with pytest.raises(ValueError, match=r"DenseSet holds registers 0\.\.2, not "):
            DenseSet(3).add(bad)  # type: ignore[arg-type]


def test_an_op_log_keeps_register_operations_only():
    log = OpLog({"mov": Mov, "swap": Swap})
    log.append(Mov(1, 0))
    log.append(Swap(2, 1))
    with pytest.raises(TypeError, match="OpArray holds register numbers, not"):
        log.append(Mov("t", 0))
    with pytest.raises(OverflowError):
        log.append(Swap(3, 1 << 64))
    assert list(log) == [Mov(1, 0), Swap(2, 1)] and len(log) == 2
    assert list(log.json()) == [("mov", 1, 0), ("swap", 2, 1)]


@pytest.mark.parametrize("count", [0, 1, 2, wire.Streamed.CHUNK - 1, wire.Streamed.CHUNK,
                                   wire.Streamed.CHUNK + 1, 2 * wire.Streamed.CHUNK + 5])
@pytest.mark.parametrize("request_obj", [None, {"moves": []}, {"id": 7}, {"id": "x\u00e9\n"},
                                         {"id": [1, {"a": None}]}])
def test_a_streamed_answer_is_json_dumps_byte_for_byte(count, request_obj):
    items = [["swap", i, i + 1] if i % 3 else ["mov", i, 0] for i in range(count)]
    for fields in ({"sequence": items}, {"sequence": items, "note": "é", "n": 1.5},
                   {"a": [], "sequence": items}):
        expected = {**fields}
        if isinstance(request_obj, dict) and "id" in request_obj:
            expected = {"id": request_obj["id"], **fields}
        streamed = {k: wire.Streamed(iter(v)) if k == "sequence" else v
                    for k, v in fields.items()}
        out = io.StringIO()
        wire._write_answer(out, streamed, request_obj)
        assert out.getvalue() == json.dumps(expected) + "\n"


def _served(monkeypatch, capsys, path: str, compact_from: int) -> tuple[int, str]:
    monkeypatch.setattr(wire, "COMPACT_FROM", compact_from)
    status = solve_tool.run(argparse.Namespace(algorithm="xchg", files=[path]))
    return status, capsys.readouterr().out


def test_solve_answers_the_same_bytes_with_the_compact_reader_on_every_line(
        tmp_path, monkeypatch, capsys):
    lines = list(_golden_requests())
    rng = random.Random(2)
    for n in (1, 2, 5, 100, 9_000):  # the last ones past COMPACT_FROM
        perm = list(range(n))
        rng.shuffle(perm)
        lines += [json.dumps({"moves": [[(i + 1) % n, i] for i in range(n)], "model": "swap",
                              "registers": n, "id": n}),
                  json.dumps({"moves": [[i, perm[i]] for i in range(n)], "model": "swap"}),
                  json.dumps({"id": None, "moves": [[i + 1, i // 2] for i in range(n)],
                              "model": "swap", "preserve": "loops"})]
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(line.replace("\n", " ") + "\n" for line in lines))
    strict = _served(monkeypatch, capsys, str(path), 1 << 62)
    compact = _served(monkeypatch, capsys, str(path), 0)
    assert compact == strict
    assert strict[0] == 2 and strict[1].count("\n") == len(lines)
    assert strict[1].count('"sequence": [["') > 10


def test_xchg_on_a_huge_compact_move_allocates_a_few_bytes_a_register():
    """The whole checked call (tables, output, the bound, the postcondition's
    run of the output): about 90 bytes a register at its peak, where the
    plain dicts, sets and operation objects take about 500."""
    n = 1 << 14
    plain, compact = _both([((i + 1) % n, i) for i in range(n)], n)
    compact_peak = peak_bytes(lambda: solve("xchg", compact, "swap"))
    plain_peak = peak_bytes(lambda: solve("xchg", plain, "swap"))
    assert compact_peak < 150 * n, compact_peak / n
    assert plain_peak > 3 * compact_peak, (plain_peak / n, compact_peak / n)


class _Sink(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


def test_solve_serves_a_huge_compact_request_in_a_few_bytes_a_register(
        tmp_path, monkeypatch):
    """The whole of ``verified solve -a xchg`` on one line (read, decode,
    solve, check, write): about 130 bytes a register at the peak, the line
    included; the answer built as one list first took 320, the strict
    reader 630."""
    n = 1 << 14
    path = tmp_path / "cycle.jsonl"
    path.write_text(json.dumps({"moves": [[(i + 1) % n, i] for i in range(n)],
                                "model": "swap", "registers": n}) + "\n")
    monkeypatch.setattr("sys.stdout", _Sink())
    peaks = {}
    for reader, compact_from in (("compact", 0), ("strict", 1 << 62)):
        monkeypatch.setattr(wire, "COMPACT_FROM", compact_from)
        peaks[reader] = peak_bytes(
            lambda: solve_tool.run(argparse.Namespace(algorithm="xchg", files=[str(path)])))
    assert peaks["compact"] < 200 * n, peaks["compact"] / n
    assert peaks["strict"] > 3 * peaks["compact"], {k: v / n for k, v in peaks.items()}


def test_named_moves_and_operations_are_read_with_each_name_once():
    """A long line whose moves or operations name locations (register names,
    a machine's): the strict reader's lists, but one string object per
    distinct name; a million ["swap", "rax", "rbx"] took 240 MB as JSON
    makes them, about 90 so.  Anything the pattern does not take (a typed
    operation's object, an escape, a float) is the strict reader's."""
    n = 20_000
    req = {"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]],
           "sequence": [["swap", "rax", "rbx"]] * n, "id": 3}
    line = json.dumps(req)
    assert len(line) > wire.COMPACT_FROM
    got = wire.decode_request_text(line)
    assert got == wire.decode_text(line) and type(got["sequence"][0]) is list
    assert len({id(op[1]) for op in got["sequence"]}) == 1
    strict = peak_bytes(lambda: wire.decode_text(line))
    compact = peak_bytes(lambda: wire.decode_request_text(line))
    assert compact < strict / 2, (compact / n, strict / n)
    for odd in ('["mov", "rax", {"imm": 1}]', '["mov", "r\\u0061x", "rbx"]', '["mov", 1.5, 2]',
                '["mov", "rax", "rbx", "i64", 5]'):
        text = line.replace('["swap", "rax", "rbx"]', odd, 1)
        assert wire.decode_request_text(text) == wire.decode_text(text)
    # integer moves on a machine stay JSON lists: the machine reader's errors
    text = json.dumps({"moves": [[1, 0]] * n, "machine": "x86-64", "sequence": [["mov", 1, 0]]})
    assert wire.decode_request_text(text) == wire.decode_text(text)
    assert type(wire.decode_request_text(text)["moves"]) is list
