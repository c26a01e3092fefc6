"""The shipped compiler profiles (``verified/data/profiles/``,
docs/machines.md "Compiler profiles"): each is its base preset with the
fields it sets, names only what the preset has, cites the upstream files
its facts come from, and is accepted wherever a preset's name is
(``verified machines``, ``check``/``solve`` requests, ``conform`` and
``vectors --machine``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verified.core import machine as M

ROOT = Path(__file__).resolve().parents[2]


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "verified.cli", *args], capture_output=True,
                          text=True, timeout=300, input=stdin, cwd=ROOT)


#: what each profile sets, pinned (the facts are the cited files')
FACTS = {
    "v8-x64": ("x86-64", ("rsp", "rbp", "r13", "r14"), ("r10", "xmm15"), ("reg", "mem"),
               ("reg", "mem"), ("i32", "i64", "f32", "f64", "v128")),
    "v8-arm": ("armv7-vfp", ("r10", "r11", "d13"), ("r12", "q7"), ("reg",), ("reg",),
               ("i32", "f32", "f64", "v128")),
    "v8-arm-d16": ("armv7-vfp", ("r10", "r11", "d13") + tuple(f"d{i}" for i in range(16, 32)),
                   ("r12", "d14"), ("reg",), ("reg",), ("i32", "f32", "f64")),
    "qbe-amd64": ("x86-64", ("rsp", "rbp"), ("xmm15",), (), (), ("i32", "i64", "f32", "f64")),
    "qbe-arm64": ("aarch64", ("x18", "x29"), ("x17", "v31"), (), (),
                  ("i32", "i64", "f32", "f64")),
    "qbe-rv64": ("riscv64", ("s0", "ra"), ("t6", "ft11"), (), (), ("i32", "i64", "f32", "f64")),
    "cranelift-x64": ("x86-64", ("rsp", "rbp"), ("m7", "mw3"), (), (),
                      ("i32", "i64", "f32", "f64", "v128")),
    "cranelift-aarch64": ("aarch64", ("x16", "x17", "x18", "x29", "x30"), ("m7", "mw3"), (),
                          (), ("i32", "i64", "f32", "f64", "v128")),
}


def test_the_profiles_are_the_files():
    shipped = sorted(p.stem for p in (ROOT / "verified/data/profiles").glob("*.json"))
    assert sorted(M.PROFILES) == shipped == sorted(FACTS)
    assert not set(M.PROFILES) & set(M.PRESETS)


@pytest.mark.parametrize("name", M.PROFILES)
def test_each_profile_is_its_preset_with_what_it_sets(name):
    prof = M.profile_json(name)
    assert set(prof) <= set(M.PROFILE_KEYS) and {"name", "base", "compiler", "files",
                                                  "source", "notes", "set"} <= set(prof)
    base, reserved, scratch, push, pop, types = FACTS[name]
    m = M.preset(name)
    assert prof["name"] == m.name == name and prof["base"] == base
    assert (m.reserved, m.scratch, m.push, m.pop) == (reserved, scratch, push, pop)
    assert tuple(t.name for t in m.types) == types
    # everything the profile does not set is the preset's, field by field
    shown, preset = m.to_json(), M.preset(base).to_json()
    for key in set(shown) - set(prof["set"]) - {"name", "source", "classes", "cost"}:
        assert shown[key] == preset[key], key
    assert M.preset(name).cost == M.preset(base).cost  # (push/pop costs shown only with them)
    for cls, entry in shown["classes"].items():
        refined = prof.get("classes", {}).get(cls, {})
        assert {k: v for k, v in entry.items() if k not in refined} == \
            {k: v for k, v in preset["classes"][cls].items() if k not in refined}
        assert all(entry.get(k, True) == v for k, v in refined.items())
    # the source cites the files, each with a commit (or says it is not confirmed)
    assert shown["source"].startswith(f"profile {name} ({prof['compiler']}) of the preset {base}: ")
    for f in prof["files"]:
        assert re.search(r"@ ([0-9a-f]{40}|commit not confirmed)", f), f
        repo = f.split()[0] if not f.startswith("QBE") else "omenos/mirror-qbe"
        assert repo in shown["source"]


def test_a_profile_names_nothing_its_preset_lacks():
    # machine_from_json refuses a reserved or scratch name the machine lacks,
    # and a scratch overlapping a reserved register: every profile loads
    for name in M.PROFILES:
        m = M.preset(name)
        assert all(m.lookup(r) for r in m.reserved + m.scratch)
        assert not {u for s in m.scratch for u in m.lookup(s).units} & m.reserved_units()


def test_verified_machines_lists_the_profiles_with_what_they_derive_from():
    p = run("machines")
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.splitlines()
    assert lines[4:7] == [
        "",
        "profiles (a preset plus how one compiler uses it; `verified machines show NAME` "
        "prints one with its sources):",
        "v8-x64             profile of x86-64: reserved rsp rbp r13 r14; scratch r10 xmm15; "
        "push reg mem; pop reg mem; types i32 i64 f32 f64 v128"]
    assert lines[7] == (
        "                   V8 TurboFan, x64 code generator and gap resolver; from v8/v8 "
        "src/codegen/x64/register-x64.h @ 0c2ef3fa04393cf332ed98c4864f6b702ade4d63; v8/v8 "
        "src/compiler/backend/x64/code-generator-x64.cc @ "
        "00746406cfbbd4e838840c20dbe5a3760e3b3f15")
    assert lines[8:] == [
        "v8-arm             profile of armv7-vfp: reserved r10 r11 d13; scratch r12 q7; push "
        "reg; pop reg; types i32 f32 f64 v128",
        "                   V8 TurboFan, ARM (32-bit) code generator and gap resolver, with "
        "VFP32DREGS and NEON; from v8/v8 src/codegen/arm/register-arm.h @ "
        "31abbcfb4d708743ecadf5a9ea3e0a0cf6977936; v8/v8 src/codegen/arm/assembler-arm.cc @ "
        "01bbc53438f1f5391120689a04d59e59d3d211e7; v8/v8 "
        "src/compiler/backend/arm/code-generator-arm.cc @ "
        "063210c08c0dcbff02e3fc59f4afd430b8108432",
        "v8-arm-d16         profile of armv7-vfp: reserved r10 r11 d13 d16 d17 d18 d19 d20 d21 "
        "d22 d23 d24 d25 d26 d27 d28 d29 d30 d31; scratch r12 d14; push reg; pop reg; types "
        "i32 f32 f64",
        "                   V8 TurboFan, ARM (32-bit), VFPv3-D16: without VFP32DREGS (16 D "
        "registers) and so without NEON; from v8/v8 src/codegen/arm/register-arm.h @ "
        "31abbcfb4d708743ecadf5a9ea3e0a0cf6977936; v8/v8 src/codegen/arm/assembler-arm.cc @ "
        "01bbc53438f1f5391120689a04d59e59d3d211e7; v8/v8 "
        "src/compiler/backend/arm/code-generator-arm.cc @ "
        "063210c08c0dcbff02e3fc59f4afd430b8108432",
        "qbe-amd64          profile of x86-64: reserved rsp rbp; scratch xmm15; push none; pop "
        "none; types i32 i64 f32 f64",
        "                   QBE, amd64 (System V) back end; from QBE (mirror "
        "omenos/mirror-qbe) amd64/targ.c, amd64/all.h, amd64/emit.c, rega.c @ "
        "e786f06032fefa2e3790d6b1c9e31ed138f475a6",
        "qbe-arm64          profile of aarch64: reserved x18 x29; scratch x17 v31; push none; "
        "pop none; types i32 i64 f32 f64",
        "                   QBE, arm64 back end; from QBE (mirror omenos/mirror-qbe) "
        "arm64/targ.c, arm64/all.h, arm64/emit.c @ e786f06032fefa2e3790d6b1c9e31ed138f475a6",
        "qbe-rv64           profile of riscv64: reserved s0 ra; scratch t6 ft11; push none; "
        "pop none; types i32 i64 f32 f64",
        "                   QBE, rv64 back end; from QBE (mirror omenos/mirror-qbe) "
        "rv64/targ.c, rv64/all.h, rv64/emit.c @ e786f06032fefa2e3790d6b1c9e31ed138f475a6",
        "cranelift-x64      profile of x86-64: reserved rsp rbp; scratch m7 mw3; push none; "
        "pop none; types i32 i64 f32 f64 v128",
        "                   Cranelift (regalloc2), x64 System V; from bytecodealliance/wasmtime "
        "cranelift/codegen/src/isa/x64/abi.rs @ 032aed883f32947c1a0f527d5e5055646c83ddec; "
        "bytecodealliance/regalloc2 src/moves.rs, src/lib.rs @ "
        "2fe490bc9dda433f70c54f90f7633ed929f693d9 (0.15.2)",
        "cranelift-aarch64  profile of aarch64: reserved x16 x17 x18 x29 x30; scratch m7 mw3; "
        "push none; pop none; types i32 i64 f32 f64 v128",
        "                   Cranelift (regalloc2), aarch64; from bytecodealliance/wasmtime "
        "cranelift/codegen/src/isa/aarch64/abi.rs @ commit not confirmed (regalloc2 era); "
        "bytecodealliance/regalloc2 src/moves.rs, src/lib.rs @ "
        "2fe490bc9dda433f70c54f90f7633ed929f693d9 (0.15.2)"]


def test_verified_machines_show_a_profile():
    p = run("machines", "show", "v8-x64")
    assert p.returncode == 0 and p.stderr == ""
    shown = json.loads(p.stdout)
    assert M.machine(shown) == M.preset("v8-x64")
    assert {k: shown[k] for k in ("name", "reserved", "scratch", "push", "pop", "types")} == {
        "name": "v8-x64", "reserved": ["rsp", "rbp", "r13", "r14"], "scratch": ["r10", "xmm15"],
        "push": ["reg", "mem"], "pop": ["reg", "mem"],
        "types": {"i32": {"width": 1, "classes": ["gpr"], "stack": True},
                  "i64": {"width": 1, "classes": ["gpr"], "stack": True},
                  "f32": {"width": 1, "classes": ["xmm", "gpr"], "stack": True},
                  "f64": {"width": 1, "classes": ["xmm", "gpr"], "stack": True},
                  "v128": {"width": 2, "classes": ["xmm"], "stack": True}}}
    assert shown["source"].startswith(
        "profile v8-x64 (V8 TurboFan, x64 code generator and gap resolver) of the preset "
        "x86-64: v8/v8 src/codegen/x64/register-x64.h at commit "
        "0c2ef3fa04393cf332ed98c4864f6b702ade4d63: kScratchRegister = r10 and "
        "kScratchDoubleReg = xmm15")
    assert shown["source"].endswith("The preset's own facts: `verified machines show x86-64`.")
    # a profile derives like a preset
    d = run("machines", "derive", "v8-x64", "--scratch", "r10", "-o", "-")
    assert d.returncode == 0 and json.loads(d.stdout)["scratch"] == ["r10"]


def test_check_takes_a_profile_by_name():
    lines = [
        # V8's slot copy through the stack: legal on its profile
        {"machine": "v8-x64", "moves": [["m0", "m1"]], "sequence": [["push", "m1"], ["pop", "m0"]]},
        # the root register r13 is reserved on V8's profile, not on the preset
        {"machine": "v8-x64", "moves": [["m0", "m1"]], "temps": [],
         "sequence": [["mov", "r13", "m1"], ["mov", "m0", "r13"]]},
        # QBE pushes nothing
        {"machine": "qbe-amd64", "moves": [["m0", "m1"]],
         "sequence": [["push", "m1"], ["pop", "m0"]]},
    ]
    p = run("check", stdin="".join(json.dumps(x) + "\n" for x in lines))
    got = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 1
    assert got[0]["ok"] is True
    assert got[1]["ok"] is False and got[1]["reason"] == (
        "operation #0: mov r13, m1 writes r13, which v8-x64 reserves (reserved: rsp, rbp, r13, "
        "r14); a sequence never writes a reserved register")
    assert got[2]["ok"] is False and got[2]["reason"] == (
        "operation #0: push m1 pushes a stack slot, which qbe-amd64 lacks (push is [])")


def test_solve_takes_a_profile_by_name():
    p = run("solve", "-a", "resolve", stdin=json.dumps(
        {"machine": "qbe-rv64", "moves": [["a0", "a1"], ["a1", "a0"]], "temps": ["t6"]}) + "\n")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"sequence": [["mov", "t6", "a0"], ["mov", "a0", "a1"],
                                                 ["mov", "a1", "t6"]]}


@pytest.mark.parametrize("name", M.PROFILES)
def test_conform_takes_each_profile(name):
    # the reference resolver on each profile's small machine: its scratch
    # are the temps, its reserved registers never named
    p = run("conform", "--machine", name, "--max-moves", "1", "--cmd",
            f"{sys.executable} -m verified.cli solve -a resolve")
    assert p.returncode == 0, p.stdout + p.stderr
    m = M.preset(name)
    assert f"temps {json.dumps(list(m.scratch))}" in p.stdout
    assert f"exhaustive over {name}/small (" in p.stdout
    sites = p.stdout.split(f"exhaustive over {name}/small (")[1].split(")")[0].split()
    assert not set(sites) & set(m.reserved)


def test_vectors_takes_a_profile(tmp_path):
    p = run("vectors", "--machine", "v8-arm", "--max-moves", "1", "--random", "3",
            "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == [
        "MANIFEST.json", "README.md", "v8-arm-random.jsonl", "v8-arm-small.jsonl"]
    first = json.loads((tmp_path / "v8-arm-small.jsonl").read_text().splitlines()[0])
    assert first["request"]["machine"]["name"] == "v8-arm/small"


def test_docs_table_is_the_profiles():
    text = (ROOT / "docs/machines.md").read_text()
    for name in M.PROFILES:
        prof, m = M.profile_json(name), M.preset(name)
        row = (f"| `{name}` | `{prof['base']}` | {', '.join(m.reserved)} | "
               f"{', '.join(m.scratch)} | {', '.join(m.push) or 'none'} | "
               f"{', '.join(t.name for t in m.types)} |")
        assert row in text, row


@pytest.mark.parametrize("name", M.PROFILES)
def test_the_small_machine_of_each_profile_reaches_every_alias_relation(name):
    """conform --machine PROFILE: the small machine (the profile's scratch as
    the temps) has a register of every alias shape of the profile that no
    reserved register overlaps, with its parts, and every slot width."""
    from verified.cases import machines as G
    full = M.preset(name)
    small, temps = G.small_machine(full, temps=tuple(full.scratch))
    assert temps == full.scratch
    free = lambda m, r: not set(m.lookup(r).units) & m.reserved_units()  # noqa: E731
    for c in full.classes:
        want = {G.alias_shape(full, r) for r in c.registers if free(full, r)}
        have = {G.alias_shape(small, r) for r in small.registers(c.name) if free(small, r)
                and r not in temps}
        assert want <= have, (c.name, want - have)
    assert {g.width for g in full.stack} == {g.width for g in small.stack}
    if name == "v8-arm":  # the Q scratch comes with its D and S parts
        assert {"q7", "d14", "d15", "s28", "s29", "s30", "s31"} <= set(small.names())
