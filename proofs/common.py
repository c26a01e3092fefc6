"""The one harness of ``proofs/``: every symbolic claim's Z3 query goes
through ``prove`` (vacuity and witnesses checked); the enumerations use
``prove_all`` (one incremental solver, the shared hypotheses' vacuity
once, no witnesses) and the cross-checks ``decide_each`` (a verdict per
goal, compared with Python's).

Results (the ``result`` column of ``python -m proofs``):

* ``proved``: Z3 showed ``hypotheses => goal`` valid (unsat of the negation),
  the hypotheses are satisfiable (vacuity check), and every named witness
  is satisfiable with the hypotheses;
* ``refuted``: Z3 found an assignment of the hypotheses where the goal is
  false (a counterexample; ``COUNTEREXAMPLE`` is the same word);
* ``vacuous``: the hypotheses are contradictory, or a named witness is
  unsatisfiable with them: the "proof" would hold of nothing, so the claim
  fails;
* ``unknown``: a query (the goal, the vacuity check or a witness) ran out
  of its budget (resource units, ``budgeted_solver``) or Z3 gave up: never
  counted as proved;
* ``enumerated``: every input up to the row's n was run and checked one by
  one (each check may be a Z3 proof), exhaustive but not symbolic;
* ``tested``: random or sampled inputs only.

A ``Ledger`` records every query of one claim (solver seconds, how many
were proved / refuted / vacuous / unknown, the witnesses checked), and
``claim(..., ledger=...)`` writes the row from it.  ``python -m proofs``
refuses a row that says ``proved`` without a proved Z3 query in its ledger,
or that says ``enumerated`` without an enumeration (so a label cannot be
written by hand).

Shared encoding helpers, once: ``mux`` (If-chain read at a symbolic index),
``finite_sort`` (a sort with exactly k elements), ``as_int`` (a bit-vector
compared width-independently: a witness "value n - 1 occurs" cannot be met
by wrap-around), ``run_lemma`` (an unbounded lemma, then a search for a
genuine counterexample on 1..4 elements when it does not prove).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import z3

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
VACUOUS, ENUMERATED, TESTED = "vacuous", "enumerated", "tested"
#: a planted bug's row whose edit no longer applies to today's source (a
#: broken catalogue entry: ``python -m proofs`` exits 2, never a catch)
NOT_APPLIED = "mutant could not apply"
#: the older name of REFUTED (the same string)
COUNTEREXAMPLE = REFUTED
#: results that fail a claim expected to be proved / enumerated / tested
FAILURES = (REFUTED, VACUOUS, UNKNOWN)

#: Budgets.  A query's nominal budget (``timeout_ms`` below: 60 s unless a
#: claim says otherwise) is spent as Z3 resource units, not seconds: Z3's
#: ``rlimit`` counts the solver's elementary steps, so the same query gets
#: the same verdict at any machine load (a wall-clock timeout made claims
#: come out unknown at load 14 that were proved alone).  RLIMIT_PER_MS
#: units per nominal millisecond; the wall clock is only a safety net,
#: WALL_SLACK times the nominal budget.  Calibration (docs/proofs.md): the
#: queries of ``python -m proofs`` use at most a fraction of their rlimit
#: (``Ledger.rlimit_max``); PROOFS_RLIMIT_LOG=file logs every query's
#: units, seconds and verdict.
RLIMIT_PER_MS = 5_000
WALL_SLACK = 20
#: the safety net is never below a minute (a tiny budget, such as the
#: harness rows' 20 ms, must run out of resource units, not of seconds)
WALL_FLOOR_MS = 60_000
_RLIMIT_LOG = os.environ.get("PROOFS_RLIMIT_LOG", "")


@dataclass
class Ledger:
    """What one claim asked Z3 and what Z3 answered (solver seconds
    included).  Also the timer of the older code (``Timer`` is this)."""

    seconds: float = 0.0
    counts: dict = field(default_factory=lambda: {PROVED: 0, REFUTED: 0, VACUOUS: 0,
                                                  UNKNOWN: 0})
    #: names of the witnesses checked (satisfiable) for this claim
    witnesses: list = field(default_factory=list)
    #: names of witnesses found unsatisfiable (the claim is vacuous)
    vacuous: list = field(default_factory=list)
    enumerated: int = 0
    tested: int = 0

    #: the most resource units (Z3's rlimit count) one query of this claim used
    rlimit_max: int = 0

    def check(self, solver: z3.Solver, *assumptions) -> z3.CheckSatResult:
        before = _rlimit_count(solver)
        t = time.perf_counter()
        r = solver.check(*assumptions)
        dt = time.perf_counter() - t
        self.seconds += dt
        used = _rlimit_count(solver) - before
        self.rlimit_max = max(self.rlimit_max, used)
        if _RLIMIT_LOG:
            with open(_RLIMIT_LOG, "a") as f:
                f.write(f"{used} {dt:.3f} {r} {solver.reason_unknown() if r == z3.unknown else ''}\n")
        return r

    def absorb(self, other: "Ledger") -> None:
        """Add what ``other`` recorded to this ledger."""
        self.seconds += other.seconds
        for k, v in other.counts.items():
            self.counts[k] = self.counts.get(k, 0) + v
        self.witnesses += [w for w in other.witnesses if w not in self.witnesses]
        self.vacuous += other.vacuous
        self.enumerated += other.enumerated
        self.tested += other.tested
        self.rlimit_max = max(self.rlimit_max, other.rlimit_max)

    def record(self, result: str) -> str:
        self.counts[result] = self.counts.get(result, 0) + 1
        return result

    def result(self, kind: str = PROVED) -> str:
        """The claim's result from what was recorded: any refutation wins,
        then vacuity, then unknown; else ``kind`` (proved / enumerated /
        tested) if something of that kind was checked, else unknown."""
        for bad in (REFUTED, VACUOUS, UNKNOWN):
            if self.counts.get(bad):
                return bad
        if kind == PROVED:
            return PROVED if self.counts[PROVED] else UNKNOWN
        if kind == ENUMERATED:
            return ENUMERATED if self.enumerated else UNKNOWN
        return TESTED if self.tested else UNKNOWN

    def evidence(self) -> dict:
        return {"z3": dict(self.counts), "witnesses": list(self.witnesses),
                "vacuous_witnesses": list(self.vacuous),
                "enumerated": self.enumerated, "tested": self.tested,
                "rlimit_max": self.rlimit_max}


Timer = Ledger


def budgeted_solver(timeout_ms: int) -> z3.Solver:
    """A solver with the budget of a query whose nominal budget is
    ``timeout_ms``: Z3's resource limit ``rlimit = RLIMIT_PER_MS *
    timeout_ms`` (deterministic: the verdict does not depend on the
    machine's load) and a wall-clock safety net ``WALL_SLACK * timeout_ms``
    (at least ``WALL_FLOOR_MS``) that only a machine that many times slower
    than the calibration ever reaches.  Either one exhausted is ``unknown`` (never proved).  Every
    solver of ``proofs/`` is made here (``_solve``, ``prove_all``,
    ``decide_each``)."""
    s = z3.Solver()
    wall, rlimit = budget(timeout_ms)
    s.set("timeout", wall)
    s.set("rlimit", rlimit)
    return s


def budget(timeout_ms: int) -> tuple[int, int]:
    """(wall-clock safety net in ms, rlimit) of a query whose nominal
    budget is ``timeout_ms``."""
    ms = max(1, int(timeout_ms))
    return (max(ms * WALL_SLACK, WALL_FLOOR_MS),
            min(ms * RLIMIT_PER_MS, 2**32 - 1))   # rlimit is an unsigned parameter


def _rlimit_count(solver: z3.Solver) -> int:
    st = solver.statistics()
    return int(st.get_key_value("rlimit count")) if "rlimit count" in st.keys() else 0


def _solve(assertions: Sequence[z3.BoolRef], timeout_ms: int,
           ledger: Ledger) -> tuple[z3.CheckSatResult, z3.Solver]:
    s = budgeted_solver(timeout_ms)
    s.add(*assertions)
    return ledger.check(s), s


def antecedents(goal: z3.BoolRef) -> list[z3.BoolRef]:
    """The antecedents of the ``Implies`` at the top of ``goal`` (through
    ``And``): the branches a claim must show reachable."""
    out = []
    stack = [goal]
    while stack:
        g = stack.pop()
        if z3.is_and(g):
            stack.extend(reversed(g.children()))
        elif z3.is_app_of(g, z3.Z3_OP_IMPLIES):
            out.append(g.arg(0))
    return out


def prove(
    goal: z3.BoolRef, hypotheses: Iterable[z3.BoolRef] = (),
    timeout_ms: int = 60_000, timer: Ledger | None = None,
    witnesses: Mapping[str, z3.BoolRef] | None = None, branches: bool = False,
    vacuity_timeout_ms: int | None = None,
) -> tuple[str, z3.ModelRef | None]:
    """Prove ``hypotheses => goal`` for every assignment of the free
    constants.  Returns (result, counterexample model or None):

    * REFUTED with the model when ``hypotheses and not goal`` is sat;
    * otherwise (unsat) the hypotheses must be satisfiable (vacuity check),
      and so must every ``witnesses`` formula and (``branches``) every
      top-level ``Implies`` antecedent of ``goal``, each together with the
      hypotheses: an unsat one gives VACUOUS, a timed-out one UNKNOWN;
    * UNKNOWN when the main query runs out of its budget (resource units,
      or the wall-clock safety net).
    """
    ledger = timer if timer is not None else Ledger()
    hyps = list(hypotheses)
    r, s = _solve(hyps + [z3.Not(goal)], timeout_ms, ledger)
    if r == z3.sat:
        return ledger.record(REFUTED), s.model()
    if r != z3.unsat:
        return ledger.record(UNKNOWN), None
    checks: list[tuple[str, z3.BoolRef]] = [("hypotheses satisfiable", z3.BoolVal(True))]
    checks += list((witnesses or {}).items())
    if branches:
        checks += [(f"branch {a}", a) for a in antecedents(goal)]
    vt = vacuity_timeout_ms if vacuity_timeout_ms is not None else timeout_ms
    for name, w in checks:
        rw, _ = _solve(hyps + [w], vt, ledger)
        if rw == z3.unsat:
            ledger.vacuous.append(name)
            return ledger.record(VACUOUS), None
        if rw != z3.sat:  # a timed-out vacuity check proves nothing
            return ledger.record(UNKNOWN), None
        if name != "hypotheses satisfiable" and name not in ledger.witnesses:
            ledger.witnesses.append(name)
    return ledger.record(PROVED), None


def exists(
    formula: z3.BoolRef, hypotheses: Iterable[z3.BoolRef] = (),
    timeout_ms: int = 60_000, timer: Ledger | None = None,
) -> tuple[str, z3.ModelRef | None]:
    """Reachability, through ``prove``: "some assignment meets the
    hypotheses and ``formula``" is proved exactly when ``hypotheses =>
    not formula`` is refuted (the model is the witness).  Returns (PROVED
    with the model, REFUTED when none exists, UNKNOWN)."""
    ledger = timer if timer is not None else Ledger()
    scratch = Ledger()
    r, model = prove(z3.Not(formula), hypotheses, timeout_ms, scratch)
    ledger.seconds += scratch.seconds
    if r == REFUTED:
        return ledger.record(PROVED), model
    if r in (PROVED, VACUOUS):
        return ledger.record(REFUTED), None
    return ledger.record(UNKNOWN), None


def prove_all(
    goals: Iterable[tuple[z3.BoolRef, str]], hypotheses: Iterable[z3.BoolRef],
    timeout_ms: int, ledger: Ledger,
) -> tuple[str, str]:
    """Many goals under the same hypotheses (an enumeration: one goal per
    input), on one incremental solver: the vacuity check of the shared
    hypotheses once, then each goal.  Stops at the first goal that is not
    proved; returns (result, that goal's label or "")."""
    hyps = list(hypotheses)
    s = budgeted_solver(timeout_ms)
    s.add(*hyps)
    r = ledger.check(s)
    if r == z3.unsat:
        ledger.vacuous.append("hypotheses satisfiable")
        return ledger.record(VACUOUS), ""
    if r != z3.sat:
        return ledger.record(UNKNOWN), ""
    for goal, label in goals:
        s.push()
        s.add(z3.Not(goal))
        r = ledger.check(s)
        s.pop()
        if r == z3.sat:
            return ledger.record(REFUTED), label
        if r != z3.unsat:
            return ledger.record(UNKNOWN), label
        ledger.record(PROVED)
    return PROVED, ""


def decide_each(
    goals: Iterable[z3.BoolRef], hypotheses: Iterable[z3.BoolRef], timeout_ms: int,
    ledger: Ledger,
) -> Iterable[str]:
    """A verdict per goal (PROVED or REFUTED, UNKNOWN on a timeout) under
    shared hypotheses, on one incremental solver, for checks where a
    refutation is an answer and not a failure (the semantics cross-check
    compares each verdict with Python's).  The hypotheses' vacuity check
    comes first: if they are unsatisfiable every verdict is VACUOUS."""
    s = budgeted_solver(timeout_ms)
    s.add(*list(hypotheses))
    r = ledger.check(s)
    base = None if r == z3.sat else (VACUOUS if r == z3.unsat else UNKNOWN)
    for goal in goals:
        if base is not None:
            yield base
            continue
        s.push()
        s.add(z3.Not(goal))
        r = ledger.check(s)
        s.pop()
        yield PROVED if r == z3.unsat else REFUTED if r == z3.sat else UNKNOWN


def combine(results: Iterable[str]) -> str:
    """Several sub-results make one claim: refuted wins, then vacuous,
    then unknown; proved only if all are proved (and there is one)."""
    results = list(results)
    for bad in (REFUTED, VACUOUS, UNKNOWN):
        if bad in results:
            return bad
    return PROVED if results else UNKNOWN


#: called with each row as ``claim`` makes it, when not None: ``python -m
#: proofs --first-failure`` sets it in a module's process to stop that
#: module at its first row not as expected (``proofs.__main__``)
ON_ROW: Callable[[dict], None] | None = None


def claim(
    text: str, n: int | None, result: str, seconds: float,
    expect: str = PROVED, detail: str = "", ledger: Ledger | None = None,
    **extra,
) -> dict:
    """One row of the proofs table.  With ``ledger``, the row carries the
    evidence ``python -m proofs`` checks the result against."""
    out = {"claim": text, "n": n, "result": result, "seconds": round(seconds, 3),
           "expect": expect}
    if detail:
        out["detail"] = detail
    if ledger is not None:
        out["evidence"] = ledger.evidence()
    out.update(extra)
    # read from the loaded module, not this function's globals: a mutant of
    # this module (mutants.load) runs a copy of claim in globals of its own
    hook = sys.modules["proofs.common"].ON_ROW
    if hook is not None:
        hook(out)
    return out


def row(text: str, n: int | None, ledger: Ledger, kind: str = PROVED,
        expect: str | None = None, detail: str = "", **extra) -> dict:
    """A row whose result is computed from its ledger (see ``Ledger.result``)."""
    return claim(text, n, ledger.result(kind), ledger.seconds,
                 expect=expect or kind, detail=detail, ledger=ledger, **extra)


def planted(text: str, n: int | None, mutant, ask: Callable[[object, Ledger], str],
            kind: str = ENUMERATED, expect: str = REFUTED, load: str = "run",
            **extra) -> dict:
    """The row of a planted bug the proofs use: ``mutant`` (a
    ``mutants.Mutant``) is applied by the one mutant engine
    (``mutants.run``, or ``mutants.load`` with ``load="load"``), then
    ``ask(loaded, ledger)`` asks the claim and returns its detail.  An edit
    that no longer applies gives a NOT_APPLIED row (its error as detail),
    never a crash of the module nor a refuted claim."""
    import mutants

    try:
        loaded = getattr(mutants, load)(mutant)
    except mutants.MutantDoesNotApply as e:
        return claim(text, n, NOT_APPLIED, 0.0, expect=expect, detail=str(e), **extra)
    led = Ledger()
    detail = ask(loaded, led)
    return row(text, n, led, kind=kind, expect=expect, detail=detail or "", **extra)


def evidence_problem(r: dict) -> str:
    """Why a row's result is not backed by its evidence ("" when it is)."""
    ev = r.get("evidence")
    result = r["result"]
    if result == NOT_APPLIED:
        return f"mutant could not apply: {r.get('detail', '')}"
    if result not in (PROVED, ENUMERATED, TESTED):
        return ""
    if ev is None:
        return f"says {result} but carries no evidence"
    z = ev["z3"]
    bad = [k for k in (REFUTED, VACUOUS, UNKNOWN) if z.get(k)]
    if bad and r.get("expect") in (PROVED, ENUMERATED, TESTED):
        return f"says {result} but its ledger has {', '.join(bad)} queries"
    if result == PROVED and (not z.get(PROVED) or ev["enumerated"] or ev["tested"]):
        return "says proved without a symbolic Z3 proof (enumerated or tested)"
    if result == ENUMERATED and not ev["enumerated"]:
        return "says enumerated without an enumeration"
    if result == TESTED and not ev["tested"]:
        return "says tested without a test"
    return ""


# ---------------------------------------------------------------------------
# Encoding helpers (once for every module)
# ---------------------------------------------------------------------------


def mux(xs: Sequence, j):
    """``xs[j]`` for a Python int or a Z3 term ``j`` (an If-chain; past the
    end reads the last element, so callers bound ``j``)."""
    if isinstance(j, int):
        return xs[j]
    v = xs[-1]
    for k in range(len(xs) - 2, -1, -1):
        v = z3.If(j == k, xs[k], v)
    return v


def holds_at(memo: dict, key, build: Callable, values: Sequence) -> bool:
    """Is ``build(values)`` true?  (``values_at`` of a single term.)"""
    return z3.is_true(values_at(memo, key, lambda c: [build(c)], values)[0])


def values_at(memo: dict, key, build: Callable, values: Sequence) -> list:
    """The terms of the list ``build(values)``, simplified: ``values`` are
    Z3 values (ground), so each is a value.  The terms are the ones
    ``build`` makes, built once per ``key`` over fresh constants of the
    values' sorts, then those constants replaced by the values
    (``z3.substitute``) and simplified, as the terms built on the values
    would be: the real runs' traces check an encoding at thousands of
    concrete states, and building it afresh at each cost most of that.
    ``key`` must fix everything ``build`` decides in Python (the register
    count, the phase, Python-int indices) and the values' sorts.  ``memo``
    (key -> the term and its constants) is the caller's, for one enumeration
    or test: kept alive afterwards, the terms made later Z3 work in the same
    process slower (xchg_symbolic(4): about 1 CPU s more after the random
    runs' terms, the same resource units)."""
    hit = memo.get(key)
    if hit is None:
        consts = [z3.FreshConst(v.sort(), "at") for v in values]
        hit = memo[key] = (build(consts), consts)
    terms, consts = hit
    pairs = list(zip(consts, values))
    return [z3.simplify(z3.substitute(t, *pairs)) for t in terms]


_FINITE: dict = {}


def finite_sort(prefix: str, k: int) -> z3.SortRef:
    """A sort with exactly k elements: a counterexample over it is a genuine
    counterexample to a lemma claimed for every sort."""
    if (prefix, k) not in _FINITE:
        _FINITE[prefix, k] = z3.EnumSort(f"{prefix}{k}", [f"{prefix.lower()}{k}_{j}"
                                                          for j in range(k)])[0]
    return _FINITE[prefix, k]


def as_int(x) -> z3.ArithRef:
    """A bit-vector as an unbounded integer (unsigned), so that comparing
    it with n - 1 cannot be met by wrap-around."""
    return z3.BV2Int(x) if z3.is_bv(x) else x


def source_witnesses(srcs: Sequence, n: int) -> dict:
    """The witness families of a symbolic move ``srcs`` (``srcs[d]`` the
    source of register d, over 0..n-1), asked for EVERY value they range
    over, not one instance: each register v is the source of another
    register, and (n > 2) each v is read by two moves (fan-out of v).  A
    hypothesis that cuts any value out of the sources' range makes one of
    them unsatisfiable: the claim is vacuous."""
    out = {}
    for v in range(n):
        others = [y for y in range(n) if y != v]
        out[f"register {v} is the source of another"] = z3.Or(
            *[as_int(srcs[y]) == v for y in others] or [z3.BoolVal(False)])
    if n > 2:
        for v in range(n):
            others = [y for y in range(n) if y != v]
            out[f"register {v} is read by two moves (fan-out)"] = z3.Or(*[
                z3.And(as_int(srcs[y]) == v, as_int(srcs[z]) == v)
                for i, y in enumerate(others) for z in others[i + 1:]])
    return out


def declared_range(xs: Sequence, n: int) -> list:
    """The declared domain of symbolic registers ``xs``: each an integer in
    0..n-1, written over unbounded integers, independently of the
    bit-vector range hypotheses the queries use."""
    return [z3.And(as_int(x) >= 0, as_int(x) <= n - 1) for x in xs]


def domain_query(declared: Sequence, hypotheses: Sequence, timeout_ms: int,
                 ledger: Ledger) -> str:
    """Prove that ``hypotheses`` (the range restrictions a symbolic claim's
    queries assume) exclude no input of the ``declared`` domain: declared
    => every hypothesis.  A narrowing (a value cut from a range, anywhere)
    is refuted here, whatever the witnesses ask."""
    goal = z3.And(*hypotheses) if hypotheses else z3.BoolVal(True)
    return prove(goal, list(declared), timeout_ms, ledger)[0]


def run_lemma(lemma: Callable[[z3.SortRef, Ledger, int], str], sort: z3.SortRef,
              prefix: str, ledger: Ledger, expect_false: bool = False,
              sizes: Iterable[int] = range(1, 5)) -> str:
    """An unbounded lemma ``lemma(sort, ledger, timeout_ms)`` over the
    uninterpreted ``sort``; if that does not prove, look for a genuine
    counterexample over 1..4 elements, so that a false lemma reports
    REFUTED (with a finite model) rather than unknown.  A lemma expected
    false (a mutant) gets a short unbounded attempt."""
    r = lemma(sort, ledger, 3_000 if expect_false else 60_000)
    if r in (PROVED, VACUOUS):
        return r
    for k in sizes:
        if lemma(finite_sort(prefix, k), ledger, 20_000) == REFUTED:
            return REFUTED
    return UNKNOWN


def enumerate_maps(top: int, judge: Callable[[list], list]) -> tuple[Ledger, str]:
    """Every move of 1..top registers as a source map, judged by
    ``judge(srcs)`` (a list of problems, empty when it agrees); stops at
    the first problem.  The ledger counts the moves and records REFUTED
    on a problem; the detail names the first one."""
    import itertools

    led, detail = Ledger(), ""
    t0 = time.perf_counter()
    for n in range(1, top + 1):
        for srcs in itertools.product(range(n), repeat=n):
            led.enumerated += 1
            bad = judge(list(srcs))
            if bad:
                led.record(REFUTED)
                detail = f"srcs={list(srcs)}: {bad[0]}"
                break
        if detail:
            break
    led.seconds = time.perf_counter() - t0
    return led, detail


def pigeonhole(holes: int) -> list[z3.BoolRef]:
    """A small unsatisfiable formula Z3 needs long to refute (pigeonhole:
    holes + 1 pigeons in ``holes`` holes); the harness's own tests use it
    as hypotheses whose vacuity check times out."""
    p = [[z3.Bool(f"php_{i}_{j}") for j in range(holes)] for i in range(holes + 1)]
    out = [z3.Or(*row_) for row_ in p]
    for j in range(holes):
        for a in range(holes + 1):
            for b in range(a + 1, holes + 1):
                out.append(z3.Not(z3.And(p[a][j], p[b][j])))
    return out


# ---------------------------------------------------------------------------
# The harness's own claims (rows of ``python -m proofs``), on small synthetic
# queries: each way the harness could call something proved that is not
# (a timeout, a vacuous hypothesis or witness, an unknown in the ledger, a
# label written by hand) must come out as such.  Each has a planted twin in
# mutants/proofs.py that the row catches.
# ---------------------------------------------------------------------------


#: the nominal budget of the harness's "runs out of budget" queries: 20 ms,
#: i.e. 100,000 resource units, where the pigeonhole query needs about 2.3
#: million (measured: ``PROOFS_RLIMIT_LOG``): unknown at any load
HARNESS_BUDGET_MS = 20


def harness_claims() -> list[dict]:
    x = z3.Int("harness_x")
    rows = []
    # a valid goal Z3 cannot show within a 20 ms budget (100,000 resource
    # units; no 11 pigeons in 10 holes needs about 2.3 million): the main
    # query runs out of budget, so the result is unknown
    led = Ledger()
    prove(z3.Not(z3.And(*pigeonhole(10))), [], HARNESS_BUDGET_MS, led)
    rows.append(row("harness: a proof whose main query times out is unknown, never "
                    "proved", "-", led, expect=UNKNOWN))
    # hypotheses whose vacuity check cannot finish within the same budget
    # (pigeonhole 11 -> 10): the goal itself is trivially valid, so only
    # the vacuity check stands between this and "proved"
    led = Ledger()
    prove(z3.BoolVal(True), pigeonhole(10), 60_000, led,
          vacuity_timeout_ms=HARNESS_BUDGET_MS)
    rows.append(row("harness: a proof whose vacuity check times out is unknown, "
                    "never proved", "-", led, expect=UNKNOWN))
    led = Ledger()
    prove(x > 0, [x > 1], 60_000, led, witnesses={"x == 0": x == 0})
    rows.append(row("harness: a proof with an unsatisfiable witness is vacuous", "-",
                    led, expect=VACUOUS))
    led = Ledger()
    prove(z3.And(z3.Implies(x > 5, x > 3), z3.Implies(x < 0, x > 3)), [x > 1], 60_000, led,
          branches=True)
    rows.append(row("harness: a proof with an unreachable Implies branch is vacuous",
                    "-", led, expect=VACUOUS))
    # one claim, three queries: two proved, one timed out
    led = Ledger()
    prove(x > 0, [x > 1], 60_000, led)
    prove(z3.Not(z3.And(*pigeonhole(10))), [], HARNESS_BUDGET_MS, led)
    prove(x > -1, [x > 1], 60_000, led)
    rows.append(row("harness: a ledger with proved queries and one unknown makes the "
                    "claim unknown, never proved", "-", led, expect=UNKNOWN))
    # "proved" written by hand over a ledger with no query in it: the
    # runner (python -m proofs, judge) must reject the row
    rows.append(claim("harness: a row labelled proved by hand, with no Z3 query behind "
                      "it, is rejected by the runner", "-", PROVED, 0.0, ledger=Ledger(),
                      expect_rejected=True))
    return rows


def claims(quick: bool = False) -> list[dict]:
    return harness_claims()
