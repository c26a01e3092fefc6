"""`verified vectors --machine PRESET`: machine vectors (id, comment,
flags, request, expected, result, optimal, reference).  Every vector's
request is one `verified check` accepts; every reference is a sequence the
oracle accepts; `expected` is the oracle's own expectation; "invalid"
exactly where our resolver finds no sequence; same command, same bytes;
bad use exits 2."""

from __future__ import annotations

import hashlib
import json

import pytest

from verified.cases import machines as G
from verified.core import machine as M

from tests.support import verified


def write(tmp_path, *args: str):
    out = tmp_path / "v"
    proc = verified("vectors", "--out", str(out), *args)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


@pytest.mark.parametrize("name, small", [("x86-64", 57), ("aarch64", 57), ("riscv64", 63),
                                         ("armv7-vfp", 159)])
def test_every_machine_vector_is_right(tmp_path, name, small):
    out, said = write(tmp_path, "--machine", name, "--max-moves", "1", "--random", "15")
    assert said.startswith(f"wrote {small + 15:,} vectors in 2 files")
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert [f["file"] for f in manifest["files"]] == [f"{name}-small.jsonl",
                                                       f"{name}-random.jsonl"]
    lines, checks = [], []
    for f in manifest["files"]:
        data = (out / f["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f["sha256"]
        vecs = [json.loads(x) for x in data.decode().splitlines()]
        assert len(vecs) == f["vectors"]
        for v in vecs:
            assert v["id"].startswith(f["file"][:-len(".jsonl")] + "-")
            req = v["request"]
            # one request shape: the machine as an object in both files
            # (the small machine, or the whole preset expanded)
            want = (M.preset(name).to_json() if f["file"].endswith("-random.jsonl")
                    else G.small_machine(M.preset(name))[0].to_json())
            assert req["machine"] == want
            mm = M.parse_machine_request(req, need_sequence=False).move
            assert v["expected"] == mm.expected()
            assert v["result"] in ("valid", "invalid")
            assert (v["reference"] is None) == (v["result"] == "invalid")
            if v["reference"] is not None:
                checks.append(json.dumps(dict(req, sequence=v["reference"])))
            lines.append(v)
    proc = verified("check", input=("\n".join(checks) + "\n").encode())
    assert proc.returncode == 0
    assert all(json.loads(a)["ok"] for a in proc.stdout.splitlines())
    assert len(proc.stdout.splitlines()) == len(checks)
    assert {x for v in lines for x in v["flags"]} >= {"cycle", "slot-to-slot", "immediate",
                                                      "pair", "self-move", "empty"}


def test_flags_and_comments_golden(tmp_path):
    out, _ = write(tmp_path, "--machine", "armv7-vfp", "--max-moves", "2", "--random", "0")
    vecs = {v["comment"]: v for v in map(json.loads, (out / "armv7-vfp-small.jsonl")
                                         .read_text().splitlines())}
    assert vecs["(d0 <- d16, d16 <- d0)"]["flags"] == ["cycle"]
    assert vecs["(s0 <- s1, s1 <- s0)"]["flags"] == ["cycle"]
    assert vecs["(s0 <- r0, d16 <- d0)"]["flags"] == ["alias", "cross-class"]
    assert vecs["(m0 <- m1, m1 <- m0)"]["flags"] == ["cycle", "slot-to-slot"]
    assert vecs["([r1, r2] <- [r0, r1])"]["flags"] == ["pair", "alias"]
    assert vecs["(r0 <- #7, r1 <- r0)"]["flags"] == ["immediate"]
    assert vecs["(s0 <- #7)"]["result"] == "valid"  # through a gpr and VMOV
    # no 64-bit register takes an immediate, but the stack does: its pieces
    # pushed from a core register, popped into d0 (it was "invalid" before
    # the resolver used push/pop: a solvable request called unsolvable)
    assert vecs["(d0 <- #7)"]["result"] == "valid"
    assert [op[0] for op in vecs["(d0 <- #7)"]["reference"]] == [
        "mov", "push", "mov", "push", "pop"]


def test_same_command_same_bytes(tmp_path):
    a, _ = write(tmp_path / "a", "--machine", "riscv64", "--max-moves", "1", "--random", "10")
    b, _ = write(tmp_path / "b", "--machine", "riscv64", "--max-moves", "1", "--random", "10")
    for name in ("MANIFEST.json", "README.md", "riscv64-small.jsonl", "riscv64-random.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


@pytest.mark.parametrize("args, message", [
    (["--machine", "x86"], "--machine x86: not a preset (x86-64, aarch64, riscv64, "
     "armv7-vfp), a profile (v8-x64, v8-arm, v8-arm-d16, qbe-amd64, qbe-arm64, qbe-rv64, "
     "cranelift-x64, cranelift-aarch64) nor a .json file of a machine object "
     "(docs/machines.md); `verified machines` lists the presets and profiles"),
    (["--machine", "x86-64", "--seed", " "], '--seed is empty (an unset CI variable?); give '
     'a number or any text, e.g. --seed "${CI_BUILD_ID:-0}"'),
    (["--machine", "x86-64", "--max-moves", "4"], "--max-moves must be a whole number in "
     "0..3, not 4"),
    (["--machine", "x86-64", "--model", "swap"], "--model does not go with --machine (the "
     "machine names its registers; temps are one scratch per class)"),
    (["--model", "swap"], "--model and --registers are required (or --machine PRESET)"),
    (["--model", "swap", "-n", "2", "--seed", ""], '--seed is empty (an unset CI '
     'variable?); give a number or any text, e.g. --seed "${CI_BUILD_ID:-0}"'),
])
def test_bad_machine_vector_use(tmp_path, args, message):
    proc = verified("vectors", "--out", str(tmp_path / "x"), *args)
    assert proc.returncode == 2
    assert proc.stderr == f"verified vectors: error: {message}\n"


def test_a_wrong_or_missing_reference_is_never_written(tmp_path, monkeypatch, capsys):
    """The guard is shown to fail: a reference the oracle rejects stops the
    run (exit 1, one line) and leaves no vector file behind."""
    import argparse

    from verified.tools import vectors as V
    from verified.tools.conform.machines import MachineType

    monkeypatch.setattr(MachineType, "reference",
                        lambda self, case: ([], "planted: an empty sequence"))
    args = argparse.Namespace(machine="riscv64", model=None, registers=None, temps=None,
                              out=str(tmp_path / "v"), max_moves=1, random=0, seed=0)
    assert V.run(args) == 1
    err = capsys.readouterr().err
    assert err == ("verified vectors: internal error: riscv64-small-000001: the reference "
                   "is wrong: destination m1 (unit m1) must hold the original value of ra "
                   "but holds that of m1; this file was not written (please report this)\n")
    assert not list((tmp_path / "v").glob("*.jsonl")) and not list(
        (tmp_path / "v").glob("*.partial"))


def test_machine_vectors_from_a_file_and_a_text_seed(tmp_path):
    """Issue 21: ``vectors --machine`` takes what ``conform --machine`` takes
    (a FILE.json of a machine object) and ``--seed`` any non-empty text; a
    file's requests carry its object (every field written out), its files
    are named after its stem."""
    obj = {"name": "tiny", "classes": {"g": {"registers": ["a", "b", "c"]}},
           "stack": {"slots": 1}, "swap": ["reg-reg"]}
    (tmp_path / "my machine.json").write_text(json.dumps(obj))
    out, proc = write(tmp_path / "f", "--machine", str(tmp_path / "my machine.json"),
                      "--max-moves", "1", "--random", "4", "--seed", "build 7")
    assert sorted(p.name for p in out.iterdir()) == [
        "MANIFEST.json", "README.md", "my_machine-random.jsonl", "my_machine-small.jsonl"]
    lines = [json.loads(x) for x in (out / "my_machine-random.jsonl").read_text().splitlines()]
    # the file's object with every field written out (kits: a request names
    # its whole machine, defaults included), the same machine as the file's
    full = M.machine_from_json(obj).to_json()
    assert full != obj and all(full[k] == obj[k] for k in ("name", "swap"))
    assert len(lines) == 4 and all(v["request"]["machine"] == full for v in lines)
    assert all(M.machine_from_json(v["request"]["machine"]) == M.machine_from_json(obj)
               for v in lines)


@pytest.mark.parametrize("content, message", [
    ('{"classes": {}}', "the machine has no registers, so every parallel move on it is "
     "empty: no vector to write"),
    ('{"classes": {"g": {"registers": ["a"]}}, "classes": {}}',
     'the key "classes" appears twice in one object'),
])
def test_bad_machine_files(tmp_path, content, message):
    (tmp_path / "m.json").write_text(content)
    proc = verified("vectors", "--out", str(tmp_path / "x"), "--machine", str(tmp_path / "m.json"))
    assert proc.returncode == 2
    assert proc.stderr == f"verified vectors: error: --machine {tmp_path / 'm.json'}: {message}\n"
