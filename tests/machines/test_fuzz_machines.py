"""Hostile machine requests: Hypothesis throws wrong types, malformed
machine objects (odd widths, aliases of aliases, cycles, names that clash),
unknown names, lists, immediates and random sequences at ``verified check``'s
serving loop.  The property: exactly one answer per line, strict JSON; a
bad line gets ``{"error": "line 1: ..."}``; a verdict is ``ok`` true or
false; our own bugs ("internal error") never happen; and a known-good
machine request after the hostile line is still answered correctly."""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified.tools import check
from verified.tools.wire import serve

GOOD = {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
        "sequence": [["swap", "rax", "m0"], ["swap", "rax", "m1"], ["swap", "rax", "m0"]]}

NAMES = ["a", "b", "c", "d0", "d1", "s0", "s1", "m0", "m1", "rax", "x0", "a0", "a1", "q0",
         "", "a.0", "1a", "#1"]
scalars = st.one_of(st.integers(-3, 5), st.integers(2**60, 2**70), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(NAMES))
names = st.sampled_from(NAMES)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES + ["imm"]), inner,
                                                 max_size=3)), max_leaves=8)

widths = st.one_of(st.integers(0, 4), json_values)
klass = st.fixed_dictionaries({"registers": st.one_of(st.lists(names, max_size=4), json_values)},
                              optional={"width": widths, "swap": st.one_of(
                                  st.lists(st.sampled_from(["reg-reg", "reg-mem", "x"]),
                                           max_size=2), json_values),
                                  "immediate": st.one_of(st.booleans(), json_values)})
stack_group = st.fixed_dictionaries({}, optional={
    "slots": st.one_of(st.integers(-1, 3), json_values),
    "names": st.one_of(st.lists(names, max_size=3), json_values), "width": widths,
    "immediate": st.booleans()})
machines = st.one_of(
    st.sampled_from(["x86-64", "aarch64", "riscv64", "armv7-vfp", "z80", ""]),
    json_values,
    st.fixed_dictionaries(
        {"classes": st.one_of(st.dictionaries(st.sampled_from(["g", "f", "d"]), klass,
                                              max_size=3), json_values)},
        optional={"aliases": st.one_of(st.dictionaries(names, st.lists(names, max_size=3),
                                                       max_size=3), json_values),
                  "stack": st.one_of(stack_group, st.lists(stack_group, max_size=2), json_values),
                  "swap": st.lists(st.sampled_from(["reg-reg", "reg-mem"]), max_size=2),
                  "mem_to_mem": st.one_of(st.booleans(), json_values),
                  "immediate_to": st.lists(st.sampled_from(["reg", "mem", "x"]), max_size=2),
                  "cross_class": st.booleans(),
                  "cost": st.one_of(st.dictionaries(st.sampled_from(
                      ["mov", "load", "store", "swap", "imm", "x"]), st.integers(-1, 3),
                      max_size=3), json_values),
                  "name": st.one_of(names, json_values)}))
locs = st.one_of(names, st.lists(names, max_size=3), st.fixed_dictionaries(
    {"imm": st.one_of(st.integers(-5, 5), json_values)}), json_values)
ops = st.one_of(st.tuples(st.sampled_from(["mov", "swap", "perm", "load"]), locs, locs).map(list),
                json_values)
requests = st.fixed_dictionaries(
    {"machine": machines, "moves": st.one_of(st.lists(st.tuples(locs, locs).map(list),
                                                      max_size=3), json_values),
     "sequence": st.one_of(st.lists(ops, max_size=4), json_values)},
    optional={"temps": st.one_of(st.lists(locs, max_size=2), json_values),
              "preserve": st.sampled_from(["all", "loops", "all", "some"]),
              "id": json_values})

#: names that exist on some presets and not on others
POOL = {"x86-64": ["rax", "rbx", "rcx", "m0", "m1", "xmm0", "xmm1", "mw0", "mw1", "a0"],
        "aarch64": ["x0", "x1", "x2", "m0", "m1", "v0", "v1", "mw0", "rax"],
        "riscv64": ["a0", "a1", "a2", "fa0", "fa1", "m0", "m1", "s0", "x0"],
        "armv7-vfp": ["s0", "s1", "s2", "s3", "d0", "d1", "d16", "q0", "q8", "r0", "m0",
                      "md0", "mq0"]}


@st.composite
def plausible(draw):
    """Mostly well-formed requests on a preset, so most lines reach the
    verdict: names of that preset (and a few of another), pairs,
    immediates, legal and illegal operations."""
    name = draw(st.sampled_from(sorted(POOL)))
    pool = st.sampled_from(POOL[name])
    loc = st.one_of(pool, pool, pool, st.lists(pool, min_size=2, max_size=2, unique=True))
    src = st.one_of(loc, st.builds(lambda k: {"imm": k}, st.integers(-2, 2)))
    op = st.one_of(st.tuples(st.just("mov"), loc, src).map(list),
                   st.tuples(st.just("swap"), loc, loc).map(list))
    return {"machine": name, "moves": draw(st.lists(st.tuples(loc, src).map(list), max_size=3)),
            "temps": draw(st.lists(pool, max_size=1)),
            "preserve": draw(st.sampled_from(["all", "loops"])),
            "sequence": draw(st.lists(op, max_size=5))}


def served(obj: object) -> list[dict]:
    data = (json.dumps(obj) + "\n" + json.dumps(GOOD) + "\n").encode()
    out = io.StringIO()
    serve(io.BytesIO(data), out, check._handle_check)
    return [json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            for line in out.getvalue().splitlines()]


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(requests, plausible()))
def test_hostile_machine_requests_get_one_clean_answer(obj):
    answers = served(obj)
    assert len(answers) == 2
    first, good = answers
    if "error" in first:
        assert first["error"].startswith("line 1: ")
        assert "internal error" not in first["error"], first["error"]
    else:
        assert first["ok"] in (True, False) and isinstance(first["length"], int)
        assert "optimal" in first
    good.pop("optimal", None)
    good.pop("optimal_note", None)
    assert good == {"ok": True, "length": 3, "cost": 3}
