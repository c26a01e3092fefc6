"""The resolver's whole greedy run on the small machine "treg", bounded
(``proofs/resolve.py`` section 4; its rows are in ``resolve.claims``).

Section 3 of ``proofs/resolve.py`` proves progress and a measure for the
greedy steps in states with a free register.  Here the whole run is
unrolled instead, from the initial state of every request at once,
including the states with NO free register (every register finished or
holding the only copy of a needed value), where the resolver borrows a
finished register (saved in a free place, or not at all when its value
has a copy), as the code does.

The model (one definition, two backends: Z3 terms for the proofs, Python
values for the code link, so the model the proofs are about is the model
the code is compared with):

* the state and THE invariant of the step lemmas: ``cur[u]``, a unit's
  goal (its source's value, or under "all" its own), *pending* (has a
  goal, does not hold it), ``keeps`` (INV after the step: every pending
  unit's goal, unless the constant, held by some unit; no finished unit
  unfinished except the borrowed register);
* the steps, as short lists of ``mov`` with the machine's legality (no
  slot <- slot, constants into registers only), each admitted only where
  it keeps the invariant (the code's ``_Run.attempt``), in three classes
  tried in order (the code's loop: ready jobs, then a break, then a borrow):

  1. moves: a pending d written from any unit holding its goal, directly
     or through a register r (slot <- slot, a constant into a slot);
  2. parks: a blocked d (its value needed, d its only holder) copied into
     any other unit the machine can write from d;
  3. borrows of a finished register r (``allow`` r): saved in a place p or
     not at all, then the scratch of a slot <- slot move or of a constant
     into a slot, or the park of a pending d, admitted (like the code's
     ``_trial``) only where a move of d applies right after.

  A run takes a step of the first class with an admitted step (any of
  them: the model does not fix the code's choice within a class), and
  stops when no step is admitted.

Claims (``run_claim``): for every request (each of a, b, m0, m1 gets a
source among the four, 7 or none; contract all or loops: 6**4 x 2) and
every run of the model, the state after K steps has no pending unit and
meets the request's contract: every run stops within K steps and never
gets stuck short of the contract (so the model refuses nothing here,
and the exhaustive search of the enumerated rows confirms no request of
this machine lacks a sequence).  K is tight (a witness run still has a
pending unit after K - 1 steps).  The code link (``code_link``): the real
``resolve.greedy`` on every request of the same machine, its operations
cut into the model's steps: each piece must be a step the model admits
in the first class that has one, and the run must end where the model's
does (inputs enumerated).

The machine "tpair" (``TPAIR``, ``small_pair`` of the case module): treg
with m1 replaced by the two-unit slot md (units d0, d1) that pair moves
(AArch64 STP/LDP) write and read whole; the same model plus the pair
moves of the request's jobs (``kind="pair"``), md's units holders only of
md's own values; the same claims on its 380 x 2 requests
(``request_domain``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import z3

from .common import ENUMERATED, REFUTED, Ledger, prove

IMM = "imm"     # the constant 7 as a source operand
CLASSES = ("move", "park", "last", "imm")


@dataclass(frozen=True)
class Mach:
    """A small machine of the model, by its units.  ``pair``: the two units
    of the two-unit slot md, written and read only whole, by a pair move
    between md and a list of two registers (AArch64 LDP/STP)."""

    name: str
    units: tuple
    regs: tuple
    locs: tuple             # the units a request may give a goal
    pair: tuple = ()


TREG = Mach("treg", ("a", "b", "t", "m0", "m1"), ("a", "b", "t"), ("a", "b", "m0", "m1"))
#: treg with m1 replaced by the two-unit slot md (units d0, d1) and pair moves
#: gpr <-> mem: ``mov md, [x, y]`` (STP) and ``mov [x, y], md`` (LDP)
TPAIR = Mach("tpair", ("a", "b", "t", "m0", "d0", "d1"), ("a", "b", "t"),
             ("a", "b", "m0", "d0", "d1"), ("d0", "d1"))


def is_slot(u: str, m: Mach = TREG) -> bool:
    return u not in m.regs


def legal(dst: str, src: str, m: Mach = TREG) -> bool:
    """The machine's one-unit movs: no slot <- slot, constants into
    registers, md's units only by a pair move."""
    if dst in m.pair or src in m.pair:
        return False
    if src == IMM:
        return not is_slot(dst, m)
    return dst != src and not (is_slot(dst, m) and is_slot(src, m))


@dataclass(frozen=True)
class Step:
    cls: str                    # "move", "park" or "last" (borrows, parks into a copy)
    name: str
    ops: tuple                  # ((dst, src), ...), src a unit or IMM
    d: str                      # the unit the step is for
    src: str | None = None      # the unit whose value d must get (None: d's goal is the constant)
    r: str | None = None        # the borrowed register
    kind: str = ""              # "move", "park", "scratch", "imm", "bpark"


def swap_legal(x: str, y: str) -> bool:
    """The swaps of treg-swap (x86-64's xchg: reg-reg and reg-mem)."""
    return x != y and not (is_slot(x) and is_slot(y))


@functools.cache
def steps(mutant: str | None = None, swaps: bool = False, m: Mach = TREG) -> tuple[Step, ...]:
    """Every step of the model's repertoire on ``m`` (``swaps``: on
    treg-swap, the same machine with xchg reg-reg and reg-mem)."""
    out: list[Step] = []
    units = [u for u in m.units if u not in m.pair]
    slots = [u for u in m.locs if is_slot(u, m) and u not in m.pair]
    for d in (d for d in m.locs if d not in m.pair):
        for h in units if swaps else ():
            if swap_legal(d, h):   # a cycle swap: d takes its goal from h
                out.append(Step("park", f"swap {d}, {h}", ((d, h, "swap"),), d, h,
                                kind="swap"))
        for s in units:
            if s == d:
                continue
            if legal(d, s, m):
                out.append(Step("move", f"mov {d} <- {s}", ((d, s),), d, s, kind="move"))
            else:
                for r in m.regs:
                    if r != d:
                        out.append(Step("move", f"mov {d} <- {s} via {r}",
                                        ((r, s), (d, r)), d, s, kind="move"))
        if legal(d, IMM, m):
            out.append(Step("imm", f"imm {d}", ((d, IMM),), d, kind="imm"))
        else:
            for r in m.regs:
                out.append(Step("imm", f"imm {d} via {r}", ((r, IMM), (d, r)), d, kind="imm"))
        if mutant != "no_park_step":
            for p in units:
                if p != d and legal(p, d, m):
                    out.append(Step("park", f"park {d} in {p}", ((p, d),), d, kind="park"))
        if mutant == "no_borrow":
            continue
        for r in m.regs:
            if r == d or r not in m.locs:   # t has no goal: never finished, never borrowed
                continue
            for p in (None, *units):
                if p in (r, d):
                    continue
                save = () if p is None else ((p, r),)
                tag = "" if p is None else f", saved in {p}"
                out.append(Step("last", f"borrow {r} to park {d}{tag}", save + ((r, d),),
                                d, r=r, kind="bpark"))
                if is_slot(d, m):
                    for s in slots:
                        if s != d and p != s:
                            out.append(Step("last", f"borrow {r} for {d} <- {s}{tag}",
                                            save + ((r, s), (d, r)), d, s, r, kind="scratch"))
                    out.append(Step("imm", f"borrow {r} for imm {d}{tag}",
                                    save + ((r, IMM), (d, r)), d, r=r, kind="imm"))
    if m.pair and mutant != "no_pair_step":
        for x in m.regs:            # a pair move: md <-> [x, y], both halves at once
            for y in m.regs:
                if x == y:
                    continue
                store = (m.pair, (x, y), "pair")
                out.append(Step("move", f"mov md <- [{x}, {y}]", (store,), m.pair[0],
                                kind="pair"))
                for r in (x, y):    # a half whose value is in a slot: loaded first
                    for s in slots:
                        out.append(Step("move", f"mov md <- [{x}, {y}] via {r} <- {s}",
                                        ((r, s), store), m.pair[0], kind="pair"))
                if x in m.locs and y in m.locs:
                    out.append(Step("move", f"mov [{x}, {y}] <- md",
                                    (((x, y), m.pair, "pair"),), x, kind="pair"))
    return tuple(out)


# ---------------------------------------------------------------------------
# The two backends
# ---------------------------------------------------------------------------


class PyB:
    """Concrete values (strings) and Python booleans."""

    And = staticmethod(lambda *x: all(x))
    Or = staticmethod(lambda *x: any(x))
    Not = staticmethod(lambda x: not x)
    If = staticmethod(lambda c, a, b: a if c else b)
    true = True
    every = staticmethod(all)      # lazy, over a generator
    some = staticmethod(any)
    then = staticmethod(lambda pre, rest: pre and rest())


class ZB:
    And = staticmethod(lambda *x: z3.And(*x) if x else z3.BoolVal(True))
    Or = staticmethod(lambda *x: z3.Or(*x) if x else z3.BoolVal(False))
    Not = staticmethod(z3.Not)
    If = staticmethod(z3.If)
    true = z3.BoolVal(True)
    every = staticmethod(lambda xs: z3.And(*list(xs)))
    some = staticmethod(lambda xs: z3.Or(*list(xs)))
    then = staticmethod(lambda pre, rest: z3.And(pre, rest()))


@dataclass
class Request:
    """``src[n]`` the value location n must get when ``has[n]``; ``all``:
    the contract.  ``val[u]`` each unit's original value, ``imm7`` the constant."""

    B: type
    src: dict
    has: dict
    all: object
    val: dict
    imm7: object
    m: Mach = TREG

    def __post_init__(self) -> None:
        B = self.B
        self._hg = {n: B.Or(self.has[n], self.all) for n in self.m.locs}
        self._goal = {n: B.If(self.has[n], self.src[n], self.val[n]) for n in self.m.locs}

    def hg(self, n: str):
        return self._hg[n] if n in self.m.locs else False

    def goal(self, n: str):
        return self._goal[n]

    def pending(self, c: dict, n: str):
        if n not in self.m.locs:
            return False
        return self.B.And(self.hg(n), c[n] != self.goal(n))

    def fin(self, c: dict, n: str):
        if n not in self.m.locs:
            return False
        return self.B.And(self.hg(n), c[n] == self.goal(n))

    def held(self, c: dict, v, but: str | None = None):
        """Is ``v`` in a unit other than ``but`` a one-unit mov reads?  md's
        units count only for md's own values (the pair load's sources):
        another value stored in md is read back by nothing in the model."""
        B = self.B
        mine = B.Or(*[v == self.val[u] for u in self.m.pair])
        return B.Or(B.some(c[u] == v for u in self.m.units
                           if u != but and u not in self.m.pair),
                    B.And(mine, B.some(c[u] == v for u in self.m.pair if u != but)))

    def inv(self, c: dict):
        B = self.B
        return B.every(B.Not(B.And(self.pending(c, n), self.goal(n) != self.imm7,
                                   B.Not(self.held(c, self.goal(n)))))
                       for n in self.m.locs)

    def keeps(self, c: dict, c2: dict, allow: str | None, mutant: str | None = None):
        B = self.B
        kept = B.every(B.Not(B.And(self.fin(c, n), B.Not(self.fin(c2, n))))
                       for n in self.m.locs if n != allow)
        if mutant == "borrow_unchecked" and allow is not None:
            return kept    # a borrow admitted without INV: the save may be missing
        return B.And(kept, self.inv(c2))

    def needed(self, c: dict, v):
        return self.B.some(self.B.And(self.pending(c, n), self.goal(n) == v) for n in self.m.locs)

    def blocked(self, c: dict, d: str):
        B = self.B
        return B.And(self.pending(c, d), c[d] != self.imm7, self.needed(c, c[d]),
                     B.Not(self.held(c, c[d], but=d)))

    def contract(self, c: dict):
        B = self.B
        return B.And(*[B.And(B.Not(B.And(self.has[n], c[n] != self.src[n])),
                             B.Not(B.And(B.Not(self.has[n]), self.all, c[n] != self.val[n])))
                       for n in self.m.locs])

    def done(self, c: dict):
        return self.B.every(self.B.Not(self.pending(c, n)) for n in self.m.locs)


def after(req: Request, c: dict, ops) -> dict:
    c2 = dict(c)
    for op in ops:
        dst, src = op[:2]
        if len(op) == 3 and op[2] == "pair":   # both halves at once
            c2.update({x: c2[y] for x, y in zip(dst, src)})
        elif len(op) == 3:        # a swap
            c2[dst], c2[src] = c2[src], c2[dst]
        else:
            c2[dst] = req.imm7 if src == IMM else c2[src]
    return c2


def guard(req: Request, c: dict, st: Step, mutant: str | None = None):
    """Is ``st`` admitted in state ``c``?  (Its precondition, then THE
    invariant kept by its operations; ``B.then`` is lazy in Python.)"""
    B = req.B
    g = req.goal(st.d)
    c2 = after(req, c, st.ops)
    keeps = lambda: req.keeps(c, c2, st.r, mutant)  # noqa: E731
    if st.kind == "park":
        # into a place holding no needed value (a park into a copy of one,
        # an earlier park's, can undo it: the code takes it only as a last
        # resort and gets stuck when parks take turns; never on treg, says
        # the code link)
        v = c[st.ops[0][0]]
        pre = B.And(g != req.imm7, req.blocked(c, st.d),
                    B.Or(v == req.imm7, B.Not(req.needed(c, v))))
        return B.then(pre, keeps)
    if st.kind == "bpark":
        pre = B.And(g != req.imm7, req.pending(c, st.d), req.fin(c, st.r))
        # the code's _trial: kept only if d is written at once
        then = [s for s in steps(mutant, False, req.m) if s.cls == "move" and s.d == st.d]
        return B.then(pre, lambda: B.And(keeps(), B.some(guard(req, c2, s, mutant)
                                                          for s in then)))
    if st.kind == "pair":
        # both halves at once (after a load of one, for a store): each
        # destination unit gets its goal, one was pending
        dst, src = st.ops[-1][:2]
        # (the code moves a list only as the request's job: a load only
        # where the list's goals are md's own values, as in [a, b] <- md)
        own = [req.goal(x) == req.val[y] for x, y in zip(dst, src) if y in req.m.pair]
        pre = B.And(B.Or(*[req.pending(c, x) for x in dst]), *own,
                    *[B.And(req.hg(x), req.goal(x) == c2[x], req.goal(x) != req.imm7)
                      for x in dst])
        if mutant == "pair_unchecked":
            return pre      # a pair move admitted without the invariant
        return B.then(pre, keeps)
    want = req.imm7 if st.src is None else c[st.src]
    # a constant's destination is written with the constant only
    pre = B.And(g == want, g == req.imm7 if st.src is None else g != req.imm7,
                req.pending(c, st.d))
    if st.r is not None:
        pre = B.And(pre, req.fin(c, st.r))
    if mutant == "swap_unchecked" and st.kind == "swap":
        return pre      # a swap admitted without the invariant (h may be finished)
    return B.then(pre, keeps)


def admitted(req: Request, c: dict, mutant: str | None = None,
             swaps: bool = False) -> list[tuple[Step, object]]:
    return [(st, guard(req, c, st, mutant)) for st in steps(mutant, swaps, req.m)]


def park_rank(req: Request, d: str):
    """The code's job order: the request's jobs (a unit whose goal is not
    its own value) in request order, then restore jobs (a borrowed
    register, whose goal is its own value)."""
    own = req.B.Not(req.B.And(req.has[d], req.src[d] != req.val[d]))
    return req.B.If(own, len(req.m.locs), 0) + req.m.locs.index(d)


def first_park(req: Request, adm: list, st: Step):
    """A park is for the first job (``park_rank``) that has one admitted."""
    if st.cls != "park":
        return True
    mine = park_rank(req, st.d)
    gs = [z3.And(g, park_rank(req, s.d) < mine) for s, g in adm
          if s.cls == "park" and s.d != st.d]
    return z3.Not(z3.Or(*gs)) if gs else True


# ---------------------------------------------------------------------------
# The bounded run (Z3)
# ---------------------------------------------------------------------------


@functools.cache
def _sorts(m: Mach = TREG):
    tag = "" if m == TREG else f"_{m.name}"
    V, vals = z3.EnumSort(f"RunVal{tag}", [f"r{tag}_{u}" for u in m.units] + [f"r{tag}_imm7"])
    return V, dict(zip(m.units, vals[:-1])), vals[-1]


def symbolic_request(m: Mach = TREG) -> Request:
    V, val, imm7 = _sorts(m)
    tag = "" if m == TREG else f"_{m.name}"
    src = {n: z3.Const(f"run{tag}_src_{n}", V) for n in m.locs}
    has = {n: z3.Bool(f"run{tag}_has_{n}") for n in m.locs}
    return Request(ZB, src, has, z3.Bool(f"run{tag}_all"), val, imm7, m)


def request_domain(req: Request) -> list:
    """Sources are the four locations' values or the constant (never t's);
    on tpair: a, b, m0 get a source among a, b, m0 or 7, md the list [a, b]
    or [b, a], or [a, b] gets md (never with md <- [a, b] or [b, a]: that
    cycle of a pair has no break on this machine, the greedy steps give up)."""
    m = req.m
    if not m.pair:
        return [z3.Or(*[req.src[n] == req.val[u] for u in m.locs], req.src[n] == req.imm7)
                for n in m.locs]
    d0, d1 = m.pair
    v, src, has = req.val, req.src, req.has
    ones = [n for n in m.locs if n not in m.pair]
    load = z3.And(has["a"], has["b"], src["a"] == v[d0], src["b"] == v[d1])
    return [has[d0] == has[d1],
            z3.Implies(has[d0], z3.Or(z3.And(src[d0] == v["a"], src[d1] == v["b"]),
                                      z3.And(src[d0] == v["b"], src[d1] == v["a"]))),
            z3.Not(z3.And(has[d0], load))] + [
        z3.Or(load if n != "m0" else False, z3.Or(*[src[n] == v[u] for u in ones],
                                                  src[n] == req.imm7)) for n in ones]


def unroll(req: Request, k: int, mutant: str | None = None, swaps: bool = False):
    """States c_0..c_k of any run of k steps (a stopped run stays put),
    the constraints, and per step the selector terms of each class."""
    m = req.m
    V, _, _ = _sorts(m)
    tag = "" if m == TREG else f"_{m.name}"
    cs = [dict(req.val)]
    hyps: list = [z3.Int(f"run{tag}_owe0") == -1]
    used: list[dict] = []
    for i in range(k):
        c = cs[-1]
        owe = z3.Int(f"run{tag}_owe{i}")
        nxt = {u: z3.Const(f"run{tag}_c{i + 1}_{u}", V) for u in m.units}
        adm = admitted(req, c, mutant, swaps)
        ch = z3.Int(f"run{tag}_choice{i}")
        # owe: after a borrow's park, d is written at once (a move of d)
        owe_next = z3.Int(f"run{tag}_owe{i + 1}")
        owes = [z3.And(owe == m.locs.index(st.d), ch == j) for j, (st, _) in enumerate(adm)
                if st.cls == "move"]
        ow = [owe == j for j in range(len(m.locs))]
        # which class may run: the first with an admitted step
        any_cls = {k_: z3.Or(*[g for st, g in adm if st.cls == k_]) for k_ in CLASSES}
        may = {"move": any_cls["move"],
               "park": z3.And(z3.Not(any_cls["move"]), any_cls["park"]),
               "last": z3.And(z3.Not(any_cls["move"]), z3.Not(any_cls["park"]),
                              any_cls["last"]),
               "imm": z3.And(*[z3.Not(any_cls[k_]) for k_ in CLASSES[:3]], any_cls["imm"])}
        stop = len(adm)
        hyps.append(z3.And(ch >= 0, ch <= stop))
        sel: dict = {k_: [] for k_ in CLASSES}
        bor: list = []
        swp: list = []
        hyps.append(z3.Implies(z3.Or(*ow), z3.Or(*owes)))
        for j, (st, g) in enumerate(adm):
            c2 = after(req, c, st.ops)
            owed = m.locs.index(st.d) if st.kind == "bpark" else -1
            hyps.append(z3.Implies(ch == j, z3.And(
                g, z3.Or(may[st.cls], z3.Or(*ow)), first_park(req, adm, st),
                *[nxt[u] == c2[u] for u in m.units], owe_next == owed)))
            sel[st.cls].append(ch == j)
            if st.r is not None:
                bor.append(ch == j)
            if st.kind == "swap":
                swp.append(ch == j)
        hyps.append(z3.Implies(ch == stop, z3.And(*[z3.Not(a) for a in any_cls.values()],
                                                  *[nxt[u] == c[u] for u in m.units],
                                                  owe_next == owe)))
        # no free register: t holds a needed value (not the constant), a and b
        # are finished or hold one, and some unit is pending
        live = lambda r: z3.And(c[r] != req.imm7, req.needed(c, c[r]))  # noqa: E731
        no_free = z3.And(*[live(r) for r in m.regs if r not in m.locs],
                         *[z3.Or(req.fin(c, r), live(r)) for r in m.regs if r in m.locs],
                         z3.Not(req.done(c)))
        used.append({k_: z3.Or(*v) for k_, v in sel.items()} | {
            "borrow": z3.Or(*bor), "swap": z3.Or(*swp),
            "pair": z3.Or(*[ch == j for j, (st, _) in enumerate(adm) if st.kind == "pair"]),
            "park": z3.Or(*[ch == j for j, (st, _) in enumerate(adm) if st.kind == "park"]),
            "no free register": no_free})
        cs.append(nxt)
    return cs, hyps, used


#: the bound: every run of the model stops within K[swaps, spare] steps
#: (treg, treg-swap; every request, or those that leave b alone: --quick;
#: tpair under its own name, every request in --quick too); each tight (the
#: claim's witness)
K = {(False, None): 10, (False, "b"): 7, (True, None): 7, (True, "b"): 5,
     ("tpair", None): 6}


#: the requests a mutant's claim asks about: contract all, every location a
#: destination (where the 4-cycles that need borrows are)
FULL_PART = (True, (True, True, True, True))


def run_claim(ledger: Ledger, k: int | None = None, mutant: str | None = None,
              timeout_ms: int = 600_000, spare: str | None = None,
              part: tuple | None = None, swaps: bool = False, m: Mach = TREG) -> str:
    """For every request and every run of the model: after k steps no unit
    is pending and the contract holds.  ``spare``: only the requests that
    leave that location alone (``--quick``); ``part``: only the requests
    with that (contract all?, destinations) (a mutant's claim)."""
    k = k if k is not None else K[m.name if m.pair else swaps, spare]
    req = symbolic_request(m)
    cs, hyps, used = unroll(req, k, mutant, swaps)
    hyps = request_domain(req) + hyps
    if spare is not None:
        hyps.append(z3.Not(req.has[spare]))
    if part is not None:
        hyps += [req.all == part[0]] + [req.has[n] == h for n, h in zip(m.locs, part[1])]
    goal = z3.And(req.done(cs[-1]), req.contract(cs[-1]))
    witnesses = {
        "a run reaches a state with no free register (a, b finished or holding the only "
        "copy of a needed value, t holding a needed value)":
            z3.Or(*[u["no free register"] for u in used]),
        "a run borrows a register": z3.Or(*[u["borrow"] for u in used]),
        "a run parks a blocked value": z3.Or(*[u["park"] for u in used]),
    } if not swaps and not m.pair else {
        "a run uses a pair move": z3.Or(*[u["pair"] for u in used]),
        "a run borrows a register": z3.Or(*[u["borrow"] for u in used]),
        "a run parks a blocked value": z3.Or(*[u["park"] for u in used]),
    } if m.pair else {
        "a run swaps": z3.Or(*[u["swap"] for u in used]),
        "a run parks a blocked value": z3.Or(*[u["park"] for u in used]),
    }
    if part is None:
        witnesses["a run is still short of its contract after K - 1 steps (K is tight)"] = \
            z3.Not(req.done(cs[-2]))
        witnesses["the contract is loops and some location is not a destination"] = z3.And(
            z3.Not(req.all), z3.Or(*[z3.Not(req.has[n]) for n in m.locs]))
    return prove(goal, hyps, timeout_ms, ledger, witnesses=witnesses)[0]


# ---------------------------------------------------------------------------
# The code link (inputs enumerated)
# ---------------------------------------------------------------------------


def concrete_request(mm, preserve: str, m: Mach = TREG) -> Request:
    """The model's request for a ``MachineMove`` of treg (or tpair: md's
    list source and the list [a, b]'s source md, unit by unit)."""
    from verified.core import machine as M
    val = {u: f"v_{u}" for u in m.units}
    src = {n: val[n] for n in m.locs}
    has = {n: False for n in m.locs}
    for d, s in mm.moves:
        dst = m.pair if d.parts == ("md",) else d.parts
        if isinstance(s, M.Imm):
            srcs = ["v_imm7"]
        else:
            srcs = [val[u] for u in (m.pair if s.parts == ("md",) else s.parts)]
        for n, v in zip(dst, srcs):
            has[n], src[n] = True, v
    return Request(PyB, src, has, preserve == "all", val, "v_imm7", m)


def _unit(p, m: Mach):
    return m.pair if p.parts == ("md",) else p.parts if len(p.parts) > 1 else p.parts[0]


def _ops_of(mops, m: Mach = TREG) -> list[tuple]:
    from verified.core import machine as M
    out: list[tuple] = []
    for op in mops:
        if isinstance(op, M.MSwap):
            out.append((op.a.parts[0], op.b.parts[0], "swap"))
        elif not isinstance(op, M.MMov):
            raise ValueError(f"not a mov or swap: {M.format_mop(op)}")
        elif isinstance(op.src, M.Imm):
            out.append((op.dst.parts[0], IMM))
        else:
            dst, src = _unit(op.dst, m), _unit(op.src, m)
            out.append((dst, src, "pair") if isinstance(dst, tuple) else (dst, src))
    return out


def follow(req: Request, ops: list, mutant: str | None = None,
           taken: list | None = None, swaps: bool = False) -> str:
    """Cut the code's operations into model steps: each piece must be an
    admitted step of the first class that has one.  "" when the code's run
    is a run of the model that ends done and meets the contract, else why not."""
    c = dict(req.val)
    i = 0
    owe = None
    while True:
        adm: list = []
        for first in CLASSES:     # the first class with an admitted step
            adm = [st for st in steps(mutant, swaps, req.m) if st.cls == first
                   and guard(req, c, st, mutant)
                   and (owe is None or st.d == owe)]
            if adm or owe is not None:    # an owed write is a move of d
                break
        if not adm:
            break
        if first == "park":
            d0 = min(park_rank(req, st.d) for st in adm)
            adm = [st for st in adm if park_rank(req, st.d) == d0]
        fits = [st for st in adm if tuple(ops[i:i + len(st.ops)]) == st.ops]
        if not fits:
            return (f"after {i} operations the code does {ops[i:i + 3]}, not an admitted "
                    f"{first} step (admitted: {[st.name for st in adm][:6]})")
        st = max(fits, key=lambda s: len(s.ops))
        c = after(req, c, st.ops)
        i += len(st.ops)
        owe = st.d if st.kind == "bpark" else None
        if taken is not None:
            taken.append(st.name)
    if i != len(ops):
        return f"the model stops after {i} operations, the code goes on: {ops[i:]}"
    if not (req.done(c) and req.contract(c)):
        return "the run ends short of the contract"
    return ""


def code_link(ledger: Ledger, resolver=None, mutant: str | None = None,
              spare: str | None = None, swaps: bool = False,
              mach: Mach = TREG) -> tuple[str, int, str]:
    """(result, requests followed, first disagreement) for the real greedy
    steps on every request of treg (or tpair), both contracts."""
    from tests.machines.resolve_cases import pair_requests, requests, small, small_pair
    from verified.algorithms import resolve as R

    if mach.pair:
        cases = pair_requests(small_pair())
    else:
        cases = requests(small(swap="swaps" if swaps else "noswap", m2m=False, imm_mem=False,
                               temp="treg"), "treg")
    run = resolver or (lambda mm, p: R.greedy(mm, p))
    t0 = time.perf_counter()
    n, detail = 0, ""
    for mm in cases:
        if spare and any(str(d) == spare for d, _ in mm.moves):
            continue
        for preserve in ("all", "loops"):
            try:
                why = follow(concrete_request(mm, preserve, mach),
                             _ops_of(run(mm, preserve), mach), mutant, swaps=swaps)
            except Exception as e:  # the code refused or crashed: the model never does
                why = f"raised {type(e).__name__}: {e}"
            n += 1
            ledger.enumerated += 1
            if why:
                detail = f"{preserve} {mm}: {why}"
                ledger.record(REFUTED)
                break
        if detail:
            break
    ledger.seconds += time.perf_counter() - t0
    return ledger.result(ENUMERATED), n, detail
