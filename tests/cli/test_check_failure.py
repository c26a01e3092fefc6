"""`verified check` and a program's answers that carry no sequence
(``{"unsupported": ...}``, ``{"failure": ...}``): check judges sequences,
so a line with either field is bad input (exit 2), named as such, and the
other lines are still judged (docs/protocol.md, docs/exit-codes.md)."""

from __future__ import annotations

import json

import pytest

from tests.support import verified

MESSAGE = ('line 1: "{key}" is an answer that gives no sequence ({what}), not a field of a '
           'request: check judges a "sequence"; `verified conform` judges declines and '
           'failures (docs/conform.md)')


@pytest.mark.parametrize("key, what", [("failure", "the program failed"),
                                       ("unsupported", "a declined case")])
@pytest.mark.parametrize("request_", [
    {"moves": [[1, 0]], "model": "swap"},
    {"machine": "x86-64", "moves": [["rax", "rcx"]], "temps": []},
], ids=["registers", "machine"])
def test_an_answer_without_a_sequence_is_bad_input(key, what, request_):
    line = json.dumps({**request_, key: "V8 crash"})
    good = json.dumps({"moves": [[1, 0]], "model": "swap", "sequence": [["mov", 1, 0]]})
    p = verified("check", input=line + "\n" + good + "\n")
    assert p.returncode == 2
    first, second = (json.loads(x) for x in p.stdout.splitlines())
    assert first == {"error": MESSAGE.format(key=key, what=what)}
    assert second == {"ok": True, "length": 1, "optimal": 1}


def test_with_a_sequence_too_it_is_still_bad_input():
    """Consistent: the field is never ignored, even beside a right sequence."""
    line = json.dumps({"moves": [[1, 0]], "model": "swap", "sequence": [["mov", 1, 0]],
                       "failure": "x"})
    p = verified("check", input=line + "\n")
    assert p.returncode == 2
    assert json.loads(p.stdout) == {"error": MESSAGE.format(key="failure",
                                                            what="the program failed")}
