"""conform's parts, each on its own: the case generators it streams (and
the request encoding, packing and decoding of their cases), the answer
classifier, the session's bounded memory and progress, shape mode and move
orders, and what SIGTERM/SIGHUP leave behind (nothing)."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified import cases
from verified.cases import shapes
from verified.core.oracle import Verdict, read_sequence
from verified.core.semantics import Mov, ParallelMove
from verified.tools import conform as C
from verified.tools.conform import moves as mv, partner, session

from tests.support import conform_json

CLIENTS = Path(__file__).resolve().parent.parent / "clients"


def client_script(name: str, *args: str) -> str:
    return shlex.join([sys.executable, str(CLIENTS / name), *args])


# ---------------------------------------------------------------------------
# Generators: valid, lazy, and what the worker unpacks is what was sent
# ---------------------------------------------------------------------------

GENERATORS = {
    "exhaustive 4": lambda: cases.exhaustive_cases(4),
    "random 10": lambda: cases.random_cases(10, 300, 7),
    "random 10 no fan-out": lambda: list(mv.random(10, 200, 7, fan_out=False)),
    "shapes 6 sorted": lambda: mv.shapes(6, 1, "sorted", 0, "all"),
    "shapes 6 shuffled loops": lambda: mv.shapes(6, 2, "shuffled", "x", "loops"),
    "exhaustive 3 reversed": lambda: mv.ordered(mv.exhaustive(3, True), "reversed", 0),
    "random 9 shuffled": lambda: mv.ordered(mv.random(9, 100, 1, True), "shuffled", 1),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
@pytest.mark.parametrize("temps, preserve", [((), "all"), (("t",), "all"), ((16, "x"), "loops")])
def test_request_line_decodes_and_unpacks_to_the_case(name, temps, preserve):
    ct = mv.MoveType("temp", temps, preserve)
    for case in GENERATORS[name]():
        ParallelMove.make(case.moves, case.registers, temps)  # a valid request
        line = ct.encode(case)
        assert line == (json.dumps(ct.request(case)) + "\n").encode()
        assert ct.decode(json.loads(line)) == case == ct.unpack(ct.pack(case))


def test_exhaustive_cases_are_all_distinct():
    every = list(cases.exhaustive_cases(4))
    assert len(every) == len(set(every)) == cases.exhaustive_count(4) == 2 + 9 + 64 + 625


def test_no_fan_out_count_is_the_partial_injections():
    for n in range(1, 6):
        assert sum(1 for _ in mv.exhaustive(n, False)) == mv.exhaustive_planned(n, False)
    assert mv.exhaustive_planned(4, False) == 252


@pytest.mark.parametrize("seed", range(3))
def test_random_stream_is_lazy_and_reproducible(seed):
    a = list(mv.random(10, 300, seed, True))
    assert a == cases.random_cases(10, 300, seed)
    assert a != cases.random_cases(10, 300, seed + 1)
    # the same prefix whatever K: a CI run with more cases extends a shorter one
    assert list(mv.random(10, 50, seed, True)) == a[:50]
    from verified.core.graph import analyse
    assert any(any(len(w.cycle) >= 3 for w in analyse(ParallelMove.make(c.moves, 10)).windmills)
               for c in a)


def test_shapes_mode_sends_each_shape_then_its_renamings():
    n, k = 5, 2
    got = list(mv.shapes(n, k, "sorted", 0, "loops"))
    assert len(got) == cases.shape_case_count(n, k) == 47 * 3
    for i in range(0, len(got), k + 1):
        group = got[i:i + k + 1]
        srcs = [tuple(s for _, s in sorted(c.moves)) for c in group]
        assert srcs[0] == shapes.canonical(srcs[0])  # our labelling: the canonical one
        assert all(shapes.canonical(s) == srcs[0] for s in srcs)  # renamings of it
        assert all(len(c.moves) == n for c in group)  # self-moves kept under loops
    # under "all" the self-moves are left out: same move, no [d, d]
    for c in mv.shapes(n, 0, "sorted", 0, "all"):
        assert all(d != s for d, s in c.moves)


def test_move_orders():
    c = cases.Case(5, ((0, 1), (1, 2), (2, 0), (4, 3)))
    rng = random.Random(0)
    assert cases.reorder_moves(c, "reversed", rng).moves == tuple(reversed(c.moves))
    shuffled = {cases.reorder_moves(c, "shuffled", rng).moves for _ in range(30)}
    assert len(shuffled) > 5 and all(sorted(m) == list(c.moves) for m in shuffled)


def test_shrink_candidates_keep_registers_and_numbers():
    rng = random.Random(0)
    for _ in range(300):
        case = cases.random_case(rng, rng.randint(1, 12))
        named = {x for m in case.moves for x in m}
        for cand in cases.shrink_candidates(case):
            assert cand.registers == case.registers
            assert len(cand.moves) < len(case.moves)
            assert {x for m in cand.moves for x in m} <= named
            ParallelMove.make(cand.moves, cand.registers)


def test_shrinking_routes_around_a_register_to_shorten_a_cycle():
    four = cases.Case(12, ((0, 1), (1, 2), (2, 10), (10, 0)))
    threes = [c for c in cases.shrink_candidates(four) if len(c.moves) == 3]
    assert cases.Case(12, ((0, 2), (2, 10), (10, 0))) in threes  # around r1


# ---------------------------------------------------------------------------
# Classifying one answer
# ---------------------------------------------------------------------------


def test_classify():
    ct = mv.MoveType("swap")
    case = cases.Case(2, ((0, 1), (1, 0)))
    assert C.classify(ct, case, b'{"sequence": [["swap", 0, 1]]}', False) == (C.OK, None)
    kind, detail = C.classify(ct, case, b'{"sequence": [["mov", 0, 1]]}', False)
    assert kind == C.WRONG and detail["counterexample"]["location"] == 1
    assert C.classify(ct, case, b'{"sequence": [["xchg", 0, 1]]}', False)[0] == C.WRONG
    assert C.classify(ct, case, b'{"sequence": "swap"}', False)[0] == C.WRONG
    assert C.classify(ct, case, b'{"unsupported": "no"}', False) == (
        C.REFUSED, {"key": "unsupported", "why": "no"})
    assert C.classify(ct, case, b'{"error": {"code": 3}}', False) == (
        C.REFUSED, {"key": "error", "why": '{"code": 3}'})
    # the program's own failure: neither a refusal nor a sequence, its class
    # the text with numbers as N (two aborts differing in a line number are one)
    assert C.classify_full(ct, case, b'{"failure": "V8 crash at line 12"}', False) == (
        C.FAILED, {"key": "failure", "why": "V8 crash at line 12"}, "failure: VN crash at line N")
    for garbage, why in [
        (b"[1]", "answer is not a JSON object: b'[1]'"),
        (b"\xff\xfe", "answer is not JSON (line is not UTF-8 (invalid start byte at byte 0)):"
                      " b'\\xff\\xfe'"),
        (b'{"ok": true}', 'answer has unknown field(s) "ok"; an answer has exactly one of '
                          '"sequence", "unsupported", "error", "failure": b\'{"ok": true}\''),
        (b'{}', 'answer has none of "sequence", "unsupported", "error", "failure": b\'{}\''),
        (b'{"sequence": [], "unsupported": "x"}',
         'answer has both "sequence" and "unsupported"; an answer has exactly one of '
         '"sequence", "unsupported", "error", "failure": '
         'b\'{"sequence": [], "unsupported": "x"}\''),
        (b'{"sequence": [["swap", 0, 1]], "id": 7}',
         'answer has unknown field(s) "id"; an answer has exactly one of "sequence", '
         '"unsupported", "error", "failure": b\'{"sequence": [["swap", 0, 1]], "id": 7}\''),
        (b'{"sequence": [], "sequence": [["swap", 0, 1]]}',
         'answer is not JSON (line is not a valid request: the key "sequence" appears '
         'twice): b\'{"sequence": [], "sequence": [["swap", 0, 1]]}\''),
    ]:
        assert C.classify(ct, case, garbage, False) == (C.GARBAGE, why)
    temp = mv.MoveType("temp", ("t",))
    assert C.classify(temp, case, b'{"sequence": [["swap", 0, 1]]}', False)[0] == C.WRONG
    assert C.classify(temp, case, b'{"sequence": [["mov", "t", 0], ["mov", 0, 1], '
                      b'["mov", 1, "t"]]}', True) == (C.OK, 0)
    # no temporary: the bare cycle has no sequence, declining it is right
    assert C.classify(mv.MoveType("temp"), case, b'{"unsupported": "no"}', False)[0] == \
        C.REFUSED_OK


def test_every_model_has_a_correct_optimal_reference():
    assert mv.check_reference_table() == []
    for model in ("temp", "swap", "permi", "spill"):
        ct = mv.MoveType(model, tuple(mv.DEFAULT_TEMPS[model]))
        for case in cases.exhaustive_cases(3):
            ours, how = ct.reference(case)
            assert ours is not None, how
            j = ct.judge(case, ours)
            assert j.ok and ct.gap(case, j) == 0


_operand = st.one_of(st.integers(-3, 2**31 + 3), st.booleans(), st.floats(allow_nan=False),
                     st.sampled_from(["r1", "r01", "t", "", "rax"]), st.none())
_op = st.one_of(
    st.tuples(st.sampled_from(["mov", "swap", "load", "store", "perm", "MOV"]),
              _operand, _operand).map(list),
    st.lists(_operand, max_size=4),
    st.just(["perm", [[0, 1], [1, 0]]]),
    _operand,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_op, max_size=6))
def test_memoised_parse_is_read_sequence(seq):
    """The memo must return exactly what oracle.read_sequence returns: the
    same operations, or the same verdict (True is not 1, 1.0 is not 1)."""
    want = read_sequence(seq)
    assert C.parse_sequence(seq) == want
    assert C.parse_sequence(seq) == want  # and again, from the memo


_ANSWER_CASES = list(cases.exhaustive_cases(3))
_answer_line = st.one_of(
    st.lists(_op, max_size=5).map(lambda seq: json.dumps({"sequence": seq}).encode()),
    st.sampled_from([b'{"sequence": [["swap", 0, 1]]}', b'{"sequence": [["mov", 1, 0]]}',
                     b'{"sequence": []}', b'{"unsupported": "no"}', b"[1]", b"\xff",
                     b'{"sequence": [], "sequence": []}', b'{"sequence": [], "error": "x"}',
                     b'{"sequence": [["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]}']),
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(_ANSWER_CASES), _answer_line,
       st.sampled_from([("temp", ("t",)), ("swap", ()), ("permi", ()), ("spill", ("m0",))]),
       st.sampled_from(["all", "loops"]))
def test_the_fast_path_says_ok_exactly_when_classify_does(case, line, model_temps, preserve):
    """``MoveType.correct`` (check_chunk's hot path) must be True exactly
    when ``classify`` says OK: never a second opinion; also when the line's
    operations come from the memo (the second call)."""
    ct = mv.MoveType(*model_temps, preserve)
    kind = C.classify(ct, case, line, False)[0]
    assert ct.correct(ct.pack(case), line) == (kind == C.OK)
    assert ct.correct(ct.pack(case), line) == (kind == C.OK)


#: answer lines the operation-text path (``moves._op_facts_of``) reads
#: (every operation a text of its own)...
_SHORT_WAY = [
    b'{"sequence": []}', b'{"sequence": [["mov", 1, 0]]}', b'{"sequence": [[ "mov",1,0 ]]}',
    b'{"sequence": [["mov", 1, 0], ["swap", 0, 1], ["mov", 1, 0]]}',
    b'{"sequence": [["mov", "\\u00ff", 0]]}', b'{"sequence": [["load", 0, "m0"], ["store", 1, "m0"]]}',
]
#: ... and those it leaves to the decoder: a separator inside a string, a
#: second field after the sequence, another spacing, a piece that is a
#: value but no operation, invalid JSON and UTF-8 inside a piece, a
#: duplicate key, an operation of operations, a space or CR after the line
_LONG_WAY = [
    b'{"sequence": [["mov", "], [", 1]]}', b'{"sequence": [["mov", 1, 0]], "x": [[1]]}',
    b'{"sequence": [["mov", 1, 0]], "sequence": [[]]}', b'{"sequence": [["mov", 1, 0] , ["mov", 2, 1]]}',
    b'{"sequence": [["mov", 1, 0]]]}', b'{"sequence": [[1], [2]]}', b'{"sequence": [[]]}',
    b'{"sequence": [["mov", 01, 0]]}', b'{"sequence": [["mov", "\xff", 0]]}',
    b'{"sequence": [["mov", 1.0, 0]]}', b'{"sequence": [["mov", true, 0]]}',
    b'{"sequence": [["mov", NaN, 0]]}', b'{"sequence": [["mov", 1, {"a": 1, "a": 2}]]}',
    b'{"sequence": [["perm", [[0, 1], [1, 0]]]]}', b'{"sequence": [["swap", 2, 1], ["mov", 1]]}',
    b'{"sequence": [["mov", 1, 0]]} ', b'{"sequence": [["mov", 1, 0]]}\r',
]
_TRICKY_LINES = _SHORT_WAY + _LONG_WAY


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_answer_line, st.sampled_from(_TRICKY_LINES)), min_size=1, max_size=8),
       st.booleans())
def test_the_operation_text_path_is_the_decoder(lines, forget):
    """``answer_effect`` reads a line written the usual way from the texts
    of its operations, each decoded alone (``_op_facts_of``); it must give
    what decoding the whole line gives (``decoded_effect``), with the
    operation texts learnt or not, for lines read in any order."""
    for line in lines:
        if forget:
            mv.MoveType("swap").forget()
        want = mv.decoded_effect(line)
        assert mv.answer_effect(line) == want
        mv._LINE_MEMO.clear()
        assert mv.answer_effect(line) == want  # its operation texts known now


def test_the_operation_text_path_takes_the_usual_lines():
    """The usual lines go the short way (else the test above compares the
    decoder with itself), the others the long way, also once their
    operation texts are known."""
    for _ in range(2):
        assert [line for line in _TRICKY_LINES if mv._op_facts_of(line) is not None] == _SHORT_WAY


@pytest.mark.parametrize("model, temps", [("swap", ()), ("temp", ("t",))])
def test_sure_until_is_correct_on_each(model, temps):
    """``MoveType.sure_until`` (check_chunk's loop) stops at exactly the
    first answer ``correct`` is not sure of, from every start."""
    ct = mv.MoveType(model, temps)
    some = list(cases.exhaustive_cases(3))[::3]
    rng = random.Random(5)
    lines = []
    for c in some:
        ours, _ = ct.reference(c)
        lines.append(rng.choice([json.dumps({"sequence": ours}).encode()] * 4 + [
            b'{"sequence": []}', b'{"sequence": [["swap", 0, 1]]}', b'{"unsupported": "x"}',
            b"[", b'{"sequence": [["mov", "t", 0]]}']))
    packed = [ct.pack(c) for c in some]
    flags = [ct.correct(p, line) for p, line in zip(packed, lines)]
    assert 5 < sum(flags) < len(flags) - 5
    for i in range(len(some) + 1):
        want = next((j for j in range(i, len(some)) if not flags[j]), len(some))
        assert ct.sure_until(packed, lines, i) == want


_SETTLED_CASES = list(cases.exhaustive_cases(3)) + [
    cases.Case(4, ((0, 1), (1, 0), (3, 3))), cases.Case(4, ((1, 0), (0, 1))),
    cases.Case(3, ((2, 2), (0, 1), (1, 0)))]


@pytest.mark.parametrize("model, temps", [("swap", ()), ("temp", ("t",)), ("permi", ()),
                                          ("spill", ("m0",))])
@pytest.mark.parametrize("preserve", ["all", "loops"])
def test_the_settled_test_says_ok_exactly_when_classify_does(model, temps, preserve):
    """``sure_until``'s first test (``moves.settled``: the move, its
    self-moves left out, is the pairs the answer changes) must never say
    OK where ``classify`` does not, and the loop must agree with classify
    on every case and answer line: our own answers to every move over at
    most 3 registers (right for some moves, wrong for others; moves also
    in reverse order and with self-moves), an answer that names a register
    beyond the file and restores it, one that restores a clobbered
    register, one that uses a temporary; each line learnt fresh (from its
    operation texts) and from the memo of Effects."""
    ct = mv.MoveType(model, temps, preserve)
    lines = {b'{"sequence": []}', b'{"sequence": [["swap", 0, 3], ["swap", 0, 3]]}',
             b'{"sequence": [["mov", 1, 0], ["mov", 0, 1]]}',
             b'{"sequence": [["swap", 0, 1], ["mov", 2, 1], ["swap", 0, 1]]}',
             b'{"sequence": [["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]}',
             b'{"sequence": [["mov", 1, 0], ["mov", 0, 1]], "x": 1}'}
    for c in _SETTLED_CASES:
        ours, _ = ct.reference(c)
        if ours is not None:
            lines.add(json.dumps({"sequence": ours}).encode())
    every = _SETTLED_CASES + [cases.Case(c.registers, c.moves[::-1]) for c in _SETTLED_CASES]
    oks = 0
    for line in sorted(lines):
        for learnt in (False, True):
            ct.forget()
            if learnt:
                mv.answer_effect(line)
            for c in every:
                want = C.classify(ct, c, line, False)[0] == C.OK
                assert ct.sure_until([ct.pack(c)], [line], 0) == want, (c, line, learnt)
                oks += want
    assert oks > 100  # not a test of wrong answers alone


def test_memo_keeps_types_apart():
    assert C.parse_sequence([["mov", 1, 0]]) == [Mov(1, 0)]
    assert C.parse_sequence([["mov", True, 0]]) == Verdict(
        False, 1, op_index=0,
        reason="operation #0: a location is a register number (int >= 0) or a name "
               "(string), not True")


# ---------------------------------------------------------------------------
# The session: bounded memory, progress counts checked answers
# ---------------------------------------------------------------------------


class SlowSwap(mv.MoveType):
    """The swap case type with a slow, counting judge (inline checking),
    and no fast path (``correct``), so that every answer is judged."""

    judged = 0

    def correct(self, packed, line):
        return False

    def judge(self, case, answer):
        SlowSwap.judged += 1
        time.sleep(0.0002)
        return super().judge(case, answer)


def test_cases_are_generated_lazily_and_progress_counts_checked_answers(c_client):
    client = c_client
    generated = [0]
    ahead = []

    def stream():
        for c in cases.random_case_stream(8, 0):
            generated[0] += 1
            yield c

    seen = []

    def progress(done, total, elapsed):
        seen.append(done)
        assert done == SlowSwap.judged  # checked, not merely received
        ahead.append(generated[0] - done)

    SlowSwap.judged = 0
    import itertools
    suite = session.Suite(SlowSwap("swap"), lambda: itertools.islice(stream(), 12_000),
                          12_000, "12,000 random cases")
    res = session.run_session([str(client)], suite, False, 10.0, jobs=1, progress=progress)
    assert res.broken is None and res.checked == 12_000 == seen[-1]
    assert seen == sorted(seen) and len(seen) > 3
    # never more than the window of requests (16 blocks of 256) plus the
    # chunk being filled (1,024) ahead of the checked answers
    assert max(ahead) <= 16 * 256 + 1024 + 256


class LateWriter(threading.Event):
    """The writer's ``finished`` event as a loaded machine can make it look
    to the main loop: the writer is slow to mark itself finished, and the
    main loop, having read the flag as clear, is preempted before it waits
    for the program's output (so it acts on a stale read)."""

    def set(self) -> None:
        time.sleep(1.0)  # longer than the main loop's stale reads below
        super().set()

    def is_set(self) -> bool:
        flag = super().is_set()
        if not flag:
            time.sleep(0.3)
        return flag


class LateExchange(partner.Exchange):
    def __post_init__(self) -> None:
        super().__post_init__()
        self.finished = LateWriter()


def test_a_program_ending_with_its_input_is_not_an_early_exit(c_client, monkeypatch):
    """The race CI hit (exit 2, "exited early after 1,372 of 1,372 answers"):
    the program answers its last request and exits as soon as its input
    ends; the main loop must not take that for an early exit however late
    the writer thread marks itself finished or the main loop reads it.
    Before the fix the writer closed the program's input first and marked
    itself finished after, and the main loop trusted the flag it read
    before waiting for output; with these delays, either half of the old
    code alone fails this test on every run (5 of 5 each, measured)."""
    monkeypatch.setattr(session, "Exchange", LateExchange)
    suite = session.Suite(mv.MoveType("swap"), lambda: cases.exhaustive_cases(3), 75,
                          "every parallel move on 1..3 registers")
    res = session.run_session([str(c_client)], suite, False, 10.0, jobs=1)
    assert res.broken is None and res.notes == [] and res.internal == []
    assert res.checked == res.sent == 75


def test_a_program_exiting_before_the_writer_is_done_is_an_early_exit(monkeypatch):
    """The other side of the same line: a program that exits after answering
    every request sent so far, while requests are still to come, did exit
    early (however late the writer's flag is read)."""
    monkeypatch.setattr(session, "Exchange", LateExchange)
    quits = [sys.executable, "-c",
             "import sys; sys.stdin.readline(); print('{\"sequence\": []}')"]
    suite = session.Suite(mv.MoveType("swap"), lambda: cases.exhaustive_cases(3), 75,
                          "every parallel move on 1..3 registers")
    res = session.run_session(quits, suite, False, 10.0, jobs=1, block=1)
    assert res.broken is not None and res.broken.kind == "exited early"
    assert res.broken.message.startswith("the program exited with status 0 after 1 of 75 answers")


# ---------------------------------------------------------------------------
# --timeout judged by when an answer was read, not when the loop took it
# ---------------------------------------------------------------------------


class Exited(partner.Partner):
    """A program that has already exited with status 0 (never started)."""

    def __init__(self):
        super().__init__(["exited"])

    def wait(self, timeout):
        return 0


TIMEOUT = 100.0  # far beyond the test's real run time: only the stamps decide


def judged(arrivals, sent_at=0.0, written_at=0.0, after=()):
    """The session's main loop (``_Loop.run``) over the first
    ``len(arrivals)`` swap cases, sent in one block, the answer to case i
    (our reference answer, so right) read by the reader at ``arrivals[i]``
    seconds after ``base``, then the batches of lines ``after`` (read at
    once), and then the end of the program's output.  Every
    answer is queued before the loop starts, so the loop takes each at once:
    how late an answer is says only its stamp, as when the loop was busy or
    descheduled while the deadline passed (the old code took such answers
    as in time: it looked at the clock only when the queue was empty)."""
    ct = mv.MoveType("swap")
    some = list(cases.exhaustive_cases(2))[:len(arrivals)]
    base = time.monotonic()
    block = partner.Block(0, [ct.encode(c) for c in some], [ct.pack(c) for c in some])
    block.sent_at = base + sent_at
    block.written_at = None if written_at is None else base + written_at
    ex = partner.Exchange(Exited(), iter(()))  # its threads are never started
    ex.sent.append(block)
    ex.total, ex.exhausted = len(some), True
    ex.finished.set()
    for c, at in zip(some, arrivals):
        answer = json.dumps({"sequence": ct.reference(c)[0]}).encode()
        ex.answers.put(([answer], base + at))
    for lines in after:
        ex.answers.put((lines, base))
    ex.answers.put(None)
    res = session.Result(planned=len(some))
    session._Loop(ex, ct, False, TIMEOUT, None, res, 1024, None, base).run()
    return res


def late_message(case: int) -> str:
    return f"no answer to case #{case} within {TIMEOUT:g} s (the program hangs, or is far too slow)"


def test_an_answer_read_after_the_timeout_is_a_timeout_however_soon_it_is_taken():
    res = judged([TIMEOUT + 0.15])
    assert res.broken is not None and res.broken.kind == "timeout"
    assert (res.broken.index, res.broken.message) == (0, late_message(0))
    assert res.checked == 0


def test_answers_read_well_inside_the_timeout_are_taken():
    res = judged([0.5 * TIMEOUT, 0.6 * TIMEOUT, 0.7 * TIMEOUT])
    assert res.broken is None and res.notes == [] and res.internal == []
    assert res.checked == 3 and dict(res.tally.counts) == {"ok": 3}


def test_an_answer_read_exactly_at_its_deadline_is_in_time():
    res = judged([TIMEOUT])
    assert res.broken is None and res.checked == 1


def test_each_answer_has_the_timeout_from_the_previous_answer():
    # 0.9 T, then 0.9 T after it: in time; then T + 0.15 after that: late
    res = judged([0.9 * TIMEOUT, 1.8 * TIMEOUT, 2.8 * TIMEOUT + 0.15])
    assert res.broken is not None and res.broken.kind == "timeout"
    assert (res.broken.index, res.broken.message) == (2, late_message(2))
    assert res.checked == 2


def test_extra_lines_after_the_last_answer_name_the_first_of_them():
    # both extra lines in one read (which a real pipe may or may not give)
    res = judged([1.0], after=[[b"one more", b"and another"]])
    assert res.checked == 1 and res.broken is not None and res.broken.kind == "extra output"
    assert res.broken.message == (
        "the program printed more answer lines than it was sent requests: line #2 of its "
        "output came before request #2 was sent: b'one more'")


def test_the_timeout_runs_from_the_write_not_from_before_it():
    # written 50 s after the session began (its generation took that long):
    # an answer 0.9 T after the write is in time, 1.1 T after it is late
    assert judged([50 + 0.9 * TIMEOUT], sent_at=50, written_at=50).broken is None
    late = judged([50 + TIMEOUT + 0.15], sent_at=50, written_at=50).broken
    assert late is not None and (late.kind, late.index) == ("timeout", 0)


def test_while_its_block_is_still_being_written_the_timeout_runs_from_the_write_start():
    # the program answered before the writer stamped the end of the write
    assert judged([50 + 0.9 * TIMEOUT], sent_at=50, written_at=None).broken is None
    late = judged([50 + TIMEOUT + 0.15], sent_at=50, written_at=None).broken
    assert late is not None and (late.kind, late.index) == ("timeout", 0)


class DyingSwap(mv.MoveType):
    """The swap case type whose judge kills the worker process it runs in
    (no fast path: every answer is judged)."""

    def correct(self, packed, line):
        return False

    def judge(self, case, answer):
        if os.getpid() != PARENT:
            os._exit(3)
        return super().judge(case, answer)


PARENT = os.getpid()


def test_a_checker_process_that_dies_is_an_internal_error_not_a_hang(c_client):
    """A worker that dies with chunks in the shared queue: the session stops
    with our internal error (exit 2 in the report), it does not wait for the
    dead worker's results, and nothing counts as checked by it."""
    suite = session.Suite(DyingSwap("swap"), lambda: cases.exhaustive_cases(5), 8476,
                          "every parallel move on 1..5 registers")
    t = time.monotonic()
    res = session.run_session([str(c_client)], suite, False, 10.0, jobs=2)
    assert time.monotonic() - t < 30
    assert len(res.internal) == 1 and res.checked == 0
    assert re.fullmatch(r"checker process \d+ ended without answering \(exit code 3\)",
                        res.internal[0])


def test_checker_processes_that_cannot_start_are_an_internal_error_not_swallowed(
        c_client, monkeypatch, capsys):
    """The second worker's fork is refused (EAGAIN: a process limit): the
    first is killed, nothing is sent, and the run says why (an internal
    error, exit 2, in the report) instead of dying with a misleading "cannot
    use" line or going on with a pool short of a worker."""
    import errno
    import multiprocessing.context
    from verified.cli import main

    real_start = multiprocessing.context.ForkProcess.start
    started = []

    def start(self):
        if started:
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        started.append(self)
        real_start(self)

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", start)
    suite = session.Suite(mv.MoveType("swap"), lambda: cases.exhaustive_cases(5), 8476,
                          "every parallel move on 1..5 registers")
    res = session.run_session([str(c_client)], suite, False, 10.0, jobs=2)
    why = ("cannot start 2 checker processes (BlockingIOError: [Errno 11] Resource temporarily "
           "unavailable); nothing was sent; --jobs 1 checks the answers inline")
    assert res.internal == [why] and res.broken is None and res.checked == res.sent == 0
    assert len(started) == 1
    started[0].join(timeout=10)
    assert started[0].exitcode == -signal.SIGKILL  # no worker left behind

    started.clear()
    code = main(["conform", "--cmd", str(c_client), "--model", "swap", "--registers", "5",
                 "--exhaustive", "--jobs", "2", "--progress", "never", "--json"])
    out = capsys.readouterr()
    r = json.loads(out.out)
    assert code == 2 and r["exit"] == 2 and r["internal_errors"] == [why] and r["run"] == 0
    assert "Traceback" not in out.err


# ---------------------------------------------------------------------------
# Shape mode against an order-dependent resolver
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("order, code", [("sorted", 0), ("reversed", 1), ("shuffled", 1)])
def test_order_dependent_bug_is_caught_by_shuffled_not_sorted(order, code):
    """tests/clients/order_client.py finds moves by binary search, as if they
    came sorted by destination: every shape on 6 registers passes sorted;
    shuffled (and reversed) order catches it, and the smallest case keeps
    the order it failed in."""
    got, r, _ = conform_json("--cmd", client_script("order_client.py"), "--model", "swap",
                             "--registers", "6", "--shapes", "--order", order)
    assert got == code and r["run"] == 130
    if code:
        s = r["smallest_failure"]
        assert s["fails_alone"] and s["request"]["registers"] == 6
        dsts = [d for d, _ in s["request"]["moves"]]
        assert dsts != sorted(dsts)


def test_shapes_against_the_c_client_with_renamings(c_client):
    code, r, _ = conform_json("--cmd", str(c_client), "--model", "swap", "--registers", "7",
                              "--shapes", "--relabel", "3", "--order", "shuffled",
                              "--seed", "ci-1")
    assert code == 0 and r["run"] == r["planned"] == 343 * 4
    assert r["cases"] == ("every parallel move on 7 registers up to renaming (343 shapes), "
                          "each also under 3 random renaming(s) (seed ci-1), moves shuffled "
                          "(seed ci-1)")


# ---------------------------------------------------------------------------
# Signals: nothing of the program under test is left
# ---------------------------------------------------------------------------


def _alive(marker: str) -> list[int]:
    """Live processes that carry ``marker`` in their environment and run sleep."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker.encode() not in (p / "environ").read_bytes():
                    continue
                if not (p / "cmdline").read_bytes().startswith(b"sleep"):
                    continue
                if (p / "stat").read_text().split()[2] != "Z":
                    pids.append(int(p.name))
            except OSError:
                pass
    return pids


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
@pytest.mark.parametrize("registers", ["3", "6"])  # inline checking; worker processes
def test_signal_kills_the_program_and_everything_it_started(sig, registers):
    """Issue 14, item 4: CI cancels a job with SIGTERM; conform must not
    leave the program under test (nor its children, nor our checkers)
    running."""
    marker = f"VERIFIED_CONFORM_TEST={os.getpid()}-{sig}-{registers}"
    env = dict(os.environ, VERIFIED_CONFORM_TEST=marker.split("=")[1])
    # a shell that starts a grandchild, then a program that never answers
    cmd = "sh -c 'sleep 600 & exec sleep 601'"
    proc = subprocess.Popen([sys.executable, "-m", "verified.cli", "conform", "--cmd", cmd,
                             "--model", "swap", "--registers", registers, "--timeout", "300",
                             "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 30
    while len(_alive(marker)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(_alive(marker)) == 2
    children = [int(x) for x in subprocess.run(
        ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()]
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == (-sig if sig != signal.SIGINT else 130)
    assert b"Traceback" not in err
    if sig != signal.SIGINT:
        assert err.decode() == (f"verified conform: stopped by {sig.name}; the program and "
                                f"its process group were killed\n")
    deadline = time.monotonic() + 5
    while _alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(marker) == []
    for pid in children:  # the checker processes too
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


class SignalledBeforeStart(partner.Exchange):
    """SIGTERM arriving after the exchange's threads exist, before they run
    (the handler raises ``Terminated`` wherever the main thread is)."""

    def start(self) -> None:
        raise partner.Terminated(signal.SIGTERM)


def test_a_signal_between_creating_and_starting_threads_still_ends_as_the_signal(
        c_client, monkeypatch):
    """Seen under load (4 of 60 SIGHUPs): the clean-up joined threads that
    were never started, and RuntimeError ("cannot join thread before it is
    started") replaced the signal, so conform exited 2 with an internal
    error instead of 128 + the signal."""
    monkeypatch.setattr(session, "Exchange", SignalledBeforeStart)
    suite = session.Suite(mv.MoveType("swap"), lambda: cases.exhaustive_cases(3), 75,
                          "every parallel move on 1..3 registers")
    with pytest.raises(partner.Terminated):
        session.run_session([str(c_client)], suite, False, 10.0, jobs=1)
    p = partner.Partner([str(c_client)])
    p.start()
    p._err_thread = threading.Thread(target=lambda: None)  # created, signal, not started
    p.kill()
