"""Throughput of the machine oracle (``verified/core/machine/``): parse a
machine request and judge its sequence, in process and through ``verified
check``, per preset and for an inline machine object (parsed per line).

Requests are random but fixed (seeded): 1..4 moves among the preset's
registers and slots (pairs and immediates included), a sequence of 1..8
legal operations (single names, pairs, immediates), so every line costs the
whole judgement (every operation's legality, the per-unit run, the
contract over every unit of the machine); the sequences are mostly wrong,
which does not shorten that work."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import time

from verified.core import machine as M
from verified.core.semantics import PreconditionError

N = 5000


def requests(machine: object, rng: random.Random, n: int) -> list[dict]:
    m = M.machine(machine)
    names = list(m.names())
    out: list[dict] = []
    while len(out) < n:
        pick = lambda imm: ({"imm": rng.randint(0, 9)} if imm and rng.random() < 0.1  # noqa: E731
                            else rng.sample(names, 2) if rng.random() < 0.1 else rng.choice(names))
        moves = [[pick(False), pick(True)] for _ in range(rng.randint(1, 4))]
        seq = []
        for _ in range(rng.randint(1, 8)):
            for _ in range(50):  # a legal operation, so the whole sequence is run
                raw = [rng.choice(["mov", "mov", "swap"]), pick(False), pick(True)]
                try:
                    if M.illegal(m, M.parse_op(m, raw)) is None:
                        seq.append(raw)
                        break
                except PreconditionError:
                    continue
        req = {"machine": machine, "moves": moves, "sequence": seq}
        try:
            M.parse_machine_request(req, True)
        except PreconditionError:
            continue
        out.append(req)
    return out


def main() -> None:
    rng = random.Random(2026)
    tiny = {"name": "tiny", "classes": {"gpr": {"registers": ["a", "b", "c"]},
                                        "fpr": {"registers": ["f0", "f1"]}},
            "stack": {"names": ["m0", "m1"]}, "swap": ["reg-reg"]}
    print(f"{N:,} requests per machine; in process = parse + judge; CLI = `verified check` "
          f"over a JSON-lines file (one process)")
    for machine in [*M.PRESETS, tiny]:
        reqs = requests(machine, rng, N)
        t = time.perf_counter()
        wrong = 0
        for r in reqs:
            wrong += not M.check_machine_request(M.parse_machine_request(r, True)).ok
        inproc = time.perf_counter() - t
        data = "".join(json.dumps(r) + "\n" for r in reqs).encode()
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "verified.cli", "check"], input=data,
                           capture_output=True)
        cli = time.perf_counter() - t
        assert p.returncode in (0, 1) and len(p.stdout.splitlines()) == N, p.stderr[:200]
        label = machine if isinstance(machine, str) else "object (tiny)"
        print(f"  {label:14} in process {N / inproc:8,.0f} requests/s   CLI {N / cli:8,.0f} "
              f"lines/s   ({wrong:,} of {N:,} sequences wrong or illegal)")


if __name__ == "__main__":
    main()
