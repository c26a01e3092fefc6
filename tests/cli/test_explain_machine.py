"""`verified explain` on machine requests and machine conform reports:
golden outputs (units per location, the state of each unit after every
operation, the first value destroyed, the operations the machine lacks,
the verdict `verified check` gives), and the per-unit "first value
destroyed" finder checked against its definition on a random corpus,
shown to reject every mutant of ``mutants/explain.py``
(``MACHINE_MUTANTS``)."""

from __future__ import annotations

import json
import random
import shlex
import sys

import pytest

import mutants
from mutants.explain import MACHINE_MUTANTS
from verified.cases import machines as G
from verified.core import machine as M
from verified.tools import explain as E
from verified.tools.wire import parse_any

from tests.support import conform_json_once, verified

SCRATCH_REUSED = """\
machine:  x86-64
move:     (m0 <- m1, m1 <- m0)
contract: preserve "all": each destination unit gets its source's original value (or the immediate's piece), every other unit of the machine keeps its own; temporaries: r15, xmm15

units per location (low unit first):
  m0: m0
  m1: m1
  r15: r15
  xmm15: xmm15.0 xmm15.1

state after each operation (each cell: the original value the unit holds, a unit's name, an immediate's piece #k, or ? (undefined: the rest of a typed write); * = written by it; (!) = an operation the machine lacks):
  #  operation    m0   m1   r15  xmm15.0  xmm15.1
  -  start        m0   m1   r15  xmm15.0  xmm15.1
  0  mov r15, m0  m0   m1   m0*  xmm15.0  xmm15.1
  1  mov r15, m1  m0   m1   m1*  xmm15.0  xmm15.1
  2  mov m0, r15  m1*  m1   m1   xmm15.0  xmm15.1
  3  mov m1, r15  m1   m1*  m1   xmm15.0  xmm15.1
     must hold    m1   m0   any  any      any

first value destroyed: operation #2 (mov m0, r15) overwrote unit m0, the last copy of the original value of m0, which unit m1 must hold at the end
operations the machine lacks: none
verdict: WRONG: destination m1 (unit m1) must hold the original value of m0 but holds that of m1
oracle:  {"ok": false, "length": 4, "cost": 4, "reason": "destination m1 (unit m1) must hold the original value of m0 but holds that of m1", "counterexample": {"location": "m1", "unit": "m1", "expected": "m0", "got": "m1"}, "optimal": null, "optimal_note": "not computed: x86-64 has 64 units; the search covers machines of at most 8 units and the closed form does not apply to this request"}
"""

SWAP_SLOTS = """\
machine:  x86-64
move:     (m0 <- m1, m1 <- m0)
contract: preserve "all": each destination unit gets its source's original value (or the immediate's piece), every other unit of the machine keeps its own; temporaries: r15

units per location (low unit first):
  m0: m0
  m1: m1
  r15: r15

state after each operation (each cell: the original value the unit holds, a unit's name, an immediate's piece #k, or ? (undefined: the rest of a typed write); * = written by it; (!) = an operation the machine lacks):
  #  operation        m0   m1   r15
  -  start            m0   m1   r15
  0  swap m0, m1 (!)  m1*  m0*  r15
     must hold        m1   m0   any

first value destroyed: none (every needed value keeps a copy after each operation; the values end in the wrong places, or the sequence uses an operation the machine lacks)
operations the machine lacks:
  #0 (swap m0, m1): swap m0, m1 is a memory-to-memory swap, which x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)
verdict: WRONG: operation #0: swap m0, m1 is a memory-to-memory swap, which x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)
oracle:  {"ok": false, "length": 1, "reason": "operation #0: swap m0, m1 is a memory-to-memory swap, which x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)", "operation": 0, "optimal": null, "optimal_note": "not computed: x86-64 has 64 units; the search covers machines of at most 8 units and the closed form does not apply to this request"}
"""

PAIR_SHIFT = """\
machine:  riscv64
move:     ([t0, t1] <- [ra, t0])
contract: preserve "all": each destination unit gets its source's original value (or the immediate's piece), every other unit of the machine keeps its own; temporaries: none

units per location (low unit first):
  [t0, t1]: t0 t1
  [ra, t0]: ra t0

state after each operation (each cell: the original value the unit holds, a unit's name, an immediate's piece #k, or ? (undefined: the rest of a typed write); * = written by it; (!) = an operation the machine lacks):
  #  operation               ra  t0   t1
  -  start                   ra  t0   t1
  0  mov [t0, t1], [ra, t0]  ra  ra*  ra*
     must hold               ra  ra   t0

first value destroyed: operation #0 (mov [t0, t1], [ra, t0]) overwrote unit t0, the last copy of the original value of t0, which unit t1 must hold at the end
operations the machine lacks: none
verdict: WRONG: destination [t0, t1] (unit t1) must hold the original value of t0 but holds that of ra
oracle:  {"ok": false, "length": 1, "cost": 2, "reason": "destination [t0, t1] (unit t1) must hold the original value of t0 but holds that of ra", "counterexample": {"location": ["t0", "t1"], "unit": "t1", "expected": "t0", "got": "ra"}, "optimal": 2}
"""

#: the float-swap miscompile of issue 19: two spilled doubles swapped
#: through xmm15, whose parked value the slot-to-slot copy overwrites
FLOAT_SWAP = """\
machine:  x86-64
move:     (m0 <- m1 (f64), m1 <- m0 (f64))
contract: preserve "all": each destination unit gets its source's original value (or the immediate's piece), every other unit of the machine keeps its own; temporaries: xmm15

units per location (low unit first):
  m0: m0
  m1: m1
  xmm15: xmm15.0 xmm15.1

state after each operation (each cell: the original value the unit holds, a unit's name, an immediate's piece #k, or ? (undefined: the rest of a typed write); * = written by it; (!) = an operation the machine lacks):
  #  operation          m0   m1   xmm15.0  xmm15.1
  -  start              m0   m1   xmm15.0  xmm15.1
  0  mov.f64 xmm15, m0  m0   m1   m0*      ?*
  1  mov.f64 xmm15, m1  m0   m1   m1*      ?*
  2  mov.f64 m0, xmm15  m1*  m1   m1       ?
  3  mov.f64 m1, xmm15  m1   m1*  m1       ?
     must hold          m1   m0   any      any

first value destroyed: operation #2 (mov.f64 m0, xmm15) overwrote unit m0, the last copy of the original value of m0, which unit m1 must hold at the end
operations the machine lacks: none
verdict: WRONG: destination m1 (unit m1) must hold the original value of m0 but holds that of m1
oracle:  {"ok": false, "length": 4, "cost": 4, "reason": "destination m1 (unit m1) must hold the original value of m0 but holds that of m1", "counterexample": {"location": "m1", "unit": "m1", "expected": "m0", "got": "m1"}, "optimal": null, "optimal_note": "not computed: x86-64 has 64 units; the search covers machines of at most 8 units and the closed form does not apply to this request"}
"""

SLOTS = '{"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]], "temps": ["r15", "xmm15"]}'


@pytest.mark.parametrize("request_, sequence, golden", [
    (SLOTS, '[["mov", "r15", "m0"], ["mov", "r15", "m1"], ["mov", "m0", "r15"], '
     '["mov", "m1", "r15"]]', SCRATCH_REUSED),
    ('{"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]], "temps": ["r15"]}',
     '[["swap", "m0", "m1"]]', SWAP_SLOTS),
    ('{"machine": "riscv64", "moves": [[["t0", "t1"], ["ra", "t0"]]], "temps": []}',
     '[["mov", ["t0", "t1"], ["ra", "t0"]]]', PAIR_SHIFT),
    ('{"machine": "x86-64", "moves": [["m0", "m1", "f64"], ["m1", "m0", "f64"]], '
     '"temps": ["xmm15"]}',
     '[["mov", "xmm15", "m0", "f64"], ["mov", "xmm15", "m1", "f64"], '
     '["mov", "m0", "xmm15", "f64"], ["mov", "m1", "xmm15", "f64"]]', FLOAT_SWAP),
], ids=["scratch-reused", "swap-slots", "pair-shift", "typed-float-swap"])
def test_golden_machine_explanations(request_, sequence, golden):
    p = verified("explain", "--request", request_, "--sequence", sequence)
    assert (p.returncode, p.stderr) == (1, "")
    assert p.stdout == golden
    # the oracle line is what `verified check` answers for the same request
    check = verified("check", input=json.dumps({**json.loads(request_),
                                                "sequence": json.loads(sequence)}) + "\n")
    assert json.loads(golden.splitlines()[-1][len("oracle:  "):]) == json.loads(check.stdout)


def test_docs_show_the_real_output():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "explain.md").read_text()
    assert SWAP_SLOTS in doc


def test_a_typed_write_leaves_the_rest_of_its_destination_free():
    """An f64 written to xmm0 leaves xmm0.1 undefined (?): no unit must hold
    anything there, so nothing is destroyed and the sequence is right."""
    p = verified("explain", "--request", '{"machine": "x86-64", "moves": [["xmm0", "xmm1", '
                 '"f64"], ["m0", "xmm0", "f64"]], "temps": ["xmm15"]}',
                 "--sequence", '[["mov", "m0", "xmm0", "f64"], ["mov", "xmm0", "xmm1", "f64"]]')
    assert p.returncode == 0 and p.stderr == ""
    assert "  1  mov.f64 xmm0, xmm1  xmm1.0*  ?*      xmm1.0  xmm1.1  xmm0.0   xmm15.0  xmm15.1\n" \
        "     must hold           xmm1.0   any     xmm1.0  xmm1.1  xmm0.0   any      any\n" \
        in p.stdout
    assert "first value destroyed: none\n" in p.stdout


def test_a_right_sequence_on_aliases():
    p = verified("explain", "--request", '{"machine": "armv7-vfp", "moves": [["d0", "d16"], '
                 '["m0", "s1"]], "temps": []}',
                 "--sequence", '[["mov", "m0", "s1"], ["mov", "d0", "d16"]]')
    assert p.returncode == 0 and p.stderr == ""
    assert "  d0: s0 s1\n  d16: d16.0 d16.1\n" in p.stdout
    assert "first value destroyed: none\n" in p.stdout
    assert "verdict: RIGHT: the sequence implements the move (2 operation(s), cost 2; " \
           "optimum unknown)" in p.stdout


@pytest.mark.parametrize("args, message", [
    (["--request", SLOTS], 'no sequence to explain: add "sequence" to the request or give '
     '--sequence'),
    (["--dot", "--request", SLOTS], "--dot draws the transfer graph of a register request; "
     "a machine request has none yet"),
    (["--request", '{"machine": "x86-64", "moves": [["m0", "zz"]]}', "--sequence", "[]"],
     "move #0 [\"m0\", \"zz\"]: 'zz' is not a register or slot of x86-64"),
])
def test_bad_machine_input(args, message):
    p = verified("explain", *args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"verified explain: error: {message}\n"


def test_a_machine_conform_report_is_explained(tmp_path):
    """`conform --machine --json > report.json; explain report.json`: the
    smallest failing case, and each class's printed command, explained."""
    cmd = shlex.join([sys.executable, "-m", "mutants.serve", "scratch_reused_while_parked"])
    # the run test_conform_machines.py and test_conform_classes.py assert on
    code, r, _ = conform_json_once("--cmd", cmd, "--machine", "aarch64", "--max-moves", "2")
    assert code == 1
    report = tmp_path / "report.json"
    report.write_text(json.dumps(r))
    p = verified("explain", str(report))
    assert p.returncode == 1 and p.stderr == ""
    assert p.stdout.startswith("machine:  aarch64/small\nmove:     (m0 <- m1 (i32), m1 <- m0 (i32))\n")
    assert ("first value destroyed: operation #2 (mov.i32 m0, x16) overwrote unit m0, the last "
            "copy of the original value of m0, which unit m1 must hold at the end") in p.stdout
    [c] = r["failure_classes"]
    argv = shlex.split(c["smallest"]["explain"])
    assert argv[:2] == ["verified", "explain"]
    again = verified(*argv[1:])
    assert again.returncode == 1 and again.stdout == p.stdout


# ---------------------------------------------------------------------------
# The per-unit finder against its definition
# ---------------------------------------------------------------------------


def definition(mm: M.MachineMove, ops: list, preserve: str):
    """(index, the values lost there) of the first operation after which a
    needed value is held by no unit, run the plain way: each prefix through
    ``execute``; None when none is."""
    m = mm.machine
    everything = m.units()

    def held(state: dict) -> set:
        return {state.get(u, u) for u in everything}

    def needed(v: str) -> bool:
        return E.unit_needed_by(mm, preserve, v) is not None

    before = held({})
    for i in range(len(ops)):
        now = held(M.execute(m, ops[:i + 1]))
        lost = {v for v in before - now if needed(v)}
        if lost:
            return i, lost
        before = now
    return None


def disagreement(finder, mm, ops, preserve) -> str | None:
    want = definition(mm, ops, preserve)
    got = finder(mm, ops, preserve)
    if want is None or got is None:
        return None if want is None and got is None else f"says {got}, the definition {want}"
    i, lost = want
    if got.index != i or got.value not in lost:
        return f"says #{got.index} lost {got.value}, the definition #{i} lost {sorted(lost)}"
    first = next((u for u, v in mm.expected().items() if v == got.value), got.value)
    if got.needed_by != first:
        return f"names unit {got.needed_by} as needing {got.value}, not {first}"
    return None


def corpus(seed: int = 5, size: int = 1500):
    """Random requests over two small machines (one with aliases), with
    random sequences of movs and swaps among their single names."""
    rng = random.Random(seed)
    machines = []
    for name in ("x86-64", "armv7-vfp"):
        small, temps = G.small_machine(M.preset(name))
        places = list(G.sites(small, temps, pairs=True))
        machines.append((small, temps, places))
    for _ in range(size):
        m, temps, places = rng.choice(machines)
        for case in G.exhaustive_cases(tuple(places), 2):
            if rng.random() < 0.02:
                break
        try:
            mm = M.MachineMove(m, case.moves, tuple(M.Place((t,)) for t in temps))
        except Exception:
            continue
        names = [n for n in m.names()]
        ops = []
        for _ in range(rng.randint(0, 5)):
            a, b = rng.choice(names), rng.choice(names)
            if m.lookup(a).width != m.lookup(b).width:
                continue
            ops.append(M.MMov(M.Place((a,)), M.Place((b,))) if rng.random() < 0.6
                       else M.MSwap(M.Place((a,)), M.Place((b,))))
        yield mm, ops, rng.choice(["all", "loops"])


def test_the_machine_finder_is_its_definition():
    losses = 0
    for mm, ops, preserve in corpus():
        assert disagreement(E.machine_first_loss, mm, ops, preserve) is None, (mm, ops)
        if E.machine_first_loss(mm, ops, preserve) is not None:
            losses += 1
    assert losses > 200  # the corpus exercises it


@pytest.mark.parametrize("mutant", MACHINE_MUTANTS, ids=lambda m: m.name)
def test_every_machine_finder_mutant_is_rejected(mutant):
    finder = mutants.run(mutant)
    request, seq = mutant.witness
    req = parse_any({**json.loads(request), "sequence": json.loads(seq)}, need_sequence=True)
    ops = M.read_machine_sequence(req.machine, req.sequence)
    assert isinstance(ops, list)
    assert disagreement(E.machine_first_loss, req.move, ops, req.preserve) is None
    why = disagreement(finder, req.move, ops, req.preserve)
    assert why is not None, f"{mutant.name} survived its witness"
    found = next((w for mm, o, p in corpus() if (w := disagreement(finder, mm, o, p))), None)
    assert found is not None, f"{mutant.name} survived the corpus"
    print(f"\n{mutant.name}: {why}")
