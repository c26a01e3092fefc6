"""A resolver of typed x86-64 parallel moves written the way compilers
write theirs, independent of this project's code (it reads the machine
object of each request and nothing else), for `verified conform --machine
x86-64` (docs/conform.md, "Typed cases"):

* a move's parts: a register pair (a 128-bit value in two GPRs) is its two
  GPR moves; a constant into a pair is its 64-bit pieces, low first;
* moves whose destination no other pending move reads go first; the rest
  are cycles;
* an integer cycle of GPRs is a chain of `xchg` (typed swap); any other
  width-1 cycle parks one value in a scratch register (a double in the XMM
  scratch with `movsd`, an integer in the GPR scratch) and moves the rest
  along; a slot-to-slot copy goes through a scratch register that parks
  nothing (an 8-byte integer slot through the GPR scratch, a double slot
  through the XMM scratch, `movsd`/`movq`, and through the other one while
  that one parks a value);
* a v128 cycle parks in the XMM scratch; a v128 cycle of slots is a chain
  of slot exchanges, each borrowing an XMM register (saved in the slot the
  park freed, restored after);
* constants last: into a GPR with `mov` (`movabs`), into a slot with
  `mov m64, imm32` when the constant is a sign-extended 32-bit one, else
  built in the GPR scratch; into an XMM register through the GPR scratch
  (`movq`); a v128 constant is declined, except where the machine has
  pair stores of GPRs (aarch64 `STP`, `"pair_moves"`) and the request
  gives two GPR temporaries: its two 64-bit pieces are built in them and
  stored as a pair into the slot, or into a borrowed 16-byte slot (saved
  in the XMM scratch, restored after) that is then loaded into the
  register.

The scratch registers are the request's temporaries: its GPR one and its
XMM one (the x86-64 profile's r11 and xmm15).  The same code reads the
integer and float classes (where i64 and f64 live first), whether GPRs
swap and whether a constant may be stored to a slot from the machine, so
it resolves typed aarch64 moves too (no swap: integer cycles are parked
in the GPR scratch, x16 in the aarch64 profile; constants for slots built
in it).

Planted bugs, one flag each (`--bug NAME`, repeatable), one per failure
class of issue 19:

* `slot-xchg`: an integer cycle through slots is a chain of `xchg` too, so
  two slots are exchanged with `xchg m0, m1` (x86 has no such form);
* `parked-scratch`: a double slot-to-slot copy always goes through the XMM
  scratch, even while it parks the cycle's value (the parked value is lost);
* `pair-order`: the two halves of a pair are treated as one move, so a pair
  shifted onto its neighbour (`[rcx, rdx] <- [rax, rcx]`) is copied low
  half first;
* `wide-imm`: a constant is stored straight into a slot whatever its width
  (`mov m64, imm64` does not exist: `mov m64, imm32` sign-extends).

    verified conform --cmd "python tests/clients/typed_x86_client.py" --machine x86-64
    verified conform --cmd "python tests/clients/typed_x86_client.py" --machine aarch64 --temps x16 x17 v31 m7
"""

from __future__ import annotations

import argparse
import json
import sys

BUGS = ("slot-xchg", "parked-scratch", "pair-order", "wide-imm")


class Decline(Exception):
    pass


class Machine:
    """What the resolver needs of a request's machine object."""

    def __init__(self, obj: dict) -> None:
        self.cls: dict[str, str] = {}
        self.width: dict[str, int] = {}
        for name, entry in obj["classes"].items():
            for r in entry["registers"]:
                self.cls[r] = name
                self.width[r] = entry.get("width", 1)
        self.regs = list(self.cls)
        stack = obj.get("stack", [])
        for g in [stack] if isinstance(stack, dict) else stack:
            names = g.get("names") or [f"s{i}" for i in range(g["slots"])]
            for n in names:
                self.width[n] = g.get("width", 1)
        self.types = obj.get("types", {})
        self.unit_bits = obj.get("unit_bits", 64)
        self.mem_imm_bits = obj.get("immediate_bits", {}).get("mem")
        self.reserved = set(obj.get("reserved", []))
        # the integer and the float/vector class: where i64 and f64 live first
        first = next(iter(obj["classes"]))
        self.int_cls = self.types.get("i64", {}).get("classes", [first])[0]
        self.fp_cls = self.types.get("f64", {}).get("classes", [first])[0]
        entry = obj["classes"][self.int_cls]
        self.xchg = "reg-reg" in entry.get("swap", obj.get("swap", []))
        self.imm_to_mem = "mem" in obj.get("immediate_to", ["reg"])
        self.pair_store = any(p.get("pair") == self.int_cls and p.get("with") == "mem"
                              for p in obj.get("pair_moves", []))

    def is_mem(self, loc: str) -> bool:
        return loc not in self.cls

    def value_width(self, loc: str, typ: str | None) -> int:
        return self.types[typ]["width"] if typ else self.width[loc]


class Move:
    """One single-location move; ``pair`` numbers the pair it came from."""

    def __init__(self, dst: str, src, typ: str | None, pair: int | None = None) -> None:
        self.dst, self.src, self.typ, self.pair = dst, src, typ, pair

    @property
    def imm(self) -> bool:
        return isinstance(self.src, dict)


def op(name: str, a, b, typ: str | None) -> list:
    return [name, a, b] + ([typ] if typ else [])


class Resolver:
    def __init__(self, req: dict, bugs: set[str]) -> None:
        self.m = Machine(req["machine"])
        self.bugs = bugs
        temps = [t for t in req.get("temps", []) if isinstance(t, str)]
        gprs = [t for t in temps if self.m.cls.get(t) == self.m.int_cls]
        self.gpr = gprs[0] if gprs else None
        self.gpr2 = gprs[1] if len(gprs) > 1 else None
        self.xmm = next((t for t in temps if self.m.cls.get(t) == self.m.fp_cls), None)
        self.temps = set(temps)
        self.out: list = []
        self.moves = self.split(req["moves"])

    # -- the moves, one location each ---------------------------------------

    def split(self, raw: list) -> list[Move]:
        out = []
        for i, mv in enumerate(raw):
            dst, src = mv[0], mv[1]
            typ = mv[2] if len(mv) > 2 else None
            if isinstance(dst, list):
                if isinstance(src, dict):  # a wide constant: its pieces, low first
                    bits = self.m.unit_bits
                    for j, d in enumerate(dst):
                        piece = (src["imm"] >> (j * bits)) & ((1 << bits) - 1)
                        out.append(Move(d, {"imm": piece}, typ, i))
                else:
                    out += [Move(d, s, typ, i) for d, s in zip(dst, src)]
            elif dst != src:
                out.append(Move(dst, src, typ))
        return out

    # -- emitting ------------------------------------------------------------

    def scratch(self, typ: str | None, loc: str, busy: set) -> str:
        """The scratch register for a value: v128 the XMM one; a double the
        XMM one, an integer the GPR one, each the other while it is busy."""
        if self.m.value_width(loc, typ) == 2:
            order = [self.xmm]
        elif typ and typ.startswith("f"):
            order = [self.xmm] if "parked-scratch" in self.bugs else [self.xmm, self.gpr]
        else:
            order = [self.gpr, self.xmm]
        for r in order:
            if r is not None and r not in busy:
                return r
        if "parked-scratch" in self.bugs and order[0] is not None:
            return order[0]
        raise Decline("no free scratch register for a slot-to-slot copy")

    def move(self, mv: Move, busy: set = frozenset()) -> None:
        if self.m.is_mem(mv.dst) and self.m.is_mem(mv.src):
            r = self.scratch(mv.typ, mv.src, busy)
            self.out += [op("mov", r, mv.src, mv.typ), op("mov", mv.dst, r, mv.typ)]
        else:
            self.out.append(op("mov", mv.dst, mv.src, mv.typ))

    def constant(self, mv: Move) -> None:
        k = mv.src["imm"]
        wide = self.m.value_width(mv.dst, mv.typ) == 2
        if wide and self.m.pair_store and self.gpr2 is not None:
            self.wide_constant(mv)
            return
        if self.m.is_mem(mv.dst):
            if wide:
                raise Decline(f"a {mv.typ or '128-bit'} constant for {mv.dst}: no mov "
                              "writes one into a 16-byte slot")
            lim = self.m.mem_imm_bits
            if self.m.imm_to_mem and (lim is None or -(1 << (lim - 1)) <= k < (1 << (lim - 1))
                                      or "wide-imm" in self.bugs):
                self.out.append(op("mov", mv.dst, mv.src, mv.typ))
                return
        elif self.m.cls[mv.dst] == self.m.int_cls:
            self.out.append(op("mov", mv.dst, mv.src, mv.typ))
            return
        elif wide:
            raise Decline(f"a {mv.typ or '128-bit'} constant for {mv.dst}: no XMM "
                          "register takes an immediate")
        if self.gpr is None:
            raise Decline("a constant needs the GPR scratch")
        self.out += [op("mov", self.gpr, mv.src, None), op("mov", mv.dst, self.gpr, mv.typ)]

    def wide_constant(self, mv: Move) -> None:
        """A 128-bit constant: its 64-bit pieces (two's complement) built in
        the two GPR temporaries and stored as a pair (STP); into a register
        through a borrowed 16-byte slot saved in the XMM scratch."""
        bits, k = self.m.unit_bits, mv.src["imm"]
        pieces = []
        for j in range(2):
            piece = (k >> (j * bits)) & ((1 << bits) - 1)
            pieces.append(piece - (1 << bits) if piece >> (bits - 1) else piece)
        build = [op("mov", self.gpr, {"imm": pieces[0]}, None),
                 op("mov", self.gpr2, {"imm": pieces[1]}, None)]
        if self.m.is_mem(mv.dst):
            self.out += build + [op("mov", mv.dst, [self.gpr, self.gpr2], None)]
            return
        slot = next((n for n, w in self.m.width.items() if self.m.is_mem(n) and w == 2
                     and n not in self.temps), None)
        if slot is None or self.xmm is None:
            raise Decline(f"a {mv.typ or '128-bit'} constant for {mv.dst}: no 16-byte "
                          "slot and XMM scratch to build it through")
        self.out += ([op("mov", self.xmm, slot, None)] + build
                     + [op("mov", slot, [self.gpr, self.gpr2], None),
                        op("mov", mv.dst, slot, mv.typ), op("mov", slot, self.xmm, None)])

    # -- the parallel move ---------------------------------------------------

    def ready(self, mv: Move, pending: list[Move]) -> bool:
        for other in pending:
            if other is mv or other.src != mv.dst:
                continue
            if "pair-order" in self.bugs and mv.pair is not None and other.pair == mv.pair:
                continue  # the bug: a pair's halves as one move
            return False
        return True

    def run(self) -> list:
        pending = [mv for mv in self.moves if not mv.imm]
        while pending:
            mv = next((mv for mv in pending if self.ready(mv, pending)), None)
            if mv is not None:
                self.move(mv)
                pending.remove(mv)
                continue
            cycle = [pending[0]]
            while cycle[-1].src != cycle[0].dst:
                cycle.append(next(x for x in pending if x.dst == cycle[-1].src))
            self.cycle(cycle)
            for x in cycle:
                pending.remove(x)
        for mv in self.moves:
            if mv.imm:
                self.constant(mv)
        return self.out

    def cycle(self, cyc: list[Move]) -> None:
        """``cyc``: a0 <- a1, a1 <- a2, ..., a_{k-1} <- a0."""
        types = {mv.typ for mv in cyc}
        typ = types.pop() if len(types) == 1 else None
        locs = [mv.dst for mv in cyc]
        width = self.m.value_width(locs[0], typ)
        integer = typ is None or typ.startswith("i")
        if width == 1 and integer and self.m.xchg and all(
                self.m.cls.get(x) == self.m.int_cls
                or ("slot-xchg" in self.bugs and self.m.is_mem(x)) for x in locs):
            for a, b in zip(locs, locs[1:]):  # xchg chain
                self.out.append(op("swap", a, b, typ))
            return
        k = len(cyc)
        slot_edges = [i for i in range(k) if self.m.is_mem(cyc[i].dst)
                      and self.m.is_mem(cyc[i].src)]
        if width == 2 and len(slot_edges) >= 2:
            for a, b in zip(locs, locs[1:]):
                self.exchange(a, b, typ)
            return
        if width == 2 and slot_edges:  # the slot-to-slot edge closes the cycle
            start = (slot_edges[0] + 1) % k
            cyc = cyc[start:] + cyc[:start]
        park = self.scratch(typ, cyc[0].dst, set())
        self.out.append(op("mov", park, cyc[0].dst, typ))
        for mv in cyc[:-1]:
            self.move(mv, {park})
        self.out.append(op("mov", cyc[-1].dst, park, typ))

    def exchange(self, a: str, b: str, typ: str | None) -> None:
        """Exchange two 16-byte locations through the XMM scratch; two slots
        borrow an XMM register, saved in ``a`` once ``a`` is parked."""
        x = self.xmm
        if x is None:
            raise Decline("a v128 cycle needs the XMM scratch")
        if not (self.m.is_mem(a) and self.m.is_mem(b)):
            self.out += [op("mov", x, a, typ), op("mov", a, b, typ), op("mov", b, x, typ)]
            return
        v = next((r for r in self.m.regs if self.m.cls[r] == self.m.fp_cls
                  and r not in self.temps
                  and r not in self.m.reserved), None)
        if v is None:
            raise Decline("no XMM register to borrow for a slot exchange")
        self.out += [op("mov", x, a, typ), op("mov", a, v, None), op("mov", v, b, typ),
                     op("mov", b, x, typ), op("mov", x, v, typ), op("mov", v, a, None),
                     op("mov", a, x, typ)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bug", action="append", choices=BUGS, default=[],
                   help="plant one bug (repeatable)")
    bugs = set(p.parse_args().bug)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            answer = {"sequence": Resolver(req, bugs).run()}
        except Decline as e:
            answer = {"unsupported": str(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
