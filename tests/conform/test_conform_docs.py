"""The options of `verified conform` as the README and docs/conform.md list
them are generated from the parser (``cli.options_markdown``): this test
fails when either drifts, and ``python -m tests.conform.test_conform_docs``
rewrites both.  And docs/exit-codes.md's table of conform's exit classes:
every row is run and shows the status the table gives."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from verified.tools.conform.cli import options_markdown

from tests.support import py_cmd

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", ROOT / "docs" / "conform.md"]
BLOCK = re.compile(r"(<!-- conform-options:[^\n]*-->\n)(.*?)(<!-- /conform-options -->)", re.S)


def _block(path: Path) -> str:
    m = BLOCK.search(path.read_text())
    assert m, f"{path.name}: no <!-- conform-options --> block"
    return m.group(2)


def test_options_tables_are_the_parsers():
    want = options_markdown()
    for path in FILES:
        assert _block(path) == want, f"{path.name}: run python -m tests.conform.test_conform_docs"


def test_every_option_is_in_the_table():
    import argparse
    from verified.tools.conform.cli import add_arguments
    p = argparse.ArgumentParser()
    add_arguments(p)
    table = options_markdown()
    for a in p._actions:
        for o in a.option_strings:
            if o not in ("-h", "--help"):
                assert f"`{o}" in table, o
    for o in ("--optimal", "--seed", "--no-shrink", "--progress", "--shapes", "--order",
              "--relabel", "--allow-refusals", "--allocator"):
        assert f"`{o}" in table


def main() -> None:
    for path in FILES:
        text = path.read_text()
        path.write_text(BLOCK.sub(lambda m: m.group(1) + options_markdown() + m.group(3), text))


if __name__ == "__main__":
    sys.exit(main())


# ---------------------------------------------------------------------------
# docs/exit-codes.md: conform's exit classes, each run
# ---------------------------------------------------------------------------

EXIT_CODES_MD = ROOT / "docs" / "exit-codes.md"
CLASSES = re.compile(r"<!-- conform exit classes: begin -->\n(.*?)<!-- conform exit classes: end -->",
                     re.S)


def documented_classes() -> dict[str, int]:
    """docs/exit-codes.md's conform table: what happened -> status."""
    rows = CLASSES.search(EXIT_CODES_MD.read_text()).group(1).strip().splitlines()[2:]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return {what: int(status) for what, status, _ in cells}


def _client(body: str, after: str = "") -> str:
    """A --cmd: a Python client, ``body`` run per request line ``r`` (parsed),
    with ``i`` its index and ``ok(r)`` our correct answer; ``after`` once
    its input has ended."""
    import textwrap
    return py_cmd(
        "import json, os, signal, sys\n"
        "from verified.algorithms import solve\n"
        "from verified.core.semantics import ParallelMove\n"
        "def ok(r):\n"
        "    pm = ParallelMove.make(r['moves'], r['registers'], r['temps'])\n"
        "    return json.dumps({'sequence': [o.to_json() for o in solve('shuf', pm)]})\n"
        "def say(s): print(s, flush=True)\n"
        "for i, line in enumerate(sys.stdin):\n"
        "    r = json.loads(line)\n" + textwrap.indent(body, "    ") + "\n" + after)


REFUSE = "say(json.dumps({'unsupported': 'needs a scratch register'}))"
SWAP2 = ("--model", "swap", "--registers", "2", "--timeout", "2")

#: each documented class -> the conform arguments that produce it (one run
#: each); ``{good}``/``{bad}`` are the C client and its broken build
CLASS_RUNS: dict[str, list[tuple[str, ...]]] = {
    "every answer right": [("--cmd", "{good}", *SWAP2)],
    "a wrong sequence": [("--cmd", "{bad}", "--model", "swap", "--registers", "3")],
    "a wrong sequence, and also `--allow-refusals` or a protocol break": [
        ("--cmd", "{bad}", "--model", "swap", "--registers", "3", "--allow-refusals"),
        ("--cmd", _client("say('{\"sequence\": []}')\nif i == 6: sys.exit(0)"), *SWAP2,
         "--no-shrink")],
    "a solvable case declined (`{\"unsupported\": ...}` or `{\"error\": ...}`)": [
        ("--cmd", _client(REFUSE), *SWAP2),
        ("--cmd", _client("say(json.dumps({'error': 'no'}))"), *SWAP2)],
    "the program's own failure (`{\"failure\": ...}`), with or without `--allow-refusals`": [
        ("--cmd", _client("say(json.dumps({'failure': 'V8 crash'}) if i == 5 else ok(r))"),
         *SWAP2),
        ("--cmd", _client("say(json.dumps({'failure': 'V8 crash'}) if i == 5 else ok(r))"),
         *SWAP2, "--allow-refusals")],
    "a solvable case declined, with `--allow-refusals`": [
        ("--cmd", _client(REFUSE), *SWAP2, "--allow-refusals")],
    "only unsolvable cases declined (temp model, a bare cycle, no temporary)": [
        ("--cmd", py_cmd("import sys; from verified.cli import main; "
                         "sys.exit(main(['solve', '--algorithm', 'mincopy']))"),
         "--model", "temp", "--temps", "--registers", "2")],
    "every request answered, then a non-zero exit status": [
        ("--cmd", _client("say(ok(r))", after="sys.exit(3)"), *SWAP2)],
    "the program cannot be started": [("--cmd", "/nonexistent/program", *SWAP2)],
    "no answer within `--timeout`": [
        ("--cmd", _client("import time; time.sleep(60)"), "--model", "swap",
         "--registers", "2", "--timeout", "0.5")],
    "the program is killed by a signal or exits non-zero mid-run": [
        ("--cmd", _client("os.kill(os.getpid(), signal.SIGSEGV)"), *SWAP2),
        ("--cmd", _client("say(ok(r))\nif i == 3: sys.exit(4)"), *SWAP2)],
    "the program exits (or closes its output) before answering everything": [
        ("--cmd", _client("say(ok(r))\nif i == 3: sys.exit(0)"), *SWAP2),
        ("--cmd", "true", *SWAP2)],
    "a line that is not an answer (an unknown field, or two answer fields such as "
    "`\"sequence\"` and `\"unsupported\"`, included)": [
        ("--cmd", _client("say('hello')"), *SWAP2),
        ("--cmd", _client("say('{\"sequence\": [], \"unsupported\": \"x\"}')"), *SWAP2),
        ("--cmd", _client("say('{\"sequence\": [], \"cost\": 0}')"), *SWAP2)],
    "one answer line skipped": [
        ("--cmd", _client("if i != 4: say(ok(r))"), "--model", "swap", "--registers", "3")],
    "one answer line printed twice, or more answer lines than requests": [
        ("--cmd", _client("say(ok(r))\nif i == 4: say(ok(r))"), "--model", "swap",
         "--registers", "3"),
        ("--cmd", _client("say(ok(r))", after="say(ok(r))"), *SWAP2)],
    "bad use: `--random 0`, `--timeout` not a finite number > 0, `--jobs` outside 1..256, "
    "`--registers` outside 1..1048576, `--relabel` without `--shapes`, an empty `--seed` "
    "or `--cmd`, no `--model`, `--max-classes` outside 1..100": [
        ("--cmd", "cat", "--model", "swap", "--max-classes", "0"),
        ("--cmd", "cat", "--model", "swap", "--max-classes", "101"),
        ("--cmd", "cat", "--model", "swap", "--random", "0"),
        ("--cmd", "cat", "--model", "swap", "--timeout", "nan"),
        ("--cmd", "cat", "--model", "swap", "--timeout", "0"),
        ("--cmd", "cat", "--model", "swap", "--timeout", "-1"),
        ("--cmd", "cat", "--model", "swap", "--jobs", "0"),
        ("--cmd", "cat", "--model", "swap", "--jobs", "-3"),
        ("--cmd", "cat", "--model", "swap", "--registers", "0"),
        ("--cmd", "cat", "--model", "swap", "--registers", "1048577"),
        ("--cmd", "cat", "--model", "swap", "--relabel", "2"),
        ("--cmd", "cat", "--model", "swap", "--seed", ""),
        ("--cmd", "", "--model", "swap"),
        ("--cmd", "cat")],
}

#: kinds of protocol break the report must name, per class
BREAK_KIND = {
    "the program cannot be started": {"cannot start"},
    "no answer within `--timeout`": {"timeout"},
    "the program is killed by a signal or exits non-zero mid-run": {"crash"},
    "the program exits (or closes its output) before answering everything": {"exited early"},
    "a line that is not an answer (an unknown field, or two answer fields such as "
    "`\"sequence\"` and `\"unsupported\"`, included)": {"garbage"},
    "one answer line skipped": {"skipped an answer"},
    "one answer line printed twice, or more answer lines than requests":
        {"repeated an answer", "extra output"},
}

SIGNAL_CLASSES = {"conform receives SIGTERM": "SIGTERM", "conform receives SIGHUP": "SIGHUP",
                  "conform receives SIGINT (Ctrl-C)": "SIGINT"}


def test_every_documented_conform_class_is_run_and_every_run_documented():
    assert set(documented_classes()) == set(CLASS_RUNS) | set(SIGNAL_CLASSES)


@pytest.mark.parametrize("what", sorted(CLASS_RUNS))
def test_conform_exit_class_has_its_documented_status(what, c_client, c_client_broken, cli):
    want = documented_classes()[what]
    for args in CLASS_RUNS[what]:
        argv = [a.replace("{good}", str(c_client)).replace("{bad}", str(c_client_broken))
                for a in args]
        proc = cli("conform", *argv, "--json", "--progress", "never", timeout=120)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode == want, (argv, proc.stdout, proc.stderr)
        if want == 2 and not proc.stdout:  # bad use: one line, nothing run
            assert len(proc.stderr.splitlines()) == 1
            assert proc.stderr.startswith("verified conform: error: ")
            continue
        report = json.loads(proc.stdout)
        assert report["exit"] == want
        if what in BREAK_KIND:
            assert report["broken"]["kind"] in BREAK_KIND[what], report["broken"]
        if what.startswith("every request answered, then"):
            assert report["notes"] == ["the program exited with status 3 after answering "
                                       "every request"]


@pytest.mark.parametrize("what", sorted(SIGNAL_CLASSES))
def test_conform_signal_class_has_its_documented_status(what):
    """The status a shell sees (128 + the signal's number) when conform is
    stopped by the signal while the program under test is running."""
    import signal
    import subprocess
    import time

    sig = signal.Signals[SIGNAL_CLASSES[what]]
    proc = subprocess.Popen([sys.executable, "-m", "verified.cli", "conform", "--cmd",
                             "sleep 600", "--model", "swap", "--registers", "2",
                             "--timeout", "300", "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not subprocess.run(
            ["pgrep", "-P", str(proc.pid), "-x", "sleep"], capture_output=True).stdout:
        time.sleep(0.05)
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    status = 128 - proc.returncode if proc.returncode < 0 else proc.returncode
    assert status == documented_classes()[what]
