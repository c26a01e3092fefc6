"""The machine case generator (verified/cases/machines.py): the small
machine of every preset (pinned), every generated case a valid request
(MachineMove.make accepts it, with the temporaries), exhaustive counts and
distinctness, reproducible random streams, and shrink candidates that are
smaller valid cases keeping each location's kind, class and shape."""

from __future__ import annotations

import random

import pytest

from verified.cases import machines as G
from verified.core import machine as M

#: the small machine of each preset: its sites and scratch registers, and
#: the number of cases of at most 1, 2 and 3 moves over them
SMALL = {
    "x86-64": ("rax rcx rdx xmm0 xmm1 [rax, rcx] [rcx, rdx] m0 m1 mw0 mw1 #7",
               ("r15", "xmm15"), (57, 1395, 19463)),
    "aarch64": ("x0 x1 x2 v0 v1 [x0, x1] [x1, x2] m0 m1 mw0 mw1 #7",
                ("x30", "v31"), (57, 1395, 19463)),
    "riscv64": ("ra t0 t1 ft0 ft1 [ra, t0] [t0, t1] m0 m1 #7",
                ("t6", "ft11"), (63, 1647, 23407)),
    "armv7-vfp": ("r0 r1 r2 s0 s1 s2 s3 d0 d1 d16 d17 q0 q8 [r0, r1] [r1, r2] m0 m1 md0 md1 "
                  "mq0 mq1 #7", ("r12", "s31", "d31"), (159, 11236, 471606)),
}


def small(name: str):
    m, temps = G.small_machine(M.preset(name))
    return m, temps, G.sites(m, temps)


@pytest.mark.parametrize("name", M.PRESETS)
def test_small_machine_of_each_preset(name):
    m, temps, sites = small(name)
    want_sites, want_temps, counts = SMALL[name]
    assert " ".join(str(s.loc) for s in sites) == want_sites
    assert temps == want_temps
    assert tuple(G.exhaustive_count(sites, k) for k in (1, 2, 3)) == counts
    full = M.preset(name)
    # everything but the registers and slots is the preset's
    for field in ("swap", "mem_to_mem", "immediate_to", "cross_class", "cost"):
        assert getattr(m, field) == getattr(full, field)
    for c in m.classes:
        assert c.width == full.class_info(c.name).width
        assert c.swap == full.class_info(c.name).swap


@pytest.mark.parametrize("name", M.PRESETS)
def test_every_exhaustive_case_is_a_valid_distinct_request(name):
    m, temps, sites = small(name)
    cases = list(G.exhaustive_cases(sites, 2))
    assert len(cases) == len(set(cases)) == G.exhaustive_count(sites, 2)
    for c in cases:
        mm = M.MachineMove.make(m, G.moves_json(c), list(temps))
        assert mm.moves == c.moves


def test_every_assignment_without_a_bound():
    m, temps, sites = small("x86-64")
    few = [s for s in sites if str(s.loc) in ("rax", "rcx", "m0", "xmm0", "#7")]
    cases = list(G.exhaustive_cases(few, None))
    # rax, rcx, m0: none or one of 4 sources each; xmm0: none, xmm0 or #7
    assert len(cases) == G.exhaustive_count(few, None) == 5 ** 3 * 3
    for c in cases:
        M.MachineMove.make(m, G.moves_json(c), list(temps))


@pytest.mark.parametrize("name", M.PRESETS)
def test_random_cases_are_valid_and_reproducible(name):
    m = M.preset(name)
    temps = G.scratch_registers(m)
    sites = G.sites(m, temps)
    a = G.random_cases(sites, 300, 5, name)
    assert a == G.random_cases(sites, 300, 5, name) != G.random_cases(sites, 300, 6, name)
    for c in a:
        M.MachineMove.make(m, G.moves_json(c), list(temps))
    kinds = {M.kind(m, s) for c in a for _, s in c.moves}
    assert kinds == {"reg", "mem", "imm"}
    assert any(d.is_list for c in a for d, _ in c.moves)


@pytest.mark.parametrize("name", M.PRESETS)
def test_shrink_candidates_keep_kind_class_and_shape(name):
    m = M.preset(name)
    temps = G.scratch_registers(m)
    sites = G.sites(m, temps)
    info = {s.loc: s for s in sites}
    rng = random.Random(1)
    for case in G.random_cases(sites, 60, rng.random(), name):
        for cand in G.shrink_candidates(case, sites):
            assert G.size(cand, sites) < G.size(case, sites)
            M.MachineMove.make(m, G.moves_json(cand), list(temps))
            # every location is one of the case's, or a rename to the same kind/class/shape
            old = {x for mv in case.moves for x in mv}
            for x in {x for mv in cand.moves for x in mv} - old:
                assert any((info[x].kind, info[x].cls, info[x].shape)
                           == (info[y].kind, info[y].cls, info[y].shape) for y in old)


def test_shrink_candidates_golden():
    m, temps, sites = small("x86-64")
    P = lambda *names: M.Place(names, len(names) > 1)  # noqa: E731
    case = G.MachineCase(((P("rcx"), P("rax")), (P("rdx"), P("rcx")), (P("m1"), P("m0"))))
    got = [G.format_case(c) for c in G.shrink_candidates(case, sites)]
    # fewest moves first: dropping rcx's moves, dropping one move, routing
    # around rcx (rdx reads rax); no rename (rax, rcx and m0 are taken)
    assert got == ["(m1 <- m0)", "(rcx <- rax, rdx <- rcx)", "(rcx <- rax, m1 <- m0)",
                   "(rdx <- rax, m1 <- m0)", "(rdx <- rcx, m1 <- m0)"]
    renamed = G.shrink_candidates(G.MachineCase(((P("rdx"), P("m1")),)), sites)
    assert [G.format_case(c) for c in renamed] == ["()", "(rax <- m1)", "(rdx <- m0)"]


@pytest.mark.parametrize("name", M.PRESETS)
def test_every_alias_relation_of_the_preset_has_a_representative(name):
    """Every alias shape of the preset (a register's width and its parts'
    shapes: armv7-vfp's s, d over two s, d16+ with no s halves, q over two
    such d, q8+ over two plain d) is a register of the small machine, with
    its parts; and every slot width is there."""
    full = M.preset(name)
    m, _, _ = small(name)
    for c in full.classes:
        want = {G.alias_shape(full, r) for r in c.registers}
        have = {G.alias_shape(m, r) for r in m.registers(c.name)}
        assert want <= have, (c.name, want - have)
    assert {g.width for g in full.stack} == {g.width for g in m.stack}
    for a, parts in m.aliases:  # the small machine's aliases are the preset's
        assert dict(full.aliases)[a] == parts


def test_the_armv7_small_machine_has_each_alias_shape():
    m, _, _ = small("armv7-vfp")
    aliases = dict(m.aliases)
    assert aliases["d0"] == ("s0", "s1") and aliases["d1"] == ("s2", "s3")
    assert "d16" not in aliases and "d16" in m.registers("d")
    assert aliases["q0"] == ("d0", "d1") and aliases["q8"] == ("d16", "d17")
    assert [g.width for g in m.stack] == [1, 2, 4]


def test_a_class_given_no_registers_has_no_scratch_and_the_classes_after_it_do():
    """``first_class=0``: the small machine of the other classes only, each
    with its scratch register (the first class is skipped, not the end of
    the scratch search)."""
    for name, want in (("x86-64", ("xmm15",)), ("armv7-vfp", ("s31", "d31"))):
        m, temps = G.small_machine(M.preset(name), first_class=0)
        assert temps == want
        assert M.preset(name).classes[0].name not in {c.name for c in m.classes}


#: (moves, of which an immediate source) in the first 1,000 random typed
#: cases of each preset, seed 5: one source in ten is the immediate where
#: a class of the type takes one (about 8 to 10 % of all sources)
RANDOM_TYPED_IMMEDIATES = {"x86-64": (6341, 547), "aarch64": (6451, 510),
                           "riscv64": (6477, 647), "armv7-vfp": (6246, 532)}


@pytest.mark.parametrize("name", M.PRESETS)
def test_random_typed_cases_take_an_immediate_source_one_time_in_ten(name):
    m = M.preset(name)
    temps = tuple(getattr(m, "scratch", ())) or G.scratch_registers(m)
    space = G.typed_space(m)
    sites = G.typed_sites(m, space, temps)
    cases = [c for _, c in zip(range(1000), G.random_typed_case_stream(m, sites, space, 5, name))]
    moves = [mv for c in cases for mv in c.moves]
    imms = sum(isinstance(mv[1], M.Imm) for mv in moves)
    assert (len(moves), imms) == RANDOM_TYPED_IMMEDIATES[name]
    assert 0.05 < imms / len(moves) < 0.11
