"""Support code (no tests here) for the conform / vectors / fuzz tests: compiling the C
client into a temporary directory and running the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

CLIENT_SRC = Path(__file__).parent / "clients" / "shuf_client.c"


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


def verified(*args: str, input: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m verified.cli ARGS``; returns the completed process
    (stdout/stderr as text)."""
    proc = subprocess.run([sys.executable, "-m", "verified.cli", *args], input=input,
                          capture_output=True, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def conform_json(*args: str, timeout: float = 300) -> tuple[int, dict, str]:
    """``verified conform ARGS --json --progress never``: (exit, report, stderr)."""
    proc = verified("conform", *args, "--json", "--progress", "never", timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def py_cmd(code: str) -> str:
    """A --cmd running a Python one-liner with this interpreter."""
    import shlex

    return shlex.join([sys.executable, "-c", code])
