"""Hostile input.  Hypothesis throws malformed JSON, wrong types, huge or
negative locations, duplicate destinations, non-UTF-8 bytes and 10^5-move
requests at `verified check` / `verified solve` (the serving loop), at
conform's answer checker, and at the SSA tape parsers of verified.ssra.

The property, for the protocol: every non-blank input line gets exactly one
answer line; the answer is strict JSON (no NaN); a bad line gets
``{"error": str}``; our own bugs ("internal error") never happen; and a
known-good request placed after the hostile lines is still answered
correctly.  A *crash* is any breach of that, or an exception escaping; each
test fails on its own crashes.

``test_fuzz_figures`` serves one seeded corpus and pins the exact figures
(how many lines got an error, a wrong verdict, an ok); run pytest with -s
to see them."""

from __future__ import annotations

import io
import json
import random
import string
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified import cases
from verified.tools import conform as C
from verified.tools import check, wire
from verified.core.semantics import PreconditionError

from tests.support import verified

GOOD = {"moves": [[1, 0], [0, 1], [2, 0]], "model": "swap", "registers": 3,
        "sequence": [["swap", 0, 1], ["mov", 2, 1]]}
GOOD_ANSWER = {"ok": True, "length": 2, "optimal": 2}


def _strict(text: str) -> object:
    def no(name):
        raise ValueError(f"{name} in output")
    return json.loads(text, parse_constant=no)


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

huge_ints = st.one_of(
    st.integers(-10, 10),
    st.integers(2**31 - 3, 2**31 + 3),
    st.integers(-(2**64), 2**64),
    st.integers(10**20, 10**40),
    st.integers(-(10**40), -(10**20)),
)
scalars = st.one_of(huge_ints, st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=6), st.sampled_from(["r0", "r1", "r-1", "r01", "t", "", "m0", "r99999999999"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20)
locs = st.one_of(st.integers(0, 5), huge_ints, st.sampled_from(["r2", "t", "rax", "r01"]), scalars)
pairs = st.one_of(st.tuples(locs, locs).map(list), json_values)
ops = st.one_of(
    st.tuples(st.sampled_from(["mov", "swap", "load", "store", "xchg", ""]), locs, locs).map(list),
    st.tuples(st.just("perm"), st.lists(st.lists(locs, min_size=2, max_size=2), max_size=7)).map(list),
    st.lists(locs, max_size=4), json_values)


@st.composite
def requests(draw):
    """Request-shaped objects with every field possibly wrong."""
    req: dict = {}
    fields = draw(st.sets(st.sampled_from(
        ["moves", "model", "temps", "registers", "preserve", "sequence", "id", "bogus"]),
        min_size=0, max_size=8))
    for f in fields:
        if f == "moves":
            moves = draw(st.lists(pairs, max_size=6))
            if moves and draw(st.booleans()):  # a duplicate destination
                moves.append([moves[0][0] if isinstance(moves[0], list) and moves[0] else 0, 3])
            req[f] = draw(st.one_of(st.just(moves), json_values))
        elif f == "model":
            req[f] = draw(st.one_of(st.sampled_from(["swap", "temp", "permi", "spill", "SWAP"]), json_values))
        elif f == "temps":
            req[f] = draw(st.one_of(st.lists(locs, max_size=3), json_values))
        elif f == "registers":
            req[f] = draw(st.one_of(huge_ints, scalars))
        elif f == "preserve":
            req[f] = draw(st.one_of(st.sampled_from(["all", "loops", "none"]), json_values))
        elif f == "sequence":
            req[f] = draw(st.one_of(st.lists(ops, max_size=6), json_values))
        else:
            req[f] = draw(json_values)
    return req


def _encode(obj) -> bytes:
    return json.dumps(obj).encode()


#: hand-picked hostile lines, each with the exact answer it must get
HOSTILE = [b"[" * 100_000, b"{\"a\":" * 50_000, b"1" * 5000, b"NaN",
           b'{"moves": [[1, 0]], "model": "swap", "sequence": [], "id": Infinity}',
           b'{"moves": [[1, 1e999]], "model": "swap", "sequence": []}',
           b"\xff\xfe\x00{", b"\xed\xa0\x80", b'"\\ud800"', b"\x00"]
HOSTILE_ANSWERS = [
    "line is not valid JSON: nested too deeply",
    "line is not valid JSON: nested too deeply",
    "line is not valid JSON here: a number has too many digits",
    "line is not valid JSON: NaN is not a JSON value",
    "line is not valid JSON: Infinity is not a JSON value",
    "line is not valid JSON: the number 1e999 overflows a double",
    "line is not UTF-8 (invalid start byte at byte 0)",
    "line is not UTF-8 (invalid continuation byte at byte 0)",
    "a request is a JSON object, got str",
    "line is not valid JSON: Expecting value at column 1",
]


raw_lines = st.one_of(
    st.binary(max_size=40),                                   # anything, often not UTF-8
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    json_values.map(_encode),                                 # valid JSON, wrong shape
    requests().map(_encode),                                  # request-shaped, wrong types
    requests().map(_encode).map(lambda b: b[: len(b) // 2]),  # truncated
    st.sampled_from(HOSTILE),
).map(lambda b: b.replace(b"\n", b" "))


# ---------------------------------------------------------------------------
# The serving loop, in process (fast: thousands of lines)
# ---------------------------------------------------------------------------


def _serve(lines: list[bytes], handler) -> tuple[int, list[object]]:
    stream = io.BytesIO(b"".join(line + b"\n" for line in lines))
    out = io.StringIO()
    status = wire.serve(stream, out, handler)
    return status, [_strict(x) for x in out.getvalue().splitlines()]


def _check_served(lines, answers, status):
    expected = [ln for ln in lines if ln.strip()]
    assert len(answers) == len(expected)
    for a in answers:
        assert isinstance(a, dict)
        if "error" in a:
            assert isinstance(a["error"], str)
            assert "internal error" not in a["error"], a
        else:
            assert isinstance(a.get("ok"), bool) or "sequence" in a
    assert status in (0, 1, 2)


def _prop_check(lines):
    status, answers = _serve(lines + [_encode(GOOD)], check._handle_check)
    _check_served(lines + [_encode(GOOD)], answers, status)
    assert answers[-1] == GOOD_ANSWER  # the next line is still served right


def _solve_handler(name):
    from verified.algorithms import solve

    def handle(obj):
        req = wire.parse_request(obj, need_sequence=False)
        return {"sequence": [o.to_json() for o in solve(name, req.pm, req.model, req.preserve)]}, 0
    return handle


def _prop_solve(lines, name):
    good = {k: v for k, v in GOOD.items() if k != "sequence"}
    if name in ("leroy", "mincopy"):
        good = {**good, "model": "temp", "temps": ["t"]}
    if name == "permi-optimal":
        good = {**good, "model": "permi"}
    status, answers = _serve(lines + [_encode(good)], _solve_handler(name))
    _check_served(lines + [_encode(good)], answers, status)
    assert "sequence" in answers[-1]


_QUIET = dict(deadline=None, suppress_health_check=list(HealthCheck))
_check_lines = st.lists(raw_lines, min_size=1, max_size=6)
_solve_args = (st.lists(raw_lines, min_size=1, max_size=4),
               st.sampled_from(["shuf", "leroy", "mincopy", "xchg", "permi-optimal"]))

test_check_serves_every_hostile_line = settings(max_examples=300, **_QUIET)(
    given(_check_lines)(_prop_check))
test_solve_serves_every_hostile_line = settings(max_examples=150, **_QUIET)(
    given(*_solve_args)(_prop_solve))
# the long runs behind `make verify`
test_check_serves_every_hostile_line_long = pytest.mark.slow(settings(max_examples=2000, **_QUIET)(
    given(_check_lines)(_prop_check)))
test_solve_serves_every_hostile_line_long = pytest.mark.slow(settings(max_examples=2000, **_QUIET)(
    given(*_solve_args)(_prop_solve)))


# ---------------------------------------------------------------------------
# 10^5-move requests
# ---------------------------------------------------------------------------

N = 100_000


def _chain(n):
    """r1 <- r0, r2 <- r1, ..., and its correct sequence (last first)."""
    moves = [[i + 1, i] for i in range(n)]
    seq = [["mov", i + 1, i] for i in reversed(range(n))]
    return moves, seq


def test_huge_requests_are_served():
    moves, seq = _chain(N)
    big_ok = {"moves": moves, "model": "temp", "sequence": seq}
    big_wrong = {"moves": moves, "model": "temp", "sequence": seq[::-1]}
    big_dup = {"moves": moves + [[N, 5]], "model": "temp", "sequence": seq}
    cycle = {"moves": [[(i + 1) % N, i] for i in range(N)], "model": "swap",
             "sequence": [["swap", 0, i] for i in range(1, N)]}
    lines = [_encode(x) for x in (big_ok, big_wrong, big_dup, cycle, GOOD)]
    status, answers = _serve(lines, check._handle_check)
    assert answers[0] == {"ok": True, "length": N, "optimal": N}
    assert answers[1]["ok"] is False and "counterexample" in answers[1]
    assert "written twice" in answers[2]["error"]
    assert answers[3] == {"ok": True, "length": N - 1, "optimal": N - 1}
    assert answers[4] == GOOD_ANSWER
    assert status == 1


# shuf is left out: it rescans every slot and recounts every mask per action
# (O(n^2) big-int work), 0.65 s at n = 1000 and 16 s at n = 4000 here, so a
# 10^5-move request would take hours (reported to the lead, not fixed here).
def test_a_huge_register_file_is_refused_not_materialised():
    """Found by the slow fuzz run: "registers": 2**31 - 1 made the oracle
    build a set of every register (24 GB, OOM-killed); now bad input."""
    lines = [_encode({"moves": [], "model": "swap", "registers": 2**31 - 1, "sequence": []}),
             _encode({"moves": [[5, 0]], "model": "temp", "registers": 2**31 - 1}),
             _encode(GOOD)]
    status, answers = _serve(lines, check._handle_check)
    assert answers[0]["error"] == answers[1]["error"].replace("line 2", "line 1") == (
        'line 1: "registers" must be a whole number in 0..1048576, not 2147483647')
    assert answers[2] == GOOD_ANSWER
    status, answers = _serve(lines[1:2], _solve_handler("shuf"))
    assert answers[0]["error"] == (
        'line 1: "registers" must be a whole number in 0..1048576, not 2147483647')


@pytest.mark.parametrize("name", ["leroy", "leroy-iterative",
                                  *[pytest.param(n, marks=pytest.mark.slow) for n in
                                    ("xchg", "mincopy", "windmill", "permi-optimal")]])
def test_huge_request_to_solve(name):
    moves, _ = _chain(N)
    model = {"xchg": "swap", "permi-optimal": "permi"}.get(name, "temp")
    lines = [_encode({"moves": moves, "model": model, "temps": ["t"] if model == "temp" else []}),
             _encode({"moves": [[1, 0], [0, 1]], "model": model,
                      "temps": ["t"] if model == "temp" else []})]
    status, answers = _serve(lines, _solve_handler(name))
    # either a correct sequence or an error naming the limit: never a crash
    if "error" in answers[0]:
        assert "internal error" not in answers[0]["error"]
        assert "recursion" in answers[0]["error"]  # leroy's documented limit
    else:
        from verified.core.oracle import implements
        from verified.core.semantics import ParallelMove, sequence
        pm = ParallelMove.make(moves, temps=["t"] if model == "temp" else [])
        assert implements(pm, sequence(answers[0]["sequence"]), model).ok
    assert "sequence" in answers[1]


# ---------------------------------------------------------------------------
# The real CLI: one process, thousands of hostile lines, no traceback
# ---------------------------------------------------------------------------


def _corpus(seed: int, k: int) -> list[bytes]:
    """Deterministic hostile lines for the subprocess runs."""
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        r = rng.random()
        if r < 0.2:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(30))).replace(b"\n", b""))
        elif r < 0.35:
            out.append("".join(rng.choice(string.printable.replace("\n", "").replace("\r", ""))
                               for _ in range(rng.randrange(30))).encode())
        else:
            moves = [[rng.choice([rng.randrange(6), -1, 2**31, 10**30, "r3", "t", 1.5, None, True]),
                      rng.choice([rng.randrange(6), -7, 2**40, "x", [], {}])]
                     for _ in range(rng.randrange(5))]
            if rng.random() < 0.3 and moves:
                moves.append([moves[0][0], 1])
            req = {"moves": moves, "model": rng.choice(["swap", "temp", "permi", "spill", 3]),
                   "sequence": [[rng.choice(["mov", "swap", "perm"]), rng.randrange(6), rng.randrange(6)]
                                for _ in range(rng.randrange(4))]}
            if rng.random() < 0.3:
                req["registers"] = rng.choice([3, -1, 2**31, "4", None, 2.0])
            if rng.random() < 0.3:
                req["temps"] = rng.choice([["t"], [0], "t", [["t"]]])
            line = json.dumps(req).encode()
            if rng.random() < 0.2:
                line = line[: rng.randrange(len(line))]
            out.append(line)
    return out


@pytest.mark.parametrize("sub", ["check", "solve"])
def test_cli_survives_a_hostile_corpus(sub):
    lines = _corpus(1234, 3000) + [_encode(GOOD if sub == "check" else
                                           {k: v for k, v in GOOD.items() if k != "sequence"})]
    args = ["check"] if sub == "check" else ["solve", "--algorithm", "shuf"]
    proc = verified(*args, input=b"\n".join(lines) + b"\n", text=False)
    assert proc.stderr == b"", proc.stderr.decode(errors="replace")[-2000:]
    answers = [_strict(x) for x in proc.stdout.decode().splitlines()]
    assert len(answers) == len([ln for ln in lines if ln.strip()])
    assert not any("internal error" in a.get("error", "") for a in answers)
    assert proc.returncode in (1, 2)
    if sub == "check":
        assert answers[-1] == GOOD_ANSWER
    else:
        assert "sequence" in answers[-1]


# ---------------------------------------------------------------------------
# conform's answer checker: hostile answers are WRONG or GARBAGE, never an
# exception and never an internal error
# ---------------------------------------------------------------------------

answer_lines = st.one_of(
    raw_lines,
    st.fixed_dictionaries({"sequence": st.lists(ops, max_size=6)}).map(_encode),
    st.fixed_dictionaries({"sequence": json_values}).map(_encode),
    st.fixed_dictionaries({"error": json_values}).map(_encode),
)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(answer_lines, st.sampled_from(["swap", "temp", "permi"]), st.booleans())
def test_conform_checker_never_crashes(line, model, optimal):
    ct = C.MoveType(model, ("t",) if model == "temp" else (), "all")
    case = cases.Case(3, ((0, 1), (1, 0), (2, 0)))
    kind, _ = C.classify(ct, case, line.replace(b"\n", b" "), optimal)
    assert kind in (C.OK, C.WRONG, C.GARBAGE, C.REFUSED_OK, C.REFUSED), kind


# ---------------------------------------------------------------------------
# The SSA tape parsers (verified/ssra.py)
# ---------------------------------------------------------------------------

from verified import ssra  # noqa: E402

tape_tokens = st.sampled_from(["$0", "$1", "$2", "$x", "$", "=", "(", ")", ",", "ADD", "LOAD", "STORE",
                               "2.5", "-1e9", "#", ";", " ", "\t", "\n", "_0", "_1", "mul", "const",
                               "var-x", "1", "$99999999999999999999", "\u00e9", "\x00", "\r"])
tape_lines = st.one_of(
    st.text(max_size=60),
    st.lists(tape_tokens, max_size=25).map("".join),
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["ADD", "NEG", "LOAD", "F", "1x"]),
                       st.lists(st.one_of(st.integers(-1, 8).map(lambda i: f"${i}"),
                                          st.sampled_from(["2", "$x", "", "1.5e3"])), max_size=3))
             .map(lambda t: f"${t[0]} = {t[1]}({', '.join(t[2])})"), max_size=8).map("\n".join),
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["mul", "const", "var-x", "LOAD", "9"]),
                       st.lists(st.one_of(st.integers(-1, 8).map(lambda i: f"_{i}"),
                                          st.sampled_from(["2.95", "x", "_"])), max_size=3))
             .map(lambda t: f"_{t[0]} {t[1]} {' '.join(t[2])}"), max_size=8).map("\n".join),
)


def _prop_tape(text, kind):
    parse = ssra.parse_tape if kind == "tape" else ssra.parse_vm
    try:
        tape = parse(text)
    except PreconditionError as e:
        assert str(e)
        return
    # a parsed tape satisfies its documented invariants
    assert tape.ops
    defined = set()
    for op in tape.ops:
        assert all(v in defined for v in op.inputs) and len(op.inputs) <= 2
        assert op.out not in defined
        defined.add(op.out)


test_tape_parsers_raise_only_tape_errors = settings(max_examples=500, **_QUIET)(
    given(tape_lines, st.sampled_from(["tape", "vm"]))(_prop_tape))
test_tape_parsers_raise_only_tape_errors_long = pytest.mark.slow(settings(max_examples=5000, **_QUIET)(
    given(tape_lines, st.sampled_from(["tape", "vm"]))(_prop_tape)))


@pytest.mark.parametrize("content", [b"\xff\xfe$0 = A()\n", b"", b"$0 = A(\n", b"$1 = B($0)\n",
                                     b"$0 = A()\n$1 = B($0, $0, $0)\n", b"_0 const 2\n_1 mul _0 _9\n",
                                     "$0 = \u00c9()\n".encode(), b"$0 = A()\x00\n"])
@pytest.mark.parametrize("suffix", [".tape", ".vm"])
def test_ssra_cli_reports_bad_tapes_without_traceback(tmp_path, content, suffix):
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(content)
    proc = verified("ssra", "alloc", str(path), "--registers", "4", timeout=60, text=False)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    assert proc.returncode in (0, 2)
    if proc.returncode == 2:
        assert proc.stderr.strip()


def test_fuzz_figures():
    """Self-contained: 3,000 seeded hostile lines (``_corpus``), the
    hand-picked ones and a good request through the serving loop.  The
    corpus and the oracle are deterministic, so the figures are exact: a
    change in what is rejected (NaN accepted as null, a float id refused)
    moves them."""
    lines = _corpus(1234, 3000) + HOSTILE + [_encode(GOOD)]
    status, answers = _serve(lines, check._handle_check)
    _check_served(lines, answers, status)
    kinds = Counter("error" if "error" in a else "ok" if a["ok"] else "wrong" for a in answers)
    print(f"\nfuzz figures: {len(lines)} lines, {len(answers)} non-blank, answered "
          f"{dict(kinds)}, status {status}")
    assert len(answers) == 2975  # 36 of the corpus's lines are blank
    assert kinds == {"error": 2773, "wrong": 153, "ok": 49}
    offset = len(lines) - len(HOSTILE) - 1
    assert answers[-len(HOSTILE) - 1:-1] == [
        {"error": f"line {offset + i}: {message}"}
        for i, message in enumerate(HOSTILE_ANSWERS, 1)]
    assert answers[-1] == GOOD_ANSWER and status == 1
