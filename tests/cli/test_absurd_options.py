"""No ``internal error`` is reachable from the command line (issue 21):
every option of every subcommand, found by walking the parser (so a new
option is walked too), is given absurd values next to a few otherwise
valid command lines; each run must end with status 0, 1 or 2, never an
internal error, and a rejected value must be one line naming the command.

The walk covers the verbs with parsers of their own too (``cli.VERBS``:
``conform merge``, ``conform cluster``); no cluster is started, as every
absurd value is refused before one would be.

Runs in-process (``verified.cli.main``) to stay fast; conform's program is
``true``, which exits at once (a broken program, status 2) whenever a
value is accepted."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from verified import cli

TAPE = str(Path(__file__).resolve().parents[2] / "tests" / "data" / "ssra-bench-6362.tape")

#: machine files (written in the run's directory): no registers, a
#: duplicate key, one register (the scratch), not an object, NaN, too deep
MACHINE_FILES = {
    "empty.json": '{"classes": {}}',
    "dup.json": '{"classes": {"g": {"registers": ["a", "b"]}}, "classes": {}}',
    "one.json": '{"classes": {"g": {"registers": ["a"]}}}',
    "list.json": "[1, 2]",
    "nan.json": '{"classes": {"g": {"registers": ["a", "b"], "width": NaN}}}',
    "deep.json": "[" * 100000,
}

INTS = ["-1", "0", "100000000000000000000000000", "-100000000000000000000000000",
        "1e999", "nan", "", "x"]
FLOATS = ["0", "-1", "nan", "inf", "-inf", "1e-300", "1e999", "", "x"]
TEXTS = ["", " ", "\n", "-", "/", "x" * 5000, "{}", "[1, 2]", "/nonexistent.json",
         *MACHINE_FILES]

#: otherwise valid command lines each option is tried in (a value that
#: clashes with one is a usage error there, and valid in another)
BASES = {
    ("conform",): [
        ["--cmd", "true", "--model", "swap", "--random", "2", "--jobs", "1",
         "--progress", "never"],
        ["--cmd", "true", "--model", "swap", "--shapes", "-n", "2", "--jobs", "1",
         "--progress", "never"],
        # one move: counting the default 3 moves' 256,387 typed cases took
        # half a second of every run that got that far (each value's check
        # is the same on any --max-moves; --max-moves itself replaces it)
        ["--cmd", "true", "--machine", "x86-64", "--max-moves", "1", "--jobs", "1",
         "--progress", "never"],
        ["--cmd", "true", "--allocator", "-n", "2", "--jobs", "1", "--progress", "never"],
    ],
    ("vectors",): [["--model", "swap", "-n", "2", "--random", "1", "--exhaustive-max", "1"],
                   ["--machine", "x86-64", "--max-moves", "0", "--random", "1"]],
    ("solve",): [["-a", "xchg", "/dev/null"]],
    ("explain",): [["--request", '{"moves": [[1, 0]], "model": "temp"}',
                    "--sequence", '[["mov", 1, 0]]']],
    ("ssra", "alloc"): [[TAPE, "-n", "4"]],
    ("ssra", "check"): [[TAPE, "/dev/null", "-n", "4"]],
    ("machines",): [["derive", "x86-64", "--reserve", "rsp", "--scratch", "r11",
                     "--name", "p", "-o", "profile.json"],
                    ["show", "x86-64"]],
    ("conform", "cluster"): [
        ["--local", "1", "--shards", "1", "--", "--cmd", "true", "--model", "swap",
         "-n", "2", "--random", "1"],
        ["--scheduler", "tcp://127.0.0.1:1", "--shards", "1", "--", "--cmd", "true",
         "--model", "swap", "-n", "2", "--random", "1"],
    ],
}


def valued_options() -> list[tuple[tuple[str, ...], str, list[str]]]:
    """(subcommand path, option, absurd values) for every option that takes
    a value, read from the parser itself."""
    out = []

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, path + (name,))
            elif a.option_strings and a.nargs != 0:
                values = FLOATS if a.type is float else INTS if a.type is int else TEXTS
                out.append((path, max(a.option_strings, key=len), values))

    walk(cli.build_parser(), ())
    for command, verb, module in cli.VERBS:
        walk(importlib.import_module(module).build_parser(), (command, verb))
    return out


OPTIONS = valued_options()


def test_the_walk_covers_every_subcommand_with_options():
    assert {path for path, _, _ in OPTIONS} == set(BASES)
    assert len(OPTIONS) >= 25
    walked = {(path, option) for path, option, _ in OPTIONS}
    assert {(("conform",), "--shard"), (("conform",), "--max-classes"),
            (("conform",), "--max-line-bytes"), (("machines",), "--reserve"),
            (("conform", "cluster"), "--scheduler")} <= walked
    # conform merge has no option with a value: its REPORTs are tried below
    assert {(c, v) for c, v, _ in cli.VERBS} == {("conform", "merge"), ("conform", "cluster")}


@pytest.mark.parametrize("argv", [["machines", "show"], ["conform", "merge"],
                                  ["conform", "merge", "one.json"]])
def test_absurd_files_are_validated_never_an_internal_error(argv, capsys, tmp_path,
                                                            monkeypatch):
    """The file arguments of `machines show FILE` and `conform merge REPORT...`."""
    monkeypatch.chdir(tmp_path)
    for name, text in MACHINE_FILES.items():
        (tmp_path / name).write_text(text)
    for value in TEXTS:
        if value == "-":
            continue  # stdin: a report read from it is tested in tests/conform
        try:
            status = cli.main(argv + [value])
        except SystemExit as e:
            status = e.code
        out, err = capsys.readouterr()
        assert "internal error" not in err + out, (argv, value, err)
        assert "Traceback" not in err + out, (argv, value, err)
        assert status in (0, 2), (argv, value, status, err)  # 0: a machine with no classes
        if status == 2:
            assert err.startswith("verified " + argv[0]), (argv, value, err)


@pytest.mark.parametrize("path, option, values", OPTIONS,
                         ids=[" ".join(p) + " " + o for p, o, _ in OPTIONS])
def test_absurd_values_are_validated_never_an_internal_error(path, option, values, capsys,
                                                            tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in MACHINE_FILES.items():
        (tmp_path / name).write_text(text)
    for base in BASES[path]:
        if path == ("vectors",):
            base = base + ["--out", str(tmp_path / "out")]
        for value in values:
            argv = list(path) + _with(base, option, value)
            try:
                status = cli.main(argv)
            except SystemExit as e:  # argparse's own usage errors
                status = e.code
            out, err = capsys.readouterr()
            assert "internal error" not in err + out, (argv, err)
            assert "Traceback" not in err + out, (argv, err)
            assert status in (0, 1, 2), (argv, status, err)
            if status == 2 and err and not err.startswith("conform:"):
                first = err.splitlines()[0]
                assert first.startswith("verified " + path[0]) or first.startswith(
                    "usage:") or first.startswith("conform:"), (argv, err)


#: options tried without a base's option they clash with (--max-moves is
#: exhaustive's: with --random it would be a usage error before the value)
CLASHES = {"--random": ("--max-moves",)}


def _with(base: list[str], option: str, value: str) -> list[str]:
    """``base`` with ``option`` set to ``value`` (replacing it if present)."""
    # before a "--" (conform cluster's CONFORM-ARGS follow it)
    cut = base.index("--") if "--" in base else len(base)
    base, rest = base[:cut], base[cut:]
    out, skip = [], False
    for i, b in enumerate(base):
        if skip:
            skip = False
            continue
        if b == option or (option == "--registers" and b == "-n") or \
                b in CLASHES.get(option, ()):
            skip = True
            continue
        out.append(b)
    return out + [f"{option}={value}"] + rest
