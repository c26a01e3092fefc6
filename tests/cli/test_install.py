"""The README's install line without network, verbatim: ``pip install
path/to/a/clone`` into a fresh virtual environment installs the
distribution ``verified-parmove`` (issue 21: the name ``verified`` on the
package index is an unrelated project), whose import package and command
are ``verified``, with its data files (presets, schemas)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pip_install_of_a_clone_gives_the_verified_command(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(
        ".venv", ".git", "*.egg-info", ".hypothesis", ".pytest_cache", "__pycache__",
        ".mutation", "build"))
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "env")], check=True)
    pip = tmp_path / "env" / "bin" / "pip"
    p = subprocess.run([str(pip), "install", "-q", str(clone)], capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    show = subprocess.run([str(pip), "show", "verified-parmove"], capture_output=True, text=True)
    assert "Name: verified-parmove" in show.stdout
    exe = tmp_path / "env" / "bin" / "verified"
    listed = subprocess.run([str(exe), "schema"], capture_output=True, text=True, cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.split()[0] == "request"
    shown = subprocess.run([str(exe), "machines", "show", "x86-64"], capture_output=True,
                           text=True, cwd=tmp_path)
    assert json.loads(shown.stdout)["name"] == "x86-64"
    check = subprocess.run([str(exe), "check"], input='{"moves": [[1, 0], [0, 1]], "model": '
                           '"swap", "sequence": [["swap", 0, 1]]}\n', capture_output=True,
                           text=True, cwd=tmp_path)
    assert check.stdout == '{"ok": true, "length": 1, "optimal": 1}\n'
