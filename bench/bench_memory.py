"""Memory bounded by the input (issue 21), measured: peak RSS (``/usr/bin/time``'s
maximum resident set, else ``resource`` in the child) of each huge legal
request of the issue, and the time conform's answer reader takes for one
answer line, each in a fresh process.

    python -m bench bench_memory                 # this checkout and, before it, 38613a0
    BENCH_BEFORE=/path/to/other/checkout python -m bench bench_memory

Every case runs against this checkout and against the "before" code, side
by side in the same run: ``BENCH_BEFORE``'s checkout, or else the package
``verified/`` of commit ``BEFORE_COMMIT`` (the code issue 21 measured,
before the compact reader) taken from this repository's history with ``git
archive`` (no history, no git: this checkout alone, said so).  Each tree
runs with ``PYTHONPATH`` and its directory as the current one."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the "before" column by default: the code issue 21's figures were measured on
BEFORE_COMMIT = "38613a0"

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
# the strict reader's requests: register names, and a machine of 65,000 slots
# (a machine declares at most 65,536 units)
m = 1 << 18
names = [f"v{i}" for i in range(m)]
name_moves = [[names[(i + 1) % m], names[i]] for i in range(m)]
files["names"] = {"moves": name_moves, "model": "swap",
                  "sequence": [["swap", names[0], names[i]] for i in range(1, m)]}
files["names-request"] = {"moves": name_moves, "model": "swap"}
k = 65_000
files["machine"] = {"machine": {"name": "slots", "classes": {"gpr": {"registers": ["a"]}},
                                "stack": {"slots": k}, "swap": ["reg-reg", "reg-mem"]},
                    "moves": [[f"s{(i + 1) % k}", f"s{i}"] for i in range(k)], "temps": ["a"],
                    "sequence": [["mov", "a", "s0"]] + [["swap", "a", f"s{i}"]
                                                        for i in range(1, k)] + [["mov", "s0", "a"]]}
files["machine-ops"] = {"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]],
                        "sequence": [["swap", "rax", "rbx"]] * 1_000_001}
for name, obj in files.items():
    (d / f"{name}.jsonl").write_text(json.dumps(obj) + "\\n")
"""


def _inputs(d: Path) -> dict[str, Path]:
    # written by a child process: this one stays small (see TIME)
    subprocess.run([sys.executable, "-c", _MAKE_INPUTS, str(d)], check=True)
    out = {name: d / f"{name}.jsonl" for name in ("cycle", "cycle-request", "ops", "id", "names",
                                                   "names-request", "machine", "machine-ops")}
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


def _before_tree(tmp: Path) -> Path | None:
    """``BENCH_BEFORE``, or ``verified/`` of ``BEFORE_COMMIT`` unpacked in
    ``tmp`` (None when this checkout has no such history)."""
    if os.environ.get("BENCH_BEFORE"):
        return Path(os.environ["BENCH_BEFORE"])
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE_COMMIT, "verified"],
                                 capture_output=True, check=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    tree = tmp / "before"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trees = [("this", ROOT)]
        before = _before_tree(Path(tmp))
        if before is None:
            print(f"   (no 'before' column: {BEFORE_COMMIT} is not in this checkout's history "
                  "and BENCH_BEFORE is not set)")
        else:
            print(f"   before = {os.environ.get('BENCH_BEFORE') or BEFORE_COMMIT}")
            trees.insert(0, ("before", before))
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
            (f"check, a cycle over 2^18 register names + its swaps ({size['names']:.0f} MB)",
             ["check", str(f["names"])]),
            (f"solve -a xchg, the same names ({size['names-request']:.0f} MB)",
             ["solve", "-a", "xchg", str(f["names-request"])]),
            (f"check, a machine cycle over 65,000 slots ({size['machine']:.1f} MB)",
             ["check", str(f["machine"])]),
            (f"check, x86-64, 10^6 operations ({size['machine-ops']:.0f} MB)",
             ["check", str(f["machine-ops"])]),
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
