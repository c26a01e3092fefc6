"""Support code (no tests here) for tests/kits: compiling the client kits'
examples and drivers into temporary directories, and running
`verified conform` on them."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "kits"
HERE = Path(__file__).resolve().parent
CLIENTS_DOC = ROOT / "docs" / "clients.md"

C_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def tool(*names: str) -> str | None:
    for name in names:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


#: the tools a run must have (comma-separated names): a missing one listed
#: here fails its test instead of skipping it.  ``.ci/run`` installs them
#: and sets this, so CI cannot pass by skipping what it is meant to run.
REQUIRE_TOOLS = "VERIFIED_REQUIRE_TOOLS"


def required_tool(name: str, what: str, install: str) -> str:
    """The path of ``name`` on PATH; when it is missing, skip the test
    (``what`` is untested here) or, when ``$VERIFIED_REQUIRE_TOOLS`` names
    it, fail saying how to install it (``install``)."""
    found = tool(name)
    if found is not None:
        return found
    required = {t.strip() for t in os.environ.get(REQUIRE_TOOLS, "").split(",")}
    if name in required:
        pytest.fail(f"{name} is not installed but {REQUIRE_TOOLS} requires it "
                    f"({what}): install it ({install}) or leave {name} out of "
                    f"{REQUIRE_TOOLS}", pytrace=False)
    pytest.skip(f"{name} is not installed: {what} is untested here ({install})")


def c_compiler() -> str:
    """tests/support.py's compiler lookup (the one), or skip."""
    from tests.support import c_compiler as find

    cc = find()
    if cc is None:
        pytest.skip("no C compiler (cc/gcc/clang) on PATH: the C kit tests need one")
    return cc


def rustc() -> str:
    rc = tool("rustc")
    if rc is None:
        pytest.skip("no rustc on PATH: the Rust kit tests need one (no cargo, no crates)")
    return rc


@functools.lru_cache(maxsize=None)
def sanitizers_work(cc: str) -> bool:
    """Can ``cc`` build and run an ASan+UBSan program here?"""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        src, exe = Path(d) / "probe.c", Path(d) / "probe"
        src.write_text("int main(void) { return 0; }\n")
        built = subprocess.run([cc, *SANITIZE, "-o", str(exe), str(src)], capture_output=True)
        return built.returncode == 0 and subprocess.run([str(exe)]).returncode == 0


def compile_c(src: Path, exe: Path, *extra: str, sanitize: bool = False,
              cache: Path | None = None) -> Path:
    """Compile one C file warning-free (-Werror) with the kit's header on the
    include path; the compiler's messages are the failure text.  With
    ``cache``, through ``built`` (one build a session for all workers)."""
    cc = c_compiler()
    cmd = [cc, *C_FLAGS, *(SANITIZE if sanitize else []), *extra,
           "-I", str(KITS / "c"), "-o", str(exe), str(src)]
    return built(cmd, exe, [src, *sorted((KITS / "c").glob("*.h"))], cache)


def compile_rust(src: Path, exe: Path, *extra: str, cache: Path | None = None) -> Path:
    """``rustc --edition 2021 -O SRC`` as docs/clients.md says; no warnings."""
    cmd = [rustc(), "--edition", "2021", "-O", *extra, str(src), "-o", str(exe)]
    return built(cmd, exe, [src], cache)


def _build(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, f"{' '.join(cmd)}\n{proc.stderr}"


def build_key(cmd: list[str], exe: Path, sources: list[Path]) -> str:
    """A SHA-256 of what a build's output depends on: the command with the
    output path left out, the compiler binary's identity (path, size,
    mtime) and every source's bytes (the C kit's headers included)."""
    import hashlib

    h = hashlib.sha256()

    def part(b: bytes) -> None:  # each part with its length: no two run together
        h.update(len(b).to_bytes(8, "big") + b)

    for arg in cmd:
        part(b"OUT" if arg == str(exe) else arg.encode())
    st = os.stat(cmd[0])
    part(f"{st.st_size} {st.st_mtime_ns}".encode())
    for src in sources:
        part(str(src).encode())
        part(Path(src).read_bytes())
    return h.hexdigest()


def built(cmd: list[str], exe: Path, sources: list[Path], cache: Path | None) -> Path:
    """Run the build ``cmd`` (output ``exe``), or copy its output from
    ``cache``: a directory shared by the session's xdist workers
    (tests/kits/conftest.py), where the first worker to ask builds it
    (under a lock, the others waiting) and each later one copies it; the
    kits' examples were built once in each worker (about 24 CPU s a
    worker, docs/testing.md).  The build's own checks (exit 0, no
    warning) are made by the one build."""
    if cache is None:
        _build(cmd)
        return exe
    import fcntl

    cache.mkdir(parents=True, exist_ok=True)
    key = build_key(cmd, exe, sources)
    done = cache / key
    with open(cache / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            part = cache / f"{key}.part"
            _build([str(part) if a == str(exe) else a for a in cmd])
            os.replace(part, done)
    shutil.copy2(done, exe)
    return exe


def verified_argv() -> list[str]:
    """The installed ``verified`` script next to this interpreter (what a
    client author runs), else ``python -m verified.cli``."""
    script = Path(sys.executable).parent / "verified"
    return [str(script)] if script.exists() else [sys.executable, "-m", "verified.cli"]


def conform(cmd: list[str], *args: str) -> tuple[int, dict]:
    """``verified conform --cmd CMD ARGS --json``: (exit status, report)."""
    import shlex

    proc = subprocess.run(
        [*verified_argv(), "conform", "--cmd", shlex.join(cmd), *args,
         "--json", "--progress", "never"],
        capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def run(cmd: list[str], data: bytes, timeout: float = 60) -> subprocess.CompletedProcess:
    """Feed ``data`` to a program; it must exit 0 with nothing on stderr
    (a sanitizer report or a Rust panic lands there)."""
    proc = subprocess.run(cmd, input=data, capture_output=True, timeout=timeout)
    assert proc.returncode == 0 and not proc.stderr, (
        f"{cmd} exited {proc.returncode}\n{proc.stderr.decode('utf-8', 'replace')[-3000:]}")
    return proc


def doc_block(lang: str) -> str:
    """The one ```LANG code block of docs/clients.md (the examples there are
    the ones tested, so the page cannot drift from what works)."""
    blocks = re.findall(rf"^```{lang}\n(.*?)^```", CLIENTS_DOC.read_text(), re.S | re.M)
    assert len(blocks) == 1, f"docs/clients.md has {len(blocks)} ```{lang} blocks, expected 1"
    return blocks[0]
