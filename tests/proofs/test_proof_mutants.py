"""The planted bugs of mutants/proofs.py: ``python -m proofs`` with the
mutant installed must fail, and the first failing row must be the claim
the catalogue says catches it (a rejection verdict: refuted, vacuous or a
result its evidence does not back; never a crash).

Each run is ``--first-failure``: its entry module stops at its first row
not as expected, and the rows up to it are the full run's (the runner
checks, on every module that does not stop, that ``claims()`` returns the
rows in the order ``claim`` made them; the tests at the end pin the stop),
so the pinned first failing row is the full run's."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest
import z3

from mutants.proofs import BY_NAME, MUTANTS
from proofs import __main__ as runner
from proofs.__main__ import failed
from proofs.common import PROVED, REFUTED, Ledger, claim, prove

#: mutant -> (words of the claim that must catch it, its failing result)
CAUGHT_BY = {
    "proofs_shuf_range_cut": ("shuf_srcs (model", "refuted"),
    "proofs_shuf_cut_lowest": ("shuf_srcs (model", "refuted"),
    "proofs_windmill_no_fanout": ("windmill step system", "refuted"),
    "proofs_optimality_no_temp": ("optimality temp", "refuted"),
    "xchg_useless_swap": ("in exactly the optimal number of operations", "refuted"),
    "shuf_mask_16_bits": ("real Shuf == the Z3 model", "refuted"),
    "proofs_vacuity_timeout_proved": ("vacuity check times out", "proved"),
    "proofs_dp_search_proved": ("DP == brute-force optimum", "proved"),
    "proofs_machine_alias_own_units": ("per-unit effect == Python illegal/execute", "refuted"),
    "proofs_leroy_loop_ghost": ("Leroy rule loop", "refuted"),
    "proofs_leroy_loop_unguarded": ("Leroy rule loop", "refuted"),
    "proofs_leroy_pop_without_no_read": ("Leroy rule pop", "refuted"),
    "proofs_leroy_loop_saves_dst": ("Leroy rule loop", "refuted"),
    "proofs_leroy_no_loop": ("Leroy progress", "refuted"),
    "proofs_leroy_loop_redirects_top": ("Leroy rule loop", "refuted"),
    "greedy_length_floor": ("GREEDY Lemma 3 (code)", "refuted"),
    "resolve_park_never_restored": ("resolve (code): output implements every move of the "
                                    "small machine {'swap': 'noswap'", "refuted"),
    "proofs_main_timeout_proved": ("main query times out is unknown", "proved"),
    "proofs_ledger_ignores_unknown": ("a ledger with proved queries and one unknown",
                                      "proved"),
    "proofs_runner_evidence_off": ("a row labelled proved by hand", "proved"),
    "proofs_witness_unchecked": ("unsatisfiable witness is vacuous", "unknown"),
}
#: the ones whose proof modules take long even in --quick (the unbounded
#: shuf lemmas, the parmove enumerations, Leroy's module); `make proofs`
#: runs them all too (python -m proofs --mutants --quick)
SLOW = {"proofs_shuf_range_cut", "proofs_shuf_cut_lowest", "shuf_mask_16_bits", "proofs_windmill_no_fanout",
        *(name for name in BY_NAME if name.startswith("proofs_leroy_"))}


def test_every_proofs_mutant_has_its_catching_claim():
    assert set(CAUGHT_BY) == set(BY_NAME)


def _run(name: str) -> tuple[int, list[dict]]:
    m = BY_NAME[name]
    out = subprocess.run(
        [sys.executable, "-m", "proofs", "--quick", "--first-failure", "--mutant", name,
         "--only", m.entry, "--json", "-"], capture_output=True, text=True, timeout=900)
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout.split("\n#JSON\n", 1)[1])


@pytest.mark.parametrize("name", [
    pytest.param(m.name, marks=pytest.mark.slow) if m.name in SLOW else m.name
    for m in MUTANTS])
def test_proofs_catch_the_planted_bug(name):
    code, rows = _run(name)
    bad = [r for r in rows if failed(r)]
    words, result = CAUGHT_BY[name]
    assert code == 1 and bad, name
    assert words in bad[0]["claim"] and bad[0]["result"] == result, bad[0]


def test_the_unmutated_entry_modules_pass():
    """The same runs without a mutant pass (so the catch is the mutant's),
    and with ``--first-failure`` they run whole (no stop) and return the
    rows in the order made (else an error: exit 1)."""
    for entry in ("common", "permi_claims", "optimality"):
        out = subprocess.run([sys.executable, "-m", "proofs", "--quick", "--first-failure",
                              "--only", entry],
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stdout[-2000:]
        assert "stopped" not in out.stderr, out.stderr


# -- --first-failure, on fake proof modules -----------------------------------

def _proved(text: str) -> dict:
    led = Ledger()
    prove(z3.BoolVal(True), [], timer=led)
    return claim(text, 1, PROVED, 0.0, ledger=led)


def _collect(monkeypatch, claims) -> tuple[list[dict], list[str]]:
    fake = types.SimpleNamespace(claims=claims)
    monkeypatch.setattr(runner.importlib, "import_module", lambda _name: fake)
    return runner._collect_here(["fake"], quick=True, moonshot=False, first_failure=True)


def test_first_failure_stops_at_the_first_row_not_as_expected(monkeypatch):
    reached = []

    def claims():
        rows = [_proved("a"), claim("b", 1, REFUTED, 0.0), claim("c", 1, REFUTED, 0.0)]
        reached.append("end")
        return rows

    rows, errors = _collect(monkeypatch, claims)
    assert [r["claim"] for r in rows] == ["a", "b"] and errors == [] and reached == []
    assert [r["claim"] for r in rows if failed(r)] == ["b"]


def test_first_failure_judges_the_evidence_as_the_full_run_does(monkeypatch):
    """A forged row the runner must reject (expect_rejected) is as expected
    and does not stop the run; "proved" by hand without its evidence is a
    failure the stop sees (the runner's judge, not the result alone)."""
    def claims():
        return [claim("forged", "-", PROVED, 0.0, ledger=Ledger(), expect_rejected=True),
                claim("by hand", 1, PROVED, 0.0, ledger=Ledger()),
                _proved("later")]

    rows, errors = _collect(monkeypatch, claims)
    assert [r["claim"] for r in rows] == ["forged", "by hand"] and errors == []


def test_first_failure_refuses_rows_returned_out_of_the_order_made(monkeypatch):
    rows, errors = _collect(monkeypatch, lambda: [_proved("a"), _proved("b")][::-1])
    assert len(errors) == 1 and "did not return the rows claim() made" in errors[0]
    rows, errors = _collect(monkeypatch, lambda: [_proved("a"), _proved("b")])
    assert [r["claim"] for r in rows] == ["a", "b"] and errors == []
