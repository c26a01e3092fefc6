"""SSRA timing: allocation of the write-up's 6362-instruction tape, and of
synthetic tapes 10x and 100x longer, measured side by side in one run
(median of repeated runs; these machines are noisy).

The write-up's Rust implementation does parse + allocate + print of the
6362-instruction tape in about 3.8 ms (its table: "Runtime 3.8 ms" at 10
and 8 registers, 3.9 ms at 24), i.e. ~0.6 us per instruction; issue 20's
goal is within 3x of that in process (about 11.4 ms) and 5x as a whole
process.  Reached so far (2026-11-28, fourth round, load average about 13
on 2 cores, ``bench_table``'s SSRA rows with the Rust built as
docs/ssra.md says): 10.3 ms in process, 2.5x a whole Rust process in the
same run and 3.1x an estimate of its work alone; a whole process is
mostly the interpreter's start-up and shutdown, and the work
(docs/ssra.md).  Run: ``make bench`` or ``python -m bench.bench_ssra``."""

from __future__ import annotations

import os
import statistics
import time

from verified import ssra

TAPE = os.path.join(os.path.dirname(__file__), "..", "tests", "data",
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


def median_seconds(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU (process) seconds.  CPU time is the
    steadier figure when other jobs share the cores."""
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    with open(TAPE, encoding="utf-8") as f:
        base_text = f.read()
    rows = []
    for label, copies, repeats in (("1x", 1, 21), ("10x", 10, 5), ("100x", 100, 3)):
        text = base_text if copies == 1 else synthetic(base_text, copies)
        tape = ssra.parse_tape(text)
        n_ops = len(tape.ops)
        alloc = {r: median_seconds(lambda: ssra.allocate(tape, r), repeats)
                 for r in (24, 8)}
        round_trip = median_seconds(
            lambda: ssra.allocate(ssra.parse_tape(text), 24).text(), max(3, repeats // 3))
        rows.append((label, n_ops, alloc, round_trip))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"SSRA, median of repeated runs, wall / CPU (load average {load:.1f} on "
          f"{os.cpu_count()} cores).  Rust reference: {RUST_US_PER_INSTRUCTION:.2f} "
          f"us/instruction for parse+alloc+print.")
    print(f"{'tape':>5} {'instrs':>7} | {'alloc N=24 us/instr':>20} | {'alloc N=8 us/instr':>19} | "
          f"{'parse+alloc+print us/instr':>27} | {'x Rust (CPU)':>12}")
    for label, n_ops, alloc, rt in rows:
        us = lambda t: t / n_ops * 1e6  # noqa: E731
        print(f"{label:>5} {n_ops:>7} | {us(alloc[24][0]):>9.2f} / {us(alloc[24][1]):>8.2f} | "
              f"{us(alloc[8][0]):>8.2f} / {us(alloc[8][1]):>8.2f} | "
              f"{us(rt[0]):>13.2f} / {us(rt[1]):>11.2f} | "
              f"{us(rt[1]) / RUST_US_PER_INSTRUCTION:>12.1f}")
    base = rows[0]
    print("growth, CPU time ratio / instruction ratio (1.00 = linear):")
    for label, n_ops, alloc, rt in rows[1:]:
        k = n_ops / base[1]
        print(f"  {label}: alloc N=24 {alloc[24][1] / base[2][24][1] / k:.2f}, "
              f"N=8 {alloc[8][1] / base[2][8][1] / k:.2f}, "
              f"parse+alloc+print {rt[1] / base[3][1] / k:.2f}")


if __name__ == "__main__":
    main()
