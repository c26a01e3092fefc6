"""The Z3 encoding of ``verified.semantics`` and of ``oracle.implements``.

Every bounded proof in ``proofs/`` that runs a sequence of operations runs it
through ``step`` below, and this encoding is cross-checked against the one
Python interpreter (``verified.semantics.execute`` via
``verified.oracle.implements``) on thousands of random cases, legal and
illegal (``cross_check``; ``tests/proofs/test_proofs.py`` runs it in
``make test``).  It is an encoding of the Python semantics, not a second
definition: where the two could differ, the Python one is the reference and
the cross-check is how we know they agree.

Encoding (bounded: a fixed list of ``L`` locations 0..L-1):

* the state is a Python list of Z3 terms of the uninterpreted sort ``Val``;
  the initial state holds L distinct symbolic constants ``v0 .. v{L-1}``
  (``Distinct`` is a hypothesis), i.e. "every location holds its own name";
* an operation is ``(kind, a, b)`` with ``kind`` in MOV/SWAP (Python ints or
  Z3 Int terms: symbolic operations are what the optimality proofs search
  over) or ``(PERM, pairs)`` with a concrete list of (dst, src) pairs whose
  locations may be symbolic;
* a location read or written at a symbolic index is an If-chain over the L
  locations (measured ~10x faster than the array theory here);
* ``legal`` says the operation exists in the model and names only locations
  of the register file or declared temporaries (the oracle's two legality
  checks); ``implements`` is the oracle's contract ("all" or "loops").
"""

from __future__ import annotations

import random
import time
from typing import Sequence

import z3

from verified.core.oracle import implements as py_implements
from verified.core.semantics import Mov, ParallelMove, Perm, Swap, execute, value_of

from .common import (ENUMERATED, PROVED, REFUTED, TESTED, UNKNOWN, Ledger, decide_each,
                     prove, prove_all, row)

Val = z3.DeclareSort("Val")

MOV, SWAP, PERM = 0, 1, 2
#: the kinds each model may emit (as in verified.semantics.MODELS)
MODEL_KINDS = {"temp": (MOV,), "swap": (MOV, SWAP), "permi": (MOV, PERM)}


def initial(nlocs: int, prefix: str = "v") -> list[z3.ExprRef]:
    """L distinct symbolic values (distinctness: ``distinct(state)``)."""
    return [z3.Const(f"{prefix}{l}", Val) for l in range(nlocs)]


def distinct(values: Sequence[z3.ExprRef]) -> z3.BoolRef:
    return z3.Distinct(*values) if len(values) > 1 else z3.BoolVal(True)


def _is_concrete(x) -> bool:
    return isinstance(x, int)


def read(state: Sequence[z3.ExprRef], loc) -> z3.ExprRef:
    """The value at ``loc`` (a Python int or a Z3 Int term)."""
    if _is_concrete(loc):
        return state[loc]
    v = state[-1]
    for l in range(len(state) - 2, -1, -1):
        v = z3.If(loc == l, state[l], v)
    return v


def _eq(x, l: int):
    if _is_concrete(x):
        return z3.BoolVal(x == l)
    return x == l


def _mov(state, dst, src):
    v = read(state, src)
    return [z3.If(_eq(dst, l), v, state[l]) if not _is_concrete(dst)
            else (v if dst == l else state[l]) for l in range(len(state))]


def _swap(state, a, b):
    va, vb = read(state, a), read(state, b)
    # Python: state[a], state[b] = vb, va  (b is written last)
    return [z3.If(_eq(b, l), va, z3.If(_eq(a, l), vb, state[l]))
            for l in range(len(state))]


def step(state: list[z3.ExprRef], op) -> list[z3.ExprRef]:
    """One operation, as ``verified.semantics.step``."""
    kind = op[0]
    if _is_concrete(kind) and kind == PERM:
        pairs = op[1]
        values = [read(state, s) for _, s in pairs]
        new = list(state)
        for (d, _), v in zip(pairs, values):  # later pairs win, as in Python
            new = [z3.If(_eq(d, l), v, new[l]) for l in range(len(new))]
        return new
    _, a, b = op
    if _is_concrete(kind):
        return _mov(state, a, b) if kind == MOV else _swap(state, a, b)
    m, s = _mov(state, a, b), _swap(state, a, b)
    return [z3.If(kind == MOV, m[l], s[l]) for l in range(len(state))]


def run(ops, state: list[z3.ExprRef]) -> list[z3.ExprRef]:
    for op in ops:
        state = step(state, op)
    return state


def _in(loc, allowed: Sequence[int]) -> z3.BoolRef:
    if _is_concrete(loc):
        return z3.BoolVal(loc in allowed)
    return z3.Or(*[loc == u for u in allowed]) if allowed else z3.BoolVal(False)


def legal(op, model: str, allowed_locs: Sequence[int]) -> z3.BoolRef:
    """The operation exists in ``model`` and names only ``allowed_locs``
    (register file + declared temporaries)."""
    kinds = MODEL_KINDS[model]
    kind = op[0]
    if _is_concrete(kind) and kind == PERM:
        if PERM not in kinds:
            return z3.BoolVal(False)
        return z3.And(*[z3.And(_in(d, allowed_locs), _in(s, allowed_locs)) for d, s in op[1]])
    _, a, b = op
    kind_ok = (z3.BoolVal(kind in kinds) if _is_concrete(kind)
               else z3.Or(*[kind == k for k in kinds]))
    return z3.And(kind_ok, _in(a, allowed_locs), _in(b, allowed_locs))


def implements(
    source_of: dict[int, int], registers: int, final: Sequence[z3.ExprRef],
    init: Sequence[z3.ExprRef], preserve: str = "all",
) -> z3.BoolRef:
    """The oracle's contract on the final state (registers 0..n-1)."""
    parts = [final[d] == init[s] for d, s in source_of.items()]
    if preserve == "all":
        parts += [final[l] == init[l] for l in range(registers) if l not in source_of]
    return z3.And(*parts) if parts else z3.BoolVal(True)


def implements_query(
    source_of: dict[int, int], registers: int, temps: Sequence[int], ops,
    model: str, preserve: str, nlocs: int,
) -> tuple[z3.BoolRef, list, list]:
    """The whole claim "ops implements the move" as one Z3 formula over the
    symbolic initial values (valid iff the sequence implements the move)."""
    init = initial(nlocs)
    final = run(ops, list(init))
    allowed = list(range(registers)) + list(temps)
    ok = z3.And(*[legal(op, model, allowed) for op in ops],
                implements(source_of, registers, final, init, preserve))
    return ok, init, final


# ---------------------------------------------------------------------------
# Cross-check against the Python interpreter
# ---------------------------------------------------------------------------


def _to_python(op):
    if op[0] == MOV:
        return Mov(op[1], op[2])
    if op[0] == SWAP:
        return Swap(op[1], op[2])
    return Perm(tuple(op[1]))


def _from_python(op):
    if isinstance(op, Mov):
        return (MOV, op.dst, op.src)
    if isinstance(op, Swap):
        return (SWAP, op.a, op.b)
    return (PERM, list(op.pairs))


def random_case(rng: random.Random):
    """A random move on 1..5 registers, 0..1 temporaries, a model, a
    contract, and a sequence: a reference algorithm's output (sometimes
    perturbed) or random operations, including operations the model lacks
    and locations outside the register file (location n + #temps)."""
    from verified.algorithms.leroy import leroy
    from verified.algorithms.shuf import shuf

    n = rng.randint(1, 5)
    ntemps = rng.randint(0, 1)
    temps = list(range(n, n + ntemps))
    nlocs = n + ntemps + 1  # the last location is outside the universe
    dsts = [d for d in range(n) if rng.random() < 0.7]
    moves = [(d, rng.randrange(n)) for d in dsts]
    model = rng.choice(["temp", "swap", "permi"])
    preserve = rng.choice(["all", "all", "loops"])
    pm = ParallelMove.make(moves, registers=n, temps=temps)
    ops: list = []
    pick = rng.random()
    if pick < 0.3:
        ops = [_from_python(o) for o in shuf(pm)]
    elif pick < 0.5 and ntemps:
        ops = [_from_python(o) for o in leroy(pm)]
    if ops and rng.random() < 0.5:  # perturb one operation
        i = rng.randrange(len(ops))
        ops[i] = _random_op(rng, nlocs)
    if not ops:
        ops = [_random_op(rng, nlocs) for _ in range(rng.randint(0, 6))]
    return pm, n, temps, nlocs, model, preserve, ops


def _random_op(rng: random.Random, nlocs: int):
    r = rng.random()
    # mostly in-universe locations; the outside one now and then
    loc = lambda: rng.randrange(nlocs) if rng.random() < 0.15 else rng.randrange(max(1, nlocs - 1))
    if r < 0.5:
        return (MOV, loc(), loc())
    if r < 0.8:
        return (SWAP, loc(), loc())
    k = rng.randint(1, min(5, nlocs))
    locs = rng.sample(range(nlocs), k)
    perm = locs[:]
    rng.shuffle(perm)
    return (PERM, list(zip(locs, perm)))


def cross_check(count: int, seed: int = 0) -> tuple[int, list[str], float]:
    """Run ``count`` random cases through both semantics.  Returns (number
    of cases whose verdict was ok, disagreements, solver seconds).  Checked
    per case: the verdict (Python ``implements(...).ok`` vs Z3 validity of
    the claim) and the final symbolic value of every location."""
    rng = random.Random(seed)
    disagreements: list[str] = []
    oks = 0
    cases_ = [random_case(rng) for _ in range(count)]
    queries = []
    for pm, n, temps, nlocs, model, preserve, ops in cases_:
        queries.append(implements_query(dict(pm.source_of), n, temps, ops, model, preserve,
                                        nlocs))
    # every case's initial values are v0 .. v{L-1} of the same constants, so
    # one distinctness hypothesis over the most locations serves them all
    # (an uninterpreted sort: distinct extra constants change no validity)
    led = Ledger()
    most = max([c[3] for c in cases_] or [1])
    verdicts = decide_each((q[0] for q in queries), [distinct(initial(most))], 60_000, led)
    for (pm, n, temps, nlocs, model, preserve, ops), (formula, init, final), r in zip(
            cases_, queries, verdicts):
        py_ops = [_to_python(o) for o in ops]
        py_ok = py_implements(pm, py_ops, model, preserve).ok
        z3_ok = r == PROVED
        if r not in (PROVED, REFUTED):
            disagreements.append(f"{r} on {pm} {ops}")
        elif z3_ok != py_ok:
            disagreements.append(
                f"verdict differs on {pm} model={model} preserve={preserve} "
                f"ops={py_ops}: python {py_ok}, z3 {z3_ok}")
        oks += py_ok
        state = execute(py_ops)
        for l in range(nlocs):
            got = z3.simplify(final[l])
            if not z3.eq(got, init[value_of(state, l)]):
                disagreements.append(
                    f"final value of location {l} differs on {py_ops}: "
                    f"python v{value_of(state, l)}, z3 {got}")
    return oks, disagreements, led.seconds


def claims(quick: bool = False) -> list[dict]:
    cases = 500 if quick else 3000
    oks, bad, secs = cross_check(cases, seed=2025)
    led = Ledger(seconds=secs, tested=cases)
    if bad:
        led.record(REFUTED)
    return [row(
        f"cross-check (a test, not a proof): Z3 step/implements == Python "
        f"execute/implements on {cases} random sequences ({oks} correct, "
        f"{cases - oks} wrong or illegal; each Z3 verdict by proofs.common.decide_each), 1..5 registers, "
        f"temp/swap/permi", 5, led, kind=TESTED, detail="; ".join(bad[:3]))]


# ---------------------------------------------------------------------------
# Bounded proofs by exhaustive enumeration of the inputs
# ---------------------------------------------------------------------------


def exhaustive(algorithm, n: int, model: str, ntemps: int, timer=None,
               preserve: str = "all", length=None) -> tuple[str, str]:
    """For EVERY move on n registers (all n**n maps srcs[d] = source of d,
    self-moves included), run the Python ``algorithm`` (contracts switched
    off, so that the judge is Z3 and not the algorithm's own postcondition)
    and prove with the Z3 semantics above that its output implements the
    move (``prove_all``: one goal per input).  With ``length`` (a function
    of the ParallelMove), the output must also have exactly that many
    operations.  Bounded, and the inputs are enumerated rather than
    symbolic: the ledger's ``enumerated`` counts them.  Returns (result,
    first counterexample or "")."""
    import itertools

    import verified.core.oracle as oracle

    ledger = timer if timer is not None else Ledger()
    temps = list(range(n, n + ntemps))
    nlocs = n + ntemps
    init = initial(nlocs)
    allowed = list(range(n)) + temps
    failure: list[str] = []

    def goals():
        for srcs in itertools.product(range(n), repeat=n):
            pm = ParallelMove.from_map(list(srcs), temps=temps)
            try:
                ops = [_from_python(o) for o in algorithm(pm)]
            except Exception as e:  # an assertion inside the algorithm
                failure.append(f"srcs={list(srcs)}: {type(e).__name__}: {e}")
                return
            ledger.enumerated += 1
            if length is not None and len(ops) != length(pm):
                failure.append(f"srcs={list(srcs)}: {len(ops)} operations, the bound is "
                               f"{length(pm)}: {[_to_python(o) for o in ops]}")
                return
            final = run(ops, list(init))
            ok = z3.And(*[legal(op, model, allowed) for op in ops],
                        implements(dict(pm.source_of), n, final, init, preserve))
            yield ok, f"srcs={list(srcs)}: {[_to_python(o) for o in ops]}"

    saved = oracle.CONTRACTS_ON
    oracle.CONTRACTS_ON = False
    try:
        r, label = prove_all(goals(), [distinct(init)], 60_000, ledger)
    finally:
        oracle.CONTRACTS_ON = saved
    if failure:
        return ledger.record(REFUTED), failure[0]
    return (ENUMERATED if r == PROVED else r), label
