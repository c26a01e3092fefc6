"""The harness of proofs/ (proofs/common.py) on small synthetic queries:
a proof can only say "proved" when Z3 proved it and it is not vacuous, and
the runner refuses rows whose result their evidence does not back."""

from __future__ import annotations

import z3

from proofs import __main__ as runner
from proofs.common import (ENUMERATED, HARNESS_BUDGET_MS, PROVED, REFUTED, TESTED, UNKNOWN,
                           VACUOUS, Ledger,
                           antecedents, evidence_problem, exists, mux, pigeonhole, prove,
                           prove_all, row)

x = z3.Int("x")


def test_prove_proves_refutes_and_reports_contradictory_hypotheses_as_vacuous():
    assert prove(x > 0, [x > 1])[0] == PROVED
    result, model = prove(x > 2, [x > 1])
    assert result == REFUTED and model.eval(x).as_long() == 2
    assert prove(x > 0, [x > 1, x < 0])[0] == VACUOUS


def test_a_timed_out_vacuity_check_is_unknown_never_proved():
    led = Ledger()
    # the goal is trivially valid; only the (pigeonhole, hard) vacuity
    # check stands between it and "proved", and it cannot finish within
    # its budget (resource units, so at any machine load)
    assert prove(z3.BoolVal(True), pigeonhole(10), 60_000, led,
                 vacuity_timeout_ms=HARNESS_BUDGET_MS)[0] == UNKNOWN
    assert led.result() == UNKNOWN
    # the same hypotheses with time to spare: contradictory, so vacuous
    assert prove(z3.BoolVal(True), pigeonhole(3))[0] == VACUOUS


def test_an_unsatisfiable_witness_makes_the_claim_vacuous():
    led = Ledger()
    assert prove(x > 0, [x > 1], witnesses={"x is 5": x == 5}, timer=led)[0] == PROVED
    assert led.witnesses == ["x is 5"]
    led = Ledger()
    assert prove(x > 0, [x > 1], witnesses={"x is 0": x == 0}, timer=led)[0] == VACUOUS
    assert led.vacuous == ["x is 0"] and led.result() == VACUOUS


def test_every_implies_branch_must_be_reachable():
    goal = z3.And(z3.Implies(x > 5, x > 3), z3.Implies(x < 0, x > 3))
    assert [str(a) for a in antecedents(goal)] == ["x > 5", "x < 0"]
    assert prove(goal, [x > 1])[0] == PROVED            # valid, but ...
    assert prove(goal, [x > 1], branches=True)[0] == VACUOUS  # x < 0 unreachable


def test_exists_is_reachability_through_prove():
    assert exists(x == 3, [x > 1])[0] == PROVED
    assert exists(x == 0, [x > 1])[0] == REFUTED


def test_prove_all_stops_at_the_first_goal_that_fails():
    led = Ledger()
    goals = [(x > 0, "a"), (x > 5, "b"), (x > -1, "c")]
    assert prove_all(goals, [x > 1], 10_000, led) == (REFUTED, "b")
    assert led.counts[PROVED] == 1


def test_mux_reads_at_a_symbolic_index():
    j = z3.Int("j")
    xs = [z3.IntVal(10), z3.IntVal(20), z3.IntVal(30)]
    assert z3.simplify(z3.substitute(mux(xs, j), (j, z3.IntVal(1)))).as_long() == 20
    assert mux(xs, 2) is xs[2]


def test_rows_take_their_result_from_the_ledger_and_the_runner_checks_it():
    led = Ledger()
    prove(x > 0, [x > 1], timer=led)
    assert row("c", 3, led)["result"] == PROVED
    assert evidence_problem(row("c", 3, led)) == ""
    # "proved" written by hand over an enumeration: rejected
    enum = Ledger(enumerated=10)
    forged = row("c", 3, enum, kind=ENUMERATED)
    assert forged["result"] == ENUMERATED and evidence_problem(forged) == ""
    forged["result"] = PROVED
    assert "without a symbolic Z3 proof" in evidence_problem(forged)
    # no evidence at all: rejected
    assert "no evidence" in evidence_problem(
        {"claim": "c", "n": 1, "result": PROVED, "seconds": 0.0, "expect": PROVED})
    assert evidence_problem(row("t", 1, Ledger(tested=1), kind=TESTED)) == ""
    assert row("t", 1, Ledger(), kind=TESTED)["result"] == UNKNOWN


def test_runner_fails_on_a_row_its_evidence_does_not_back(monkeypatch, capsys):
    led = Ledger()
    prove(x > 0, [x > 1], timer=led)
    good = dict(row("good", 2, led), module="m")
    monkeypatch.setattr(runner, "collect", lambda names, quick, moonshot=False, jobs=1: ([good], []))
    assert runner.main(["--quick"]) == 0
    bad = dict(row("dp", 2, Ledger(enumerated=5), kind=ENUMERATED), module="m")
    bad["result"] = bad["expect"] = PROVED
    monkeypatch.setattr(runner, "collect", lambda names, quick, moonshot=False, jobs=1: ([bad], []))
    assert runner.main(["--quick"]) == 1
    assert "FAILED: says proved without a symbolic Z3 proof" in capsys.readouterr().out


def test_harness_claims_are_as_expected():
    from proofs import common

    rows = common.claims()
    assert [r["result"] for r in rows] == [UNKNOWN, UNKNOWN, VACUOUS, VACUOUS, UNKNOWN,
                                           PROVED]
    assert all(r["result"] == r["expect"] for r in rows)
    runner.judge(rows)
    assert [runner.failed(r) for r in rows] == [False] * 6
    assert "without a symbolic Z3 proof" in rows[-1]["problem"]


def test_a_mutant_that_does_not_apply_is_reported_apart_from_verdicts(monkeypatch, capsys):
    """A planted bug whose text is gone is "mutant could not apply" (its
    own row, exit 2), never a refuted claim and never a crash."""
    from mutants import Mutant
    from proofs.common import NOT_APPLIED, planted

    gone = Mutant("gone", "verified.algorithms.leroy", "no such text", "x", "why",
                  scope="leroy")
    asked = []
    r = planted("MUTANT gone", 3, gone, lambda fn, led: asked.append(fn) or "")
    assert r["result"] == NOT_APPLIED and "occurs 0 times" in r["detail"] and not asked
    assert "mutant could not apply" in evidence_problem(r)
    refuted = dict(row("c", 2, Ledger(counts={PROVED: 0, REFUTED: 1, VACUOUS: 0,
                                               UNKNOWN: 0})), module="m")
    for rows, code in (([dict(r, module="m")], 2), ([refuted], 1),
                       ([refuted, dict(r, module="m")], 2)):
        monkeypatch.setattr(runner, "collect",
                            lambda names, quick, moonshot=False, jobs=1, rows=rows: (rows, []))
        assert runner.main(["--quick"]) == code
    err = capsys.readouterr().err
    assert "mutant could not apply: MUTANT gone" in err


def test_an_edit_near_a_mutants_text_is_a_verdict_not_a_crash(tmp_path):
    """The class-5 planted bug written into a copy of proofs/leroy.py: the
    rule's claim is refuted, the catalogue entry it breaks is reported as
    not applied (exit 2), and every other row still runs."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from mutants.proofs import BY_NAME

    repo = Path(__file__).resolve().parents[2]
    for pkg in ("proofs", "mutants"):
        shutil.copytree(repo / pkg, tmp_path / pkg)
    m = BY_NAME["proofs_leroy_loop_redirects_top"]
    src = (tmp_path / "proofs" / "leroy.py").read_text()
    assert src.count(m.old) == 1
    (tmp_path / "proofs" / "leroy.py").write_text(src.replace(m.old, m.new))
    out = subprocess.run([sys.executable, "-m", "proofs", "--quick", "--only", "leroy",
                          "--json", "-"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 2, out.stdout[-2000:]
    rows = json.loads(out.stdout.split("\n#JSON\n", 1)[1])
    by = {r["claim"].split(":")[0]: r for r in rows}
    assert by["Leroy rule loop"]["result"] == REFUTED
    assert by["MUTANT proofs_leroy_loop_ghost"]["result"] == "mutant could not apply"
    assert by["MUTANT proofs_leroy_no_loop"]["result"] == REFUTED   # the others still ran
    assert "mutant could not apply: MUTANT proofs_leroy_loop_ghost" in out.stderr


def test_budgets_are_resource_units_not_seconds():
    """Every solver of proofs/ gets Z3's rlimit (deterministic: the same
    query has the same verdict at any machine load) besides a wall-clock
    safety net of at least a minute: a query needing about 122,000 units
    (pigeonhole, 9 pigeons in 8 holes) is unknown with a budget of 50,000
    and proved (here: vacuous hypotheses found) with 1,000,000, whatever
    the load."""
    from proofs import common

    assert common.budget(10) == (common.WALL_FLOOR_MS, 10 * common.RLIMIT_PER_MS)
    assert common.budget(60_000)[1] == 60_000 * common.RLIMIT_PER_MS
    small = 50_000 // common.RLIMIT_PER_MS
    led = Ledger()
    assert prove(z3.BoolVal(True), pigeonhole(8), 60_000, led,
                 vacuity_timeout_ms=small)[0] == UNKNOWN
    assert 0 < led.rlimit_max <= 50_000 + 5_000
    assert prove(z3.BoolVal(True), pigeonhole(8), 60_000, Ledger(),
                 vacuity_timeout_ms=1_000_000 // common.RLIMIT_PER_MS)[0] == VACUOUS
    # prove_all and decide_each use the same budgets
    led = Ledger()
    assert prove_all([(z3.BoolVal(True), "t")], pigeonhole(8), small, led)[0] == UNKNOWN


# -- the runner's processes (--jobs) ---------------------------------------------


def _fake_module(name: str):
    """_collect_here's stand-in: module "c" dies, "d" raises, the others
    give one row each, the earlier names finishing last."""
    import os
    import time

    if name == "c":
        os._exit(3)
    if name == "d":
        raise RuntimeError("d broke")
    time.sleep({"a": 0.6, "b": 0.3}.get(name, 0.0))
    return [dict(claim=f"claim of {name}", n=1, result=PROVED, seconds=0.0,
                 expect=PROVED, module=name)], []


def test_collect_keeps_the_order_of_modules_whatever_order_they_finish_in(monkeypatch):
    monkeypatch.setattr(runner, "_collect_here", lambda names, quick, moonshot:
                        _fake_module(names[0]))
    for jobs in (1, 2, 4):
        # "optimality" is started first (START_FIRST), its row stays third
        rows, errors = runner.collect(["a", "b", "optimality", "e"], quick=True, jobs=jobs)
        assert [r["module"] for r in rows] == ["a", "b", "optimality", "e"] and errors == []


def test_a_module_process_that_dies_or_raises_is_a_failure_never_a_verdict(monkeypatch):
    monkeypatch.setattr(runner, "_collect_here", lambda names, quick, moonshot:
                        _fake_module(names[0]))
    rows, errors = runner.collect(["c", "a", "d"], quick=True, jobs=2)
    assert [r["module"] for r in rows] == ["a"]
    assert errors[0] == "proofs.c: its process failed (exit code 3)"
    assert errors[1].startswith("proofs.d: its process failed\nTraceback")
    assert "RuntimeError: d broke" in errors[1]
    assert runner.exit_status(rows, errors) == 1


def test_mutant_runs_print_in_the_catalogue_order_whatever_order_they_finish_in(
        monkeypatch, capsys):
    import subprocess
    import time

    from mutants.proofs import MUTANTS

    names = [m.name for m in MUTANTS[:3]]
    first = names[0]

    def fake(name, entry, quick):
        time.sleep(0.5 if name == first else 0.0)
        row = dict(claim=f"claim {name}", n=None, result=REFUTED, expect=PROVED, seconds=0.0)
        out = subprocess.CompletedProcess([], 1 if name != names[2] else 0,
                                          "table\n#JSON\n" + __import__("json").dumps([row]),
                                          "")
        return out, 1.0

    monkeypatch.setattr(runner, "_mutant_run", fake)
    assert runner.run_mutants(names, quick=True, jobs=3) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(" | ")[0][2:] for ln in lines[2:5]] == names
    assert lines[2].endswith(f"| claim {first} (n = all): refuted | 1.0 |")
    assert lines[4].startswith(f"| {names[2]} | ") and "NOT CAUGHT (exit 0)" in lines[4]
    assert lines[-1] == "2 of 3 proofs mutants caught"
