"""``verified check``'s plain reader of machine lines
(``check.fast_machine_answer``: a request naming a preset or profile,
written as ``json.dumps`` writes it, read from the texts of its moves and
operations) against the long way (the strict reader,
``parse_machine_request``, ``check_machine``): on every line it answers,
the answer line and the status are the long way's, byte for byte; every
line it leaves (None) goes the long way.  Random requests on every preset
and profile (typed moves, lists, immediates, temporaries, preserve, stack
operations, reserved registers, unknown names), the machine corpus's
pinned requests, and mutants of them."""

from __future__ import annotations

import io
import json
import random

from verified.core import machine as M
from verified.tools import check

from tests.machines.corpus import BAD_INPUT, BUG_CLASSES, ILLEGAL
from tests.protocol.test_check_fast import _agree, _served_alike
from tests.protocol.test_compact_reader import _mutants

MACHINES = M.PRESETS + M.PROFILES

#: plain machine lines at the edges of what the reader takes or leaves
TRICKY = [
    '{"machine": "x86-64", "moves": [], "sequence": []}',
    '{"machine": "x86-64", "moves": [], "temps": [], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "preserve": "loops", '
    '"sequence": [["mov", "rax", "rbx"], ["mov", "rcx", "rdx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "temps": ["rcx"], "preserve": "all", '
    '"sequence": [["mov", "rcx", "rbx"], ["mov", "rax", "rcx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "temps": ["rcx"], "preserve": "some", '
    '"sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "temps": ["rcx", ["rdx"]], '
    '"sequence": [["swap", "rcx", "rdx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"], ["rax", "rcx"]], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rsp", "rbx"]], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rsp", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "m0", "m1"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "zz", "m1"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["jmp", "rax", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [3, ["mov", "rax", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [[]]}',
    '{"machine": "x86-64", "moves": [["rax", {"imm": 7}]], "sequence": [["mov", "rax", {"imm": 7}]]}',
    '{"machine": "x86-64", "moves": [["rax", {"imm": 7}]], "sequence": [["mov", "rax", {"imm": 7, "imm": 8}]]}',
    '{"machine": "x86-64", "moves": [["m0", "m1", "f64"]], "temps": ["mw0"], '
    '"sequence": [["mov", "xmm0", "m1", "f64"], ["mov", "m0", "xmm0", "f64"]]}',
    '{"machine": "x86-64", "moves": [["m0", "m1"]], "sequence": [["push", "m1"], ["pop", "m0"]]}',
    '{"machine": "x86-64", "moves": [["m0", "m1"]], "sequence": [["pop", "m0"]]}',
    '{"machine": "x86-64", "moves": [["m0", "m1"]], "sequence": [["push", "m1"]]}',
    '{"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]], '
    '"sequence": [["mov", "a2", "a1"], ["mov", "a1", "a0"]]}',
    '{"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]], '
    '"sequence": [["mov", ["a1", "a2"], ["a0", "a1"]]]}',
    '{"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s4", "s1"]], '
    '"sequence": [["mov", "s4", "s1"], ["mov", "d0", "d1"]]}',
    '{"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s1", "s0"]], "sequence": []}',
    '{"machine": "no-such", "moves": [], "sequence": []}',
    '{"machine": "x86-64", "model": "swap", "moves": [], "sequence": []}',
    '{"machine": "x86-64", "moves": [], "sequence": [], "id": 1}',
    '{"machine": "x86-64", "moves": [["a], [b", "rax"]], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "a], [b", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", "rbx"]]}\r\n',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", "rbx"]]} ',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", "rbx"]]}\n\n',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", "rbx"]]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]]], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "r\\u0061x", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "r\u00e9", "rbx"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["mov", "rax", NaN]]}',
    '{"machine": "x86-64", "moves": [["rax", {"imm": 1e999}]], "sequence": []}',
    '{"machine": "x86-64", "moves": [["rax", {"imm": 99999999999999999999999}]], "sequence": []}',
]


def _corpus_lines() -> list[str]:
    out = [json.dumps({**req, "sequence": seq}) for _, req, seq, _ in BUG_CLASSES]
    out += [json.dumps(req) for _, req in ILLEGAL]
    out += [json.dumps({**req, "sequence": []}) for _, req in BAD_INPUT]
    return out


def _loc(rng: random.Random, names: list[str], imm: bool) -> object:
    r = rng.random()
    if imm and r < 0.1:
        return {"imm": rng.choice([0, 7, -1, 255, 1 << 40, -(1 << 63), 1 << 64])}
    if r < 0.18:
        return rng.sample(names, rng.choice([1, 2, 2, 3]))
    if r < 0.2:
        return rng.choice(["zz", "t", 3, None])
    return rng.choice(names)


def random_lines(seed: int, k: int, machines=MACHINES) -> list[str]:
    """Requests written plainly on every machine: typed and untyped moves,
    lists, immediates, temporaries, preserve, every operation kind, mostly
    legal operations (so the sequence runs) and some not."""
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        name = rng.choice(machines)
        m = M.machine(name)
        names = list(m.names())
        types = [t.name for t in m.types]
        moves = []
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            mv = [_loc(rng, names, False), _loc(rng, names, True)]
            if types and rng.random() < 0.15:
                mv.append(rng.choice(types + ["nosuch"]))
            moves.append(mv)
        seq = []
        for _ in range(rng.randrange(9)):
            kind = rng.choice(["mov", "mov", "mov", "swap", "push", "pop"])
            if kind == "push":
                op = [kind, _loc(rng, names, True)]
            elif kind == "pop":
                op = [kind, _loc(rng, names, False)]
            else:
                op = [kind, _loc(rng, names, False), _loc(rng, names, kind == "mov")]
            if types and rng.random() < 0.1:
                op.append(rng.choice(types))
            seq.append(op)
        req: dict = {"machine": name, "moves": moves}
        if rng.random() < 0.4:
            req["temps"] = [_loc(rng, names, False) for _ in range(rng.randrange(3))]
        if rng.random() < 0.3:
            req["preserve"] = rng.choice(["all", "loops", "all", "none"])
        req["sequence"] = seq
        out.append(json.dumps(req))
    return out


def right_lines(seed: int, k: int) -> list[str]:
    """Mostly right answers (the reader's ok answers, their costs and
    optima): each move done by one mov, typed or untyped, in an order
    that reads every source before it is written, when there is one."""
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        name = rng.choice(MACHINES)
        m = M.machine(name)
        names = [n for n in m.names() if n not in m.reserved]
        moves = [[rng.choice(names), rng.choice(names + [{"imm": rng.randrange(9)}])]
                 for _ in range(rng.randrange(1, 4))]
        moves = [mv for i, mv in enumerate(moves) if mv[1] not in [d for d, _ in moves[:i]]]
        seq = [["mov", d, s] for d, s in reversed(moves)]
        out.append(json.dumps({"machine": name, "moves": moves, "sequence": seq}))
    return out


def test_the_machine_reader_answers_as_the_long_way():
    lines = TRICKY + _corpus_lines() + random_lines(1, 2000) + right_lines(4, 2000)
    lines += _mutants(TRICKY + random_lines(2, 300), 1500, seed=3)
    assert _agree(lines) >= 2900  # with and without the newline: 1,450 lines


def test_the_machine_reader_takes_and_leaves_what_it_should():
    # bad input (a bad preserve, a destination twice or overlapping, a
    # reserved register named, a duplicate key, an unknown machine, "model"
    # beside "machine", NaN, an overflowing or unfitting constant), another
    # key or spacing, an item that is not an operation array, a bad name
    # with "], [" in a move, broken JSON: all left to the long way
    leaves = [TRICKY[i] for i in (5, 7, 8, 13, 16, 24, 25, 26, 27, 28, 30, 31, 32, 33, 34, 37,
                                  38, 39)]
    assert [line for line in leaves if check.fast_answer(line.encode()) is not None] == []
    takes = [line for line in TRICKY if line not in leaves]
    assert len(takes) == 22
    assert [line for line in takes if check.fast_answer(line.encode()) is None] == []


def test_serve_answers_machine_lines_the_same_with_the_reader_and_without():
    # (not the corpus's small machines: their optima are searched, slowly)
    _served_alike(TRICKY + random_lines(5, 300))


class _Raw(io.RawIOBase):
    """A raw stream that records each write (a system call, under -u)."""

    def __init__(self) -> None:
        self.calls: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.calls.append(bytes(b))
        return len(b)


def test_check_buffers_unbuffered_stdout_while_it_serves_and_restores_it():
    """With PYTHONUNBUFFERED (stdout write-through over the raw file) each
    answer line was a system call of its own; ``_buffered`` batches them
    and gives the stream back as it was, every byte written."""
    raw = _Raw()
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    with check._buffered(out) as o:
        for i in range(1000):
            o.write(f'{{"ok": true, "length": {i}}}\n')
    assert out.write_through
    assert len(raw.calls) < 10
    assert b"".join(raw.calls).decode() == "".join(
        f'{{"ok": true, "length": {i}}}\n' for i in range(1000))
    sink = io.StringIO()  # no reconfigure: used as it is
    with check._buffered(sink) as o:
        assert o is sink


def test_an_unbuffered_check_still_answers_a_partner_that_waits(tmp_path):
    """Under PYTHONUNBUFFERED=1, a partner that writes one request and
    waits for its answer gets it (``serve`` flushes before each read that
    may wait), machine and register lines alike."""
    import os
    import select
    import subprocess
    import sys
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "verified.cli", "check"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env)
    try:
        for line in [TRICKY[2], '{"moves": [[1, 0]], "registers": 2, "model": "swap", '
                     '"sequence": [["mov", 1, 0]]}'] * 2:
            p.stdin.write(line.encode() + b"\n")
            p.stdin.flush()
            ready, _, _ = select.select([p.stdout], [], [], 30)
            assert ready, f"no answer to {line} while the partner waits"
            assert p.stdout.readline().startswith(b'{"ok": true')
    finally:
        p.stdin.close()
        p.wait(30)
