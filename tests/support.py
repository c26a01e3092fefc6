"""Support code (no tests here): the one CLI runner (``verified``) and the
one compiler of the C client (``compile_client``).  Tests get them through
the session fixtures of tests/conftest.py (``cli``, ``c_client``,
``c_client_broken``: compiled once per session); helpers that are not tests
import them from here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENT_SRC = ROOT / "tests" / "clients" / "shuf_client.c"


def c_compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return shutil.which(cc)
    return None


def compile_client(out_dir: Path, broken: bool = False) -> Path:
    """Compile tests/clients/shuf_client.c (with -DBROKEN for the planted
    bug) into ``out_dir``; never into the source tree."""
    cc = c_compiler()
    if cc is None:
        import pytest

        pytest.skip("no C compiler (cc/gcc/clang) on PATH: the C client tests need one")
    exe = out_dir / ("shuf_client_broken" if broken else "shuf_client")
    cmd = [cc, "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra",
           "-Werror", "-o", str(exe), str(CLIENT_SRC)]
    if broken:
        cmd.insert(1, "-DBROKEN")
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


def verified(*args: str, input: bytes | str | None = None, cwd: Path | None = None,
             timeout: float = 300, text: bool = True) -> subprocess.CompletedProcess:
    """THE CLI runner of the tests: ``python -m verified.cli ARGS`` with this
    interpreter and this checkout first on the path (so a test run from
    another directory, ``cwd``, still runs the code under test); returns
    the completed process, stdout/stderr as text (undecoded bytes with
    ``text=False``, for tests that check the bytes themselves)."""
    if isinstance(input, str):
        input = input.encode()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "verified.cli", *args], input=input,
                          capture_output=True, timeout=timeout, cwd=cwd, env=env)
    if text:
        proc.stdout = proc.stdout.decode("utf-8", "replace")
        proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def conform_json(*args: str, timeout: float = 300) -> tuple[int, dict, str]:
    """``verified conform ARGS --json --progress never``: (exit, report, stderr)."""
    proc = verified("conform", *args, "--json", "--progress", "never", timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


#: the runs of ``conform_json_once``: command line -> (exit, report, stderr)
_ONCE: dict[tuple[str, ...], tuple[int, dict, str]] = {}


def conform_json_once(*args: str, timeout: float = 300) -> tuple[int, dict, str]:
    """``conform_json(*args)``, run once per test session for each distinct
    ``args`` and handed out as a fresh copy each call: for deterministic
    runs (exhaustive, or --random with --seed) on which several tests
    assert different things.  The copy is that of the one run, so a test
    that changes it changes nothing of another's (docs/testing.md)."""
    import copy

    if args not in _ONCE:
        _ONCE[args] = conform_json(*args, timeout=timeout)
    return copy.deepcopy(_ONCE[args])


def py_cmd(code: str) -> str:
    """A --cmd running a Python one-liner with this interpreter."""
    import shlex

    return shlex.join([sys.executable, "-c", code])


def peak_bytes(fn) -> int:
    """The peak of Python's own allocations while ``fn()`` runs
    (tracemalloc): memory bounded by the input, measured in process."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def in_fresh_interpreter(fn, *args):
    """``fn(*args)`` in a new Python process (multiprocessing's spawn: no
    state of this one, Z3's global context included); ``fn`` must be
    importable by name and its result picklable."""
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()
