"""The flat reader of request lines (``wire.decode_flat``: JSON's decoder
without the duplicate-key hook, for a line that is one object with no
object inside it) against the strict reader (``wire.decode_text``), and
``serve``'s memo of answers to repeated lines (check's), against serving
without it.

The property: when the flat reader takes a line, the strict reader gives
the same value (same keys in the same order, same JSON, same types);
whenever the strict reader refuses a line, the flat reader leaves it to it
(None), so every error message stays the strict reader's."""

from __future__ import annotations

import io
import json

from verified.core.semantics import PreconditionError
from verified.tools import check, wire

from tests.protocol import test_fuzz_protocol as hostile
from tests.protocol import test_fuzz_schemas as fuzz
from tests.protocol.test_compact_reader import EDGES, _mutants, _vector_lines
from tests.protocol.test_schemas import _golden_requests

#: lines with a repeated key (JSON's decoder keeps the last), or a brace or
#: colon inside a string (the counts are then too high: not taken)
DUPLICATES = [
    '{"moves": [[1, 0]], "model": "swap", "model": "temp", "sequence": []}',
    '{"moves": [[1, 0]], "model": "swap", "sequence": [], "sequence": [["mov", 1, 0]]}',
    '{"id": "a:", "id": "b", "moves": [], "model": "swap", "sequence": []}',
    '{"id": "{", "moves": [], "model": "swap", "sequence": []}',
    '{"id": ":", "moves": [], "model": "swap", "sequence": []}',
]


def agree(line: str) -> bool:
    """Assert the two readers agree on ``line``; True when the flat reader
    took it."""
    flat = wire.decode_flat(line)
    try:
        strict = wire.decode_text(line)
    except PreconditionError:
        assert flat is None, line
        return False
    except RecursionError:  # pragma: no cover - decode_text words these
        assert flat is None, line
        return False
    if flat is None:
        return False
    assert json.dumps(flat) == json.dumps(strict), line
    assert flat == strict and list(flat) == list(strict), line
    assert [type(v) for v in flat.values()] == [type(v) for v in strict.values()], line
    return True


def test_the_readers_agree_on_golden_requests_edges_and_duplicates():
    lines = _golden_requests() + EDGES + DUPLICATES
    taken = sum(agree(line) for line in lines)
    assert taken >= 60, taken
    for line in DUPLICATES:
        assert wire.decode_flat(line) is None, line
    try:
        wire.decode_request_text(DUPLICATES[0])
    except PreconditionError as e:
        assert str(e) == 'line is not a valid request: the key "model" appears twice'
    else:
        raise AssertionError("a repeated key was read")


def test_the_readers_agree_on_vector_fuzzed_and_mutated_lines(tmp_path):
    lines = _vector_lines(tmp_path)[::7]
    lines += [x.decode("utf-8", "replace") for x in fuzz.drawn(fuzz.request_lines, 200)]
    lines += [hostile._encode(r).decode() for r in fuzz.drawn(hostile.requests(), 200)]
    lines += _mutants(_golden_requests() + EDGES + DUPLICATES, 2000, seed=5)
    taken = sum(agree(line) for line in lines)
    assert len(lines) > 2500 and taken >= 400, (len(lines), taken)


def test_repeated_lines_are_answered_from_the_memo_as_without_it():
    """A right, a wrong and a bad line, each twice and more: the memo keeps
    the first two kinds' answers, never a bad line's (its error names its
    line number), and the bytes and the status are those of serving
    without the memo."""
    right = b'{"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]}\n'
    wrong = b'{"id": 4, "moves": [[1, 0]], "model": "temp", "sequence": [["mov", 0, 1]]}\n'
    bad = b'{"moves": [[1, 0]], "model": "temp"}\n'
    data = (right + bad + wrong) * 3 + b"\n" + right + bad
    served = []
    for memo in (None, {}):
        out = io.StringIO()
        served.append((wire.serve(io.BytesIO(data), out, check._handle_check, memo),
                       out.getvalue()))
        if memo is not None:
            assert sorted(memo) == sorted([right, wrong])
    assert served[0] == served[1]
    assert served[1][1].count("missing") == 4 and '"error": "line 12: ' in served[1][1]
