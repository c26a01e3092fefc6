"""`verified explain`: golden outputs (exact text and exit status),
including the smallest failing cases of the published xchg algorithm, and
the "first value destroyed" finder checked against its definition on a
random corpus, shown to reject every mutant of ``mutants/explain.py``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import mutants
from mutants.explain import MUTANTS
from verified.algorithms import ALGORITHMS, solve
from verified.core.oracle import implements, read_sequence
from verified.core.semantics import ParallelMove, execute, value_of
from verified.tools import explain as E
from verified.tools.exhaustive import smallest_failure
from verified.tools.wire import parse_request

from tests.support import verified

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return verified(*args, input=stdin)


# ---------------------------------------------------------------------------
# Golden outputs
# ---------------------------------------------------------------------------

#: the smallest failing case of the published xchg through the protocol
#: (conform's shrunk case: a chain)
XCHG_PROTOCOL = """\
move:     (r1 <- r0, r2 <- r1)
contract: preserve "all": each destination gets its source's original value, every other location of the file (r0..r2) keeps its own; temporaries: none
model:    swap

transfer graph (edge src -> dst): 2 non-loop move(s), 1 windmill(s), 0 axle(s) (0 bare)
  windmill 1: r0, r1, r2
    axle:   none (a tree)
    blades: r1 <- r0, r2 <- r1

state after each operation (each cell: whose original value the location holds; * = written by it):
  #  operation   r0  r1   r2
  -  start       r0  r1   r2
  0  mov r1, r0  r0  r0*  r2
  1  mov r2, r1  r0  r0   r0*
     must hold   r0  r0   r1

first value destroyed: operation #0 (mov r1, r0) overwrote r1, the last copy of the original value of r1, which r2 must hold at the end
verdict: WRONG: destination r2 must hold the original value of r1 but holds that of r0
oracle:  {"ok": false, "length": 2, "reason": "destination r2 must hold the original value of r1 but holds that of r0", "counterexample": {"location": 2, "expected": "r1", "got": "r0"}, "optimal": 2}
"""

#: the smallest failing register map (every register a destination), the
#: one ``exhaustive.smallest_failure`` finds: nothing is destroyed, the
#: values end in the wrong places
XCHG_MAP = """\
move:     (r0 <- r0, r1 <- r2, r2 <- r0)
contract: preserve "all": each destination gets its source's original value, every other location of the file (r0..r2) keeps its own; temporaries: none
model:    swap

transfer graph (edge src -> dst): 2 non-loop move(s), 1 windmill(s), 0 axle(s) (0 bare)
  windmill 1: r0, r1, r2
    axle:   none (a tree)
    blades: r1 <- r2, r2 <- r0
  self-moves: r0 <- r0

state after each operation (each cell: whose original value the location holds; * = written by it):
  #  operation    r0   r1   r2
  -  start        r0   r1   r2
  0  swap r2, r0  r2*  r1   r0*
  1  mov r1, r0   r2   r2*  r0
     must hold    r0   r2   r0

first value destroyed: none (every needed value keeps a copy after each operation; the values end in the wrong places)
verdict: WRONG: destination r0 must hold the original value of r0 but holds that of r2
oracle:  {"ok": false, "length": 2, "reason": "destination r0 must hold the original value of r0 but holds that of r2", "counterexample": {"location": 0, "expected": "r0", "got": "r2"}, "optimal": 2}
"""

RIGHT_LOOPS = """\
move:     (r1 <- r0, r0 <- r1, r2 <- r0, r3 <- r3)
contract: preserve "loops": each destination gets its source's original value, every other location of the file (r0..r4) is dead; temporaries: t
model:    temp

transfer graph (edge src -> dst): 3 non-loop move(s), 1 windmill(s), 1 axle(s) (0 bare)
  windmill 1: r0, r1, r2
    axle:   r0 -> r1 -> r0
    blades: r2 <- r0
  self-moves: r3 <- r3

state after each operation (each cell: whose original value the location holds; * = written by it):
  #  operation   r0   r1   r2   r3  r4   t
  -  start       r0   r1   r2   r3  r4   t
  0  mov r4, r0  r0   r1   r2   r3  r0*  t
  1  mov r0, r1  r1*  r1   r2   r3  r0   t
  2  mov r1, r4  r1   r0*  r2   r3  r0   t
  3  mov r2, r1  r1   r0   r0*  r3  r0   t
     must hold   r1   r0   r0   r3  any  any

first value destroyed: none
verdict: RIGHT: the sequence implements the move (4 operation(s); optimum 3)
oracle:  {"ok": true, "length": 4, "optimal": 3}
"""

UNRUNNABLE = """\
move:     (r1 <- r0)
contract: preserve "all": each destination gets its source's original value, every other location of the file (the locations the moves name) keeps its own; temporaries: none
model:    temp

transfer graph (edge src -> dst): 1 non-loop move(s), 1 windmill(s), 0 axle(s) (0 bare)
  windmill 1: r0, r1
    axle:   none (a tree)
    blades: r1 <- r0

the sequence cannot be run: operation #0: unknown operation 'jmp'; known: mov, swap, perm, load, store
verdict: WRONG: operation #0: unknown operation 'jmp'; known: mov, swap, perm, load, store
oracle:  {"ok": false, "length": 1, "reason": "operation #0: unknown operation 'jmp'; known: mov, swap, perm, load, store", "operation": 0, "optimal": 1}
"""

DOT = """\
digraph transfer_graph {
  // (r1 <- r0, r0 <- r1, r2 <- r0, r3 <- r3): edge src -> dst; bold red: an axle; dashed: a self-move
  rankdir=LR;
  node [shape=box, fontname="monospace"];
  subgraph cluster_1 {
    label="windmill 1";
    "r0"; "r1"; "r2";
    "r0" -> "r1" [color=red, penwidth=2];
    "r1" -> "r0" [color=red, penwidth=2];
    "r0" -> "r2";
  }
  "r3" -> "r3" [style=dashed];
}
"""


def test_published_xchg_smallest_protocol_failure(tmp_path):
    """conform finds and shrinks the published xchg's failure; its report,
    piped into explain, gives this exact explanation (exit 1)."""
    solve_cmd = f"{sys.executable} -m verified.cli solve -a xchg-as-published"
    rep = run("conform", "--cmd", solve_cmd, "--model", "swap", "--registers", "3",
              "--json", "--progress", "never")
    assert rep.returncode == 1
    report = json.loads(rep.stdout)
    assert report["smallest_failure"]["request"] == {
        "moves": [[1, 0], [2, 1]], "model": "swap", "temps": [], "registers": 3}
    p = run("explain", stdin=rep.stdout)
    assert (p.returncode, p.stdout, p.stderr) == (1, XCHG_PROTOCOL, "")
    # the same case as --request/--sequence, as a FILE, and as one stdin line
    req = json.dumps(report["smallest_failure"]["request"])
    seq = json.dumps(json.loads(report["smallest_failure"]["answer"])["sequence"])
    p = run("explain", "--request", req, "--sequence", seq)
    assert (p.returncode, p.stdout) == (1, XCHG_PROTOCOL)
    (tmp_path / "case.json").write_text(json.dumps(report["smallest_failure"]))
    assert run("explain", str(tmp_path / "case.json")).stdout == XCHG_PROTOCOL
    line = {**json.loads(req), "sequence": json.loads(seq)}
    assert run("explain", stdin=json.dumps(line) + "\n").stdout == XCHG_PROTOCOL


def test_published_xchg_smallest_register_map():
    failure = smallest_failure("xchg-as-published", 3)
    assert failure.want == (0, 2, 0)
    pm = ParallelMove.from_map(failure.want)
    ops = solve("xchg-as-published", pm)
    req = {"moves": [list(m) for m in pm.moves], "model": "swap", "registers": 3}
    p = run("explain", "--request", json.dumps(req),
            "--sequence", json.dumps([o.to_json() for o in ops]))
    assert (p.returncode, p.stdout, p.stderr) == (1, XCHG_MAP, "")


def test_right_sequence_under_loops_uses_a_dead_register():
    p = run("explain", "--request", json.dumps(
        {"moves": [[1, 0], [0, 1], [2, 0], [3, 3]], "model": "temp", "temps": ["t"],
         "registers": 5, "preserve": "loops"}),
        "--sequence", '[["mov",4,0],["mov",0,1],["mov",1,4],["mov",2,1]]')
    assert (p.returncode, p.stdout, p.stderr) == (0, RIGHT_LOOPS, "")


def test_a_sequence_that_cannot_run_is_a_wrong_verdict():
    p = run("explain", "--request", '{"moves": [[1,0]], "model": "temp"}',
            "--sequence", '[["jmp", 3]]')
    assert (p.returncode, p.stdout, p.stderr) == (1, UNRUNNABLE, "")


def test_dot():
    p = run("explain", "--dot", "--request",
            '{"moves": [[1,0],[0,1],[2,0],[3,3]], "model": "swap"}')
    assert (p.returncode, p.stdout, p.stderr) == (0, DOT, "")


def test_docs_show_the_real_output():
    doc = (ROOT / "docs" / "explain.md").read_text()
    assert "```\n" + XCHG_PROTOCOL + "```" in doc
    assert "```\n" + DOT + "```" in doc


def test_oracle_line_is_checks_answer():
    """The last line is what `verified check` answers for the same request."""
    line = {"moves": [[1, 0], [2, 1]], "model": "swap", "registers": 3,
            "sequence": [["mov", 1, 0], ["mov", 2, 1]]}
    check = run("check", stdin=json.dumps(line) + "\n")
    assert run("explain", stdin=json.dumps(line)).stdout.splitlines()[-1] == \
        "oracle:  " + check.stdout.strip()


@pytest.mark.parametrize("argv, stdin, message", [
    (["--request", '{"moves": [[1,0]], "model": "temp"}'], "",
     'no sequence to explain: add "sequence" to the request or give --sequence'),
    (["--request", '{"moves": [[1,0]], "model": "temp", "sequence": []}', "--sequence", "[]"],
     "", "the sequence is given twice: in the input and by --sequence"),
    ([], "", "stdin is empty: give a request and a sequence (see `verified explain --help`)"),
    (["--request", "\udcff"], "", "--request: it is not UTF-8 (invalid start byte at byte 0)"),
    (["--request", '{"moves": [[1,0]], "model": "temp"}', "--sequence", "[\udcfe]"], "",
     "--sequence: it is not UTF-8 (invalid start byte at byte 1)"),
    ([], "{", "stdin: it is not valid JSON: Expecting property name enclosed in double "
     "quotes at column 2"),
    (["--request", '{"moves": [[1,0]], "model": "nonsense", "sequence": []}'], "",
     "unknown model 'nonsense'; choose one of temp, swap, permi, spill"),
    ([], '{"program": "x", "cases": "y", "failures": 0}',
     "the conform report has no failing case: nothing to explain"),
    ([], '{"request": {"moves": [[1,0],[0,1]], "model": "temp"}, '
         '"answer": "{\\"unsupported\\": \\"needs a scratch\\"}"}',
     'the case\'s answer has no "sequence" to explain: {"unsupported": "needs a scratch"}'),
    (["--request", json.dumps({"moves": [[i + 1, i] for i in range(65)], "model": "temp",
                               "sequence": []})], "",
     "explain prints every location after every operation: at most 64 locations and 1000 "
     "operations (this case: 66 and 0); shrink the case first (`verified conform` shrinks "
     "its failures)"),
])
def test_bad_input(argv, stdin, message):
    p = run("explain", *argv, stdin=stdin)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.splitlines() == [f"verified explain: error: {message}"]


# ---------------------------------------------------------------------------
# The "first value destroyed" finder against its definition
# ---------------------------------------------------------------------------


def definition(pm: ParallelMove, ops, preserve: str) -> tuple[int, set] | None:
    """(i, the needed values no location holds after operations 0..i), for
    the first such i, by running each prefix through ``execute``: a value
    is needed when some location must end with it (a destination its
    source's; under "all" a file location that is no destination and no
    temporary its own).  Quadratic and plain on purpose."""
    touched = {x for op in ops for x in (*op.writes(), *E.reads(op))}
    locs = {x for m in pm.moves for x in m} | touched | set(pm.temps)
    want = dict(pm.source_of)
    if preserve == "all":
        for loc in locs:
            if loc not in want and loc not in pm.temps and pm.in_file(loc):
                want[loc] = loc
    needed = set(want.values())
    for i in range(len(ops)):
        state = execute(ops[: i + 1])
        lost = needed - {value_of(state, loc) for loc in locs}
        if lost:
            return i, lost
    return None


def disagreement(finder, pm: ParallelMove, ops, preserve: str) -> str | None:
    """Why ``finder``'s answer is not the definition's, or None."""
    got = finder(pm, ops, preserve)
    want = definition(pm, ops, preserve)
    if want is None:
        return None if got is None else f"reports operation #{got.index}, nothing is lost"
    if got is None:
        return f"misses operation #{want[0]}, which loses {sorted(map(str, want[1]))}"
    i, lost = want
    if got.index != i or got.value not in lost:
        return f"reports #{got.index} losing {got.value}, the definition #{i} losing {lost}"
    if got.location not in ops[i].writes() or value_of(execute(ops[:i]), got.location) != got.value:
        return f"blames {got.location}, which did not hold {got.value} before #{i}"
    first = next((d for d, s in pm.moves if s == got.value), got.value)
    if got.needed_by != first:
        return f"names {got.needed_by} as needing {got.value}, not {first}"
    return None


def corpus(seed: int = 14, size: int = 3000):
    """Random small requests with random and real sequences (the reference
    algorithms' and the published xchg's), in every contract."""
    rng = random.Random(seed)
    names = [n for n, a in ALGORITHMS.items() if a.model in ("swap", "temp")]
    for _ in range(size):
        n = rng.randint(1, 5)
        moves = [(d, rng.randrange(n)) for d in range(n) if rng.random() < 0.7]
        temps = ["t"] if rng.random() < 0.5 else []
        preserve = rng.choice(["all", "loops"])
        pm = ParallelMove.make(moves, registers=n if rng.random() < 0.7 else None, temps=temps)
        if rng.random() < 0.3 and temps:
            try:
                ops = solve(rng.choice(names), pm)
            except Exception:
                continue
        else:
            locs = list(range(n)) + temps
            ops = []
            for _ in range(rng.randint(0, 6)):
                a, b = rng.choice(locs), rng.choice(locs)
                ops.append(["mov", a, b] if rng.random() < 0.6 else ["swap", a, b])
            ops = read_sequence(ops)
        yield pm, ops, preserve


def test_the_finder_is_its_definition():
    losses = 0
    for pm, ops, preserve in corpus():
        assert disagreement(E.first_loss, pm, ops, preserve) is None, (pm, ops, preserve)
        loss = E.first_loss(pm, ops, preserve)
        if loss is not None:
            losses += 1
            # a lost value never comes back: the sequence is wrong
            assert not implements(pm, ops, "swap", preserve).ok
    assert losses > 500  # the corpus exercises it


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_finder_mutant_is_rejected(mutant):
    """Caught as a disagreement (a verdict of the check), on its witness and
    on the random corpus without it; the real finder agrees on both."""
    finder = mutants.run(mutant)
    request, seq = mutant.witness
    req = parse_request({**json.loads(request), "sequence": json.loads(seq)},
                        need_sequence=True)
    ops = read_sequence(req.sequence)
    assert disagreement(E.first_loss, req.pm, ops, req.preserve) is None
    why = disagreement(finder, req.pm, ops, req.preserve)
    assert why is not None, f"{mutant.name} survived its witness"
    found = next((w for pm, o, p in corpus()
                  if (w := disagreement(finder, pm, o, p)) is not None), None)
    assert found is not None, f"{mutant.name} survived the corpus"
    print(f"\n{mutant.name}: {why}")


def test_mutants_are_distinct_edits():
    assert len({(m.old, m.new) for m in MUTANTS}) == len(MUTANTS)
    assert all(m.module == "verified.tools.explain" for m in MUTANTS)
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
