"""The mutant engine's memo on disk (mutants/__init__.py ``_memo``): a
mutant client's start-up reads the mutated source, its code object and its
unchanged classes from files keyed by a hash of the inputs instead of
computing them.  What it hands out must be what the computation gives:
for every mutant of the machine clients and of the core algorithms, and a
combined one, the memo read back equals the fresh result (the source, the
code object, the class names); an entry is never handed out for other
inputs, another engine or another mutant's edits; a damaged entry is
computed afresh."""

from __future__ import annotations

import importlib

import pytest

import mutants
from mutants import machine_clients, core

SAMPLE = [*machine_clients.MUTANTS, *core.MUTANTS[:6],
          mutants.combine(machine_clients.BY_NAME["swap_two_slots"],
                          machine_clients.BY_NAME["immediate_before_read"])]


@pytest.fixture
def memo(tmp_path, monkeypatch):
    monkeypatch.setattr(mutants, "MEMO_DIR", tmp_path / "memo")
    return tmp_path / "memo"


def _fresh(m: mutants.Mutant) -> tuple[str, object, list[str]]:
    original = mutants._source(importlib.import_module(m.module))
    source = mutants._edited(original, m)
    return (source, mutants._compile(source, f"<mutant {m.name}>"),
            mutants._unchanged_classes(original, source))


def _memoised(m: mutants.Mutant) -> tuple[str, object, list[str]]:
    original = mutants._source(importlib.import_module(m.module))
    source = mutants.source_of(m)
    return (source, mutants._memo("code", (source, f"<mutant {m.name}>"), mutants._compile),
            mutants._memo("classes", (original, source), mutants._unchanged_classes))


def test_the_memo_read_back_is_the_fresh_result(memo):
    for m in SAMPLE:
        fresh = _fresh(m)
        written = _memoised(m)
        files = sorted(memo.iterdir())
        read = _memoised(m)  # from the files just written
        assert sorted(memo.iterdir()) == files, m.name
        assert written == read == fresh, m.name
        assert read[1].co_filename == f"<mutant {m.name}>"
    # three entries a mutant (source, code, classes), none shared
    assert len(list(memo.iterdir())) == 3 * len(SAMPLE)


def test_an_entry_is_only_for_its_own_inputs(memo, monkeypatch):
    a = mutants._memo("code", ("x = 1\n", "<a>"), mutants._compile)
    b = mutants._memo("code", ("x = 2\n", "<a>"), mutants._compile)
    c = mutants._memo("code", ("x = 1\n", "<b>"), mutants._compile)
    assert a.co_consts != b.co_consts and c.co_filename == "<b>"
    # the parts of the key do not run together: ("ab", "c") is not ("a", "bc")
    assert mutants._memo("k", ("ab", "c"), lambda x, y: x + "|" + y) == "ab|c"
    assert mutants._memo("k", ("a", "bc"), lambda x, y: x + "|" + y) == "a|bc"
    # another engine's entries are not read
    before = len(list(memo.iterdir()))
    monkeypatch.setattr(mutants, "_ENGINE", mutants._ENGINE + b"\n# edited\n")
    assert mutants._memo("code", ("x = 1\n", "<a>"), mutants._compile) == a
    assert len(list(memo.iterdir())) == before + 1
    # one mutant's edits are not another's on the same module
    one, two = machine_clients.BY_NAME["swap_two_slots"], machine_clients.BY_NAME[
        "immediate_before_read"]
    assert mutants.source_of(one) != mutants.source_of(two)


def test_a_damaged_entry_is_computed_afresh(memo):
    value = mutants._memo("code", ("x = 1\n", "<a>"), mutants._compile)
    (entry,) = memo.iterdir()
    entry.write_bytes(b"\x00garbage")
    assert mutants._memo("code", ("x = 1\n", "<a>"), mutants._compile) == value
    entry.write_bytes(b"")
    assert mutants._memo("code", ("x = 1\n", "<a>"), mutants._compile) == value


def test_an_unwritable_memo_computes(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setattr(mutants, "MEMO_DIR", tmp_path / "file" / "memo")
    assert mutants._memo("k", ("a",), str.upper) == "A"
