"""A test that hangs fails instead of blocking the suite: pytest-timeout is
pinned in the test extra and pyproject sets a per-test budget."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_suite_has_a_per_test_timeout():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert conf["tool"]["pytest"]["ini_options"]["timeout"] > 0
    assert any(d.startswith("pytest-timeout==")
               for d in conf["project"]["optional-dependencies"]["test"])


def test_a_hanging_test_fails(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 1\n")
    (tmp_path / "test_hang.py").write_text(
        "import threading\n\ndef test_hang():\n    threading.Event().wait()\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path / "test_hang.py")], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout[-2000:]
    assert "Timeout" in out.stdout and "1 failed" in out.stdout
