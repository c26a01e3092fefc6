"""The compiled build (setup.py, ``make fast``, docs/fast.md) answers byte
for byte as the interpreted one: fast/agree.py's corpus through both.

The agreement runs only where the compiled build exists (``.venv-fast``);
the checks that the comparison can fail run everywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fast import agree
from verified.core import oracle

ROOT = Path(__file__).resolve().parents[1]
FAST = ROOT / ".venv-fast"
HERE = Path(sys.prefix)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fast.agree", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=3000)


@pytest.mark.skipif(not (FAST / "bin" / "verified").exists(),
                    reason="no compiled build here: `make fast` builds .venv-fast "
                           "(optional; needs a C compiler and the Python headers)")
@pytest.mark.skipif(not oracle.__file__.endswith(".py"),
                    reason="run from the interpreted build: it is side A of the comparison")
def test_the_compiled_build_agrees_byte_for_byte(tmp_path):
    stale = agree.stale_sources(FAST, tmp_path)
    if stale:
        pytest.skip(f".venv-fast was built from other source ({', '.join(stale[:3])} "
                    f"differ): `make fast` rebuilds it")
    p = _run("--quick", "--a", str(HERE), "--b", str(FAST))
    assert p.returncode == 0, p.stdout + p.stderr
    runs = int(re.search(r"compared ([\d,]+) runs", p.stdout).group(1).replace(",", ""))
    lines = int(re.search(r"([\d,]+) lines of output", p.stdout).group(1).replace(",", ""))
    assert runs >= 30 and lines >= 20_000, p.stdout
    assert "0 differences: the two builds agree byte for byte" in p.stdout


def test_an_interpreted_side_b_is_refused():
    """Two interpreted installs agreeing proves nothing: B must load every
    listed module from an extension module."""
    if not oracle.__file__.endswith(".py"):
        pytest.skip("run from the compiled build: side A is not interpreted")
    p = _run("--quick", "--a", str(HERE), "--b", str(HERE))
    assert p.returncode == 2
    assert "is not the compiled build" in p.stdout
    assert "verified.core.oracle" in p.stdout


def _output(stdout: bytes, status: int = 0) -> agree.Output:
    return agree.Output(status, stdout, b"")


def test_one_byte_or_the_exit_status_is_a_difference():
    run = agree.Run("check", ("check",))
    line = b'{"ok": true, "length": 1, "optimal": 1}\n'
    same, tally = agree.Tally(), agree.Tally()
    agree.compare(run, _output(line), _output(line), same)
    assert same.differences == [] and same.runs == 1 and same.lines == 1
    agree.compare(run, _output(line), _output(line.replace(b"1}", b"1 }")), tally)
    agree.compare(run, _output(line), _output(line, status=1), tally)
    files = agree.Output(0, b"", b"", (("a.jsonl", b"x\n"),))
    agree.compare(run, files, agree.Output(0, b"", b"", (("a.jsonl", b"y\n"),)), tally)
    assert [d.split(":")[1].strip() for d in tally.differences] == [
        "stdout differs, line 1", "exit status differs, line 1", "file a.jsonl differs, line 1"]


def test_only_the_wall_clock_fields_of_a_report_are_masked():
    report = {"run": 10, "correct": 10, "seconds": 0.5, "cases_per_second": 20}
    later = {**report, "seconds": 0.7, "cases_per_second": 14}
    wrong = {**report, "correct": 9}
    assert agree._mask(json.dumps(report).encode()) == agree._mask(json.dumps(later).encode())
    assert agree._mask(json.dumps(report).encode()) != agree._mask(json.dumps(wrong).encode())


def test_the_listed_modules_exist_and_are_the_hot_core():
    modules = agree.compiled_modules()
    assert {"verified.core.semantics", "verified.core.oracle"} <= set(modules)
    for m in modules:
        assert (ROOT / (m.replace(".", "/") + ".py")).is_file(), m


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # the flags setup.py gives mypyc; a cache of its own per run
    return subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent",
                           "--no-incremental", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def test_the_compiled_modules_type_check():
    """mypyc builds nothing mypy rejects: a type error in a listed module
    breaks `make fast` though the interpreted suite stays green (the compact
    reader's DenseState passed where ``State`` said dict did, unseen for a
    round).  So the interpreted suite type-checks them too."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        config = tomllib.load(f)
    modules = config["tool"]["verified"]["mypyc"]["modules"]
    # one pin: the test extra's mypy is the one the compiled build uses
    assert config["tool"]["verified"]["mypyc"]["mypy"] in \
        config["project"]["optional-dependencies"]["test"]
    p = _mypy(*modules)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith(f"Success: no issues found in {len(modules)} source files")


def test_the_type_check_fails_on_a_type_error(tmp_path):
    """The same flags reject a module whose annotation is broken (the
    check above can fail)."""
    (tmp_path / "broken.py").write_text("def f(state: dict) -> int:\n    return state\n")
    p = _mypy("broken.py", cwd=tmp_path)
    assert p.returncode == 1
    assert 'Incompatible return value type (got "dict[Any, Any]", expected "int")' in p.stdout
