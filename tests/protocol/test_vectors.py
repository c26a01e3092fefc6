"""`verified vectors`: deterministic files whose every line the oracle
vouches for, a README naming the format, and a C test suite (the C client's
--vectors mode) that checks itself from them with no Python at run time."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from verified import cases
from verified.algorithms.optimum import optimum
from verified.core.oracle import implements
from verified.core.semantics import ParallelMove, execute, sequence, value_of

from tests.support import verified


def _write(out, *args):
    proc = verified("vectors", "--out", str(out), *args)
    assert proc.returncode == 0, proc.stderr
    return proc


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.parametrize("model, preserve", [("swap", "all"), ("temp", "all"),
                                             ("permi", "loops"), ("permi", "all")])
def test_every_vector_is_right(tmp_path, model, preserve):
    _write(tmp_path, "--model", model, "--registers", "5", "--exhaustive-max", "3",
           "--random", "150", "--preserve", preserve)
    manifest = json.loads((tmp_path / "MANIFEST.json").read_text())
    assert [f["file"] for f in manifest["files"]] == [f"{model}-n{n}.jsonl" for n in range(1, 6)]
    seen = 0
    for f in manifest["files"]:
        path = tmp_path / f["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == f["sha256"]
        vecs = _lines(path)
        n = f["registers"]
        assert len(vecs) == f["vectors"] == ((n + 1) ** n if n <= 3 else 150)
        assert len({v["id"] for v in vecs}) == len(vecs)
        for v in vecs:
            req = v["request"]
            assert req["registers"] == n and req["model"] == model
            pm = ParallelMove.make(req["moves"], n, req["temps"])
            assert v["optimal"] == optimum(pm, model, preserve).length
            ops = sequence(v["reference"])
            assert implements(pm, ops, model, preserve).ok
            assert len(ops) == v["optimal"]
            # "expected" says the same as the oracle: run the reference
            state = execute(ops)
            for r, want in enumerate(v["expected"]):
                if want is not None:
                    assert value_of(state, r) == want
                else:
                    assert preserve == "loops" and r not in pm.source_of
            seen += 1
    assert seen > 300
    readme = (tmp_path / "README.md").read_text()
    for word in ("`request`", "`expected`", "`optimal`", "`reference`", "verified-vectors/1"):
        assert word in readme


def test_deterministic_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        _write(d, "--model", "swap", "--registers", "6", "--exhaustive-max", "4",
               "--random", "100", "--seed", "7")
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes()
    c = tmp_path / "c"
    _write(c, "--model", "swap", "--registers", "6", "--exhaustive-max", "4",
           "--random", "100", "--seed", "8")
    assert (a / "swap-n6.jsonl").read_bytes() != (c / "swap-n6.jsonl").read_bytes()
    assert (a / "swap-n4.jsonl").read_bytes() == (c / "swap-n4.jsonl").read_bytes()


def test_exhaustive_files_hold_every_move(tmp_path):
    _write(tmp_path, "--model", "swap", "--registers", "4", "--exhaustive-max", "4")
    got = {tuple(map(tuple, v["request"]["moves"]))
           for v in _lines(tmp_path / "swap-n4.jsonl")}
    assert got == {c.moves for c in cases.exhaustive_cases(4, smallest=4)}


def test_unsolvable_vectors_without_a_temporary(tmp_path):
    _write(tmp_path, "--model", "temp", "--temps", "--registers", "2")
    vecs = _lines(tmp_path / "temp-n2.jsonl")
    bad = [v for v in vecs if v["optimal"] is None]
    assert [v["request"]["moves"] for v in bad] == [[[0, 1], [1, 0]]]
    assert bad[0]["solvable"] is False and bad[0]["reference"] is None


@pytest.mark.parametrize("args", [["--registers", "0"], ["--registers", "3", "--temps", "2"],
                                  ["--registers", "3", "--exhaustive-max", "7"]])
def test_bad_use(tmp_path, args):
    proc = verified("vectors", "--model", "swap", "--out", str(tmp_path / "x"), *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("model", ["swap", "permi", "temp"])
def test_c_test_suite_checks_itself_from_vectors(tmp_path, c_client, c_client_broken, model):
    """No Python at run time: the C client reads the files, runs its own
    shuffler, executes the result on an int array and compares it with
    "expected" (and with "optimal" where it claims optimality)."""
    good, bad = c_client, c_client_broken
    _write(tmp_path / "v", "--model", model, "--registers", "7", "--exhaustive-max", "4",
           "--random", "300")
    files = sorted(str(p) for p in (tmp_path / "v").glob("*.jsonl"))
    ok = subprocess.run([str(good), "--vectors", *files], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    total = sum(f["vectors"] for f in json.loads((tmp_path / "v" / "MANIFEST.json").read_text())["files"])
    assert ok.stdout.strip() == f"vectors: {total} checked, 0 wrong, 0 not optimal"
    caught = subprocess.run([str(bad), "--vectors", *files], capture_output=True, text=True)
    assert caught.returncode == 1 and "WRONG" in caught.stderr


def test_temp_loops_without_temporaries_every_optimal_has_its_reference(tmp_path):
    """Issue 14 item 8: under "loops" with no temporary, mincopy used to
    refuse the moves that need a dead register as scratch, and vectors wrote
    204 of these 8,476 with an optimal but "reference": null.  Now an optimal
    always comes with a checked reference, and only the moves with no
    sequence (a bare cycle through every register) are unsolvable."""
    _write(tmp_path, "--model", "temp", "--temps", "--preserve", "loops", "--registers", "5")
    total = unsolvable = 0
    for n in range(1, 6):
        for v in _lines(tmp_path / f"temp-n{n}.jsonl"):
            total += 1
            pm = ParallelMove.make(v["request"]["moves"], n, [])
            if v["optimal"] is None:
                unsolvable += 1
                assert v["solvable"] is False and v["reference"] is None
                assert optimum(pm, "temp", "loops").note.startswith("no sequence exists")
                # no register is free: every one is a destination
                assert len(pm.source_of) == n
                continue
            assert "solvable" not in v
            ops = sequence(v["reference"])
            assert implements(pm, ops, "temp", "loops").ok and len(ops) == v["optimal"]
    assert (total, unsolvable) == (8476, 148)


def test_mincopy_conforms_under_loops_without_a_temporary():
    proc = verified("conform", "--cmd", f"{_python()} -m verified.cli solve -a mincopy",
                    "--model", "temp", "--preserve", "loops", "--temps", "--registers", "4",
                    "--optimal", "--json", "--progress", "never")
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report
    assert report["failures"] == 0 and report["run"] == cases.exhaustive_count(4)
    assert [(b["gap"], b["count"]) for b in report["gap_to_optimum"]] == [
        (0, report["run"] - report["refused_unsolvable"])]


def _python() -> str:
    import shlex
    import sys
    return shlex.quote(sys.executable)


def test_vectors_never_writes_an_optimal_it_cannot_vouch_for(tmp_path, monkeypatch, capsys):
    """The guard is shown to fail: a reference that refuses a solvable move,
    and one that is wrong, each stop the run (exit 1, one line) and leave
    no file behind."""
    import argparse

    from verified.core.semantics import Mov, PreconditionError
    from verified.tools import vectors as V

    def refuses(*_a, **_k):
        raise PreconditionError("planted refusal")

    def wrong(name, pm, model, preserve):
        return [Mov(d, s) for d, s in pm.non_loop_moves]  # no temporary, in move order

    args = argparse.Namespace(model="temp", registers=3, out=str(tmp_path / "v"), temps=None,
                              preserve="all", exhaustive_max=3, random=0, seed=0)
    for planted, first in ((refuses, "verified vectors: internal error: temp-n1-000000: "
                            "the reference mincopy refused (), whose optimum is 0"),
                           (wrong, "verified vectors: internal error: temp-n2-000007: the "
                            "reference mincopy on (r0 <- r1, r1 <- r0): destination r1 must "
                            "hold the original value of r0 but holds that of r1")):
        monkeypatch.setattr(V, "solve", planted)
        assert V.run(args) == 1
        err = capsys.readouterr().err
        assert err.startswith(first + ";"), err
        assert not [p for p in (tmp_path / "v").iterdir() if p.name.endswith(".jsonl")
                    and p.name != "temp-n1.jsonl"]
        assert not list((tmp_path / "v").glob("*.partial"))


def test_regenerating_removes_the_files_the_manifest_no_longer_lists(tmp_path):
    _write(tmp_path, "--model", "swap", "--registers", "4", "--exhaustive-max", "3",
           "--random", "5")
    (tmp_path / "notes.txt").write_text("mine\n")
    proc = _write(tmp_path, "--model", "swap", "--registers", "2")
    assert proc.stdout.strip().endswith(
        "; removed 2 stale file(s) the manifest no longer lists: swap-n3.jsonl, swap-n4.jsonl")
    manifest = json.loads((tmp_path / "MANIFEST.json").read_text())
    listed = {f["file"] for f in manifest["files"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        listed | {"MANIFEST.json", "README.md", "notes.txt"})  # not ours: kept
    proc = _write(tmp_path, "--model", "temp", "--registers", "1")
    assert proc.stdout.strip().endswith(
        "removed 2 stale file(s) the manifest no longer lists: swap-n1.jsonl, swap-n2.jsonl")
    proc = _write(tmp_path, "--model", "temp", "--registers", "1")
    assert "removed" not in proc.stdout
