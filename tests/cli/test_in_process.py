"""tests/support.py runs the commands of ``IN_PROCESS`` through
``verified.cli.main`` in the pytest process (``run_in_process``) instead of
a fresh interpreter: here both ways are run on a sample of command lines of
every such command (answers, verdicts, usage errors, unreadable paths,
help), and must give the same exit status and the same stdout and stderr
bytes."""

from __future__ import annotations

import json

import pytest

from tests.support import IN_PROCESS, ROOT, run_in_process, verified

TAPE = ROOT / "tests" / "data" / "ssra-bench-6362.tape"

GOOD = json.dumps({"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]]})
WRONG = json.dumps({"moves": [[1, 0], [2, 1]], "model": "temp",
                    "sequence": [["mov", 1, 0], ["mov", 2, 1]]})
MACHINE = json.dumps({"machine": "x86-64", "moves": [["rcx", "rax", "i64"]],
                      "sequence": [["mov", "rcx", "rax", "i64"]]})

#: JSON nested this deep is read by a fresh ``verified check``; one level
#: more is "nested too deeply" (the limit counts the frames above the
#: reader: in process, main runs in a thread of its own)
DEEPEST = 986


def nested(depth: int) -> str:
    return '{"moves": ' + "[" * depth + "]" * depth + "}\n"


#: (argv, stdin: text, or bytes where they are not UTF-8)
SAMPLE = [
    (["check"], f"{GOOD}\n{WRONG}\n"),
    (["check"], f"{MACHINE}\nnot json\n\u00e9\n".encode() + b"\xff\xfe\n"),
    (["check"], ""),
    (["check"], nested(DEEPEST) + nested(DEEPEST + 1)),
    (["check", "/no/such/file"], ""),
    (["check", str(ROOT / "tests")], ""),
    (["check", "/no/such/\udcff"], ""),  # a path not UTF-8: backslashreplace on stderr
    (["check", "--bogus"], ""),
    (["check", "--help"], ""),
    (["solve", "-a", "shuf"], '{"moves": [[1, 0], [2, 1], [0, 2]], "model": "swap"}\n'),
    (["solve", "-a", "resolve"], '{"machine": "aarch64", "moves": [["x1", "x0", "i64"]]}\n'),
    (["solve", "-a", "nope"], ""),
    (["explain", "--request", WRONG], ""),
    (["explain", "--request", "{"], ""),
    (["explain", "--request", "\udcff"], ""),
    (["explain"], GOOD),
    (["vectors", "--model", "swap", "-n", "-3"], ""),
    (["ssra", "alloc", str(TAPE), "--registers", "4"], ""),
    (["ssra", "alloc", "-", "--registers", "2", "--json"], "$0 = A()\n$1 = B($0)\n"),
    (["ssra", "alloc", "-", "--registers", "1"], "$0 = A()\n$1 = B($0, $0, $0)\n"),
    (["ssra", "alloc", "-", "--registers", "2"], "$0 = A(\n"),
    (["ssra", "check", str(TAPE), "/no/such/program", "--registers", "4"], ""),
    (["ssra", "check", str(TAPE), str(TAPE), "--registers", "4"], ""),  # not a program
    (["machines"], ""),
    (["machines", "show", "riscv64"], ""),
    (["machines", "show", "nope"], ""),
    (["schema"], ""),
    (["schema", "request"], ""),
    ([], ""),
    (["--help"], ""),
    # conform's usage errors (tests/support.py ``usage_error``): argparse's,
    # its own checks', a bad machine file's
    (["conform", "--bogus"], ""),
    (["conform", "--cmd", "true", "--machine", "x86"], ""),
    (["conform", "--cmd", "true", "--model", "swap", "--max-moves", "2"], ""),
    (["conform", "--cmd", "true", "--machine", str(ROOT / "README.md")], ""),
]


def test_the_sample_covers_every_in_process_command_and_status():
    assert {argv[0] for argv, _ in SAMPLE if argv} & IN_PROCESS == IN_PROCESS
    assert sorted({run_in_process(*a, input=i if isinstance(i, bytes) else i.encode()).returncode
                   for a, i in SAMPLE}) == [0, 1, 2]


@pytest.mark.parametrize("argv, stdin", SAMPLE, ids=lambda v: " ".join(v)[:40]
                         if isinstance(v, list) else None)
def test_in_process_gives_the_bytes_and_status_of_a_process(argv, stdin):
    data = stdin if isinstance(stdin, bytes) else stdin.encode()
    mine = run_in_process(*argv, input=data, text=False)
    real = verified(*argv, input=data, text=False, process=True)
    assert (mine.returncode, mine.stdout, mine.stderr) == (
        real.returncode, real.stdout, real.stderr)
    # every line of the sample says something, but empty input to check
    assert mine.stdout or mine.stderr or (argv, stdin) == (["check"], "")


def test_a_conform_past_its_usage_checks_stops_in_process_judging_nothing():
    """``usage_error=True`` on a conform that is not a usage error: no run
    in the pytest process, one internal-error line a pinned message cannot
    match (tests/support.py ``verified``)."""
    p = verified("conform", "--cmd", "true", "--machine", "x86-64", "--max-moves", "1",
                 usage_error=True)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("verified conform: internal error: ValueError: signal only works in "
                        "main thread of the main interpreter (nothing was judged; please "
                        "report this, VERIFIED_TRACEBACK=1 shows where)\n")


def test_what_escapes_main_is_reported_as_the_interpreter_does(monkeypatch):
    from verified import cli

    def boom(argv):
        raise RuntimeError("planted")

    monkeypatch.setattr(cli, "main", boom)
    p = run_in_process("check")
    assert p.returncode == 1
    assert p.stderr.startswith("Traceback (most recent call last):\n")
    assert p.stderr.endswith("RuntimeError: planted\n")
    monkeypatch.setattr(cli, "main", lambda argv: "a message")
    assert run_in_process("check").returncode == 1
    assert run_in_process("check").stderr == "a message\n"
    monkeypatch.setattr(cli, "main", lambda argv: 258)
    assert run_in_process("check").returncode == 2
