"""The README's install line without network, verbatim: ``pip install
path/to/a/clone`` into a fresh virtual environment installs the
distribution ``verified-parmove`` (issue 21: the name ``verified`` on the
package index is an unrelated project), whose import package and command
are ``verified``, with its data files (presets, schemas)."""

from __future__ import annotations

import json
import re
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


#: where a user reads an install line: the docs, the kits' docs, the README,
#: and what the commands print
_READ_BY_USERS = ["README.md", "docs", "kits", "verified"]
#: ``pip install`` of anything that looks like this project but is not its
#: distribution: ``verified``, ``verified[extra]``, ``verified @ url`` (the
#: index's ``verified`` is another project)
_WRONG_NAME = re.compile(r"""pip install(?: -\S+)*\s+['"]?verified(?:\[|['"\s@]|$)""", re.M)


def test_every_install_line_names_our_distribution():
    """Issue 21, item 5: `pip install 'verified[cluster]'` (in the cluster
    command's own error message, docs/conform.md and the README) installed
    the unrelated project of that name."""
    found = []
    for top in _READ_BY_USERS:
        paths = [ROOT / top] if (ROOT / top).is_file() else sorted(
            p for p in (ROOT / top).rglob("*") if p.suffix in (".md", ".py", ".txt", ".h", ".rs"))
        for path in paths:
            for m in _WRONG_NAME.finditer(path.read_text(errors="replace")):
                found.append(f"{path.relative_to(ROOT)}: {m.group(0)!r}")
    assert found == []
    assert _WRONG_NAME.search("pip install 'verified[cluster]'")
    assert _WRONG_NAME.search('pip install -q "verified @ git+x"')
    assert not _WRONG_NAME.search("pip install 'verified-parmove[cluster]'")


def test_the_cluster_command_without_dask_names_the_extra_to_install(monkeypatch, capsys):
    import builtins

    from verified import cli

    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    monkeypatch.setattr(sys, "argv", ["verified", "conform", "cluster", "--shards", "2",
                                      "--local", "1", "--", "--cmd", "true", "--model", "swap"])
    assert cli.main() == 2
    assert capsys.readouterr().err == (
        "verified conform cluster: error: Dask distributed is not installed; "
        "pip install 'verified-parmove[cluster]'\n")
