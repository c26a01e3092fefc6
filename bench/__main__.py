"""`make bench`: run every bench/bench_*.py's main() in turn.

Timings live here, never in tests.  Each benchmark reports ratios measured
side by side in one run, because these machines are noisy."""

import importlib
import pkgutil
import sys
import time

import bench


def main() -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__)
                   if m.name.startswith("bench_"))
    only = sys.argv[1:]
    for name in names:
        if only and not any(o in name for o in only):
            continue
        print(f"== {name} ==", flush=True)
        t = time.perf_counter()
        importlib.import_module(f"bench.{name}").main()
        print(f"   ({name}: {time.perf_counter() - t:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
