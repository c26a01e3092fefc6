"""``verified conform cluster``: one conform run fanned out over a Dask
``distributed`` cluster (``pip install 'verified-parmove[cluster]'``) as N shards
(``--shard I/N``), their reports merged (``merge.py``) into the report one
run gives.

Each shard is one task: a ``verified conform ... --shard I/N --json --jobs
1`` process on whichever worker is free (its own process, so the program
under test, conform's threads and its signal handling are as on the
command line; the cluster's workers are the parallelism).  Only the
arguments go out and only the JSON report comes back.  Every worker needs
this package and the program under test at the same path.

    verified conform cluster --scheduler tcp://scheduler:8786 --shards 64 -- \\
        --cmd ./my_resolver --model swap --registers 18 --shapes
    verified conform cluster --local 2 --shards 8 -- --cmd ./my_resolver ...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from ...core.exits import EXIT_BAD_INPUT
from .merge import BadReports, _Parser, check_fields, merge
from .cli import text_report

HELP = """\
Runs `verified conform CONFORM-ARGS` as --shards N shards (--shard I/N) on a
Dask distributed cluster, one task per shard, and prints the merged report
(`verified conform merge`): the report of one run over every case, as JSON
(--text: as conform prints it), with conform's exit status.  Needs the
optional extra: pip install 'verified-parmove[cluster]'.  Every worker must have
verified installed and the program under test at the same path.
docs/conform.md, "Sharding", says how to start a cluster.

examples:
  verified conform cluster --local 2 --shards 8 -- --cmd ./my_resolver --model swap --registers 7
  verified conform cluster --scheduler tcp://10.0.0.1:8786 --shards 64 -- \\
      --cmd /opt/ci/my_resolver --model swap --registers 18 --shapes
"""


def run_shard(conform_args: list[str], i: int, n: int) -> str:
    """One shard, on a worker: its --json report (text, parsed by the caller)."""
    proc = subprocess.run(
        [sys.executable, "-m", "verified.cli", "conform", *conform_args, "--shard", f"{i}/{n}",
         "--json", "--progress", "never", "--jobs", "1"],
        capture_output=True, text=True)
    if not proc.stdout.strip():  # bad use: conform printed one line on stderr
        raise RuntimeError(f"shard {i}/{n}: {proc.stderr.strip()}")
    return proc.stdout


def run_on(client, conform_args: list[str], shards: int) -> dict:
    """The merged report of ``shards`` shards run as tasks of ``client``."""
    futures = client.map(run_shard, [conform_args] * shards, range(1, shards + 1),
                         [shards] * shards, pure=False)
    texts = client.gather(futures)
    reports = []
    for i, text in enumerate(texts, 1):
        report = json.loads(text)
        report["shard"]["path"] = f"shard {i}/{shards}"
        check_fields(report)
        reports.append(report)
    return merge(reports)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verified conform cluster", description=HELP,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="the Dask scheduler to connect to, e.g. tcp://10.0.0.1:8786")
    where.add_argument("--local", type=int, metavar="K",
                       help="start a LocalCluster of K worker processes here (one thread each)")
    parser.add_argument("--shards", type=int, required=True, metavar="N",
                        help="how many shards (tasks); a few per worker balances the load")
    parser.add_argument("--text", action="store_true",
                        help="print the merged report as text, as conform prints it")
    parser.add_argument("conform_args", nargs=argparse.REMAINDER, metavar="-- CONFORM-ARGS",
                        help="the arguments of `verified conform` (without --shard, --json)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    rest = args.conform_args[1:] if args.conform_args[:1] == ["--"] else args.conform_args
    if not rest:
        parser.error("give conform's arguments after --, e.g. -- --cmd ./prog --model swap")
    for banned in ("--shard", "--json", "--jobs", "-j"):
        if banned in rest:
            parser.error(f"{banned} is set by the cluster runner; leave it out of CONFORM-ARGS")
    if not 1 <= args.shards <= 1_000_000:
        parser.error(f"--shards must be 1..1,000,000, not {args.shards}")
    if args.local is not None and not 1 <= args.local <= 256:
        parser.error(f"--local must be 1..256 workers, not {args.local}")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("verified conform cluster: error: Dask distributed is not installed; "
              "pip install 'verified-parmove[cluster]'", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.scheduler is not None:
        problem = _bad_address(args.scheduler)
        if problem:
            parser.error(f"--scheduler {_short(args.scheduler)}: {problem}; give the "
                         f"scheduler's address, e.g. tcp://10.0.0.1:8786")
    t = time.monotonic()
    try:
        if args.local is not None:
            with LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                merged = run_on(client, rest, args.shards)
        else:
            with Client(args.scheduler) as client:
                merged = run_on(client, rest, args.shards)
    except (RuntimeError, BadReports, OSError) as e:
        print(f"verified conform cluster: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(text_report(merged) if args.text else json.dumps(merged, indent=2))
    print(f"verified conform cluster: {args.shards} shards in {time.monotonic() - t:.1f} s "
          f"wall", file=sys.stderr)
    return merged["exit"]


def _bad_address(address: str) -> str | None:
    """What is wrong with a scheduler address (None: nothing), as Dask reads
    it: a known scheme, and a host and port for the network ones (Client
    itself raises a bare ValueError)."""
    from distributed.comm import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend
    try:
        scheme, _ = parse_address(address)
        get_backend(scheme)  # ValueError naming the known schemes
        if scheme == "inproc":
            return "an inproc address is a scheduler in this process, which has none"
        if scheme not in ("tcp", "tls", "ws", "wss"):
            return None  # ucx: its own form
        host, port = get_address_host_port(address)
    except ValueError as e:
        return f"not a scheduler address ({_short(str(e))})"
    if not host.strip():
        return "no host"
    if not 1 <= port <= 65535:
        return f"port {port} is not in 1..65535"
    return None


def _short(text: str) -> str:
    text = repr(text)
    return text if len(text) <= 80 else text[:77] + "..."
