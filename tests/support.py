"""Support code (no tests here): the one CLI runner (``verified``) and the
one compiler of the C client (``compile_client``).  Tests get them through
the session fixtures of tests/conftest.py (``cli``, ``c_client``,
``c_client_broken``: compiled once per session); helpers that are not tests
import them from here."""

from __future__ import annotations

import ast
import functools
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


#: the subcommands ``verified`` runs in this process (``run_in_process``):
#: each reads its input, writes its answers and returns its exit status
#: through ``verified.cli.main``, with no signal handler, no child process
#: and no process-wide setting of its own.  ``conform`` (its clients'
#: processes, its signal handlers) always gets a process.
IN_PROCESS = frozenset({"check", "solve", "explain", "vectors", "machines", "schema", "ssra"})


def verified(*args: str, input: bytes | str | None = None, cwd: Path | None = None,
             timeout: float = 300, text: bool = True, process: bool = False,
             usage_error: bool = False) -> subprocess.CompletedProcess:
    """THE CLI runner of the tests: ``python -m verified.cli ARGS`` with this
    interpreter and this checkout first on the path (so a test run from
    another directory, ``cwd``, still runs the code under test); returns
    the completed process, stdout/stderr as text (undecoded bytes with
    ``text=False``, for tests that check the bytes themselves).

    A command of ``IN_PROCESS`` without ``cwd`` runs in this process
    (``run_in_process``: the same bytes and exit status, pinned by
    tests/cli/test_in_process.py, without a fresh interpreter's ~0.1 s CPU
    of start-up and imports); ``process=True`` asks for a real process
    where the process itself is under test.  ``usage_error=True`` runs any
    command in this process, ``conform`` included, for a test that expects
    it to stop at its usage checks (exit 2): conform rejects its arguments
    before it sets a signal handler or starts a program, and should it go
    past them, its signal handlers cannot be set outside the main thread,
    so the run ends, judging nothing and starting no program, in its
    "internal error: ValueError" line (also exit 2): a test using this
    must pin stderr (tests/cli/test_in_process.py pins that line)."""
    if isinstance(input, str):
        input = input.encode()
    if not process and cwd is None and args and (args[0] in IN_PROCESS or usage_error):
        return run_in_process(*args, input=input, text=text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "verified.cli", *args], input=input,
                          capture_output=True, timeout=timeout, cwd=cwd, env=env)
    if text:
        proc.stdout = proc.stdout.decode("utf-8", "replace")
        proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def run_in_process(*args: str, input: bytes | None = None,
                   text: bool = True) -> subprocess.CompletedProcess:
    """``verified ARGS`` through ``verified.cli.main`` in this process, with
    the standard streams a ``python -m verified.cli`` process would have
    (text over bytes, each stream's encoding and error handler as in such a
    process: ``_stdio``), stdin empty unless ``input``; the exit status as ``sys.exit(main())`` would
    make it, and an exception that escapes ``main`` printed as the
    interpreter prints it (status 1).  What differs from a process: a
    Python warning goes to pytest's warning capture, not to stderr, and
    the process-wide settings read at import (``VERIFIED_TRACEBACK``,
    ``VERIFIED_CONTRACTS``) are this process's, from the same environment."""
    import io
    import threading
    import traceback

    from verified import cli

    out, err = io.BytesIO(), io.BytesIO()
    (enc_in, errors_in), (enc_out, errors_out), (enc_err, errors_err) = _stdio()
    streams = (io.TextIOWrapper(io.BytesIO(input or b""), encoding=enc_in, errors=errors_in),
               io.TextIOWrapper(out, encoding=enc_out, errors=errors_out, write_through=True),
               io.TextIOWrapper(err, encoding=enc_err, errors=errors_err, write_through=True))
    result: list[int] = []

    def run() -> None:
        try:
            result.append(_exit_status(cli.main(list(args))))
        except SystemExit as e:
            result.append(_exit_status(e.code))
        except Exception:  # as the interpreter reports an uncaught exception
            traceback.print_exc()
            result.append(1)

    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        # a thread of its own: main starts at the stack depth it has in a
        # process, not below pytest's frames (JSON's nesting limit and any
        # RecursionError depend on it: tests/cli/test_in_process.py)
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    status = result[0]
    stdout, stderr = out.getvalue(), err.getvalue()
    argv = [sys.executable, "-m", "verified.cli", *args]
    if text:
        return subprocess.CompletedProcess(argv, status, stdout.decode("utf-8", "replace"),
                                           stderr.decode("utf-8", "replace"))
    return subprocess.CompletedProcess(argv, status, stdout, stderr)


@functools.cache
def _stdio() -> tuple[tuple[str, str], ...]:
    """(encoding, errors) of stdin, stdout and stderr in a process that
    ``verified`` starts: they follow the locale (C.UTF-8: surrogateescape on
    stdin and stdout), so one such process is asked, once."""
    code = "import sys; print([(s.encoding, s.errors) for s in (sys.stdin, sys.stdout, sys.stderr)])"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    got = subprocess.run([sys.executable, "-c", code], input=b"", capture_output=True,
                         env=env, check=True).stdout
    return tuple(map(tuple, ast.literal_eval(got.decode())))


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives a process: None 0, an int itself
    (modulo 256), anything else printed to stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


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


#: the machine optimum of each (move, preserve) met in this process
#: (``optimum_once``)
_OPTIMA: dict = {}


def optimum_once(monkeypatch) -> None:
    """Make ``check``'s machine optimum (``check.machine_optimum``) search
    once per test process for each request's move and preserve, the only
    inputs of ``machine_optimum.optimum``, a pure function whose answer is
    frozen: a request that differs in either gets a search of its own, and
    the verdict is still judged each time.  For in-process tests that serve
    the same golden machine requests (the cross-class one's exhaustive
    search is about 4.3 CPU s: docs/testing.md)."""
    from verified.tools import check

    real = check.machine_optimum

    def once(req):
        key = (check.MACHINE_OPTIMUM, req.move, req.preserve)  # and the hook's module
        if key not in _OPTIMA:
            _OPTIMA[key] = real(req)
        return _OPTIMA[key]

    monkeypatch.setattr(check, "machine_optimum", once)


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
