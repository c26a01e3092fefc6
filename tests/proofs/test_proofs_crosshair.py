"""CrossHair through Hypothesis (hypothesis-crosshair backend) on the core
properties, over the list-shaped targets of ``proofs/crosshair_targets.py``;
the full `crosshair check` runs are `make crosshair`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofs import crosshair_targets as T
from verified.core.oracle import implements
from verified.core.semantics import sequence

srcs_lists = st.integers(1, 4).flatmap(
    lambda n: st.lists(st.integers(0, n - 1), min_size=n, max_size=n))

ch = settings(backend="crosshair", max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))


def _ok(target, srcs, model: str) -> bool:
    return implements(T.move_of(srcs, model), sequence(target(srcs)), model).ok


@ch
@given(srcs_lists)
def test_crosshair_shuf_implements(srcs):
    assert _ok(T.shuf_srcs, srcs, "swap")


@ch
@given(srcs_lists)
def test_crosshair_leroy_implements(srcs):
    assert _ok(T.leroy_srcs, srcs, "temp")


@ch
@given(srcs_lists)
def test_crosshair_xchg_implements(srcs):
    assert _ok(T.xchg_srcs, srcs, "swap")


def test_crosshair_backend_finds_the_published_xchg_bug():
    @settings(backend="crosshair", max_examples=200, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(srcs_lists)
    def prop(srcs):
        assert _ok(T.xchg_as_published_srcs, srcs, "swap")

    with pytest.raises(AssertionError):
        prop()


# -- the GREEDY and SSRA targets of `make crosshair` ---------------------------
# Their contracts, evaluated in Python on every input within the targets'
# bounds (what CrossHair searches symbolically): the real code meets them
# everywhere and each planted twin breaks them somewhere; then CrossHair
# itself finds each twin's counterexample within a small CPU budget.

import itertools
import subprocess
import sys
from pathlib import Path

from proofs import crosshair_run


def _greedy_ok(target, succ) -> bool:
    ops = target(succ)
    return (implements(T.rtg_move(succ), sequence(ops), "permi", "loops").ok
            and T.greedy_contract_ok(target.__name__ == "greedy_rtg" and "real"
                                     or "greedy_skips_step_4", succ, len(ops)))


def test_greedy_targets_contracts_on_every_input_within_bounds():
    rtgs = [s for n in range(1, T.GREEDY_N + 1) for s in T._all_succ(n)]
    assert all(_greedy_ok(T.greedy_rtg, s) for s in rtgs)
    assert not all(_greedy_ok(T.greedy_skips_step_4_rtg, s) for s in rtgs)
    sigs = list(itertools.product(*(range(k + 1) for k in T.SIG_MAX)))
    for sig in sigs:
        succ = T.rtg_of_signature(*sig)
        assert T.greedy_length_sig(*sig) == T.lemma3_of_shape(T.rtg_shape(succ)) == len(
            T.greedy_steps_checked(succ)), sig
    assert any(T.greedy_length_floor_sig(*sig) != T.greedy_length_sig(*sig) for sig in sigs)
    # the search table covers every shape and is the optimum GREEDY reaches
    assert all(T.SEARCH_OPTIMUM[T.rtg_shape(s)] == T.lemma3_of_shape(T.rtg_shape(s))
               for s in rtgs)


def _configurations(state: str, n: int):
    out_k, lhs_k, rhs_k = T._ssra.TwoInputState[state].value
    kinds = [out_k, lhs_k] + ([] if rhs_k == "=" else [rhs_k])
    for place in itertools.permutations(range(n), kinds.count("R")):
        for fill in itertools.product(range(3), repeat=n - len(place)):
            for lru in itertools.permutations(range(n)):
                if T.ssra_configuration_ok(state, n, list(place), list(fill), list(lru)):
                    for rev in (False, True):
                        yield n, list(place), list(fill), list(lru), rev


def test_ssra_targets_contracts_on_every_configuration():
    """Every local configuration of 2-3 registers of each of the 18 states:
    the real step's framed program is accepted by the allocation checker;
    each planted twin's is rejected in its state (a verdict, not a crash)."""
    assert len(T.SSRA_STATES) == 18
    for state in T.SSRA_STATES:
        configs = [c for n in (2, 3) for c in _configurations(state, n)]
        assert configs, state
        assert all(T.ssra_framed_check("real", state, *c) for c in configs), state
    for name, state in T.SSRA_TWINS.items():
        assert not all(T.ssra_framed_check(name, state, *c)
                       for n in (2, 3) for c in _configurations(state, n)), name


@pytest.mark.parametrize("target", [
    "greedy_length_floor_sig",
    # in `make test-slow` (10 CPU s of CrossHair before its run stopped at
    # its first refuted condition, 2 s since: docs/proofs.md); `make
    # crosshair` runs it too, and the Python contract test above shows in
    # `make test` that this twin breaks its contract (docs/testing.md)
    pytest.param("greedy_skips_step_4_rtg", marks=pytest.mark.slow),
    "ssra_R_MR_store_after_op"])
def test_crosshair_finds_each_planted_twin(target):
    """CrossHair (crosshair check, 8 CPU s per condition, stopped at the
    first refuted condition as make crosshair runs a twin) reports a
    counterexample for each twin: found in its first seconds (a budget in
    CPU seconds, so the machine's load does not decide it)."""
    rc, out, _ = crosshair_run.check(target, 8, first_error=True)
    ok, outcome = crosshair_run.judge(True, rc, out)
    assert ok, outcome


def test_crosshair_run_reads_its_verdicts():
    out = ("<crosshair target x>:7: info: Confirmed over all paths.\n"
           "<crosshair target x>:8: info: Not confirmed.\n")
    assert crosshair_run.judge(False, 0, out) == (
        True, "1 of 2 conditions confirmed over all paths; the other 1: no counterexample "
              "within budget (tested, not a proof)")
    assert crosshair_run.judge(False, 0, out.replace("Not confirmed", "Confirmed over all "
                                                     "paths")) == (
        True, "confirmed over all paths (2 of 2 conditions)")
    assert crosshair_run.judge(True, 0, out)[0] is False
    assert crosshair_run.judge(False, 0, "<crosshair target x>:7: info: Unable to meet "
                                         "precondition.\n")[0] is False
    bad = "<crosshair target x>:7: error: false when calling x([1]) (which returns 0)\n"
    assert crosshair_run.judge(True, 1, bad) == (
        True, "counterexample: false when calling x([1]) (which returns 0)")
    assert crosshair_run.judge(False, 1, bad)[0] is False


def test_crosshair_run_prints_rows_in_target_order_whatever_order_they_finish_in(
        monkeypatch, capsys):
    """--jobs: targets checked at once, each row printed in TARGETS' order,
    each with its own budget and verdict."""
    import time

    chosen = [t for t, _ in crosshair_run.TARGETS if crosshair_run.family(t) == "greedy"]
    slow = chosen[0]

    def fake(target, budget, first_error=False):
        time.sleep(0.5 if target == slow else 0.0)
        return 0, f"<crosshair target {target}>:7: info: Confirmed over all paths.\n", 2.0

    monkeypatch.setattr(crosshair_run, "check", fake)
    assert crosshair_run.main(["--only", "greedy", "--jobs", "4"]) == 1  # the twins: no cex
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(" (")[0][2:] for ln in lines[2:2 + len(chosen)]] == chosen
    assert lines[2] == (f"| {slow} (greedy) | none | 30 | confirmed over all paths "
                        "(1 of 1 conditions) | 2.0 |")
    assert crosshair_run.jobs_of(["--jobs=3"]) == 3 and crosshair_run.jobs_of([]) >= 1


def test_the_default_run_leaves_out_the_ssra_targets_the_tests_enumerate(monkeypatch, capsys):
    """make crosshair runs every target but the 18 real SSRA state targets,
    whose contract test_ssra_targets_contracts_on_every_configuration checks
    on every input of their precondition; --only ssra still runs them."""
    def fake(target, budget, first_error=False):
        bug = dict(crosshair_run.TARGETS)[target]
        assert first_error is bug  # only a twin's run stops at its first error
        kind = "error: false when calling x([1])" if bug else "info: Not confirmed."
        return int(bug), f"<crosshair target {target}>:7: {kind}\n", 1.0

    monkeypatch.setattr(crosshair_run, "check", fake)
    assert crosshair_run.main(["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    rows = [ln.split(" (")[0][2:] for ln in out.splitlines()[2:] if ln.startswith("| ")]
    assert len(crosshair_run.ENUMERATED_IN_TESTS) == 18
    assert rows == [t for t, _ in crosshair_run.TARGETS
                    if t not in crosshair_run.ENUMERATED_IN_TESTS]
    assert "ssra_R_MR_store_after_op" in rows and "ssra_R_RR" not in rows
    assert ("not run: the 18 SSRA state targets (ssra_R_RR .. ssra_M_UU): their contract "
            "is enumerated on every input within their bounds by "
            "tests/proofs/test_proofs_crosshair.py (make test); --only ssra runs them") in out
    assert out.splitlines()[-1].startswith(f"{len(rows)} targets, 0 expectation(s) failed, ")
    assert crosshair_run.main(["--only", "ssra", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "| ssra_R_RR (ssra) | none | 8 |" in out and "not run" not in out


# -- a planted twin's run stops at its first refuted condition ----------------

from crosshair.statespace import AnalysisMessage, MessageType  # noqa: E402

from proofs import crosshair_first_error as first  # noqa: E402


class _Checkable:
    """A stand-in for CrossHair's per-condition checkable: one postcondition
    at ``line``, the messages its analysis gives; records that it ran."""

    def __init__(self, line, *messages, ran=None):
        self.conditions = type("C", (), {"post": [type("P", (), {"line": line,
                                                                 "filename": "f"})]})
        self.messages, self.ran = messages, ran if ran is not None else []

    def analyze(self):
        self.ran.append(self.conditions.post[0].line)
        return list(self.messages)


def _msg(state, line, text="x"):
    return AnalysisMessage(state, text, "f", line, 0, "")


def test_a_twin_stops_after_the_condition_that_refutes_itself():
    """The stop rule: an error at the condition's own line stops the run
    (later conditions never analysed); an error elsewhere (the body), an
    info, or no postcondition does not; the messages are CrossHair's,
    merged and sorted as its own collector does."""
    ran: list = []
    error, info = MessageType.POST_FAIL, MessageType.CANNOT_CONFIRM
    checks = [_Checkable(5, _msg(info, 5), ran=ran),
              _Checkable(6, _msg(MessageType.EXEC_ERR, 9, "body"), ran=ran),
              _Checkable(7, _msg(error, 7, "cex"), ran=ran),
              _Checkable(8, _msg(error, 8), ran=ran)]
    got = first.until_an_error(checks)
    assert ran == [5, 6, 7]
    assert [(m.line, m.message) for m in got] == [(5, "x"), (7, "cex"), (9, "body")]
    assert first.refutes_itself(checks[2], [_msg(error, 7)])
    assert not first.refutes_itself(checks[2], [_msg(MessageType.PRE_UNSAT, 7)])
    assert not first.refutes_itself(object(), [_msg(error, 7)])
    ran.clear()
    assert len(first.until_an_error(checks[:2])) == 2 and ran == [5, 6]


def test_a_twin_stopped_at_its_first_error_prints_the_full_runs_first_lines():
    """greedy_length_floor_sig: both conditions refuted; the stopped run
    analyses the first alone and prints exactly the full run's first line,
    so the row (its first error) and the exit status are the full run's."""
    rc, out, _ = crosshair_run.check("greedy_length_floor_sig", 8)
    rc_first, out_first, _ = crosshair_run.check("greedy_length_floor_sig", 8, True)
    lines = out.splitlines()
    assert len(lines) == 2 and all(": error: false when calling " in ln for ln in lines)
    assert (rc_first, out_first.splitlines()) == (rc, lines[:1]) == (1, lines[:1])
    assert crosshair_run.judge(True, rc_first, out_first) == crosshair_run.judge(True, rc, out)
