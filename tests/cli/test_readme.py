"""Every shell command in README.md's fenced blocks is run, in README order,
in a scratch directory (with the repository's ``tests/data`` beside it),
and its exit status and output are checked: a transcript (``$ cmd`` then
its output) must print exactly that output; any other command must exit 0
and pass the check listed for it below.

Skipped, and only these (``SKIPPED``, each with why): the ones that need
the network or a user's program, and the ``make`` targets, which run this
test suite itself.  A README command that is neither run nor listed, or a
listed one that the README no longer has, fails the test, so the list
cannot drift."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

NETWORK = "needs the network (pip install from git)"
USERS_PROGRAM = "needs the user's own shuffler (./build/shuffle-json)"
RECURSIVE = "runs this test suite itself (and `make verify` is not for a shared machine)"

SKIPPED = {
    "make verify": RECURSIVE,
    "make test": RECURSIVE,
    'python3 -m venv .oracle && .oracle/bin/pip install -q "verified-parmove @ git+$VERIFIED_GIT_URL"':
        NETWORK,
    "make my-shuffler": USERS_PROGRAM,
    '.oracle/bin/verified conform --cmd "./build/shuffle-json" --model swap --registers 6 '
    "--exhaustive --optimal": USERS_PROGRAM,
    '.oracle/bin/verified conform --cmd "./build/shuffle-json" --model swap --registers 16 '
    '--shapes --order shuffled --seed "${CI_BUILD_ID:-0}"': USERS_PROGRAM,
    '.oracle/bin/verified conform --cmd "./build/shuffle-json" --model swap --registers 16 '
    '--random 100000 --seed "${CI_BUILD_ID:-0}"': USERS_PROGRAM,
    '.oracle/bin/verified conform --cmd "./build/shuffle-json --temp-mode" --model temp '
    "--temps t --registers 6": USERS_PROGRAM,
}

#: the sequence of the README's wrong example: its transcripts exit 1
WRONG_EXAMPLE = '[["mov",1,0],["mov",2,1]]'

#: fenced blocks that show data, not commands (identified by their first line)
ILLUSTRATIONS = ("request:  ",)

#: a plain (not ```sh) block holds commands when its lines start with these
COMMANDS = ("make ", "verified ")


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    return [(m.group(1), m.group(2).splitlines())
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def _strip_comment(line: str) -> str:
    """The command without its trailing ``# ...`` comment: a ``#`` that
    starts a word outside quotes, as the shell reads it."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].strip()
    return line.strip()


def readme_commands() -> list[tuple[str, str, list[str] | None]]:
    """(kind, command, expected output or None), in README order; kind is
    "transcript", "command" or "skip"."""
    out = []
    for lang, lines in _blocks(README.read_text()):
        body = [ln for ln in lines if ln.strip()]
        if not body:
            continue
        if any(ln.startswith("$ ") for ln in body):
            i = 0
            while i < len(body):
                assert body[i].startswith("$ "), f"output before any command: {body[i]!r}"
                cmd, i = body[i][2:], i + 1
                expected = []
                while i < len(body) and not body[i].startswith("$ "):
                    expected.append(body[i])
                    i += 1
                out.append(("transcript", cmd, expected))
            continue
        if lang != "sh":
            if body[0].startswith(ILLUSTRATIONS):
                continue
            assert all(ln.startswith(COMMANDS) for ln in body), (
                f"README block neither commands nor a listed illustration: {body[0]!r}")
        for ln in body:
            if ln.startswith("#"):
                continue  # the shebang and comment lines of a script
            cmd = _strip_comment(ln)
            out.append(("skip" if cmd in SKIPPED else "command", cmd, None))
    return out


def test_every_skip_is_still_in_the_readme():
    skipped = {cmd for kind, cmd, _ in readme_commands() if kind == "skip"}
    assert skipped == set(SKIPPED), set(SKIPPED) ^ skipped


def _extra_checks(cmd: str, cwd: Path, stdout: str) -> None:
    """What a command's README comment or surrounding text promises."""
    if cmd == "verified ssra alloc tests/data/ssra-bench-6362.tape --registers 8 --counts":
        counts = json.loads(stdout)
        # the README's table row for 8 registers
        assert (counts["loads"], counts["stores"], counts["highest_offset"]) == (1424, 1424, 118)
        row = re.search(r"^\| 8 \| (\d+) \| (\d+) \| (\d+) \|$", README.read_text(), re.M)
        assert tuple(map(int, row.groups())) == (1424, 1424, 118)
    if cmd.startswith("verified ssra alloc") and cmd.endswith("> prog.txt"):
        first = (cwd / "prog.txt").read_text().splitlines()[:3]
        assert first == ["r6 = INPUT0()", "STORE(r6, mem + 31)", "r6 = MUL_IMM(r6)"]
    if cmd.startswith("verified vectors"):
        out = cwd / "tests" / "vectors"
        names = sorted(p.name for p in out.iterdir())
        assert names == sorted(["README.md", "MANIFEST.json"]
                               + [f"swap-n{n}.jsonl" for n in range(1, 9)])


def test_readme_commands_run(tmp_path):
    # a `verified` on PATH that runs this checkout, whatever is installed
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "verified"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m verified.cli "$@"\n')
    shim.chmod(0o755)
    work = tmp_path / "work"
    (work / "tests").mkdir(parents=True)
    (work / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT)}
    ran = 0
    for kind, cmd, expected in readme_commands():
        if kind == "skip":
            continue
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                           capture_output=True, text=True, timeout=600)
        assert "Traceback" not in p.stderr, (cmd, p.stderr)
        if kind == "transcript":
            assert p.stdout.splitlines() == expected, (cmd, p.stdout, p.stderr)
            # the README's wrong example (the chain's movs in order) exits 1
            want = 1 if WRONG_EXAMPLE in cmd else 0
            assert p.returncode == want, (cmd, p.returncode, p.stderr)
        else:
            assert p.returncode == 0, (cmd, p.returncode, p.stderr)
            _extra_checks(cmd, work, p.stdout)
        ran += 1
    assert ran >= 9
