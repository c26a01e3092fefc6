"""The reference resolver's refusals on every preset and profile (make
bench; ``python -m bench refusals``): issue 22's "refusals before and after".

For each machine: slot cycles of 2 to 4 slots and two slot swaps per slot
width, a slot copy and a constant into a slot with every register live, a
constant into each class, and 12 seeded random permutations of one-unit
slots; each under ``preserve: all`` with no temporary and with the
profile's first scratch location.  Counted per machine: solved, refused
with a proof (``resolve.Unsolvable``: the no-free-unit, value-flow, capacity
or last-write lemma,
or the exhausted search), refused without one (the text says what was
searched).  Then every refusal's text.  A count, not a timing: run it on
two checkouts to compare."""

from __future__ import annotations

import collections
import json
import random

from verified.algorithms import resolve as R
from verified.core import machine as M
from verified.core.semantics import PreconditionError


def cases(m: "M.Machine") -> list[tuple[str, list]]:
    groups: dict = collections.defaultdict(list)
    for s in m.slots():
        groups[m.lookup(s).width].append(s)
    out: list[tuple[str, list]] = []
    for _, slots in sorted(groups.items()):
        for k in range(2, min(4, len(slots)) + 1):
            c = slots[:k]
            out.append(("slot-cycle", [[c[i], c[(i + 1) % k]] for i in range(k)]))
        if len(slots) >= 4:
            a, b, c, d = slots[:4]
            out.append(("slot-cycle", [[a, b], [b, a], [c, d], [d, c]]))
        if len(slots) >= 2:
            out.append(("borrow", [[slots[0], slots[1]]]))
        out.append(("borrow", [[slots[0], {"imm": 7}]]))
    for c in m.classes:
        regs = [r for r in c.registers if r not in m.reserved]
        if regs:
            out.append(("borrow", [[regs[0], {"imm": 7}]]))
    rng = random.Random(f"slots-{m.name}")
    one = [s for s in m.slots() if m.lookup(s).width == 1]
    for _ in range(12):
        k = rng.randrange(2, len(one) + 1)
        chosen = rng.sample(one, k)
        out.append(("slot-perm", [[d, s] for d, s in zip(chosen, rng.sample(chosen, k))]))
    return out


def main() -> None:
    texts = []
    print(f"{'machine':<18} {'cases':>5} {'solved':>6} {'proved':>6} {'unproved':>8}")
    for name in list(M.PRESETS) + list(M.PROFILES):
        m = M.preset(name)
        n = collections.Counter()
        for kind, moves in cases(m):
            for temps in ([], list(m.scratch)[:1]):
                try:
                    mm = M.MachineMove.make(m, moves, temps)
                except PreconditionError:
                    continue
                n["cases"] += 1
                try:
                    R.resolve(mm)
                    n["solved"] += 1
                except R.Unsolvable as e:
                    n["proved"] += 1
                    texts.append((name, kind, json.dumps(moves), temps, "proved", str(e)))
                except PreconditionError as e:
                    n["unproved"] += 1
                    texts.append((name, kind, json.dumps(moves), temps, "unproved", str(e)))
        print(f"{name:<18} {n['cases']:>5} {n['solved']:>6} {n['proved']:>6} {n['unproved']:>8}",
              flush=True)
    for row in texts:
        print(*row, sep=" | ")


if __name__ == "__main__":
    main()
