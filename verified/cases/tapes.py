"""SSA tapes for the solid-state register allocator (as text, in the
write-up's ``$N = OP($a, $b)`` syntax; ``verified.ssra.parse_tape`` reads
them): the named regression programs, one per allocator state
(``STATE_EXAMPLES``), and the tapes ``verified conform --allocator`` sends:
every small tape (``exhaustive_tapes``), seeded random ones
(``random_tape_stream``) and the smaller tapes a failing one shrinks to
(``shrink_tape_candidates``)."""

from __future__ import annotations

import itertools
import random
from typing import Iterator, NamedTuple

#: A minimal program reaching each named state of the allocator
#: (``verified.ssra.TwoInputState`` and the unary, nullary and dead cases):
#: ``(state, registers, tape text, index of the operation reached in that
#: state)``.  Found by exhaustive search over tapes of <= 6 operations with 2
#: or 3 registers, and random search beyond (the states that need 7-9
#: operations); ``tests/ssra/test_ssra_states.py`` checks each and the code it
#: emits, and ``proofs/ssra.py`` starts its search for step shapes from them.
STATE_EXAMPLES: list[tuple[str, int, str, int]] = [
    ('R_RR', 3, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('R_RM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n$4 = FOO($1, $3)\n', 2),
    ('R_RU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $2)\n', 2),
    ('R_MR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('R_MM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($3, $1)\n$5 = FOO($4, $2)\n$6 = FOO($0, $5)\n', 3),
    ('R_MU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($0, $4)\n', 3),
    ('R_UR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($1, $2)\n', 2),
    ('R_UM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n$5 = FOO($1, $4)\n', 3),
    ('R_UU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n', 2),
    ('M_RR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $1)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('M_RM', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($1)\n$3 = FOO($2, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($1, $5)\n', 3),
    ('M_RU', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($0, $2)\n$5 = FOO($3, $4)\n', 3),
    ('M_MR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($0, $2)\n$4 = FOO($2, $1)\n$5 = FOO($4, $3)\n$6 = FOO($0, $5)\n', 3),
    ('M_MM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $0)\n$3 = BAR()\n$4 = FOO($1, $3)\n$5 = FOO($2, $0)\n$6 = FOO($4, $5)\n$7 = FOO($1, $6)\n$8 = FOO($7, $3)\n', 4),
    ('M_MU', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = FOO($2, $1)\n$4 = FOO($0, $1)\n$5 = FOO($3, $2)\n$6 = FOO($4, $0)\n$7 = FOO($6, $5)\n', 4),
    ('M_UR', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('M_UM', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n$3 = FOO($2, $0)\n$4 = FOO($3, $2)\n$5 = FOO($0, $1)\n$6 = FOO($2, $5)\n$7 = FOO($4, $6)\n', 4),
    ('M_UU', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = BAR()\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n$5 = FOO($1, $2)\n$6 = FOO($5, $4)\n', 4),
    ('R_SAME_R', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = FOO($0, $1)\n', 1),
    ('R_SAME_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('R_SAME_U', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n', 1),
    ('M_SAME_R', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($0, $0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('M_SAME_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = FOO($1, $0)\n$3 = FOO($1, $1)\n$4 = FOO($2, $0)\n$5 = FOO($4, $3)\n$6 = FOO($5, $1)\n', 3),
    ('M_SAME_U', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('NONARY_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('NONARY_R', 2, '$0 = BAR()\n', 0),
    ('UNARY_M_M', 2, '$0 = BAR()\n$1 = FOO($0, $0)\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($4, $0)\n$6 = FOO($3, $5)\n', 3),
    ('UNARY_M_R', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($0, $1)\n$4 = FOO($2, $3)\n', 2),
    ('UNARY_M_U', 2, '$0 = BAR()\n$1 = BAR()\n$2 = BAR()\n$3 = NEG($0)\n$4 = FOO($1, $2)\n$5 = FOO($3, $4)\n', 3),
    ('UNARY_R_M', 2, '$0 = BAR()\n$1 = BAR()\n$2 = NEG($0)\n$3 = FOO($1, $2)\n$4 = FOO($0, $3)\n', 2),
    ('UNARY_R_R', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $1)\n', 1),
    ('UNARY_R_U', 2, '$0 = BAR()\n$1 = NEG($0)\n', 1),
    ('DEAD', 2, '$0 = BAR()\n$1 = NEG($0)\n$2 = FOO($0, $0)\n', 1),
]


# ---------------------------------------------------------------------------
# Generated tapes (``verified conform --allocator``)
# ---------------------------------------------------------------------------

#: One SSA operation of a generated tape: ``out = name(args)``; an argument
#: is a variable (``"$3"``) or a numeric literal (``"2"``).
TapeOp = tuple[str, str, tuple[str, ...]]


class TapeCase(NamedTuple):
    """A straight-line SSA tape to allocate on ``registers`` registers."""

    registers: int
    ops: tuple[TapeOp, ...]

    def lines(self) -> list[str]:
        """The tape in the write-up's syntax, one operation per line."""
        return [f"{out} = {name}({', '.join(args)})" for out, name, args in self.ops]

    @property
    def size(self) -> tuple[int, int]:
        """What shrinking minimises: fewest operations, then fewest inputs."""
        return (len(self.ops), sum(a.startswith("$") for _, _, args in self.ops for a in args))


#: Operation names by number of inputs (distinct names compute distinct values).
NULLARY, UNARY, BINARY = "BAR", "NEG", "FOO"


def exhaustive_tapes(max_ops: int, registers: int) -> Iterator[TapeCase]:
    """Every tape of 1..max_ops operations named ``$0, $1, ...`` in order,
    where operation i is ``BAR()``, ``NEG($a)`` or ``FOO($a, $b)`` over any
    earlier variables, repeats (``FOO($1, $1)``) and dead values (a
    variable nothing reads) included: sum over k of prod_{i<k} (1 + i + i^2)
    tapes (6,031 for max_ops = 5)."""
    def choices(i: int) -> list[TapeOp]:
        out = f"${i}"
        earlier = [f"${j}" for j in range(i)]
        return ([(out, NULLARY, ())] + [(out, UNARY, (a,)) for a in earlier]
                + [(out, BINARY, (a, b)) for a in earlier for b in earlier])
    for k in range(1, max_ops + 1):
        for ops in itertools.product(*[choices(i) for i in range(k)]):
            yield TapeCase(registers, ops)


def exhaustive_tape_count(max_ops: int) -> int:
    total, product = 0, 1
    for i in range(max_ops):
        product *= 1 + i + i * i
        total += product
    return total


def random_tape(rng: random.Random, registers: int, max_ops: int | None = None) -> TapeCase:
    """A random tape with register pressure: up to ``4 * registers + 8``
    operations (or ``max_ops``), inputs mostly among the last few values
    (long live ranges too), repeated inputs, literals and dead values."""
    length = rng.randint(1, max_ops or 4 * registers + 8)
    ops: list[TapeOp] = []
    for i in range(length):
        def pick() -> str:
            if rng.random() < 0.6:
                return f"${rng.randrange(max(0, i - registers - 2), i)}"
            return f"${rng.randrange(i)}"
        arity = 0 if i == 0 else rng.choices((0, 1, 2), (15, 20, 65))[0]
        if arity == 0:
            op = (f"${i}", NULLARY, ()) if rng.random() < 0.7 else (f"${i}", "CONST", (str(i),))
        elif arity == 1:
            op = (f"${i}", UNARY, (pick(),))
        else:
            a = pick()
            b = a if rng.random() < 0.1 else pick()
            if rng.random() < 0.05:
                b = "2"  # a literal operand: FOO($a, 2) reads one value
            op = (f"${i}", BINARY, (a, b))
        ops.append(op)
    return TapeCase(registers, tuple(ops))


def random_tape_stream(registers: int, seed: object) -> Iterator[TapeCase]:
    """An endless reproducible stream of ``random_tape``."""
    rng = random.Random(f"verified-conform-tapes:{registers}:{seed}")
    while True:
        yield random_tape(rng, registers)


def shrink_tape_candidates(case: TapeCase) -> list[TapeCase]:
    """Strictly smaller tapes one step away (by ``TapeCase.size``), each
    still straight-line SSA with its result last: a prefix (an earlier
    value becomes the result), one operation dropped (its readers read its
    first input instead, or the literal 0), or one input made the literal 0.
    Variable names and the register count are kept."""
    ops = case.ops
    out: set[tuple[TapeOp, ...]] = set()
    for j in range(len(ops) - 1):
        out.add(ops[:j + 1])
        name, _, args = ops[j]
        stand_in = next((a for a in args if a.startswith("$")), "0")
        out.add(ops[:j] + tuple((o, n, tuple(stand_in if a == name else a for a in a_))
                                for o, n, a_ in ops[j + 1:]))
    for j, (o, n, args) in enumerate(ops):
        for k, a in enumerate(args):
            if a.startswith("$"):
                out.add(ops[:j] + ((o, n, args[:k] + ("0",) + args[k + 1:]),) + ops[j + 1:])
    smaller = [TapeCase(case.registers, c) for c in out]
    return sorted(c for c in smaller if c.size < case.size)
