"""`make test`'s ``--dist loadgroup`` (tests/conftest.py ``SHARED_RUNS``):
the tests that assert on one shared conform run are one work unit of one
xdist worker.  Each prefix of the table names tests that exist (a renamed
test would silently leave its group), each group has two tests or more and
no test is in two groups; and a small suite run over 2 workers puts every
test of a group on one worker (over plain per-test scheduling the same
suite spreads them: the check fails with the scheduler hook removed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED_RUNS, shared_run

ROOT = Path(__file__).resolve().parent.parent


def _collected(files: list[str]) -> list[str]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", *files],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def test_every_group_names_tests_that_exist():
    files = sorted({p.split("::")[0] for ps in SHARED_RUNS.values() for p in ps})
    ids = _collected(files)
    for group, prefixes in SHARED_RUNS.items():
        for p in prefixes:
            assert any(i.startswith(p) for i in ids), (group, p)
        members = [i for i in ids if shared_run(i) == group]
        assert len(members) >= 2, (group, members)
    # one group a test: the first matching group is the only one
    for i in ids:
        assert sum(any(i.startswith(p) for p in ps) for ps in SHARED_RUNS.values()) <= 1, i


SUITE = '''
import json, os, pytest

@pytest.mark.parametrize("k", range(12))
def test_x(k):
    with open(os.environ["WHERE"], "a") as f:
        f.write(json.dumps([f"x{k % 2}", os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")
'''

CONFTEST = '''
import tests.conftest as c
c.SHARED_RUNS.clear()
c.SHARED_RUNS.update({"a": ("test_suite.py::test_x[0]", "test_suite.py::test_x[2]",
                            "test_suite.py::test_x[4]", "test_suite.py::test_x[6]",
                            "test_suite.py::test_x[8]", "test_suite.py::test_x[10]")})
'''


def test_a_group_runs_on_one_worker(tmp_path):
    """Twelve tests, the even ones a group; over 2 workers the group's six
    run on one worker."""
    (tmp_path / "test_suite.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    where = tmp_path / "where.jsonl"
    env = dict(os.environ, WHERE=str(where), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tests.conftest", "-n", "2", "--dist", "loadgroup",
                           "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    runs = [json.loads(line) for line in where.read_text().splitlines()]
    assert len(runs) == 12
    workers = {kind: {w for k, w in runs if k == kind} for kind in ("x0", "x1")}
    assert len(workers["x0"]) == 1, runs
