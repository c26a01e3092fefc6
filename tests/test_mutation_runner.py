"""`make mutation`'s runner (mutation/run.py) on a tiny input: `--modules
GLOB` (repeatable) restricts the sample to the matching files, and a glob
that matches nothing is refused rather than silently ignored.

cosmic-ray is the extra `verified-parmove[mutation]`, installed by `make mutation`,
not by `make test`: without it these tests skip and say so."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="the extra verified-parmove[mutation] is not installed "
                    "(make mutation installs it)")

from mutation import engine, run  # noqa: E402

TINY = {
    "verified/a.py": "def f(x):\n    return x + 1\n",
    "verified/sub/b.py": "def g(x):\n    if x < 2:\n        return x * 3\n    return 0\n",
    "verified/sub/c.py": "def h(x):\n    return x - 4\n",
}


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    for path, text in TINY.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def test_selected_keeps_the_modules_matching_any_glob(tiny):
    mods = engine.modules(tiny)
    assert mods == ["verified/a.py", "verified/sub/b.py", "verified/sub/c.py"]
    assert run.selected(mods, []) == mods
    assert run.selected(mods, ["verified/sub/*.py"]) == ["verified/sub/b.py", "verified/sub/c.py"]
    assert run.selected(mods, ["verified/a.py", "verified/sub/c.py"]) == [
        "verified/a.py", "verified/sub/c.py"]


def test_a_glob_matching_no_module_is_refused(tiny, capsys):
    with pytest.raises(SystemExit) as e:
        run.selected(engine.modules(tiny), ["verified/a.py", "verified/nothing/*.py"])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        "mutation: --modules verified/nothing/*.py matches no module of verified/\n")


def test_the_sample_is_drawn_from_the_selected_modules_only(tiny):
    ops = engine.operators()
    every, n_sites, _ = run.draw_sample(tiny, 1, 1000, ops, [])
    assert {m.site.path for m in every} == set(TINY)
    only, n_only, _ = run.draw_sample(tiny, 1, 1000, ops, ["verified/a.py", "verified/sub/c.py"])
    assert {m.site.path for m in only} == {"verified/a.py", "verified/sub/c.py"}
    assert 0 < n_only < n_sites
    # the same seed and selection draw the same mutants
    again, _, _ = run.draw_sample(tiny, 1, 1000, ops, ["verified/a.py", "verified/sub/c.py"])
    assert [m.site for m in again] == [m.site for m in only]


def test_modules_is_repeatable_on_the_command_line(monkeypatch, capsys):
    # --list prints the sample and runs nothing; the reviewed-equivalents
    # check (a walk of every listed file) is not what is tested here
    monkeypatch.setattr(run, "stale_equivalents", lambda *a: [])
    assert run.main(["--list", "--sample", "1000", "--modules", "verified/core/exits.py",
                     "--modules", "verified/tools/conform/shrink.py"]) == 0
    files = {line.split(":")[0] for line in capsys.readouterr().out.splitlines()}
    assert files == {"verified/core/exits.py", "verified/tools/conform/shrink.py"}
