"""The machine model's Python API (``verified/core/machine/``,
``docs/machines.md`` "Python API"): units through aliases and lists, the
classification of every operation kind, costs, the presets' facts, and
``verified machines``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verified.core import machine as M
from verified.core.semantics import PreconditionError

X86, ARM, RV, A64 = (M.preset(n) for n in ("x86-64", "armv7-vfp", "riscv64", "aarch64"))


def loc(m, v):
    return M.parse_loc(m, v)


def op(m, v):
    return M.parse_op(m, v)


# -- units ---------------------------------------------------------------------


def test_units_through_aliases_and_lists():
    assert M.units(ARM, loc(ARM, "s3")) == ("s3",)
    assert M.units(ARM, loc(ARM, "d1")) == ("s2", "s3")
    assert M.units(ARM, loc(ARM, "q0")) == ("s0", "s1", "s2", "s3")
    assert M.units(ARM, loc(ARM, "d16")) == ("d16.0", "d16.1")  # no s halves
    assert M.units(ARM, loc(ARM, "q8")) == ("d16.0", "d16.1", "d17.0", "d17.1")
    assert M.units(X86, loc(X86, "xmm3")) == ("xmm3.0", "xmm3.1")
    assert M.units(X86, loc(X86, "mw1")) == ("mw1.0", "mw1.1")
    assert M.units(RV, loc(RV, ["a0", "a1"])) == ("a0", "a1")
    assert M.units(RV, loc(RV, {"imm": 3})) == ()


def test_too_many_units_is_refused_before_a_unit_is_named():
    """1,014 slots of width 65,535 (a machine the schema allows, drawn by
    test_fuzz_schemas.py) are refused with the unit count, in little memory
    (naming the 66 million units first took 4.7 GB and 10 s); with an alias
    the same message comes after the alias checks."""
    from tests.support import peak_bytes

    def refused(obj: dict) -> str:
        with pytest.raises(PreconditionError) as e:
            M.machine_from_json(obj)
        return str(e.value)

    wide = {"classes": {"g": {"registers": ["a"]}}, "stack": {"slots": 1014, "width": 65535}}
    got: list[str] = []
    assert peak_bytes(lambda: got.append(refused(wide))) < 1 << 20
    assert got == ['"machine": declares 66452491 units; at most 65536']
    aliased = {"classes": {"g": {"registers": ["a", "b"], "width": 40000}, "h": {
        "registers": ["c"], "width": 40000}}, "aliases": {"c": ["a"]}}
    assert refused(aliased) == '"machine": declares 120000 units; at most 65536'
    assert refused(dict(wide, aliases={"z": ["a"]})) == (
        "\"machine\": alias 'z' is not a register of any class; list it in its class (with "
        "its width) and in \"aliases\"")


def test_kind_class_width():
    cases = [(X86, "rax", "reg", "gpr", 1), (X86, "xmm0", "reg", "xmm", 2),
             (X86, "m0", "mem", None, 1), (X86, "mw0", "mem", None, 2),
             (X86, {"imm": -7}, "imm", None, None), (ARM, "q15", "reg", "q", 4),
             (RV, ["a0", "a1"], "reg", "gpr", 2), (RV, ["m0", "m1"], "mem", None, 2)]
    for m, v, k, c, w in cases:
        place = loc(m, v)
        assert (M.kind(m, place), M.class_of(m, place), M.width(m, place)) == (k, c, w), v
    assert M.classes_of(RV, loc(RV, ["a0", "fa0"])) == ("gpr", "fpr")


def test_immediate_pieces():
    # riscv64 states unit_bits 64: unit i holds bits [64i, 64i+64) of k
    assert M.values(RV, loc(RV, {"imm": 5}), 2) == ("#5", "#0")
    assert M.values(RV, loc(RV, {"imm": -1}), 2) == (f"#{2**64 - 1}",) * 2
    assert M.values(RV, loc(RV, {"imm": 3 << 64 | 9}), 2) == ("#9", "#3")
    state = M.execute(RV, [op(RV, ["mov", ["a0", "a1"], {"imm": 5}])])
    assert state == {"a0": "#5", "a1": "#0"}
    assert M.execute(RV, [op(RV, ["mov", "a0", {"imm": 5}])]) == {"a0": "#5"}
    # a machine without unit_bits keeps symbolic pieces
    small = M.machine({"classes": {"g": {"registers": ["a", "b"]}}})
    assert M.values(small, loc(small, {"imm": 5}), 2) == ("#5", "#5.1")


def test_every_unit_once_and_owner():
    units = ARM.units()
    assert len(units) == len(set(units)) == 13 + 32 + 16 * 2 + 8 + 4 * 2 + 2 * 4
    assert ARM.owner("s5") == "s5" and ARM.owner("d16.1") == "d16"
    assert X86.owner("xmm0.1") == "xmm0" and X86.owner("rax") == "rax"


# -- interpreter ---------------------------------------------------------------


def test_mov_through_an_alias_writes_both_halves():
    state = M.execute(ARM, [op(ARM, ["mov", "d0", "d1"])])
    assert state == {"s0": "s2", "s1": "s3"}


def test_swap_exchanges_units():
    state = M.execute(X86, [op(X86, ["swap", "rax", "m3"])])
    assert state == {"rax": "m3", "m3": "rax"}
    state = M.execute(ARM, [op(ARM, ["swap", "q0", "q8"])])
    assert state["s2"] == "d17.0" and state["d17.1"] == "s3"


def test_a_list_moves_part_by_part_low_first():
    state = M.execute(RV, [op(RV, ["mov", ["a1", "a2"], ["a0", "a1"]])])
    assert state == {"a1": "a0", "a2": "a0"}  # the high half was lost
    state = M.execute(RV, [op(RV, ["swap", ["a0", "a1"], ["a2", "a3"]])])
    assert state == {"a0": "a2", "a1": "a3", "a2": "a0", "a3": "a1"}


# -- classification, legality, cost --------------------------------------------


@pytest.mark.parametrize("m, raw, cls, legal", [
    (X86, ["mov", "rax", "rbx"], "reg<-reg", True),
    (X86, ["mov", "rax", "m0"], "load", True),
    (X86, ["mov", "m0", "rax"], "store", True),
    (X86, ["mov", "m0", "m1"], "mem<-mem", False),
    (X86, ["mov", "rax", {"imm": 1}], "reg<-imm", True),
    (X86, ["mov", "m0", {"imm": 1}], "mem<-imm", True),
    (A64, ["mov", "m0", {"imm": 1}], "mem<-imm", False),
    (X86, ["swap", "rax", "rbx"], "swap reg-reg", True),
    (X86, ["swap", "rax", "m0"], "swap reg-mem", True),
    (X86, ["swap", "m0", "rax"], "swap reg-mem", True),
    (X86, ["swap", "m0", "m1"], "swap mem-mem", False),
    (A64, ["swap", "x0", "x1"], "swap reg-reg", False),
    (ARM, ["swap", "d0", "d17"], "swap reg-reg", True),
    (ARM, ["swap", "q0", "q1"], "swap reg-reg", True),
    (ARM, ["swap", "s0", "s1"], "swap reg-reg", False),
    (ARM, ["swap", "d0", "md0"], "swap reg-mem", False),
    (ARM, ["mov", "s0", "r0"], "reg<-reg", True),   # VMOV s, r (cross_class)
    (RV, ["mov", "fa0", "a0"], "reg<-reg", True),   # FMV.D.X
    (X86, ["mov", "xmm0", "mw0"], "load", True),
    (X86, ["mov", "xmm0", "m0"], "load", False),    # widths 2 and 1
])
def test_classify_and_illegal(m, raw, cls, legal):
    o = op(m, raw)
    assert M.classify(m, o) == cls
    assert (M.illegal(m, o) is None) == legal, M.illegal(m, o)


def test_costs_follow_the_classification():
    m = M.machine({"classes": {"g": {"registers": ["a", "b"]}},
                   "stack": {"slots": 2}, "swap": ["reg-reg", "reg-mem"], "mem_to_mem": True,
                   "immediate_to": ["reg", "mem"],
                   "cost": {"mov": 1, "load": 3, "store": 5, "swap": 7, "imm": 11}})
    prices = {"mov a, b": 1, "mov a, s0": 3, "mov s0, a": 5, "mov s0, s1": 8,
              "mov a, #1": 11, "mov s0, #1": 11, "swap a, b": 7, "swap a, s0": 7}
    for text, price in prices.items():
        kind, rest = text.split(" ", 1)
        x, y = rest.split(", ")
        y = {"imm": 1} if y == "#1" else y
        assert M.op_cost(m, op(m, [kind, x, y])) == price, text
    assert M.cost(m, [op(m, ["mov", "a", "b"]), op(m, ["swap", "a", "s0"])]) == 8
    pair = M.machine({"classes": {"g": {"registers": ["a", "b", "c", "d"]}}})
    assert M.op_cost(pair, op(pair, ["mov", ["a", "b"], ["c", "d"]])) == 2


def test_defaults():
    m = M.machine({"classes": {"g": {"registers": ["a"]}}})
    assert m.to_json() == {
        "name": "machine", "classes": {"g": {"registers": ["a"], "width": 1}},
        "aliases": {}, "stack": [], "swap": [], "mem_to_mem": False,
        "immediate_to": ["reg"], "cross_class": False,
        "cost": {"mov": 1, "load": 1, "store": 1, "swap": 1, "imm": 1}}
    assert M.machine({"classes": {"g": {"registers": ["a"]}},
                      "stack": {"slots": 2}}).slots() == ("s0", "s1")


# -- the move and the verdict --------------------------------------------------


def test_preserve_all_checks_every_unit_of_the_machine_and_loops_only_destinations():
    mm = M.MachineMove.make(ARM, [["d0", "d1"]], ["s8"])
    clobber = [op(ARM, ["mov", "s8", "s2"]), op(ARM, ["mov", "d0", "d1"]),
               op(ARM, ["mov", "q15", "q14"])]
    v = M.implements(mm, clobber, "all")
    assert (v.ok, v.location, v.unit, v.expected, v.got) == (False, "d30", "d30.0",
                                                            "d30.0", "d28.0")
    assert M.implements(mm, clobber, "loops").ok
    assert M.implements(mm, clobber[:2], "all").ok  # s8 is a temporary


def test_self_move_keeps_its_value_under_loops():
    mm = M.MachineMove.make(X86, [["rax", "rax"], ["rbx", "rcx"]])
    assert not M.implements(mm, [op(X86, ["mov", "rax", "rcx"]),
                                 op(X86, ["mov", "rbx", "rcx"])], "loops").ok
    assert M.implements(mm, [op(X86, ["mov", "rbx", "rcx"])], "loops").ok


def test_borrowing_a_register_is_legal():
    """Only the final state counts: save rax, use it, restore it."""
    mm = M.MachineMove.make(A64, [["m0", "m1"], ["m1", "m0"]], ["m7"])
    ops = [op(A64, x) for x in (["mov", "x9", "m0"], ["mov", "m7", "x9"], ["mov", "x9", "m1"],
                                ["mov", "m0", "x9"], ["mov", "x9", "m7"], ["mov", "m1", "x9"])]
    assert not M.implements(mm, ops).ok  # x9 clobbered
    saved = [op(A64, ["mov", "m6", "x9"])] + ops + [op(A64, ["mov", "x9", "m6"])]
    v = M.implements(mm, saved)
    assert not v.ok and v.location == "m6"  # m6 is not a temporary
    mm = M.MachineMove.make(A64, [["m0", "m1"], ["m1", "m0"]], ["m7", "m6"])
    assert M.implements(mm, saved).ok and M.implements(mm, saved).cost == 8


def test_machine_request_rejects_bad_preserve():
    with pytest.raises(PreconditionError, match='unknown "preserve"'):
        M.parse_machine_request({"machine": "x86-64", "moves": [], "preserve": "some"}, False)


# -- presets -------------------------------------------------------------------


def test_presets_facts():
    assert M.PRESETS == ("x86-64", "aarch64", "riscv64", "armv7-vfp")
    assert len(X86.registers("gpr")) == 16 and len(X86.registers("xmm")) == 16
    assert X86.swap == ("reg-reg", "reg-mem") and not X86.mem_to_mem
    assert X86.registers("gpr")[:4] == ("rax", "rcx", "rdx", "rbx")
    assert A64.registers("gpr") == tuple(f"x{i}" for i in range(31))
    assert A64.registers("simd") == tuple(f"v{i}" for i in range(32)) and A64.swap == ()
    assert RV.swap == () and not {"zero", "sp", "gp", "tp"} & set(RV.names())
    assert {f"a{i}" for i in range(8)} <= set(RV.registers("gpr"))
    assert len(RV.registers("fpr")) == 32
    assert ARM.swap == () and dict(ARM.aliases)["d0"] == ("s0", "s1")
    assert dict(ARM.aliases)["q0"] == ("d0", "d1") and "d16" not in dict(ARM.aliases)
    for m in (X86, A64, RV, ARM):
        assert len(m.source) > 200 and not any(s.startswith("s") for s in m.slots()
                                                 if m is not X86)
        assert M.machine(m.to_json()) == m  # to_json round-trips


def run(*args):
    return subprocess.run([sys.executable, "-m", "verified.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_verified_machines_lists_the_presets():
    p = run("machines")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.splitlines()[:4] == [
        "x86-64     classes: gpr 16x1, xmm 16x2; slots: 8x1, 4x2; swap: reg-reg, reg-mem; "
        "mem_to_mem: false; immediate_to: reg, mem; cross_class: false",
        "aarch64    classes: gpr 31x1, simd 32x2; slots: 8x1, 4x2; swap: none; "
        "mem_to_mem: false; immediate_to: reg; cross_class: false",
        "riscv64    classes: gpr 28x1, fpr 32x1; slots: 8x1; swap: none; "
        "mem_to_mem: false; immediate_to: reg; cross_class: true",
        "armv7-vfp  classes: gpr 13x1, s 32x1, d 32x2, q 16x4; slots: 8x1, 4x2, 2x4; "
        "swap: none; mem_to_mem: false; immediate_to: reg; cross_class: true"]


@pytest.mark.parametrize("name", M.PRESETS)
def test_verified_machines_show(name):
    p = run("machines", "show", name)
    assert p.returncode == 0 and p.stderr == ""
    shown = json.loads(p.stdout)
    assert M.machine(shown) == M.preset(name) and shown["source"]


@pytest.mark.parametrize("args, message", [
    (("show", "z80"), "verified machines: error: unknown machine 'z80'; the presets are "
     "x86-64, aarch64, riscv64, armv7-vfp, the profiles v8-x64, v8-arm, v8-arm-d16, "
     "qbe-amd64, qbe-arm64, qbe-rv64, cranelift-x64, cranelift-aarch64 (or give a machine "
     "object, docs/machines.md)\n"),
    (("show",), "verified machines: error: show needs a NAME or FILE, one of x86-64, "
     "aarch64, riscv64, armv7-vfp, v8-x64, v8-arm, v8-arm-d16, qbe-amd64, qbe-arm64, "
     "qbe-rv64, cranelift-x64, cranelift-aarch64\n"),
    (("derive", "x86-64"), "verified machines: error: derive needs -o FILE.json (or -o - "
     "for stdout)\n"),
    (("derive", "z80", "-o", "-"), "verified machines: error: unknown machine 'z80'; the "
     "presets are x86-64, aarch64, riscv64, armv7-vfp, the profiles v8-x64, v8-arm, "
     "v8-arm-d16, qbe-amd64, qbe-arm64, qbe-rv64, cranelift-x64, cranelift-aarch64 (or "
     "give a machine object, docs/machines.md)\n"),
    (("derive", "x86-64", "--reserve", "eax", "-o", "-"), "verified machines: error: "
     "\"machine\": \"reserved\": 'eax' is not a register of x86-64-profile\n"),
    (("derive", "x86-64", "--reserve", "rsp", "r11", "-o", "-"), "verified machines: error: "
     "\"machine\": \"scratch\": 'r11' overlaps the reserved register 'r11'; a reserved "
     "register is never written, so it cannot be a scratch\n"),
    (("derive", "riscv64", "--types", "v128", "-o", "-"), "verified machines: error: "
     "--types: riscv64 has no type 'v128'; its types are i32, i64, f32, f64\n"),
    (("show", "x86-64", "--reserve", "rsp"), "verified machines: error: --reserve goes with "
     "`verified machines derive`\n"),
    (("show", "no-such-file.json"), "verified machines: error: cannot read "
     "no-such-file.json: No such file or directory\n"),
    (("list", "x86-64"), "verified machines: error: list takes no NAME (did you mean "
     "`verified machines show x86-64`?)\n"),
])
def test_verified_machines_bad_use(args, message):
    p = run("machines", *args)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", message)


def test_derive_writes_a_profile_that_show_prints_and_check_takes(tmp_path):
    out = tmp_path / "quick.json"
    p = run("machines", "derive", "x86-64", "--reserve", "rsp", "rbp", "r12", "--scratch",
            "r11", "xmm15", "m7", "--types", "i64", "f64", "-o", str(out))
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    obj = json.loads(out.read_text())
    assert obj["name"] == "x86-64-profile" and obj["reserved"] == ["rsp", "rbp", "r12"]
    assert obj["scratch"] == ["r11", "xmm15", "m7"] and list(obj["types"]) == ["i64", "f64"]
    assert obj["source"].startswith("a profile derived from the preset x86-64 by "
                                    "`verified machines derive`; the preset's source: Intel")
    shown = run("machines", "show", str(out))
    assert shown.returncode == 0 and json.loads(shown.stdout) == obj
    # the profile is a machine: r12 is now reserved, f32 is no type of it
    line = json.dumps({"machine": obj, "moves": [["r12", "rax"]], "sequence": []})
    c = subprocess.run([sys.executable, "-m", "verified.cli", "check"], input=line,
                       capture_output=True, text=True, timeout=120)
    assert c.returncode == 2 and "r12 is reserved on x86-64-profile" in c.stdout
    line = json.dumps({"machine": obj, "moves": [["xmm0", "m0", "f32"]], "sequence": []})
    c = subprocess.run([sys.executable, "-m", "verified.cli", "check"], input=line,
                       capture_output=True, text=True, timeout=120)
    assert c.returncode == 2 and 'unknown type \\"f32\\" on x86-64-profile' in c.stdout


def test_derive_to_stdout_and_show_of_a_bad_file(tmp_path):
    p = run("machines", "derive", "aarch64", "--reserve", "--name", "no-reserve", "-o", "-")
    assert p.returncode == 0 and p.stderr == ""
    obj = json.loads(p.stdout)
    assert obj["name"] == "no-reserve" and "reserved" not in obj
    assert obj["scratch"] == ["x16", "x17", "v31", "m7"]   # the preset's own
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    p = run("machines", "show", str(bad))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(f"verified machines: error: {bad} is not JSON: ")
    bad.write_text('{"classes": {}, "reserved": ["rsp"]}')
    p = run("machines", "show", str(bad))
    assert (p.returncode, p.stderr) == (2, f"verified machines: error: {bad}: \"machine\": "
                                        "\"reserved\": 'rsp' is not a register of machine\n")


def test_presets_reserve_what_their_abis_reserve():
    want = {"x86-64": (("rsp", "rbp"), ("r11", "xmm15", "m7")),
            "aarch64": (("x18", "x29"), ("x16", "x17", "v31", "m7")),
            "riscv64": (("s0",), ("t5", "t6", "ft11", "m7")),
            "armv7-vfp": (("r9", "r11"), ("r12", "d7", "m7"))}
    for name, (reserved, scratch) in want.items():
        m = M.preset(name)
        assert (m.reserved, m.scratch) == (reserved, scratch)
        assert "Profile (round 3)" in m.source


def test_a_one_part_list_is_its_single_location():
    ops = [op(RV, ["mov", ["a0"], "a1"]), op(RV, ["mov", "a2", ["a3"]])]
    assert [M.illegal(RV, o) for o in ops] == [None, None]
    assert M.execute(RV, ops) == {"a0": "a1", "a2": "a3"}
    assert M.illegal(RV, op(RV, ["mov", ["a0", "a1"], "a2"])) == (
        "mov [a0, a1], a2 pairs a list of 2 part(s) with a single location; a list operand "
        "is moved part by part, so the other side must be a list of as many parts")


def test_a_move_pair_read_before_is_the_same_move_and_each_error_names_its_own_index():
    """``MachineMove.make`` reads a pair of names once per machine
    (``oracle._checked_pair``'s memo): a pair met again, typed or not, at
    another index or beside other pairs, gives the move a fresh machine
    (an empty memo) gives, and every refusal names the pair's own index."""
    import copy
    requests = [
        ([["rax", "rcx"]], []),
        ([["rbx", "rax"], ["rax", "rcx"]], ["rdx"]),
        ([["xmm0", "xmm1", "f64"], ["xmm2", "xmm1"]], []),
        ([["xmm2", "xmm1"], ["xmm0", "xmm1"]], []),
        ([["xmm0", "xmm1"], ["xmm0", "xmm1", "f64"]], []),  # overlap after a hit
        ([["rsi", "rdi"], ["xmm0", "rax"]], []),  # width, at #1
        ([["xmm0", "rax"]], []),  # the same refusal at #0
        ([["rsi", "rdi"], ["rax", "nope"]], []),  # unknown name, at #1
        ([["rax", "nope"]], []),  # at #0
        ([["rax", "rcx"]], ["rcx"]),  # a temporary the move touches, after a hit
    ]

    def answer(m, moves, temps):
        try:
            return M.MachineMove.make(m, copy.deepcopy(moves), temps)
        except PreconditionError as e:
            return str(e)

    warm = M.machine("x86-64")
    first = [answer(warm, mv, t) for mv, t in requests]
    again = [answer(warm, mv, t) for mv, t in requests]  # every pair now a hit
    fresh = [answer(M.machine_from_json(json.loads(json.dumps(
        M.machine("x86-64").to_json()))), mv, t) for mv, t in requests]
    assert first == again == fresh
    assert first[3] == M.MachineMove(warm, first[3].moves, (), ())
    assert first[2].types == ("f64", None) and first[3].types == ()
    assert first[4] == ("destinations overlap: xmm0 <- xmm1 and xmm0 <- xmm1 both write "
                        "unit xmm0.0; a parallel move needs disjoint destinations")
    assert first[5] == first[6] == ("move xmm0 <- rax: xmm0 has width 2 but rax has width "
                                    "1; a move needs equal widths")
    assert first[7].startswith("move #1 [") and first[8].startswith("move #0 [")
    assert first[7][len("move #1"):] == first[8][len("move #0"):]
    assert first[9] == ("temporary rcx overlaps the move rax <- rcx (unit rcx); a temporary "
                        "must be a location the moves do not touch")
