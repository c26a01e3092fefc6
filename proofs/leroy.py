"""Proofs of ``verified.algorithms.leroy`` (leroy, leroy_iterative): the
rule system of Rideau, Serpette and Leroy (CompCert ``lib/Parmov.v``), for
every register count, and the check that the real algorithms only take its
rules.

THE RULE SYSTEM.  A state is (mu, sigma, e): mu the moves still to do (a
set; at most one move per destination), sigma the stack of moves being
moved (bottom first), e the values now in every location (the result of
the moves emitted so far: CompCert's tau, kept by its meaning).  Rules
(``rule`` below; CompCert's names):

    nop    take a move d <- d out of mu
    start  sigma empty: take a move d <- s (s != d) out of mu onto sigma
    push   take a move out of mu that reads the top's destination; push it
    loop   the top's destination is the bottom's source s (the walk closed
           a cycle) and s is not yet a temporary: emit temp(s) <- s, the
           bottom now reads temp(s)
    pop    (2 or more on sigma) nobody in mu reads the top's destination d
           and d is not the bottom's source: emit the top, pop it
    last   (1 on sigma) nobody in mu reads its destination: emit it

ENCODING (one definition, two interpretations).  Every formula below is
written once against an ``Ops`` interface: ``Z3Ops`` reads it as Z3 terms
over an uninterpreted location sort (any cardinality: every register count,
any number of temporaries) with arrays as state; ``PyOps`` reads it as
Python values on a concrete state, which is how the refinement check
(tests/proofs/test_leroy_refinement.py) steps the real algorithms through
the same rules.  mu is a list of length m in two Int-indexed arrays (Md
destinations, Ms sources) with a position array posm (location -> index)
that makes "d is a destination in mu" quantifier-free; removing a move
moves the last one into its slot (mu is a set: order is irrelevant), so m
IS the number of pending moves -- there is no ghost counter.  sigma the
same way (Sd, Ss, length k, pos).

WHAT IS PROVED (unbounded, ``claims()``):

* init: the parallel move as mu (distinct destinations, no temporaries),
  sigma empty, is well-formed;
* per rule (CompCert ``transition_preserves_wf``, and its semantic lemma):
  from a well-formed state whose side condition holds, the next state is
  well-formed, every non-temporary location has the same meaning
  (``par``: its value after running mu ++ sigma in parallel from e), and
  the measure drops;
* measure bounded below: well-formed => measure >= 0;
* progress: a well-formed state with mu or sigma non-empty has a rule that
  applies;
* final: mu and sigma empty (with the meaning kept since the start) => e
  holds on every non-temporary what the parallel move writes there.

So every run of the rule system from a parallel move terminates (a
natural-number measure that every rule drops), and stops only in the final
state, where the emitted moves implement the parallel move: the
nondeterministic system is correct for every register count, as CompCert
proves it.

THE MEASURE: 2 * (2|mu| + |sigma|) + [sigma non-empty and its bottom's
source is not a temporary].  CompCert's measure is 2|mu| + |sigma| with
``loop`` fused into ``pop`` (its deterministic ``parmove_step`` does the
two at once).  ``leroy`` cannot be mapped onto the fused step: its
recursion breaks the cycle as soon as a reader on the stack is found and
may push further readers of the same destination before it pops (see
``refines``), so we keep ``loop`` as a rule and let the bracket pay for it:
``loop`` turns the bottom's source into a temporary (bracket 1 -> 0), every
other rule changes 2|mu| + |sigma| by at least one, doubled.

WHAT IS TESTED, NOT PROVED: that ``leroy`` and ``leroy_iterative`` take
only these rules (the refinement, CompCert's ``parmove_step_compatible``).
Their ``trace=`` hook reports the rule each step takes and the algorithm's
state after it; ``refines`` maps that state to (mu, sigma, e) and checks
that the named rule, read by ``PyOps``, maps the previous state to exactly
this one (all of mu, sigma and e compared), and that the state is
well-formed.  Exhaustive over every move on n <= 6 registers (self-moves
included) and random larger moves; the same check read by Z3
(``z3_refines``) on random inputs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable

import z3

from .common import (ENUMERATED, PROVED, REFUTED, TESTED, UNKNOWN, Ledger, claim, combine,
                     planted, prove, row, run_lemma)

# -- the two interpretations --------------------------------------------------


class Z3Ops:
    """Formulas as Z3 terms; locations of sort L, values of sort V."""

    def __init__(self, L, V, temp, is_temp, tag: str = "") -> None:
        self.L, self.V, self.temp, self.is_temp, self.tag = L, V, temp, is_temp, tag
        self._n = 0

    def _fresh(self, sort, name):
        self._n += 1
        return z3.Const(f"{name}{self.tag}_{self._n}", sort)

    And, Or, Not, Implies, If = (staticmethod(z3.And), staticmethod(z3.Or),
                                 staticmethod(z3.Not), staticmethod(z3.Implies),
                                 staticmethod(z3.If))

    @staticmethod
    def store(a, i, v):
        return z3.Store(a, i, v)

    def all_idx(self, lo, hi, body: Callable) -> z3.BoolRef:
        j = self._fresh(z3.IntSort(), "j")
        return z3.ForAll([j], z3.Implies(z3.And(lo <= j, j < hi), body(j)))

    def any_idx(self, lo, hi, body: Callable) -> z3.BoolRef:
        j = self._fresh(z3.IntSort(), "p")
        return z3.Exists([j], z3.And(lo <= j, j < hi, body(j)))

    def all_loc(self, body: Callable) -> z3.BoolRef:
        x = self._fresh(self.L, "x")
        return z3.ForAll([x], body(x))


class Arr:
    """An immutable concrete array: a dict with a default."""

    __slots__ = ("d", "default")

    def __init__(self, d: dict, default: Any) -> None:
        self.d, self.default = d, default

    def __getitem__(self, i):
        return self.d.get(i, self.default)


class PyOps:
    """Formulas as Python values on a concrete state: locations are the
    ints of ``domain``; ``temps`` the temporaries; ``temp_of`` the
    temporary the algorithm uses for a source."""

    def __init__(self, domain: Iterable[int], temps: Iterable[int],
                 temp_of: Callable[[int], int]) -> None:
        self.domain = tuple(domain)
        self._temps = frozenset(temps)
        self.temp = temp_of

    def is_temp(self, x) -> bool:
        return x in self._temps

    @staticmethod
    def And(*a) -> bool:
        return all(a)

    @staticmethod
    def Or(*a) -> bool:
        return any(a)

    @staticmethod
    def Not(a) -> bool:
        return not a

    @staticmethod
    def Implies(a, b) -> bool:
        return (not a) or bool(b)

    @staticmethod
    def If(c, a, b):
        return a if c else b

    @staticmethod
    def store(a: Arr, i, v) -> Arr:
        d = dict(a.d)
        d[i] = v
        return Arr(d, a.default)

    @staticmethod
    def all_idx(lo, hi, body) -> bool:
        return all(body(j) for j in range(lo, hi))

    @staticmethod
    def any_idx(lo, hi, body) -> bool:
        return any(body(j) for j in range(lo, hi))

    def all_loc(self, body) -> bool:
        return all(body(x) for x in self.domain)


# -- states, well-formedness, meaning, measure ---------------------------------


@dataclass(frozen=True)
class State:
    m: Any      # |mu|
    Md: Any     # Int -> Loc: mu's destinations
    Ms: Any     # Int -> Loc: mu's sources
    posm: Any   # Loc -> Int: index in mu (ghost, pinned by wf)
    k: Any      # |sigma|
    Sd: Any     # Int -> Loc: sigma's destinations (0 = bottom)
    Ss: Any     # Int -> Loc: sigma's sources
    pos: Any    # Loc -> Int: index in sigma (ghost, pinned by wf)
    e: Any      # Loc -> V: the values now


def in_mu(st: State, O, x):
    p = st.posm[x]
    return O.And(0 <= p, p < st.m, st.Md[p] == x)


def in_sigma(st: State, O, x):
    p = st.pos[x]
    return O.And(0 <= p, p < st.k, st.Sd[p] == x)


def par(st: State, O, x):
    """x's value after running mu ++ sigma in parallel from e."""
    return O.If(in_mu(st, O, x), st.e[st.Ms[st.posm[x]]],
                O.If(in_sigma(st, O, x), st.e[st.Ss[st.pos[x]]], st.e[x]))


def wf(st: State, O):
    """CompCert's ``state_wf``: distinct destinations in mu ++ sigma, no
    temporary in mu, none in sigma except the bottom's source, sigma a path
    (each move reads the destination of the one below it)."""
    t = O.is_temp
    return O.And(
        st.m >= 0, st.k >= 0,
        O.all_idx(0, st.m, lambda j: O.And(
            st.posm[st.Md[j]] == j,                         # distinct in mu
            O.Not(in_sigma(st, O, st.Md[j])),               # and not in sigma
            O.Not(t(st.Md[j])), O.Not(t(st.Ms[j])))),      # no temporary in mu
        O.all_idx(0, st.k, lambda j: O.And(
            st.pos[st.Sd[j]] == j,                          # distinct in sigma
            O.Not(t(st.Sd[j])),                             # no temporary destination
            O.Implies(j >= 1, O.And(O.Not(t(st.Ss[j])),     # only the bottom reads one
                                    st.Ss[j] == st.Sd[j - 1])))),  # sigma is a path
    )


def measure(st: State, O):
    bottom_plain = O.And(st.k > 0, O.Not(O.is_temp(st.Ss[0])))
    return 2 * (2 * st.m + st.k) + O.If(bottom_plain, 1, 0)


def no_read(st: State, O, d):
    return O.all_idx(0, st.m, lambda j: st.Ms[j] != d)


def _remove(st: State, O, p) -> State:
    """mu without its p-th move: the last move takes its slot."""
    last = st.m - 1
    return replace(st, m=last, Md=O.store(st.Md, p, st.Md[last]),
                   Ms=O.store(st.Ms, p, st.Ms[last]),
                   posm=O.store(st.posm, st.Md[last], p))


def _push(st: State, O, s, d) -> State:
    return replace(st, Ss=O.store(st.Ss, st.k, s), Sd=O.store(st.Sd, st.k, d),
                   pos=O.store(st.pos, d, st.k), k=st.k + 1)


RULES = ("nop", "start", "push", "loop", "pop", "last")
#: the rules that take a move out of mu (parameter p: its index in mu)
TAKES = ("nop", "start", "push")


def rule(name: str, st: State, O, p=None) -> tuple[list, State]:
    """(side conditions, next state) of rule ``name``; ``p`` is the index in
    mu of the move nop/start/push takes."""
    top = st.k - 1
    if name in TAKES:
        taken = [0 <= p, p < st.m]
        s, d = st.Ms[p], st.Md[p]
        rest = _remove(st, O, p)
        if name == "nop":
            return taken + [s == d], rest
        if name == "start":
            return [st.k == 0] + taken + [s != d], _push(rest, O, s, d)
        return [st.k > 0] + taken + [s == st.Sd[top]], _push(rest, O, s, d)
    if name == "loop":
        s0 = st.Ss[0]
        t = O.temp(s0)
        side = [st.k > 0, st.Sd[top] == s0, O.Not(O.is_temp(s0))]
        return side, replace(st, e=O.store(st.e, t, st.e[s0]), Ss=O.store(st.Ss, 0, t))
    if name == "pop":
        d1 = st.Sd[top]
        side = [st.k >= 2, no_read(st, O, d1), d1 != st.Ss[0]]
        return side, replace(st, e=O.store(st.e, d1, st.e[st.Ss[top]]), k=top)
    if name == "last":
        d0 = st.Sd[0]
        side = [st.k == 1, no_read(st, O, d0)]
        return side, replace(st, e=O.store(st.e, d0, st.e[st.Ss[0]]), k=0)
    raise ValueError(f"no rule {name!r}")


def enabled(name: str, st: State, O):
    """Some instance of rule ``name`` applies in ``st``."""
    if name in TAKES:
        return O.any_idx(0, st.m, lambda p: O.And(*rule(name, st, O, p)[0]))
    return O.And(*rule(name, st, O)[0])


def final(st: State, O):
    return O.And(st.m == 0, st.k == 0)


# -- the unbounded lemmas ------------------------------------------------------

Loc = z3.DeclareSort("LeroyLoc")
Val = z3.DeclareSort("LeroyVal")


def symbolic_state(L, V, tag: str) -> State:
    I = z3.IntSort()
    A = lambda name, dom, rng: z3.Const(f"{name}_{tag}", z3.ArraySort(dom, rng))
    return State(m=z3.Int(f"m_{tag}"), Md=A("Md", I, L), Ms=A("Ms", I, L),
                 posm=A("posm", L, I), k=z3.Int(f"k_{tag}"), Sd=A("Sd", I, L),
                 Ss=A("Ss", I, L), pos=A("pos", L, I), e=A("e", L, V))


def _world(L) -> tuple[Z3Ops, list, State]:
    temp = z3.Function("temp", L, L)
    is_temp = z3.Function("is_temp", L, z3.BoolSort())
    q = z3.Const("q", L)
    return Z3Ops(L, Val, temp, is_temp), [z3.ForAll([q], is_temp(temp(q)))], \
        symbolic_state(L, Val, "0")


#: One lemma is a list of queries (goal, hypotheses, named witnesses: each
#: must be satisfiable with the hypotheses, see ``common.prove``).
Query = tuple


def rule_queries(name: str, L) -> list[Query]:
    O, axioms, st = _world(L)
    p = z3.Int("p")
    side, nxt = rule(name, st, O, p)
    goal = z3.And(
        wf(nxt, O),
        O.all_loc(lambda x: z3.Implies(z3.Not(O.is_temp(x)),
                                       par(nxt, O, x) == par(st, O, x))),
        measure(nxt, O) < measure(st, O),
    )
    witnesses = {"another move pending in mu": st.m >= 2}
    if name in ("push", "loop"):
        witnesses.update({"one move on sigma": st.k == 1, "two or more on sigma": st.k >= 2})
    return [(goal, axioms + [wf(st, O), *side], witnesses)]


def progress_queries(L) -> list[Query]:
    O, axioms, st = _world(L)
    goal = z3.Or(*[enabled(r, st, O) for r in RULES])
    return [(goal, axioms + [wf(st, O), z3.Not(final(st, O))],
             {"mu and sigma both non-empty": z3.And(st.m >= 1, st.k >= 1)})]


def final_queries(L) -> list[Query]:
    """Final state + the meaning kept since the start (par == G, the
    parallel move's result, on every non-temporary) => e == G there."""
    O, axioms, st = _world(L)
    G = z3.Const("G", z3.ArraySort(L, Val))
    nontemp = lambda f: O.all_loc(lambda x: z3.Implies(z3.Not(O.is_temp(x)), f(x)))
    return [(nontemp(lambda x: st.e[x] == G[x]),
             axioms + [wf(st, O), final(st, O), nontemp(lambda x: par(st, O, x) == G[x])],
             {})]


def init_queries(L) -> list[Query]:
    """The parallel move as mu (distinct destinations, no temporary),
    sigma empty: well-formed."""
    O, axioms, st = _world(L)
    st = replace(st, k=z3.IntVal(0))
    hyp = [st.m >= 0,
           O.all_idx(0, st.m, lambda j: st.posm[st.Md[j]] == j),
           O.all_idx(0, st.m, lambda j: z3.And(z3.Not(O.is_temp(st.Md[j])),
                                                z3.Not(O.is_temp(st.Ms[j]))))]
    return [(wf(st, O), axioms + hyp, {"two moves": st.m >= 2})]


def below_queries(L) -> list[Query]:
    O, axioms, st = _world(L)
    return [(measure(st, O) >= 0, axioms + [wf(st, O)], {})]


def lemma(make: Callable[[Any], list[Query]]) -> Callable:
    """``make``'s queries as one lemma for ``common.run_lemma``."""
    def run(L, ledger: Ledger, timeout_ms: int) -> str:
        return combine(prove(g, h, timeout_ms, ledger, witnesses=w)[0]
                       for g, h, w in make(L))
    return run


def check(make: Callable, expect_false: bool = False) -> Ledger:
    """Run one lemma over the uninterpreted location sort.  A refutation
    there is genuine (Z3's model interprets the sort as a finite set and
    its model check covers the quantifiers); only an unknown sends it on
    to ``common.run_lemma``'s search over 1..4 locations."""
    led = Ledger()
    r = lemma(make)(Loc, led, 3_000 if expect_false else 60_000)
    if r == UNKNOWN:
        run_lemma(lemma(make), Loc, "LeroyLoc", led, expect_false=expect_false)
    return led


#: the claims' texts (docs/proofs.md quotes them)
CLAIMS = {
    "init": "Leroy init: the parallel move as mu, sigma empty, is well-formed [unbounded; "
            "model: the rule system]",
    "rule": "Leroy rule {}: keeps well-formedness and the meaning on non-temporaries, "
            "measure 2(2|mu|+|sigma|)+[bottom source not a temporary] drops "
            "(|mu| = the pending moves, no ghost counter) [unbounded; model: the rule system, "
            "refined by the code row: every step of leroy and leroy_iterative up to n = 6]",
    "below": "Leroy measure bounded below: well-formed => measure >= 0 [unbounded; model]",
    "progress": "Leroy progress: in every well-formed state with mu or sigma non-empty "
                "some rule applies [unbounded; model]",
    "final": "Leroy final state: mu and sigma empty, meaning kept => the emitted moves "
             "implement the parallel move on non-temporaries [unbounded; model]",
}


def unbounded_claims() -> list[dict]:
    rows = [row(CLAIMS["init"], None, check(init_queries))]
    for name in RULES:
        rows.append(row(CLAIMS["rule"].format(name), None,
                        check(lambda L, name=name: rule_queries(name, L))))
    for key, make in (("below", below_queries), ("progress", progress_queries),
                      ("final", final_queries)):
        rows.append(row(CLAIMS[key], None, check(make)))
    return rows


# -- the refinement check: the real algorithms take only these rules ----------


def concrete_state(pm, status, src, stack, values: dict, domain, pending: int = 0) -> State:
    """The rule-system state of a run of ``leroy``: mu = the moves whose
    status is ``pending`` (TO_MOVE), sigma = the stack (bottom first), e =
    ``values``, the state after the emitted operations (run by the one
    interpreter, ``verified.core.semantics``)."""
    dst = [d for d, _ in pm.moves]
    mu = [(src[i], dst[i]) for i in range(len(dst)) if status[i] == pending]
    sigma = [(src[i], dst[i]) for i in stack]
    return State(
        m=len(mu), Md=Arr(dict(enumerate(d for _, d in mu)), None),
        Ms=Arr(dict(enumerate(s for s, _ in mu)), None),
        posm=Arr({d: j for j, (_, d) in enumerate(mu)}, -1),
        k=len(sigma), Sd=Arr(dict(enumerate(d for _, d in sigma)), None),
        Ss=Arr(dict(enumerate(s for s, _ in sigma)), None),
        pos=Arr({d: j for j, (_, d) in enumerate(sigma)}, -1),
        e=Arr({x: values.get(x, x) for x in domain}, None))


def _domain(pm, temps) -> list:
    """Every location the check looks at: the register file, every source,
    the temporaries."""
    return list(dict.fromkeys([*pm.locations(), *(s for _, s in pm.moves), *temps]))


def abstract(st: State, O: PyOps) -> tuple:
    """What a state means, representation aside: mu as a set of moves,
    sigma as a list, e on every location."""
    return (frozenset((st.Ms[j], st.Md[j]) for j in range(st.m)),
            tuple((st.Ss[j], st.Sd[j]) for j in range(st.k)),
            tuple((x, st.e[x]) for x in O.domain))


def _acts_on(name: str, prev: State, prev_stack: tuple, dst: list, move: int):
    """(the rule's parameter p, or a problem) for the move the step names:
    nop/start/push take move ``move`` out of mu (p = its index there); loop
    acts on sigma's bottom, pop and last on its top."""
    if name in TAKES:
        p = prev.posm[dst[move]]
        if not (0 <= p < prev.m and prev.Md[p] == dst[move]):
            return None, f"move {move} is not pending"
        return p, ""
    want = prev_stack[:1] if name == "loop" else prev_stack[-1:]
    if want != (move,):
        return None, f"move {move} is not the one {name} acts on ({list(want)})"
    return None, ""


class _PyReader:
    """The refinement check's questions, answered by the ``PyOps`` reading."""

    def __init__(self, O: PyOps) -> None:
        self.O = O

    def holds(self, formula) -> bool:
        return bool(formula)

    def step(self, name: str, prev: State, p) -> tuple[bool, tuple]:
        side, nxt = rule(name, prev, self.O, p)
        return self.O.And(*side), abstract(nxt, self.O)

    def wf(self, st: State) -> bool:
        return wf(st, self.O)


class Z3Reader:
    """The same questions asked of Z3: a concrete state becomes Z3 arrays
    (locations and values as Ints), the rule is the Z3 term of ``rule``
    (Z3Ops), its side condition and well-formedness are proved by
    ``common.prove`` (they quantify over indices), and the next state is
    read back by ``z3.simplify``."""

    def __init__(self, domain, temps, temp_of: Callable, ledger: Ledger | None = None) -> None:
        I = z3.IntSort()
        temp = lambda x: _chain(x, [(d, z3.IntVal(temp_of(d))) for d in domain],
                                z3.IntVal(temp_of(domain[0])))
        is_temp = lambda x: z3.Or(*[x == t for t in temps])
        self.O = Z3Ops(I, I, temp, is_temp, tag="_concrete")
        self.domain = domain
        self.ledger = ledger if ledger is not None else Ledger()

    def _z3(self, st: State) -> State:
        arr = lambda a: _array(a)
        return State(m=z3.IntVal(st.m), Md=arr(st.Md), Ms=arr(st.Ms), posm=arr(st.posm),
                     k=z3.IntVal(st.k), Sd=arr(st.Sd), Ss=arr(st.Ss), pos=arr(st.pos),
                     e=arr(st.e))

    def _proved(self, formula) -> bool:
        return prove(formula, [], 10_000, self.ledger)[0] == PROVED

    def step(self, name: str, prev: State, p) -> tuple[bool, tuple]:
        side, nxt = rule(name, self._z3(prev), self.O, None if p is None else z3.IntVal(p))
        if not self._proved(z3.And(*side)):
            return False, ()
        ev = lambda t: t if isinstance(t, int) else z3.simplify(t).as_long()
        m, k = ev(nxt.m), ev(nxt.k)
        return True, (frozenset((ev(nxt.Ms[j]), ev(nxt.Md[j])) for j in range(m)),
                      tuple((ev(nxt.Ss[j]), ev(nxt.Sd[j])) for j in range(k)),
                      tuple((x, ev(nxt.e[x])) for x in self.domain))

    def wf(self, st: State) -> bool:
        return self._proved(wf(self._z3(st), self.O))


def _chain(x, pairs, default):
    out = default
    for key, val in reversed(pairs):
        out = z3.If(x == key, val, out)
    return out


def _array(a: Arr):
    """A concrete ``Arr`` over ints as a Z3 Int -> Int array."""
    out = z3.K(z3.IntSort(), z3.IntVal(-1 if a.default is None else a.default))
    for key, val in a.d.items():
        out = z3.Store(out, key, val)
    return out


def refines(pm, steps, ops, temp_of: Callable, pending: int = 0,
            reader: str = "python", ledger: Ledger | None = None) -> list[str]:
    """Check one traced run of ``leroy``/``leroy_iterative`` on ``pm`` (its
    ``Step`` list and output ``ops``) against the rule system: every step's
    label is a rule and names the move that rule acts on, the rule (read by
    ``PyOps``) maps the previous state to exactly the traced one (mu, sigma
    and every location's value compared), every state is well-formed, the
    measure drops, and the run ends in the final state having emitted every
    operation.  Returns the problems (empty: the run refines the rules); a
    malformed trace is a problem, never an exception.  ``reader="z3"``
    asks every question of Z3 instead (``Z3Reader``; locations must be
    ints), recording its queries in ``ledger``."""
    from verified.core.semantics import step as run_op

    temps = list(pm.temps) or [temp_of(None)]
    domain = _domain(pm, temps)
    O = PyOps(domain, temps, temp_of)
    R = _PyReader(O) if reader == "python" else Z3Reader(domain, temps, temp_of, ledger)
    dst = [d for d, _ in pm.moves]
    values: dict = {}
    prev_stack: tuple = ()
    prev = concrete_state(pm, [pending] * len(dst), [s for _, s in pm.moves], (), values,
                          domain, pending)
    problems = [] if R.wf(prev) else ["initial state not well-formed"]
    done = 0
    for k, st in enumerate(steps):
        where = f"step {k} ({getattr(st, 'rule', st)!r})"
        try:
            if st.rule not in RULES:
                return problems + [f"{where}: not a rule of the system"]
            if not done <= st.emitted <= len(ops):
                return problems + [f"{where}: emitted {st.emitted} operations, "
                                   f"{done} before, {len(ops)} in all"]
            for op in ops[done:st.emitted]:
                run_op(values, op)
            done = st.emitted
            p, why = _acts_on(st.rule, prev, prev_stack, dst, st.move)
            cur = concrete_state(pm, st.status, st.src, st.stack, values, domain, pending)
        except Exception as exc:  # noqa: BLE001 -- a malformed trace is a rejection
            return problems + [f"{where}: state not readable: {exc!r}"]
        if why:
            return problems + [f"{where}: {why}"]
        if not R.wf(cur):
            problems.append(f"{where}: state not well-formed")
        applies, nxt = R.step(st.rule, prev, p)
        if not applies:
            problems.append(f"{where}: the side condition of {st.rule} does not hold")
        elif nxt != abstract(cur, O):
            problems.append(f"{where}: rule {st.rule} does not map the previous state "
                            "to this one")
        if not measure(cur, O) < measure(prev, O):
            problems.append(f"{where}: measure does not drop")
        if problems:
            return problems
        prev, prev_stack = cur, tuple(st.stack)
    if not final(prev, O):
        problems.append("the run stops in a state that is not final")
    if done != len(ops):
        problems.append(f"the steps emit {done} operations, the output has {len(ops)}")
    return problems


def mutant_claims() -> list[dict]:
    """Each planted bug of ``mutants/leroy.py`` ``PROOF``, loaded through
    the one mutant engine into a fresh copy of this module: its lemma
    must be refuted."""
    from mutants.leroy import LEMMA, PROOF

    def ask(ns, led: Ledger, lem: str) -> str:
        make = ns.progress_queries if lem == "progress" else (
            lambda L: ns.rule_queries(lem, L))
        led.absorb(ns.check(make, expect_false=True))
        return ""

    return [planted(f"MUTANT {m.name}: {m.why} [unbounded, lemma {LEMMA[m.name]}]", None, m,
                    lambda ns, led, lem=LEMMA[m.name]: ask(ns, led, lem),
                    kind=PROVED, load="load")
            for m in PROOF]


# -- rows: the refinement (enumerated and tested), the whole algorithm ---------


def run_traced(fn, pm) -> tuple[list, list]:
    """(output, steps) of ``fn`` (leroy or leroy_iterative) on ``pm``."""
    steps: list = []
    return fn(pm, trace=steps), steps


def refinement_problem(pm, temp: int, fns, reader: str = "python",
                       ledger: Ledger | None = None) -> str:
    """"" if every function of ``fns`` refines the rules on ``pm``: the
    first one is checked step by step, the others must trace exactly the
    same steps and output (they are the same algorithm)."""
    out, steps = run_traced(fns[0], pm)
    bad = refines(pm, steps, out, lambda _s: temp, reader=reader, ledger=ledger)
    if bad:
        return f"{fns[0].__name__} on {list(pm.moves)}: {bad[0]}"
    for fn in fns[1:]:
        if run_traced(fn, pm) != (out, steps):
            return f"{fn.__name__} on {list(pm.moves)}: not the same steps as {fns[0].__name__}"
    return ""


def _pm(case):
    from verified.core.semantics import ParallelMove

    n = case.registers
    return ParallelMove.make(list(case.moves), registers=n, temps=[n]), n


def refinement_claims(max_n: int, random_n: tuple, per_n: int, z3_cases: int) -> list[dict]:
    from verified.algorithms.leroy import leroy, leroy_iterative
    from verified.cases.moves import exhaustive_cases, random_cases

    fns = (leroy, leroy_iterative)
    rows = []
    led, detail = Ledger(), ""
    t0 = time.perf_counter()
    for case in exhaustive_cases(max_n):
        detail = refinement_problem(*_pm(case), fns)
        led.enumerated += 1
        if detail:
            led.record(REFUTED)
            break
    rows.append(row(f"leroy and leroy_iterative (code) refine the rules: every step of every move "
                    f"on n <= {max_n} registers + 1 temporary is the rule its trace names, "
                    "mapping the state to the traced one (mu, sigma, every value), "
                    "well-formed, measure dropping, ending final (Python reading of the "
                    f"rules; {led.enumerated} moves; tested, not proved; "
                    f"{time.perf_counter() - t0:.1f} s wall)", max_n, led,
                    kind=ENUMERATED, detail=detail))
    led, detail = Ledger(), ""
    for n in random_n:
        for case in random_cases(n, per_n, seed="leroy-refinement"):
            detail = refinement_problem(*_pm(case), fns)
            led.tested += 1
            if detail:
                led.record(REFUTED)
                break
    rows.append(row(f"the same on {led.tested} random moves on n = "
                    f"{min(random_n)}..{max(random_n)} registers (tested)", max(random_n), led,
                    kind=TESTED, detail=detail))
    led, detail = Ledger(), ""
    for n in (3, 5, 8):
        for case in random_cases(n, z3_cases, seed="leroy-refinement-z3"):
            detail = refinement_problem(*_pm(case), fns[:1], reader="z3", ledger=led)
            led.tested += 1
            if detail:
                led.record(REFUTED)
                break
    rows.append(row(f"the same with every question asked of Z3 (the Z3 terms of the rules "
                    f"and of well-formedness on the concrete states) on {led.tested} random "
                    "moves on n = 3, 5, 8 (tested)", 8, led, kind=TESTED, detail=detail))
    return rows


def whole_algorithm_claims(n: int) -> list[dict]:
    """Each output proved correct by the Z3 semantics, input by input
    (moved from proofs/parmove.py)."""
    from mutants.core import BY_NAME
    from verified.algorithms import leroy as algo
    from verified.algorithms.optimum import moves_plus_cycles

    from .semantics_z3 import exhaustive

    rows = []
    for name in ("leroy", "leroy_iterative"):
        led = Ledger()
        t0 = time.perf_counter()
        _, cex = exhaustive(getattr(algo, name), n, "temp", 1, led, length=moves_plus_cycles)
        rows.append(row(
            f"{name} (code): output implements every move on n registers + 1 temporary, in "
            f"exactly non-loop moves + cycles operations (inputs enumerated, each output "
            f"proved by Z3; {time.perf_counter() - t0:.1f} s wall)", n, led,
            kind=ENUMERATED, detail=cex, family=f"{name} (enumerated)"))
    rows.append(planted("MUTANT leroy_no_cycle: bounded whole-algorithm check", 3,
                        BY_NAME["leroy_no_cycle"],
                        lambda fn, led: exhaustive(fn, 3, "temp", 1, led)[1]))
    return rows


def claims(quick: bool = False) -> list[dict]:
    if quick:
        return (unbounded_claims() + mutant_claims() + refinement_claims(4, (8, 16), 20, 3)
                + whole_algorithm_claims(3))
    return (unbounded_claims() + mutant_claims()
            + refinement_claims(6, (7, 10, 16, 25, 40), 100, 10) + whole_algorithm_claims(5))


if __name__ == "__main__":
    for row in claims():
        print(row)
