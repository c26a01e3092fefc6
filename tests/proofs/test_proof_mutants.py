"""The planted bugs of mutants/proofs.py: ``python -m proofs`` with the
mutant installed must fail, and the first failing row must be the claim
the catalogue says catches it (a rejection verdict: refuted, vacuous or a
result its evidence does not back; never a crash)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mutants.proofs import BY_NAME, MUTANTS
from proofs.__main__ import failed

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
        [sys.executable, "-m", "proofs", "--quick", "--mutant", name, "--only", m.entry,
         "--json", "-"], capture_output=True, text=True, timeout=900)
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
    """The same runs without a mutant pass (so the catch is the mutant's)."""
    for entry in ("common", "permi_claims", "optimality"):
        out = subprocess.run([sys.executable, "-m", "proofs", "--quick", "--only", entry],
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stdout[-2000:]
