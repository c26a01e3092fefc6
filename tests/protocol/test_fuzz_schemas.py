"""Fuzzing every entry point that reads outside data with documents drawn
from the protocol's own JSON Schemas (tests/protocol/schema_strategies.py),
as they are and with their bytes mutated (issue 21): ``check``, ``solve``,
``explain``, the machine description, conform's answer checker and reader,
and the SSRA tape parser (mutated bytes of the write-up's program).

The property each time: one answer line per input line, the right exit
status, never an exception escaping, never an ``internal error``, and the
next line served right.  tests/protocol/test_fuzz_protocol.py has the hand-
written hostile strategies; ``make fuzz`` (fuzz/) the coverage-guided runs."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified import cli
from verified.core import machine as M
from verified.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from verified.core.semantics import PreconditionError
from verified.tools import check, wire

from tests.protocol.schema_strategies import documents

ROOT = Path(__file__).resolve().parents[2]
QUIET = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
#: examples per entry point in `make test` (the long runs are `make fuzz`)
EXAMPLES = 100


# ---------------------------------------------------------------------------
# Strategies: documents the schemas accept, and their bytes mutated
# ---------------------------------------------------------------------------


def mutated(doc_bytes: st.SearchStrategy) -> st.SearchStrategy:
    """Bytes of a document with a few bytes flipped, inserted or deleted."""
    @st.composite
    def mutate(draw):
        data = bytearray(draw(doc_bytes))
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
            i = draw(st.integers(0, max(len(data) - 1, 0)))
            if op == "flip" and data:
                data[i] ^= 1 << draw(st.integers(0, 7))
            elif op == "insert":
                data[i:i] = draw(st.sampled_from([b"[", b"]", b"{", b"}", b",", b'"', b"0",
                                                  b"-", b"\xff", b"1e999", b"null", b"\\"]))
            elif op == "delete" and data:
                del data[i]
            elif op == "cut":
                del data[i:]
        return bytes(data).replace(b"\n", b" ")
    return mutate()


def encoded(s: st.SearchStrategy) -> st.SearchStrategy:
    return s.map(lambda d: json.dumps(d).encode())


REQUESTS = documents("request")
MACHINE_REQUESTS = documents("request", "/$defs/machine_request")
MACHINES = documents("machine")
ANSWERS = documents("answer")
request_lines = st.one_of(encoded(REQUESTS), mutated(encoded(REQUESTS)),
                          encoded(MACHINE_REQUESTS), mutated(encoded(MACHINE_REQUESTS)))


def drawn(strategy: st.SearchStrategy, n: int = 60) -> list:
    """``n`` documents from ``strategy`` (one Hypothesis run, no shrinking)."""
    out: list = []

    @settings(max_examples=n, database=None, **QUIET)
    @given(strategy)
    def collect(doc):
        out.append(doc)

    collect()
    return out


def test_the_strategies_draw_every_form():
    """The generator reaches each form the schemas allow (not only the
    easiest branch): register and machine requests, typed moves, every
    answer kind, machine objects with aliases and a stack."""
    reqs = drawn(REQUESTS)
    assert any("model" in d and d["moves"] and "sequence" in d for d in reqs)
    assert any("machine" in d for d in reqs)
    mreqs = drawn(MACHINE_REQUESTS)
    assert any(isinstance(d["machine"], dict) for d in mreqs)
    assert any(len(m) == 3 for d in mreqs for m in d["moves"])
    answers = drawn(ANSWERS)
    assert {k for d in answers for k in d} >= {"sequence", "unsupported", "error", "failure"}
    machines = drawn(MACHINES)
    assert any(d.get("aliases") for d in machines) and any("stack" in d for d in machines)


# ---------------------------------------------------------------------------
# check and solve: the serving loop
# ---------------------------------------------------------------------------

GOOD = b'{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}'
GOOD_MACHINE = (b'{"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]], '
                b'"sequence": [["swap", "rax", "rbx"]]}')


def serve_all(lines: list[bytes], handle) -> tuple[int, list[dict]]:
    out = io.StringIO()
    status = wire.serve(io.BytesIO(b"".join(x + b"\n" for x in lines)), out, handle)
    return status, [json.loads(x) for x in out.getvalue().splitlines()]


def served_right(lines: list[bytes], status: int, answers: list[dict], judged: bool) -> None:
    assert len(answers) == sum(1 for x in lines if x.strip())
    for a in answers:
        assert "internal error" not in json.dumps(a), a
    errors = any("error" in a for a in answers)
    wrong = judged and any(a.get("ok") is False for a in answers)
    assert status == (EXIT_WRONG if wrong else EXIT_BAD_INPUT if errors else EXIT_OK)


@settings(max_examples=EXAMPLES, **QUIET)
@given(st.lists(request_lines, min_size=1, max_size=3))
def test_check_from_the_schemas(lines):
    status, answers = serve_all(lines + [GOOD, GOOD_MACHINE], check._handle_check)
    served_right(lines + [GOOD, GOOD_MACHINE], status, answers, judged=True)
    assert [a["ok"] for a in answers[-2:]] == [True, True]  # the next lines served right


def _solve(name: str):
    from verified.algorithms import solve, solve_machine

    def handle(obj):
        req = wire.parse_any(obj, need_sequence=False)
        if isinstance(req, M.MachineRequest):
            ops = solve_machine("resolve", req.move, req.preserve)
        else:
            ops = solve(name, req.pm, req.model, req.preserve)
        return {"sequence": [o.to_json() for o in ops]}, EXIT_OK
    return handle


@settings(max_examples=EXAMPLES, **QUIET)
@given(st.lists(request_lines, min_size=1, max_size=3), st.sampled_from(["xchg", "mincopy"]))
def test_solve_from_the_schemas(lines, name):
    good = b'{"moves": [[1, 0], [0, 1]], "model": "swap", "temps": ["t"]}'
    if name == "mincopy":
        good = good.replace(b"swap", b"temp")
    status, answers = serve_all(lines + [good], _solve(name))
    served_right(lines + [good], status, answers, judged=False)
    assert "sequence" in answers[-1]


# ---------------------------------------------------------------------------
# explain, the machine description
# ---------------------------------------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=EXAMPLES, **QUIET)
@given(request_lines)
def test_explain_from_the_schemas(line):
    text = line.decode("utf-8", "replace")
    status, out, err = run_cli(["explain", "--request", text])
    assert status in (0, 1, 2)
    assert "internal error" not in out + err and "Traceback" not in err
    if status == 2:
        assert err.startswith("verified explain: error: ") and err.count("\n") == 1, err


@settings(max_examples=EXAMPLES, **QUIET)
@given(st.one_of(MACHINES, encoded(MACHINES).flatmap(
    lambda b: mutated(st.just(b))).map(lambda b: _lenient(b))))
def test_machine_descriptions_from_the_schema(obj):
    try:
        m = M.machine_from_json(obj)
    except PreconditionError as e:
        assert str(e).startswith('"machine": ')
        return
    # a machine the oracle takes round-trips through its own JSON
    assert M.machine_from_json(m.to_json()).to_json() == m.to_json()


def _lenient(data: bytes) -> object:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return data.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# conform: the answer checker on schema answers, the reader on mutated bytes
# ---------------------------------------------------------------------------


@settings(max_examples=EXAMPLES, **QUIET)
@given(st.one_of(encoded(ANSWERS), mutated(encoded(ANSWERS))), st.booleans())
def test_conform_checker_from_the_schema(line, optimal):
    from verified import cases
    from verified.tools import conform as C

    ct = C.MoveType("swap", (), "all")
    kind, _ = C.classify(ct, cases.Case(3, ((0, 1), (1, 0), (2, 0))), line, optimal)
    # FAILED: a {"failure": why} answer (the report branch: a failure class of its own)
    assert kind in (C.OK, C.WRONG, C.GARBAGE, C.REFUSED_OK, C.REFUSED, C.FAILED), kind


@settings(max_examples=25, **QUIET)
@given(st.lists(st.one_of(encoded(ANSWERS), mutated(encoded(ANSWERS)), st.binary(max_size=64)),
                min_size=1, max_size=8))
def test_conform_reader_splits_any_bytes_into_the_lines_there_are(tmp_path_factory, pieces):
    from tests.conform.test_conform_robustness import _lines_read

    data = b"\n".join(pieces)
    got = _lines_read(tmp_path_factory.mktemp("r"), data, 1 << 20)
    assert got == [x for x in data.split(b"\n") if x.strip()] + [None]


# ---------------------------------------------------------------------------
# The SSRA tape parser on mutated bytes of the write-up's program
# ---------------------------------------------------------------------------

TAPE = (ROOT / "tests" / "data" / "ssra-bench-6362.tape").read_bytes().splitlines()


@settings(max_examples=EXAMPLES, **QUIET)
@given(st.integers(0, len(TAPE) - 40).flatmap(
    # lines joined by \x0b, which ``mutated`` keeps, and split again after
    lambda i: mutated(st.just(b"\x0b".join(TAPE[i:i + 40]))).map(
        lambda b: b.replace(b"\x0b", b"\n"))))
def test_tape_parser_on_mutated_programs(data):
    from verified import ssra

    text = data.decode("utf-8", "replace")
    try:
        tape = ssra.parse_tape(text)
    except PreconditionError as e:
        assert str(e)
        return
    assert tape.ops
