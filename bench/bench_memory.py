"""Memory bounded by the input (issue 21), measured: peak RSS (``/usr/bin/time``'s
maximum resident set, else ``resource`` in the child) of each huge legal
request of the issue, and the time conform's answer reader takes for one
answer line, each in a fresh process.

    python -m bench bench_memory                 # this checkout
    BENCH_BEFORE=/path/to/other/checkout python -m bench bench_memory

With ``BENCH_BEFORE`` every case also runs against that checkout's code
(``PYTHONPATH``, and its directory as the current one), side by side in
the same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: peak RSS of the command itself: /usr/bin/time's maximum resident set
#: (a forked child inherits its parent's peak, so the bench process, which
#: never holds the inputs, starts each case through /usr/bin/time)
TIME = "/usr/bin/time"

#: a client that answers every request with one line of ``sys.argv[1]`` MB
#: written in 4 KB pieces, as C's stdio does (the reader then gets small
#: chunks): not JSON, so checking it costs nothing and the time is the
#: reader's (garbage, or a timeout when the reader takes longer than --timeout)
_HUGE_CLIENT = """
import os, sys
piece = b"x" * 4096
for _ in sys.stdin:
    for _ in range(int(sys.argv[1]) << 8):
        os.write(1, piece)
    os.write(1, b"\\n")
"""


_MAKE_INPUTS = """
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
n = 1 << 20
moves = [[(i + 1) % n, i] for i in range(n)]
files = {
    "cycle": {"moves": moves, "model": "swap", "registers": n,
              "sequence": [["swap", 0, i] for i in range(1, n)]},
    "cycle-request": {"moves": moves, "model": "swap", "registers": n},
    "ops": {"moves": [[1, 0], [0, 1]], "model": "swap", "sequence": [["swap", 0, 1]] * 1_000_001},
    "id": {"id": "x" * 50_000_000, "moves": [[1, 0], [0, 1]], "model": "swap",
           "sequence": [["swap", 0, 1]]},
}
for name, obj in files.items():
    (d / f"{name}.jsonl").write_text(json.dumps(obj) + "\\n")
"""


def _inputs(d: Path) -> dict[str, Path]:
    # written by a child process: this one stays small (see TIME)
    subprocess.run([sys.executable, "-c", _MAKE_INPUTS, str(d)], check=True)
    out = {name: d / f"{name}.jsonl" for name in ("cycle", "cycle-request", "ops", "id")}
    out["client"] = d / "huge_client.py"
    out["client"].write_text(_HUGE_CLIENT)
    return out


def _run(tree: Path, args: list[str]) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t = time.perf_counter()
    p = subprocess.run([TIME, "-f", "PEAK_KB %M", sys.executable, "-m", "verified.cli", *args],
                       capture_output=True, text=True, env=env, timeout=3600, cwd=tree)
    seconds = time.perf_counter() - t
    peak = next((int(x.split()[1]) for x in p.stderr.splitlines() if x.startswith("PEAK_KB")),
                0)
    lines = p.stdout.splitlines() or [""]
    shown = next((x for x in lines if x.startswith(("BROKEN", "result:"))), lines[0])
    return seconds, peak / 1024, shown[:100]


#: conform's reader alone, on one line arriving 4 KB at a time (a client
#: whose writes trickle in: each read returns one piece), in a fresh process
#: with the tree's ``Exchange``: seconds until the line is handed over
_READER = """
import os, sys, time
from verified.tools.conform import partner
real_read = os.read
os.read = lambda fd, n: real_read(fd, min(n, 4096))
p = partner.Partner(["cat", sys.argv[1]])
p.start()
ex = partner.Exchange(p, iter(()))
t = time.perf_counter()
ex.start()
item = ex.answers.get(timeout=3600)
print("%.2f %d" % (time.perf_counter() - t, len(item[0][0]) if isinstance(item, tuple) else -1))
p.kill()
ex.stop()
"""


def _reader_seconds(tree: Path, path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # cwd: ``-c`` and ``-m`` put the current directory first on the path
    p = subprocess.run([sys.executable, "-c", _READER, str(path)], capture_output=True,
                       text=True, env=env, timeout=3600, cwd=tree)
    return p.stdout.strip() or p.stderr.strip()[-200:]


def main() -> None:
    trees = [("this", ROOT)]
    if os.environ.get("BENCH_BEFORE"):
        trees.insert(0, ("before", Path(os.environ["BENCH_BEFORE"])))
    with tempfile.TemporaryDirectory() as tmp:
        f = _inputs(Path(tmp))
        size = {k: v.stat().st_size / 1e6 for k, v in f.items()}
        cases = [
            (f"check, cycle over 2^20 registers + its 1,048,575 swaps ({size['cycle']:.0f} MB)",
             ["check", str(f["cycle"])]),
            (f"solve -a xchg, the same cycle ({size['cycle-request']:.0f} MB)",
             ["solve", "-a", "xchg", str(f["cycle-request"])]),
            ("solve -a shuf, the same cycle (refused)",
             ["solve", "-a", "shuf", str(f["cycle-request"])]),
            (f"check, 10^6 operations ({size['ops']:.0f} MB)", ["check", str(f["ops"])]),
            (f"check, a 50 MB id ({size['id']:.0f} MB)", ["check", str(f["id"])]),
        ] + [
            (f"conform reading one {mb} MB answer line (--timeout 30)",
             ["conform", "--cmd", f"{sys.executable} {f['client']} {mb}", "--model", "swap",
              "-n", "3", "--random", "1", "--timeout", "30", "--no-shrink", "--progress",
              "never"]) for mb in (16, 48)
        ]
        for mb in (4, 16, 64):
            line = Path(tmp) / f"line{mb}"
            line.write_bytes(b"x" * (mb << 20) + b"\n")
            for label, tree in trees:
                if label == "before" and mb > 16:
                    continue  # quadratic: minutes
                print(f"   reader alone, one {mb} MB line in 4 KB reads, {label}: "
                      f"seconds, bytes = {_reader_seconds(tree, line)}", flush=True)
        print(f"   {'case':64} {'tree':>6} {'seconds':>8} {'peak MB':>8}  output (first line, or the verdict)")
        for what, args in cases:
            for label, tree in trees:
                s, mb, first = _run(tree, args)
                print(f"   {what:64} {label:>6} {s:8.2f} {mb:8.0f}  {first}", flush=True)
