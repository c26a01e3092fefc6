"""The kits' machine parsers (kits/c/verified_protocol.h ``vp_machine``,
kits/rust/verified_protocol.rs ``MachineDesc``): the machine object a
request carries, read into structs so that an adapter writes no JSON code.

``reader_driver machine`` (C and Rust: one golden table) prints what the parser built (fields, classes,
groups, aliases, types, pair moves, every place with its units by name,
and for each move whether its type is known and its ends overlap).  The
dump of every preset and of every small machine conform sends is compared
with what verified's own machine model says (``verified.core.machine``:
the same places, widths and units), so the kit cannot drift from the
oracle; the round-3 fields (types, unit_bits, immediate_bits, pair_moves,
reserved, scratch) and hostile machines are pinned by golden lines.  The C
driver runs under ASan and UBSan where the compiler has them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verified.cases import machines as G
from verified.core import machine as M

from tests.kits.support import run


def feed(driver, lines: list[bytes]) -> list[str]:
    data = b"".join(line + b"\n" for line in lines)
    return run([str(driver), "machine"], data).stdout.decode("ascii").splitlines()


def text(s: str) -> str:
    """The driver's byte escaping (printable ASCII as is, \\ doubled)."""
    out = []
    for b in s.encode():
        out.append("\\\\" if b == 0x5C else chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}")
    return "".join(out)


def expected_dump(m: M.Machine, moves: list = ()) -> list[str]:
    """What the driver must print for machine ``m``, from verified's model."""
    obj = m.to_json()
    j = ",".join
    stack = obj.get("stack", [])
    # the round-3 fields as the machine's JSON states them (absent: the
    # kits' defaults), so this holds before and after the typed oracle lands
    bits = obj.get("immediate_bits", {})
    opt = lambda v: "-" if v is None else v
    lines = [f"machine name={text(m.name)} swap={j(m.swap)} mem_to_mem={int(m.mem_to_mem)} "
             f"immediate_to={j(m.immediate_to)} cross_class={int(m.cross_class)} "
             f"cost={m.cost.mov},{m.cost.load},{m.cost.store},{m.cost.swap},{m.cost.imm} "
             f"unit_bits={opt(obj.get('unit_bits'))} immediate_bits_reg={opt(bits.get('reg'))} "
             f"immediate_bits_mem={opt(bits.get('mem'))} reserved={j(obj.get('reserved', []))} "
             f"scratch={j(obj.get('scratch', []))} "
             f"units={len(m.units())} source={text(m.source)}"]
    for c in m.classes:
        swap = m.swap if c.swap is None else c.swap
        lines.append(f"class {c.name} width={c.width} immediate={int(c.immediate)} "
                     f"swap={j(swap)} registers={j(c.registers)}")
    for i, g in enumerate(stack):
        lines.append(f"group {i} width={g['width']} immediate={int(g.get('immediate', True))} "
                     f"slots={j(g['names'])}")
    for a, parts in m.aliases:
        lines.append(f"alias {a} parts={j(parts)}")
    for t, e in obj.get("types", {}).items():
        lines.append(f"type {t} width={e.get('width', 1)} stack={int(e.get('stack', True))} "
                     f"classes={j(e.get('classes', []))} found=1")
    for p in obj.get("pair_moves", []):
        lines.append(f"pair {p['pair']} with={p['with']}")
    classes = [c.name for c in m.classes]
    for name in m.names():
        r = m.lookup(name)
        if r.kind == "reg":
            where = f"reg cls={classes.index(r.cls)} group=-1"
        else:
            where = f"mem cls=-1 group={next(i for i, g in enumerate(stack) if name in g['names'])}"
        lines.append(f"place {name} {where} width={r.width} found=1 units={j(r.units)}")
    for d, s in moves:
        ds, ss = (set(M.units(m, M.parse_loc(m, x))) if not isinstance(x, dict) else set()
                  for x in (d, s))
        show = lambda x: f'"{x}"' if isinstance(x, str) else (
            f"{{imm {x['imm']}}}" if isinstance(x, dict) else "[" + ", ".join(f'"{p}"' for p in x) + "]")
        lines.append(f"move {show(d)} <- {show(s)} type=- known=1 overlap={int(bool(ds & ss))}")
    return lines + ["end"]


#: a frame whose 16-byte slots are aliases over its 8-byte ones (issue 23)
X64_FRAME = Path(__file__).resolve().parents[2] / "mutants" / "data" / "x64-frame.json"


def machines() -> list[tuple[str, M.Machine]]:
    out = []
    for name in M.PRESETS:
        m = M.preset(name)
        out += [(name, m), (f"{name}/small", G.small_machine(m)[0])]
    frame = M.machine(json.loads(X64_FRAME.read_text()))
    return out + [("x64-frame", frame), ("x64-frame/small", G.small_machine(frame)[0])]


@pytest.mark.parametrize("name, m", machines(), ids=[n for n, _ in machines()])
def test_every_preset_and_small_machine_reads_as_verified_models_it(driver, name, m):
    """Places, widths, units (aliases resolved: armv7-vfp's q0 = s0..s3),
    classes' effective swaps, groups, costs: all as verified.core.machine."""
    moves = []
    regs = m.registers()
    if len(regs) >= 2:
        moves.append([regs[0], regs[1]])
    alias = next((a for a, _ in m.aliases), None)
    if alias:  # a self-move overlaps itself
        moves.append([alias, alias])
    moves.append([m.slots()[0], {"imm": 7}] if m.slots() else [regs[0], {"imm": 7}])
    req = {"machine": m.to_json(), "moves": moves, "temps": []}
    assert feed(driver, [json.dumps(req).encode()]) == expected_dump(m, moves)


def test_aliases_overlap_by_units(driver):
    """vp_overlap: d0 overlaps s1 (its high half) and q0, not s2's neighbour d1."""
    m = M.preset("armv7-vfp")
    moves = [["s1", "d0"], ["q0", "d1"], ["d1", "d0"], [["r0", "r1"], ["r1", "r2"]],
             ["m0", "m1"], ["r3", {"imm": 1}]]
    out = feed(driver, [json.dumps({"machine": m.to_json(), "moves": moves}).encode()])
    assert [x for x in out if x.startswith("move ")] == [
        'move "s1" <- "d0" type=- known=1 overlap=1',
        'move "q0" <- "d1" type=- known=1 overlap=1',
        'move "d1" <- "d0" type=- known=1 overlap=0',
        'move ["r0", "r1"] <- ["r1", "r2"] type=- known=1 overlap=1',
        'move "m0" <- "m1" type=- known=1 overlap=0',
        'move "r3" <- {imm 1} type=- known=1 overlap=0',
    ]


#: A round-3 machine (docs/machines.md and the typed wire form): every field
#: the oracle on main does not know yet parses, and an unknown one is skipped.
TYPED = {
    "name": "typed", "unit_bits": 64,
    "classes": {"gpr": {"registers": ["rax", "rbx", "r11", "rsp"]},
                "xmm": {"registers": ["xmm0", "xmm15"], "width": 2, "swap": [], "immediate": False}},
    "stack": [{"names": ["m0", "m1"], "width": 1}, {"slots": 1, "width": 2, "immediate": False}],
    "swap": ["reg-reg", "reg-mem"], "immediate_to": ["reg", "mem"],
    "cost": {"mov": 1, "load": 3, "store": 2, "swap": 2, "imm": 1, "push": 9},
    "types": {"i64": {"width": 1, "classes": ["gpr", "xmm"]},
              "f64": {"width": 1, "classes": ["xmm", "gpr"], "stack": True},
              "v128": {"width": 2, "classes": ["xmm"], "stack": False}},
    "immediate_bits": {"reg": 64, "mem": 32},
    "pair_moves": [{"pair": "gpr", "with": "mem"}],
    "reserved": ["rsp"], "scratch": ["r11", "xmm15", "m1"],
    "push": {"reg": True}, "future": [1, {"x": None}],
}


def test_round_3_fields_parse(driver):
    req = {"machine": TYPED, "moves": [["xmm0", "m0", "f64"], ["rax", {"imm": 7}, "i64"],
                                       ["rbx", "rax", "u8"], ["m0", "m1"]]}
    assert feed(driver, [json.dumps(req).encode()]) == [
        "machine name=typed swap=reg-reg,reg-mem mem_to_mem=0 immediate_to=reg,mem cross_class=0 "
        "cost=1,3,2,2,1 unit_bits=64 immediate_bits_reg=64 immediate_bits_mem=32 reserved=rsp "
        "scratch=r11,xmm15,m1 units=12 source=",
        "class gpr width=1 immediate=1 swap=reg-reg,reg-mem registers=rax,rbx,r11,rsp",
        "class xmm width=2 immediate=0 swap= registers=xmm0,xmm15",
        "group 0 width=1 immediate=1 slots=m0,m1",
        "group 1 width=2 immediate=0 slots=s0",
        "type i64 width=1 stack=1 classes=gpr,xmm found=1",
        "type f64 width=1 stack=1 classes=xmm,gpr found=1",
        "type v128 width=2 stack=0 classes=xmm found=1",
        "pair gpr with=mem",
        "place rax reg cls=0 group=-1 width=1 found=1 units=rax",
        "place rbx reg cls=0 group=-1 width=1 found=1 units=rbx",
        "place r11 reg cls=0 group=-1 width=1 found=1 units=r11",
        "place rsp reg cls=0 group=-1 width=1 found=1 units=rsp",
        "place xmm0 reg cls=1 group=-1 width=2 found=1 units=xmm0.0,xmm0.1",
        "place xmm15 reg cls=1 group=-1 width=2 found=1 units=xmm15.0,xmm15.1",
        "place m0 mem cls=-1 group=0 width=1 found=1 units=m0",
        "place m1 mem cls=-1 group=0 width=1 found=1 units=m1",
        "place s0 mem cls=-1 group=1 width=2 found=1 units=s0.0,s0.1",
        'move "xmm0" <- "m0" type=f64 known=1 overlap=0',
        'move "rax" <- {imm 7} type=i64 known=1 overlap=0',
        'move "rbx" <- "rax" type=u8 known=0 overlap=0',
        'move "m0" <- "m1" type=- known=1 overlap=0',
        "end",
    ]


def test_round_3_fields_are_absent_tolerant(driver):
    """A round-2 machine (no round-3 field) reads with the defaults."""
    out = feed(driver, [b'{"machine": {"classes": {"g": {"registers": ["a"]}}}, "moves": []}'])
    assert out == ["machine name=machine swap= mem_to_mem=0 immediate_to=reg cross_class=0 "
                   "cost=1,1,1,1,1 unit_bits=- immediate_bits_reg=- immediate_bits_mem=- "
                   "reserved= scratch= units=1 source=",
                   "class g width=1 immediate=1 swap= registers=a",
                   "place a reg cls=0 group=-1 width=1 found=1 units=a", "end"]


def bad(machine: str) -> bytes:
    return b'{"id": 1, "moves": [], "machine": ' + machine.encode() + b"}"


#: (name, machine JSON, the error the driver prints)
HOSTILE = [
    ("no_classes", '{"name": "x"}',
     '"machine": missing "classes": {"NAME": {"registers": [...], "width": W}, ...}'),
    ("classes_list", '{"classes": []}', '"machine": "classes" must be an object of classes'),
    ("class_not_object", '{"classes": {"g": 3}}', "\"machine\": class 'g' must be an object"),
    ("no_registers", '{"classes": {"g": {}}}',
     "\"machine\": class 'g' needs \"registers\": a list of names"),
    ("empty_registers", '{"classes": {"g": {"registers": []}}}',
     "\"machine\": class 'g': \"registers\" must be a non-empty list of names"),
    ("register_number", '{"classes": {"g": {"registers": [1]}}}',
     "\"machine\": class 'g': \"registers\"[0] must be a non-empty string without \\\\u0000"),
    ("register_nul", '{"classes": {"g": {"registers": ["a\\u0000b"]}}}',
     "\"machine\": class 'g': \"registers\"[0] must be a non-empty string without \\\\u0000"),
    ("width_zero", '{"classes": {"g": {"registers": ["a"], "width": 0}}}',
     "\"machine\": class 'g': \"width\" 0 is out of range 1..65536"),
    ("width_float", '{"classes": {"g": {"registers": ["a"], "width": 1.5}}}',
     "\"machine\": class 'g': \"width\" must be an integer, not 1.5"),
    ("width_string", '{"classes": {"g": {"registers": ["a"], "width": "2"}}}',
     "\"machine\": class 'g': \"width\" must be a whole number in 1..65536"),
    ("width_huge", '{"classes": {"g": {"registers": ["a"], "width": 99999999999999999999999}}}',
     "\"machine\": class 'g': \"width\" 99999999999999999999999 is out of range 1..65536"),
    ("duplicate_key", '{"classes": {"g": {"registers": ["a"]}}, "swap": [], "swap": []}',
     '"machine": "swap" appears twice'),
    ("duplicate_name", '{"classes": {"g": {"registers": ["a", "b"]}, "h": {"registers": ["b"]}}}',
     "\"machine\": 'b' is declared twice"),
    ("slot_clash", '{"classes": {"s": {"registers": ["s0"]}}, "stack": {"slots": 1}}',
     "\"machine\": 's0' is declared twice"),
    ("flag_not_bool", '{"classes": {"g": {"registers": ["a"]}}, "mem_to_mem": 1}',
     '"machine": "mem_to_mem" must be true or false'),
    ("stack_both", '{"classes": {"g": {"registers": ["a"]}}, "stack": {"slots": 1, "names": ["m"]}}',
     '"machine": "stack" needs exactly one of "slots": N or "names": [...]'),
    ("stack_number", '{"classes": {"g": {"registers": ["a"]}}, "stack": 4}',
     '"machine": "stack" must be an object or a list of objects'),
    ("too_many_slots", '{"classes": {"g": {"registers": ["a"]}}, "stack": {"slots": 65536, "width": 2}}',
     '"machine": declares more than 65536 units'),
    ("too_many_units", '{"classes": {"g": {"registers": ["a", "b"], "width": 40000}}}',
     '"machine": declares more than 65536 units'),
    ("alias_not_register", '{"classes": {"g": {"registers": ["a"]}}, "aliases": {"d": ["a"]}}',
     "\"machine\": alias 'd' is not a register of any class"),
    ("alias_bad_part", '{"classes": {"g": {"registers": ["a"]}, "d": {"registers": ["d0"]}}, "aliases": {"d0": ["z"]}}',
     "\"machine\": alias 'd0': part 'z' is not a register of any class"),
    ("alias_width", '{"classes": {"g": {"registers": ["a", "b"]}, "d": {"registers": ["d0"], "width": 3}}, "aliases": {"d0": ["a", "b"]}}',
     "\"machine\": alias 'd0': its parts have width 2 but its class says 3"),
    ("alias_overlap", '{"classes": {"g": {"registers": ["a"]}, "d": {"registers": ["d0"], "width": 2}}, "aliases": {"d0": ["a", "a"]}}',
     "\"machine\": alias 'd0': its parts overlap"),
    ("alias_cycle", '{"classes": {"g": {"registers": ["a", "b"]}}, "aliases": {"a": ["b"], "b": ["a"]}}',
     "\"machine\": alias 'b' contains itself"),
    ("slot_alias_register_part", '{"classes": {"g": {"registers": ["a"]}}, "stack": [{"names": ["m0"]}, {"names": ["mq0"], "width": 2}], "aliases": {"mq0": ["m0", "a"]}}',
     "\"machine\": alias 'mq0' is a stack slot, so its parts are slots, but 'a' is not one"),
    ("slot_alias_width", '{"classes": {"g": {"registers": ["a"]}}, "stack": [{"names": ["m0"]}, {"names": ["mq0"], "width": 2}], "aliases": {"mq0": ["m0"]}}',
     "\"machine\": alias 'mq0': its parts have width 1 but its stack group says 2"),
    ("alias_self", '{"classes": {"g": {"registers": ["a"]}}, "aliases": {"a": ["a"]}}',
     "\"machine\": alias 'a' contains itself"),
    ("type_unknown_class", '{"classes": {"g": {"registers": ["a"]}}, "types": {"f64": {"classes": ["xmm"]}}}',
     "\"machine\": type 'f64': 'xmm' is not a class of this machine"),
    ("types_list", '{"classes": {"g": {"registers": ["a"]}}, "types": []}',
     '"machine": "types" must be an object {"f64": {"width": 1, "classes": [...]}, ...}'),
    ("reserved_unknown", '{"classes": {"g": {"registers": ["a"]}}, "reserved": ["rsp"]}',
     "\"machine\": \"reserved\": 'rsp' is not a register or slot of this machine"),
    ("scratch_not_list", '{"classes": {"g": {"registers": ["a"]}}, "scratch": "a"}',
     '"machine": "scratch" must be a list of names'),
    ("unit_bits_zero", '{"classes": {"g": {"registers": ["a"]}}, "unit_bits": 0}',
     '"machine": "unit_bits" 0 is out of range 1..65536'),
    ("immediate_bits_list", '{"classes": {"g": {"registers": ["a"]}}, "immediate_bits": [64]}',
     '"machine": "immediate_bits" must be an object {"reg": BITS, "mem": BITS}'),
    ("pair_move_half", '{"classes": {"g": {"registers": ["a"]}}, "pair_moves": [{"pair": "g"}]}',
     '"machine": pair move #0 needs "pair" and "with"'),
    ("cost_negative", '{"classes": {"g": {"registers": ["a"]}}, "cost": {"mov": -1}}',
     '"machine": "cost": "mov" -1 is out of range 0..65536'),
]


@pytest.mark.parametrize("name, machine, want", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_machines_get_one_clear_error(driver, name, machine, want):
    assert feed(driver, [bad(machine)]) == [f"error id=1 line 1: {want}"]


def test_hostile_machine_stream_goes_on(driver):
    """Every hostile machine in one stream, then a good line: each gets its
    error, and the reader goes on."""
    lines = [bad(machine) for _, machine, _ in HOSTILE]
    lines.append(b'{"machine": {"classes": {"g": {"registers": ["a"]}}}, "moves": []}')
    out = feed(driver, lines)
    assert out[:len(HOSTILE)] == [f"error id=1 line {i + 1}: {want}"
                                  for i, (_, _, want) in enumerate(HOSTILE)]
    assert out[-1] == "end"


def test_long_alias_chains_and_big_machines_need_no_recursion(driver):
    """20,000 aliases each the next one's part (a chain, resolved with an
    explicit stack), listed in the worst order; 40,000 slots; a cycle through
    all of them."""
    n = 20_000
    classes = {f"c{i}": {"registers": [f"r{i}"]} for i in range(n)}
    aliases = {f"r{i}": [f"r{i + 1}"] for i in range(n - 1)}
    m = {"classes": classes, "aliases": aliases, "stack": {"slots": 40_000}}
    out = feed(driver, [json.dumps({"machine": m, "moves": [["r0", "r19999"]]}).encode()])
    assert out[0].startswith("machine name=machine ") and " units=40001 " in out[0]
    assert f"place r0 reg cls=0 group=-1 width=1 found=1 units=r{n - 1}" in out
    assert out[-2] == 'move "r0" <- "r19999" type=- known=1 overlap=1'
    aliases[f"r{n - 1}"] = ["r0"]
    out = feed(driver, [json.dumps({"id": 1, "machine": {"classes": classes, "aliases": aliases},
                                      "moves": []}).encode()])
    assert out[0].startswith("error id=1 line 1: \"machine\": alias '") and out[0].endswith(
        "' contains itself")
