"""SSRA timing: allocation of the write-up's 6362-instruction tape, and of
synthetic tapes 10x and 100x longer, measured side by side in one run
(median of repeated runs; these machines are noisy).

The write-up's Rust implementation does parse + allocate + print of the
6362-instruction tape in about 3.8 ms (its table: "Runtime 3.8 ms" at 10
and 8 registers, 3.9 ms at 24), i.e. ~0.6 us per instruction; the goal is
to be within 10x of that.  Run: ``make bench`` or
``python -m bench.bench_ssra``."""

from __future__ import annotations

import os
import statistics
import time

from verified import ssra

TAPE = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                    "ssra-bench-6362.tape")
RUST_US_PER_INSTRUCTION = 3.8e3 / 6362


def synthetic(text: str, copies: int) -> str:
    """``copies`` renamed copies of the tape, then a MAX chain joining their
    results (so every copy is live): about ``copies`` times longer, with the
    same local structure."""
    lines = [l for l in text.splitlines() if l.strip()]
    result = lines[-1].split("=")[0].strip()
    out = []
    for c in range(copies):
        out.extend(l.replace("$", f"$c{c}_") for l in lines)
    acc = f"$c0_{result[1:]}"
    for c in range(1, copies):
        out.append(f"$j{c} = MAX({acc}, $c{c}_{result[1:]})")
        acc = f"$j{c}"
    return "\n".join(out) + "\n"


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    with open(TAPE, encoding="utf-8") as f:
        base_text = f.read()
    rows = []
    for label, copies, repeats in (("1x", 1, 21), ("10x", 10, 7), ("100x", 100, 3)):
        text = base_text if copies == 1 else synthetic(base_text, copies)
        tape = ssra.parse_tape(text)
        n_ops = len(tape.ops)
        alloc = {}
        for registers in (24, 8):
            alloc[registers] = median_seconds(lambda: ssra.allocate(tape, registers), repeats)
        round_trip = median_seconds(
            lambda: ssra.allocate(ssra.parse_tape(text), 24).text(), max(3, repeats // 3))
        rows.append((label, n_ops, alloc, round_trip))
    print(f"SSRA allocation, median of repeated runs (Rust reference: "
          f"{RUST_US_PER_INSTRUCTION:.2f} us/instruction, parse+alloc+print)")
    print(f"{'tape':>5} {'instructions':>12} {'alloc N=24':>12} {'us/instr':>9} "
          f"{'alloc N=8':>11} {'us/instr':>9} {'parse+alloc+print':>18} {'us/instr':>9} {'x Rust':>7}")
    base = rows[0]
    for label, n_ops, alloc, rt in rows:
        print(f"{label:>5} {n_ops:>12} {alloc[24] * 1e3:>10.1f}ms {alloc[24] / n_ops * 1e6:>9.2f} "
              f"{alloc[8] * 1e3:>9.1f}ms {alloc[8] / n_ops * 1e6:>9.2f} "
              f"{rt * 1e3:>16.1f}ms {rt / n_ops * 1e6:>9.2f} "
              f"{rt / n_ops * 1e6 / RUST_US_PER_INSTRUCTION:>7.1f}")
    print("growth (time ratio / instruction ratio; 1.0 = linear):")
    for label, n_ops, alloc, rt in rows[1:]:
        k = n_ops / base[1]
        print(f"  {label}: alloc N=24 {alloc[24] / base[2][24] / k:.2f}, "
              f"N=8 {alloc[8] / base[2][8] / k:.2f}, round trip {rt / base[3] / k:.2f}")


if __name__ == "__main__":
    main()
