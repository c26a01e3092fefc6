"""``verified ssra alloc``'s plain command line is read without argparse
(``verified.ssra.cli.plain_alloc_args``): it gives the parser's values or
None, and a run through it prints, writes to stderr and exits exactly as a
run through the parser."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified import cli
from verified.ssra import cli as ssra_cli

BENCH_TAPE = os.path.join(os.path.dirname(__file__), "..", "data", "ssra-bench-6362.tape")


def parsed(tail: list[str]) -> tuple | str:
    """The parser's (tape, registers, json, counts) for ``ssra alloc TAIL``,
    or "refused" (a usage error, help, or words left over)."""
    try:
        args, extra = cli.build_parser("ssra").parse_known_args(["ssra", "alloc", *tail])
    except SystemExit:
        return "refused"
    if extra:
        return "refused"
    return (args.tape, args.registers, args.json, args.counts)


def plain(tail: list[str]) -> tuple | None:
    a = ssra_cli.plain_alloc_args(tail)
    return None if a is None else (a.tape, a.registers, a.json, a.counts)


#: words a command line may hold: the plain ones, and ones the parser reads
#: otherwise (abbreviations, attached values, help, options after --)
WORDS = ["--json", "--counts", "--registers", "-n", "24", "3", " 5", "+7", "2_4", "٢",
         "x", "t.tape", "-3", "-", "--", "", "--reg", "--registers=4", "-n24", "-h",
         "--json=1", "--cou", "-nx", "a b", "-x"]

CASES = [
    (["--registers", "24", "t.tape"], ("t.tape", 24, False, False)),
    (["t.tape", "-n", "3", "--json"], ("t.tape", 3, True, False)),
    (["--counts", "-n", " 5 ", "t", "--json", "--json"], ("t", 5, True, True)),
    (["-n", "2_4", ""], ("", 24, False, False)),
    # the parser's business: abbreviations, attached values, "-" and "--",
    # a repeated -n, a negative N, a second TAPE, help, no TAPE, no N
    (["--reg", "24", "t"], None), (["--registers=4", "t"], None), (["-n24", "t"], None),
    (["-n", "3", "-"], None), (["-n", "3", "--", "t"], None), (["-n", "3", "-n", "4", "t"], None),
    (["-n", "-3", "t"], None), (["-n", "3", "t", "u"], None), (["-n", "3", "t", "-h"], None),
    (["-n", "3"], None), (["t"], None), (["-n", "x", "t"], None), (["t", "-n"], None),
]


@pytest.mark.parametrize("tail, expected", CASES)
def test_plain_alloc_args(tail, expected):
    assert plain(tail) == expected
    if expected is not None:
        assert parsed(tail) == expected


@settings(max_examples=600, deadline=None)
@given(tail=st.lists(st.sampled_from(WORDS), max_size=6))
def test_the_plain_reading_is_the_parsers(tail):
    mine = plain(tail)
    if mine is not None:
        assert parsed(tail) == mine


def _run(argv: list[str], capsys, monkeypatch, fast: bool) -> tuple:
    if not fast:
        monkeypatch.setattr(ssra_cli, "plain_alloc_args", lambda tail: None)
    status = cli.main(argv)
    out, err = capsys.readouterr()
    monkeypatch.undo()
    return status, out, err


@pytest.mark.parametrize("tail", [
    ["--registers", "24", BENCH_TAPE], ["-n", "3", "--json", BENCH_TAPE],
    ["--counts", "-n", "2", BENCH_TAPE], ["-n", "1", BENCH_TAPE], ["-n", "99999999999999", "x"],
    ["-n", "4", "/nonexistent/t.tape"], ["-n", "4", "BAD"], ["-n", "4", "EMPTY"],
])
def test_a_run_through_it_is_a_run_through_the_parser(tail, tmp_path, capsys, monkeypatch):
    bad, empty = tmp_path / "bad.tape", tmp_path / "empty.tape"
    bad.write_text("$0 = A()\n$1 = B($2)\n")
    empty.write_text("# nothing\n")
    tail = [{"BAD": str(bad), "EMPTY": str(empty)}.get(w, w) for w in tail]
    argv = ["ssra", "alloc", *tail]
    assert ssra_cli.plain_alloc_args(tail) is not None
    fast = _run(argv, capsys, monkeypatch, fast=True)
    assert fast == _run(argv, capsys, monkeypatch, fast=False)
    assert fast[1] or fast[2]


def test_a_plain_alloc_does_not_import_argparse():
    code = ("import sys; from verified.cli import main; s = main(['ssra', 'alloc', '-n', '3', "
            f"{BENCH_TAPE!r}]); sys.stdout.flush(); print('argparse' in sys.modules, s, "
            "file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stderr == "False 0\n"
    assert p.stdout.startswith("r")
