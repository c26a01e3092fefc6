"""Typed cases (issue 19 step 4, docs/conform.md "Typed cases"): on a
machine with a types table, `conform --machine` sends typed moves only,
each location holding one type of its home class (no move between classes
without --cross-class), narrowed by --types, --no-pairs, --no-immediates;
shrinking keeps the types; an untyped machine's cases are as before.

The must-show client, tests/clients/typed_x86_client.py (a compiler-style
resolver of typed x86-64 moves), passes with no --allow-refusals, and each
of its four planted bugs is exactly one failure class, shrunk to at most 2
moves; all four at once are four classes (pinned)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import pytest

from verified.cases import machines as G
from verified.core import machine as M
from verified.tools.conform.cli import add_arguments, build_suite

from tests.support import conform_json, verified

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests" / "clients" / "typed_x86_client.py"
TWO_CLASSES = ROOT / "mutants" / "data" / "two-classes.json"


def client(*bugs: str) -> str:
    return " ".join([sys.executable, str(CLIENT), *(f"--bug {b}" for b in bugs)])


def suite(*args: str):
    p = argparse.ArgumentParser()
    add_arguments(p)
    return build_suite(p.parse_args(["--cmd", "x", *args]))[1]


def typed_small(name: str, **kw):
    m = M.preset(name)
    small, temps = G.small_machine(m, temps=tuple(getattr(m, "scratch", ())) or None)
    space = G.typed_space(small, **kw)
    return small, temps, space, G.typed_sites(small, space, temps)


# ---------------------------------------------------------------------------
# The space
# ---------------------------------------------------------------------------

#: sites and counts of at most 1, 2, 3 typed moves over each small machine
TYPED = {
    "x86-64": ("rax rcx rdx xmm0 xmm1 [rax, rcx] [rcx, rdx] m0 m1 mw0 mw1 #7 #4294967296",
               (151, 8727, 256387)),
    "aarch64": ("x0 x1 x2 v0 v1 [x0, x1] [x1, x2] m0 m1 mw0 mw1 #7", (127, 6009, 141473)),
    "riscv64": ("ra t0 t1 ft0 ft1 [ra, t0] [t0, t1] m0 m1 #7", (107, 3967, 67423)),
    "armv7-vfp": ("r0 r1 r2 s0 s1 s2 s3 d0 d1 d16 d17 q0 q8 [r0, r1] [r1, r2] m0 m1 md0 md1 "
                  "mq0 mq1 #7", (155, 10484, 411672)),
}


def _one_type_per_location(case) -> bool:
    seen: dict = {}
    for mv in case.moves:
        t = mv[2] if len(mv) > 2 else None
        for loc in mv[:2]:
            if isinstance(loc, M.Imm):
                continue
            if seen.setdefault(loc, t) != t:
                return False
    return True


@pytest.mark.parametrize("name", M.PRESETS)
def test_typed_space_of_each_preset(name):
    small, temps, space, sites = typed_small(name)
    want_sites, counts = TYPED[name]
    assert " ".join(str(s.loc) for s in sites) == want_sites
    assert tuple(G.typed_exhaustive_count(small, sites, space, k) for k in (1, 2, 3)) == counts
    assert all(G.typed_exhaustive_bound(small, sites, space, k) >= c
               for k, c in zip((1, 2, 3), counts))
    cases = list(G.typed_exhaustive_cases(small, sites, space, 2))
    assert len(cases) == len(set(cases)) == counts[1]
    for c in cases:
        mm = M.MachineMove.make(small, G.moves_json(c), list(temps))  # a valid request
        assert _one_type_per_location(c), c
        for i, (d, s) in enumerate(mm.moves):
            if mm.type_of(i) is None:  # only a pair, where no type has its width
                assert d.is_list and small.name.startswith(("x86-64", "aarch64", "riscv64"))
            if M.kind(small, d) == M.kind(small, s) == "reg":  # no move between classes
                assert M.class_of(small, d) == M.class_of(small, s), c


def test_home_classes_and_exact_slot_widths_on_x86_64():
    small, _, space, sites = typed_small("x86-64")
    got = {str(s.loc): G.site_types(small, s, space) for s in sites}
    assert got["rax"] == ("i32", "i64")
    assert got["xmm0"] == ("f32", "f64", "v128")
    assert got["m0"] == ("i32", "i64", "f32", "f64")
    assert got["mw0"] == ("v128",)
    assert got["[rax, rcx]"] == (None,)  # 128 bits in two GPRs: no type of that width
    cross = G.typed_space(small, cross_class=True)
    assert G.site_types(small, sites[0], cross) == ("i32", "i64", "f32", "f64")


def test_armv7_pairs_hold_i64():
    small, _, space, sites = typed_small("armv7-vfp")
    got = {str(s.loc): G.site_types(small, s, space) for s in sites}
    assert got["[r0, r1]"] == ("i64",) and got["d0"] == ("f64",) and got["s0"] == ("f32",)
    assert got["md0"] == ("i64", "f64") and got["mq0"] == ("v128",)


def test_cross_class_adds_moves_between_classes():
    small, temps, space, sites = typed_small("x86-64", types=["i64"], cross_class=True)
    cases = list(G.typed_exhaustive_cases(small, sites, space, 1))
    moves = {G.format_case(c) for c in cases}
    assert "(rax <- xmm0 (i64))" in moves and "(xmm0 <- rax (i64))" in moves
    narrow = G.typed_space(small, types=["i64"])
    assert "(rax <- xmm0 (i64))" not in {
        G.format_case(c) for c in G.typed_exhaustive_cases(small, sites, narrow, 1)}


def test_types_pairs_and_immediates_narrow_the_space():
    small, temps, space, sites = typed_small("x86-64", types=["f64"], pairs=False,
                                             immediates=False)
    assert " ".join(str(s.loc) for s in sites) == "rax rcx rdx xmm0 xmm1 m0 m1 mw0 mw1"
    cases = list(G.typed_exhaustive_cases(small, sites, space, 2))
    assert len(cases) == G.typed_exhaustive_count(small, sites, space, 2) == 113  # 1 + 4*4 + 6*16
    assert {mv[2] for c in cases for mv in c.moves} == {"f64"}
    assert not any(isinstance(mv[1], M.Imm) or mv[0].is_list for c in cases for mv in c.moves)


@pytest.mark.parametrize("name", M.PRESETS)
def test_random_typed_cases_are_valid_and_reproducible(name):
    m = M.preset(name)
    temps = tuple(getattr(m, "scratch", ())) or G.scratch_registers(m)
    space = G.typed_space(m)
    sites = G.typed_sites(m, space, temps)
    a = list(zip(range(200), G.random_typed_case_stream(m, sites, space, 5, name)))
    b = list(zip(range(200), G.random_typed_case_stream(m, sites, space, 5, name)))
    assert a == b
    reserved = set(getattr(m, "reserved", ()))
    for _, c in a:
        assert c.moves
        M.MachineMove.make(m, G.moves_json(c), list(temps))
        assert _one_type_per_location(c), c
        assert not reserved & {p for mv in c.moves for loc in mv[:2]
                               if isinstance(loc, M.Place) for p in loc.parts}


def test_shrinking_keeps_the_types():
    small, temps, space, sites = typed_small("x86-64")
    cases = [c for c in G.typed_exhaustive_cases(small, sites, space, 2) if len(c.moves) == 2]
    rng = random.Random(1)
    for c in rng.sample(cases, 300):
        types = {loc: mv[2] for mv in c.moves if len(mv) > 2 for loc in mv[:2]
                 if isinstance(loc, M.Place)}
        for smaller in G.shrink_candidates(c, sites):
            M.MachineMove.make(small, G.moves_json(smaller), list(temps))
            assert _one_type_per_location(smaller)
            assert {len(mv) for mv in smaller.moves} <= {len(mv) for mv in c.moves}
            for mv in smaller.moves:  # a kept location keeps its type
                for loc in mv[:2]:
                    if loc in types and len(mv) > 2:
                        assert mv[2] == types[loc]


def test_an_untyped_machine_keeps_its_cases_byte_for_byte():
    s = suite("--machine", str(TWO_CLASSES), "--max-moves", "2")
    m = M.machine(json.loads(TWO_CLASSES.read_text()))
    small, temps = G.small_machine(m)
    places = G.sites(small, temps, pairs=True)
    old = [json.dumps({"machine": small.to_json(), "moves": G.moves_json(c),
                       "temps": list(temps)}) + "\n" for c in G.exhaustive_cases(places, 2)]
    new = [s.case_type.encode(c).decode() for c in s.cases()]
    assert new == old and s.planned == len(old)
    assert "typed" not in s.description


def test_every_typed_request_is_valid_for_check():
    for args in (["--machine", "x86-64", "--max-moves", "1", "--cross-class"],
                 ["--machine", "armv7-vfp", "--max-moves", "1"],
                 ["--machine", "aarch64", "--random", "30", "--order", "shuffled"]):
        s = suite(*args)
        ct = s.case_type
        lines = []
        for case in s.cases():
            req = json.loads(ct.encode(case))
            assert ct.decode(req) == case
            assert all(len(mv) == 3 or isinstance(mv[0], list) for mv in req["moves"])
            req["sequence"] = []
            lines.append(json.dumps(req))
        assert len(lines) == s.planned
        proc = verified("check", input="\n".join(lines) + "\n")
        answers = [json.loads(x) for x in proc.stdout.splitlines()]
        assert len(answers) == len(lines) and all("error" not in a for a in answers)


@pytest.mark.parametrize("args, message", [
    (["--machine", "x86-64", "--types", "f80", "i64", "f16"],
     "--types f80, f16: not a type of x86-64; its types are i32, i64, f32, f64, v128"),
    (["--machine", str(TWO_CLASSES), "--types", "i64"],
     "--types: two-classes has no types table, so its cases are untyped "
     "(docs/machines.md, 'Typed values')"),
    (["--machine", str(TWO_CLASSES), "--cross-class"],
     "--cross-class: two-classes has no types table, so its cases are untyped "
     "(docs/machines.md, 'Typed values')"),
    (["--model", "swap", "--no-pairs"], "--no-pairs goes with --machine"),
    (["--model", "swap", "--types", "i64"], "--types goes with --machine"),
    (["--model", "swap", "--cross-class"], "--cross-class goes with --machine"),
    (["--model", "swap", "--no-immediates"], "--no-immediates goes with --machine"),
    (["--machine", "x86-64", "--max-moves", "4"],
     "--machine x86-64 --exhaustive is up to 8,166,199 typed cases with --max-moves 4; "
     "lower --max-moves, narrow with --types, --no-pairs or --no-immediates, or use "
     "--random K"),
])
def test_bad_typed_options_exit_2_with_one_clear_line(args, message):
    proc = verified("conform", "--cmd", "true", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"verified conform: error: {message}\n"


# ---------------------------------------------------------------------------
# The must-show client and its planted bugs
# ---------------------------------------------------------------------------


def test_the_typed_client_passes_without_allow_refusals():
    code, r, _ = conform_json("--cmd", client(), "--machine", "x86-64", "--max-moves", "2")
    assert code == 0, r.get("failure_classes") or r.get("refusal_report")
    assert r["planned"] == r["run"] == r["correct"] == 8727
    assert r["failures"] == r["refusals"] == 0
    # v128 constants (no XMM register and no 16-byte slot takes one) and
    # whatever else our resolver finds no sequence for
    assert r["refused_unsolvable"] == 1064


#: bug -> (class key, count at --max-moves 2, smallest case)
BUGS = {
    "slot-xchg": (
        "illegal operation: swap slot, slot: is a memory-to-memory swap, which "
        "x86-64/small lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)",
        2, "(m0 <- m1 (i32), m1 <- m0 (i32))"),
    "parked-scratch": (
        "wrong value: a slot destination holds its own old value, not its source's value",
        2, "(m0 <- m1 (f32), m1 <- m0 (f32))"),
    "pair-order": (
        "wrong value: a [gpr, gpr] destination holds another unit of its own source, not "
        "its source's value", 107, "([rcx, rdx] <- [rax, rcx])"),
    "wide-imm": (
        "illegal operation: mov slot, imm: writes the constant 4294967296 into a stack "
        "slot, but one mov of x86-64/small writes at most a 32-bit immediate there "
        "(immediate_bits); build it in a register first", 836,
        "(m0 <- #4294967296 (i32))"),
}


@pytest.mark.parametrize("bug", list(BUGS))
def test_each_planted_bug_is_one_class_shrunk_to_two_moves(bug):
    key, count, smallest = BUGS[bug]
    code, r, _ = conform_json("--cmd", client(bug), "--machine", "x86-64", "--max-moves", "2")
    assert code == 1 and r["refusals"] == 0
    assert r["classes"] == 1 and r["failures"] == count
    (cls,) = r["failure_classes"]
    assert (cls["class"], cls["count"]) == (key, count)
    assert cls["smallest"]["what"] == smallest
    assert len(cls["smallest"]["request"]["moves"]) <= 2


def test_the_same_client_on_aarch64_with_x16_and_x17():
    """aarch64 has no swap and no constant store: integer cycles park in
    x16, constants for slots are built there (the aarch64 profile's
    scratch: x16, x17, v31, m7)."""
    temps = ["--temps", "x16", "x17", "v31", "m7"]
    code, r, _ = conform_json("--cmd", client(), "--machine", "aarch64", "--max-moves", "2",
                              *temps)
    assert code == 0, r.get("failure_classes") or r.get("refusal_report")
    assert r["planned"] == r["correct"] == 6009 and r["refused_unsolvable"] == 0
    assert r["failures"] == r["refusals"] == 0
    code, r, _ = conform_json("--cmd", client("parked-scratch"), "--machine", "aarch64",
                              "--max-moves", "2", *temps)
    assert code == 1 and r["classes"] == 1
    assert [(c["class"], c["count"], c["smallest"]["what"]) for c in r["failure_classes"]] == [
        (BUGS["parked-scratch"][0], 2, "(m0 <- m1 (f32), m1 <- m0 (f32))")]


def test_four_planted_bugs_are_four_classes():
    code, r, _ = conform_json("--cmd", client(*BUGS), "--machine", "x86-64",
                              "--max-moves", "2")
    assert code == 1 and r["classes"] == 4
    got = {c["class"]: (c["count"], c["smallest"]["what"]) for c in r["failure_classes"]}
    # a case that fails two ways is counted once, in the class of its first
    # mistake: the 8 pair shifts beside a wide constant for a slot are illegal
    # operations first (wide-imm counts them alone too)
    together = {"pair-order": 99}
    assert got == {key: (together.get(bug, count), smallest)
                   for bug, (key, count, smallest) in BUGS.items()}
