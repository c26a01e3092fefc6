"""XOR swap (the seed's lowering for machines without xchg).

1. ``x ^= y; y ^= x; x ^= y`` swaps two 64-bit registers: proved for all
   2**128 pairs of values (bit-vectors), including x == y as values.  Note:
   as REGISTERS the two must differ (``xor r, r`` zeroes r); that is why
   the lowering below emits nothing for ``swap r, r``.
2. The lowering of any mov/swap sequence (swap a, b -> three XORs, or
   nothing when a == b; mov -> mov) leaves every register with the same
   value as the original sequence.  UNBOUNDED: the register file is a Z3
   array (Int -> 64-bit value), so any register count; one operation with
   symbolic kind and operands is proved equivalent to its lowering as a
   state transformer (array equality), and equality of every sequence
   follows by induction on its length (each lowered operation starts from
   the same state as the original one).  (``lowering`` checks whole symbolic
   sequences, bounded; n = 3, length 2 took 44 s, so it is not in the run.)
"""

from __future__ import annotations

import z3

from .common import REFUTED, Ledger, Timer, mux, prove, row

W = 64


def xor_swap_three(timer) -> str:
    x, y = z3.BitVecs("x y", W)
    x1 = x ^ y
    y1 = y ^ x1
    x2 = x1 ^ y1
    return prove(z3.And(x2 == y, y1 == x), timer=timer)[0]


_sel = mux


def _xor_into(regs, dst, src):
    """xor dst, src (dst ^= src)."""
    v = _sel(regs, src)
    return [z3.If(dst == k, regs[k] ^ v, regs[k]) for k in range(len(regs))]


def lowering(n: int, length: int, timer, mutant=None) -> str:
    regs0 = [z3.BitVec(f"r{k}", W) for k in range(n)]
    ref, low = list(regs0), list(regs0)
    hyp = []
    for j in range(length):
        kind = z3.Bool(f"isswap{j}")
        a, b = z3.Int(f"a{j}"), z3.Int(f"b{j}")
        hyp += [0 <= a, a < n, 0 <= b, b < n]
        # reference semantics: swap / mov on the values
        va, vb = _sel(ref, a), _sel(ref, b)
        ref_swap = [z3.If(b == k, va, z3.If(a == k, vb, ref[k])) for k in range(n)]
        ref_mov = [z3.If(a == k, vb, ref[k]) for k in range(n)]
        ref = [z3.If(kind, ref_swap[k], ref_mov[k]) for k in range(n)]
        # lowering: swap a, b -> (a == b: nothing) else xor a,b; xor b,a; xor a,b
        x1 = _xor_into(low, a, b)
        x2 = _xor_into(x1, b, a)
        x3 = _xor_into(x2, a, b)
        if mutant == "no_same_register_guard":
            sw = x3
        else:
            sw = [z3.If(a == b, low[k], x3[k]) for k in range(n)]
        mv = [z3.If(a == k, _sel(low, b), low[k]) for k in range(n)]
        low = [z3.If(kind, sw[k], mv[k]) for k in range(n)]
    return prove(z3.And(*[ref[k] == low[k] for k in range(n)]), hyp, timer=timer)[0]


def lowering_step(timer, mutant=None) -> str:
    """One operation vs its lowering on an unbounded register file."""
    R = z3.Array("R", z3.IntSort(), z3.BitVecSort(W))
    a, b = z3.Ints("a b")
    isswap = z3.Bool("isswap")
    ref = z3.If(isswap, z3.Store(z3.Store(R, a, R[b]), b, R[a]), z3.Store(R, a, R[b]))
    R1 = z3.Store(R, a, R[a] ^ R[b])
    R2 = z3.Store(R1, b, R1[b] ^ R1[a])
    R3 = z3.Store(R2, a, R2[a] ^ R2[b])
    sw = R3 if mutant == "no_same_register_guard" else z3.If(a == b, R, R3)
    low = z3.If(isswap, sw, z3.Store(R, a, R[b]))
    # witnesses: a real swap of two different registers, and swap r, r
    return prove(ref == low, timer=timer,
                 witnesses={"swap a, b with a != b": z3.And(isswap, a != b),
                            "swap r, r": z3.And(isswap, a == b)})[0]


def claims(quick: bool = False) -> list[dict]:
    rows = []
    t = Ledger()
    xor_swap_three(t)
    rows.append(row("xor swap: x^=y; y^=x; x^=y swaps two 64-bit values (all 2^128 pairs)",
                    2, t))
    t = Ledger()
    lowering_step(t)
    rows.append(row("xor lowering: one mov/swap (symbolic) == its XOR lowering on any "
                    "64-bit register file; every sequence by induction [unbounded]", None, t))
    t = Ledger()
    lowering_step(t, "no_same_register_guard")
    rows.append(row("MUTANT no_same_register_guard: lower swap r, r to three XORs", None, t,
                    expect=REFUTED))
    return rows
