"""``proofs/resolve.py``: the resolver's step lemmas are proved with their
witnesses, the planted lemma bugs and the planted resolver bug are refuted,
and the small-machine run is an enumeration (every output proved by Z3)."""

from __future__ import annotations

import mutants
from mutants.resolve import BY_NAME
from proofs import resolve as PR
from proofs.common import Ledger
from tests.machines.resolve_cases import VARIANTS
from verified.algorithms import resolve as R


def test_step_lemmas_proved_with_witnesses():
    for _, run in PR.LEMMAS:
        led = Ledger()
        assert run(led) == "proved"
        assert len(led.witnesses) == 2 and led.vacuous == [], led.witnesses


def test_planted_lemma_bugs_refuted():
    for _, run in PR.MUTANT_LEMMAS:
        led = Ledger()
        assert run(led) == "refuted"


def test_a_lemma_whose_witness_cannot_hold_is_vacuous(monkeypatch):
    """The witness 'another unfinished unit' is what stops a lemma proved
    only of states where everything is finished but d."""
    real = PR.inv
    e = PR.z3.Const("only_d", PR.U)
    monkeypatch.setattr(PR, "inv", lambda st, c: PR.z3.And(real(st, c), PR.z3.ForAll(
        [e], PR.z3.Implies(st.hg[e], PR.z3.Or(c[e] == st.goal[e], e == PR.z3.Const("d", PR.U))))))
    led = Ledger()
    assert PR.lemma_move(led) == "vacuous"


def test_small_machine_outputs_enumerated_and_the_mutant_refuted():
    led = Ledger()
    r, n, k, cex = PR.enumerated(VARIANTS[0], lambda mm, p: R._resolve_machine(mm, p), led)
    assert (r, cex) == ("enumerated", "") and (n, k) == (2592, 0) and led.enumerated == n + k
    mutant = mutants.run(BY_NAME["swap_without_legality"])
    led = Ledger()
    r, _, _, cex = PR.enumerated(VARIANTS[0], lambda mm, p: mutant(mm, preserve=p), led)
    assert r == "refuted" and "swap" in cex


def test_bounded_progress_measure_and_contract_on_symbolic_requests():
    """Section 3: on the treg machine, for every request at once, the
    progress, measure and init/final claims are proved (each witness
    satisfiable), and their planted twins refuted."""
    for _, run in PR.TREG_LEMMAS:
        led = Ledger()
        assert run(led) == "proved"
        assert led.vacuous == [] and led.counts["proved"] >= 1
    progress = Ledger()
    PR.treg_progress(progress)
    assert len(progress.witnesses) == 4, progress.witnesses
    for _, run in PR.TREG_MUTANTS:
        assert run(Ledger()) == "refuted"


def test_the_repertoire_covers_every_step_kind():
    """Every kind of step is in the repertoire the claims quantify over
    (a repertoire that lost one would make progress harder, not easier,
    but the measure claim would then say nothing about it)."""
    F = PR._Finite()
    names = [step[0] for step in PR.treg_steps(F, F.cur)]
    for kind in ("mov a <- b", "mov m0 <- m1 via t", "imm a", "imm m1 via b", "park m0 in t"):
        assert kind in names, kind


def test_the_code_runs_are_runs_of_the_whole_run_model():
    """Section 4's code link: the real greedy steps on treg, cut into the
    model's steps (every request that leaves b alone: 6**3 x 2), agree;
    the scratch bug of mutants/resolve.py is caught by the same check."""
    from proofs import resolve_run as RUN
    led = Ledger()
    assert RUN.code_link(led, spare="b") == ("enumerated", 432, "")
    assert led.enumerated == 432
    mutant = mutants.run(BY_NAME["scratch_unchecked"])
    r, _, why = RUN.code_link(Ledger(), lambda mm, p: mutant(mm, preserve=p), spare="b")
    # its scratch loses a parked value; the greedy steps then give up where
    # the model writes m0 through a register
    assert r == "refuted" and why.startswith(
        "loops (a <- a, m0 <- b, m1 <- m0): raised Stuck: m0 can only be written through "
        "a register"), why


def test_the_whole_run_model_on_concrete_requests():
    """The model the bounded run claim is about, followed by the Python
    backend on one concrete request: the code's run of a, b and m0, m1
    swapped under all is these model steps (after the first cycle's park
    and the second's, t holds a needed value and a, b are finished: no
    register is free, a is borrowed); a run cut short, or with a step the
    model does not admit, is rejected."""
    from proofs import resolve_run as RUN
    from tests.machines.resolve_cases import small
    from verified.core import machine as M
    m = small(swap="noswap", m2m=False, imm_mem=False, temp="treg")
    mm = M.MachineMove.make(m, [["a", "b"], ["b", "a"], ["m0", "m1"], ["m1", "m0"]], ["t"])
    req = RUN.concrete_request(mm, "all")
    ops = RUN._ops_of(R.greedy(mm, "all"))
    taken: list = []
    assert RUN.follow(req, ops, taken=taken) == ""
    assert taken == ["park a in t", "mov a <- b", "mov b <- t", "park m0 in t",
                     "borrow a to park m1, saved in m0", "mov m1 <- t", "park a in t",
                     "mov a <- m0", "mov m0 <- t"]
    assert RUN.follow(req, ops[:-1]) == (
        "after 9 operations the code does [], not an admitted move step (admitted: "
        "['mov m0 <- t'])")
    assert RUN.follow(req, [("a", "b")] + ops).startswith(
        "after 0 operations the code does [('a', 'b')")
    # without borrows the model is stuck where the code borrows
    assert RUN.follow(req, ops, mutant="no_borrow").startswith(
        "the model stops after 4 operations, the code goes on: [('m0', 'a')")


def test_the_code_runs_on_the_swap_machine_are_runs_of_the_model():
    """treg-swap (xchg reg-reg and reg-mem): the code's cycle swaps are the
    model's swap steps; without the park step the model is stuck where the
    code parks (two slots swapped: no xchg mem-mem)."""
    from proofs import resolve_run as RUN
    from tests.machines.resolve_cases import small
    from verified.core import machine as M
    led = Ledger()
    assert RUN.code_link(led, spare="b", swaps=True) == ("enumerated", 432, "")
    m = small(swap="swaps", m2m=False, imm_mem=False, temp="treg")
    mm = M.MachineMove.make(m, [["a", "b"], ["b", "a"], ["m0", "m1"], ["m1", "m0"]], ["t"])
    req = RUN.concrete_request(mm, "all")
    ops = RUN._ops_of(R.greedy(mm, "all"))
    taken: list = []
    assert RUN.follow(req, ops, taken=taken, swaps=True) == ""
    assert taken == ["swap a, b", "park m0 in t", "swap m1, t", "mov m0 <- t"]
    assert RUN.follow(req, ops, swaps=False) == (
        "after 0 operations the code does [('a', 'b', 'swap'), ('t', 'm0'), "
        "('m1', 't', 'swap')], not an admitted park step (admitted: ['park a in t'])")
    assert RUN.follow(req, ops, mutant="no_park_step", swaps=True) == (
        "the model stops after 1 operations, the code goes on: [('t', 'm0'), "
        "('m1', 't', 'swap'), ('m0', 't')]")



def test_the_code_runs_on_the_pair_machine_are_runs_of_the_model():
    """tpair (a two-unit slot md, pair moves md <-> [x, y]): the code's runs
    on every request (380 x 2) are runs of the model, a pair move one step;
    a run that loads [a, b] from md before m0 has read a's value is not."""
    from proofs import resolve_run as RUN
    from tests.machines.resolve_cases import small_pair
    from verified.core import machine as M
    led = Ledger()
    assert RUN.code_link(led, mach=RUN.TPAIR) == ("enumerated", 760, "")
    m = small_pair()
    mm = M.MachineMove.make(m, [["md", ["a", "b"]], ["a", "b"], ["b", "a"],
                                ["m0", {"imm": 7}]], ["t"])
    req = RUN.concrete_request(mm, "all", RUN.TPAIR)
    ops = RUN._ops_of(R.greedy(mm, "all"), RUN.TPAIR)
    taken: list = []
    assert RUN.follow(req, ops, taken=taken) == ""
    assert taken == ["mov md <- [a, b]", "park a in t", "mov a <- b", "mov b <- t",
                     "imm m0 via t"]
    mm = M.MachineMove.make(m, [[["a", "b"], "md"], ["m0", "a"]], ["t"])
    req = RUN.concrete_request(mm, "all", RUN.TPAIR)
    ops = RUN._ops_of(R.greedy(mm, "all"), RUN.TPAIR)
    assert ops == [("m0", "a"), (("a", "b"), ("d0", "d1"), "pair")]
    assert RUN.follow(req, ops[::-1]) == (
        "after 0 operations the code does [(('a', 'b'), ('d0', 'd1'), 'pair'), ('m0', 'a')], "
        "not an admitted move step (admitted: ['mov m0 <- a'])")
    assert RUN.follow(req, ops, mutant="no_pair_step") == (
        "the model stops after 1 operations, the code goes on: "
        "[(('a', 'b'), ('d0', 'd1'), 'pair')]")


def test_the_whole_run_on_the_pair_machine_is_proved_and_its_twin_refuted():
    """The bounded whole-run claim on tpair (K = 6, tight, with its
    witnesses), and pair_unchecked (a pair move without THE invariant)
    refuted."""
    from proofs import resolve_run as RUN
    led = Ledger()
    assert RUN.run_claim(led, m=RUN.TPAIR) == "proved"
    assert led.vacuous == [] and len(led.witnesses) == 5, led.witnesses
    assert RUN.run_claim(Ledger(), k=5, m=RUN.TPAIR) == "refuted"
    assert RUN.run_claim(Ledger(), mutant="pair_unchecked", m=RUN.TPAIR) == "refuted"
