"""The small machines and request enumerations the resolver and optimum
tests share (``tests/machines/test_resolve.py``,
``tests/machines/test_machine_optimum.py``, ``bench/bench_machines.py``).

``SMALL``: one class of 2 registers ``a b`` + 2 slots ``m0 m1``, plus
optionally a temporary register ``t`` or slot ``mt``; its variants switch
the swaps, ``mem_to_mem`` and where immediates go.  ``requests(machine)``
is every assignment of a source (one of the 4 locations, the immediate 7,
or none) to each of the 4 locations: 6**4 = 1296 moves.
"""

from __future__ import annotations

import itertools

from verified.core import machine as M

LOCS = ("a", "b", "m0", "m1")
SWAPS = {"swaps": ["reg-reg", "reg-mem"], "regswap": ["reg-reg"], "noswap": []}
TEMPS = {"none": [], "treg": ["t"], "tslot": ["mt"]}


def small(swap: str = "swaps", m2m: bool = False, imm_mem: bool = True,
          temp: str = "none") -> M.Machine:
    regs = ["a", "b"] + (["t"] if temp == "treg" else [])
    slots = ["m0", "m1"] + (["mt"] if temp == "tslot" else [])
    return M.machine({"name": f"small-{swap}{'-m2m' if m2m else ''}{'' if imm_mem else '-immreg'}",
                      "classes": {"gpr": {"registers": regs}},
                      "stack": {"names": slots}, "swap": SWAPS[swap], "mem_to_mem": m2m,
                      "immediate_to": ["reg", "mem"] if imm_mem else ["reg"]})


def requests(m: M.Machine, temp: str = "none"):
    """Every move over LOCS (6**4 = 1296), as MachineMoves."""
    for choice in itertools.product(range(6), repeat=4):
        moves = [[d, LOCS[c] if c < 4 else {"imm": 7}] for d, c in zip(LOCS, choice) if c != 4]
        yield M.MachineMove.make(m, moves, TEMPS[temp])


def small_pair() -> M.Machine:
    """treg with m1 replaced by a two-unit slot md and AArch64's LDP/STP:
    pair moves between md and a list of two registers (``tpair`` of
    ``proofs/resolve_run.py``)."""
    return M.machine({"name": "small-tpair", "classes": {"gpr": {"registers": ["a", "b", "t"]}},
                      "stack": [{"names": ["m0"], "width": 1}, {"names": ["md"], "width": 2}],
                      "swap": [], "mem_to_mem": False, "immediate_to": ["reg"],
                      "pair_moves": [{"pair": "gpr", "with": "mem"}]})


def pair_requests(m: M.Machine):
    """md gets [a, b], [b, a] or nothing; [a, b] gets md, or a, b, m0 each
    one of a, b, m0, the immediate 7, or nothing (m0 too beside [a, b] <- md);
    never md <- [a, b] or [b, a] with [a, b] <- md (a cycle of a pair, where
    the greedy steps give up): 3 x (5 + 5**3) - 2 x 5 = 380 moves."""
    ones = [None, "a", "b", "m0", {"imm": 7}]
    for md in (None, ["a", "b"], ["b", "a"]):
        head = [["md", md]] if md else []
        for m0 in ones if md is None else ():
            yield M.MachineMove.make(m, [[["a", "b"], "md"]] + ([["m0", m0]] if m0 else []),
                                     ["t"])
        for a, b, m0 in itertools.product(ones, repeat=3):
            yield M.MachineMove.make(m, head + [[d, s] for d, s in (("a", a), ("b", b),
                                                                    ("m0", m0)) if s], ["t"])


#: the variants every run of the test suite covers (the brief's: full, no
#: swap, no mem_to_mem, no free register, and with a free one)
VARIANTS = [
    dict(swap="swaps", m2m=False, imm_mem=True, temp="none"),
    dict(swap="noswap", m2m=False, imm_mem=False, temp="none"),
    dict(swap="noswap", m2m=False, imm_mem=False, temp="treg"),
    dict(swap="noswap", m2m=True, imm_mem=True, temp="tslot"),
    dict(swap="regswap", m2m=False, imm_mem=True, temp="none"),
]
#: every combination (``make test-slow``)
ALL_VARIANTS = [dict(swap=s, m2m=mm, imm_mem=i, temp=t) for s in SWAPS for mm in (False, True)
                for i in (False, True) for t in TEMPS]


#: a small typed machine (``docs/machines.md``, typed values): one GPR ``a``,
#: one two-unit vector register ``v`` (an xmm), two one-unit slots, 8-bit
#: units; ``f`` (a double) lives in ``v``'s low unit, in ``a`` and in slots,
#: ``w`` (a whole vector) in ``v`` only
TYPED = {"name": "small-typed", "unit_bits": 8,
         "classes": {"gpr": {"registers": ["a"]},
                     "vec": {"registers": ["v"], "width": 2, "immediate": False}},
         "stack": {"names": ["m0", "m1"]}, "swap": ["reg-reg", "reg-mem"],
         "classes_swap_note": None}
del TYPED["classes_swap_note"]
TYPED_TYPES = {"f": {"width": 1, "classes": ["vec", "gpr"], "stack": True},
               "w": {"width": 2, "classes": ["vec"], "stack": False}}
TYPED_LOCS = ("a", "v", "m0", "m1")


def small_typed(temp: str = "none") -> M.Machine:
    obj = {**TYPED, "types": TYPED_TYPES}
    if temp == "treg":
        obj["classes"] = {**TYPED["classes"], "gpr": {"registers": ["a", "t"]}}
    return M.machine(obj)


def typed_requests(m: M.Machine, temp: str = "none"):
    """Every move of doubles (type ``f``) over TYPED_LOCS: each location gets
    one of the 4 locations, the constant -2, or nothing (6**4 = 1296)."""
    for choice in itertools.product(range(6), repeat=4):
        moves = [[d, TYPED_LOCS[c] if c < 4 else {"imm": -2}, "f"]
                 for d, c in zip(TYPED_LOCS, choice) if c != 4]
        yield M.MachineMove.make(m, moves, TEMPS[temp])
