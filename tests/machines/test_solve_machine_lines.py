"""``verified solve``'s shorter way to read a machine request line
(``solve.MachineLines``: the machine object's text read once per distinct
text, the rest of the line by the usual reader) against the usual way (the
whole line read by the strict reader): the same output bytes and exit
status on conform's own request lines (answers and refusals) and on lines
at the edges of what it takes (another layout, a key twice, bad JSON, a bad
machine, an "id", machines taking turns)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from verified.tools import solve
from verified.tools.conform import cli

SMALL = {"name": "tiny", "classes": {"gpr": {"registers": ["a", "b", "t"]}},
         "stack": {"names": ["m0", "m1"]}}


def _suite_lines(k: int) -> list[str]:
    """Every ``k``-th request line conform sends for x86-64, <= 2 moves."""
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    _, suite = cli.build_suite(p.parse_args(["--cmd", "x", "--machine", "x86-64",
                                             "--max-moves", "2"]))
    t = suite.case_type
    return [t.encode(c).decode() for i, c in enumerate(suite.cases()) if i % k == 0]


def _line(**fields: object) -> str:
    return json.dumps(fields) + "\n"


EDGES = [
    _line(machine=SMALL, moves=[["m0", "m1"], ["m1", "m0"]], temps=["t"]),
    _line(machine=SMALL, moves=[["m0", "m1"], ["m1", "m0"]]),      # no sequence exists
    _line(machine=SMALL, moves=[["a", "b"]], id=7),
    _line(machine=SMALL, moves=[["a", "b"]], id="x" * 300),
    _line(machine=SMALL, moves=[["a", "b"]], id={"k": [1, 2]}),
    _line(machine=SMALL, moves=[["a", "zz"]]),                      # bad location
    _line(machine=SMALL, moves=[["a", "b"]], model="swap"),         # does not go with it
    _line(machine=SMALL, moves=[["a", "b"]], preserve="none"),
    _line(machine=SMALL, moves=[["a", "b"]], colour=1),             # unknown key
    _line(machine=SMALL),                                           # no moves
    _line(machine=SMALL, moves=[["a", "b"]], sequence=[]),
    _line(machine="x86-64", moves=[["rax", "rbx"]]),                # a preset: the usual way
    _line(machine={**SMALL, "name": "tiny2"}, moves=[["b", "a"]]),  # another machine
    _line(machine=SMALL, moves=[["b", "a"]]),                       # the first one again
    # a machine whose text differs from the first one's only near its end
    _line(machine={**SMALL, "stack": {"names": ["m0", "m1", "m2"]}}, moves=[["m2", "m0"]]),
    _line(machine=SMALL, moves=[["m1", "m0"]]),
    _line(machine={"name": "bad", "classes": {}}, moves=[]),       # not a machine
    _line(machine={"name": "bad", "classes": {}}, moves=[]),       # twice
    json.dumps({"machine": SMALL})[:-1] + ', "machine": "x86-64", "moves": []}\n',
    json.dumps({"machine": SMALL})[:-1] + ', "moves": [["a", "b"]], "moves": []}\n',
    '{"machine": {"name": "d", "name": "e", "classes": {"gpr": {"registers": ["a"]}}}, '
    '"moves": []}\n',
    json.dumps({"machine": SMALL})[:-1] + ',"moves": [["a", "b"]]}\n',   # no space
    json.dumps({"machine": SMALL})[:-1] + ', "moves": [["a", "b"]]]}\n',  # bad JSON
    json.dumps({"machine": SMALL})[:-1] + "}\n",
    json.dumps({"machine": SMALL})[:-1] + ', "moves": [["a", NaN]]}\n',
    json.dumps({"machine": SMALL})[:-1] + ', "moves": [["a", "b"]]} \r\n',
    '{"machine": {"name": "tiny", "classes": {"gpr": {"registers": ["a", "b"]}}, '
    '"stack": {"names": ["m\\u0030"]}}, "moves": [["m0", "a"]]}\n',
    '{"machine": {"name": "t\xe9", "classes": {"gpr": {"registers": ["a", "b"]}}}, '
    '"moves": [["a", "b"]]}\n',
    "\n",
    '{"moves": [[1, 0]], "registers": 2, "model": "swap"}\n',      # a register request
]


def _run(tmp_path, lines: list[str], usual: bool, monkeypatch, capsys) -> tuple[int, str]:
    path = tmp_path / "requests.jsonl"
    path.write_bytes("".join(lines).encode() + b'{"machine": {"name": "\xff"}}\n')
    with monkeypatch.context() as m:
        if usual:
            m.setattr(solve.MachineLines, "__call__", lambda self, raw: None)
        code = solve.run(argparse.Namespace(algorithm="resolve", files=[str(path)]))
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def suite_lines() -> list[str]:
    return _suite_lines(23)


def test_the_shorter_way_answers_as_the_usual_way(tmp_path, monkeypatch, capsys, suite_lines):
    lines = suite_lines + EDGES + EDGES[::-1]
    taken = []
    call = solve.MachineLines.__call__

    def counted(self, raw):
        got = call(self, raw)
        taken.append(got is not None or self.refused is not None)
        return got

    monkeypatch.setattr(solve.MachineLines, "__call__", counted)
    code, out = _run(tmp_path, lines, False, monkeypatch, capsys)
    usual_code, usual = _run(tmp_path, lines, True, monkeypatch, capsys)
    assert (code, out) == (usual_code, usual)
    assert code == 2 and out.count("\n") == len(lines) - 2 * EDGES.count("\n") + 1
    # not vacuous: it took most lines, refusals among them
    assert sum(taken) > len(suite_lines) and "no sequence exists" in out, sum(taken)
    assert out.count('"sequence"') > len(suite_lines) // 2


def test_a_machine_text_is_read_once(monkeypatch):
    """The machine of a text seen before is not read again."""
    lines = solve.MachineLines(lambda obj: ({"sequence": []}, 0))
    read = []
    decode = solve._decoder().raw_decode
    monkeypatch.setattr(solve, "_decoder", lambda: type(
        "D", (), {"raw_decode": staticmethod(lambda t, i: read.append(i) or decode(t, i))}))
    for moves in ([["a", "b"]], [["b", "a"]], [["a", "b"]]):
        assert lines(_line(machine=SMALL, moves=moves).encode()) == ('{"sequence": []}\n', 0)
    assert read == [len(solve.MACHINE_HEAD) - 1]
