"""docs/proofs.md is the output of ``python -m proofs --markdown``: its head
is docs/proofs.head.md and its rows are the claims the code makes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proofs import __main__ as runner
from proofs.common import Ledger, prove, row

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "proofs.md"


def _norm(claim: str) -> str:
    """A claim without its numbers (n, wall times, counts) and without the
    resolve rows' statement of which moves (--quick: those that leave b
    alone): letters only."""
    claim = re.sub(r"\(\s*[\d.]+ s wall\)|[\d.]+ s wall", "", claim)
    claim = re.sub(r"the 6\*\*3 moves that leave \w+ alone|6\*\*4 moves", "moves", claim)
    return re.sub(r"[^a-z]", "", claim.lower())


def _doc_rows() -> list[tuple[str, str, str]]:
    """The generated table's rows: the lines after the head (whose prose
    may hold tables of its own, e.g. per-file CPU figures)."""
    head = (ROOT / "docs" / "proofs.head.md").read_text().rstrip("\n")
    rows = []
    for line in DOC.read_text().removeprefix(head).splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 6 and cells[0] not in ("module", "---"):
            rows.append((cells[0], cells[1].replace("\\|", "|"), cells[3]))
    return rows


def test_markdown_has_the_head_and_one_line_per_row():
    import z3

    led = Ledger()
    prove(z3.Int("x") > 0, [z3.Int("x") > 1], timer=led)
    rows = [dict(row("a | b", 3, led), module="m")]
    text = runner.markdown(rows, 1.0, 2.0, quick=False)
    assert text.startswith((ROOT / "docs" / "proofs.head.md").read_text().rstrip("\n"))
    assert "| m | a \\| b | 3 | proved | proved | " in text


def test_doc_is_generated_with_the_current_head_and_has_no_failures():
    text = DOC.read_text()
    assert text.startswith((ROOT / "docs" / "proofs.head.md").read_text().rstrip("\n"))
    rows = _doc_rows()
    assert len(rows) > 80
    assert not [r for r in rows if "FAILED" in r[2]]


#: a ``python -m proofs --json FILE`` run's file, whole (make verify: its
#: proofs-claims run writes it first, and this test reads it instead of a
#: second run: docs/testing.md); unset, the test runs ``--quick`` itself
PROOFS_JSON = "PROOFS_JSON"


def _run_rows() -> list[dict]:
    """The rows of the run make verify saved in $PROOFS_JSON (every module,
    never stopped early: a partial run is refused), else of a fresh ``python -m proofs --quick``."""
    saved = os.environ.get(PROOFS_JSON)
    if saved:
        got = json.loads(Path(saved).read_text())
        assert got.get("modules") == runner.proof_modules(), (saved, got.get("modules"))
        assert got.get("first_failure") is False, saved
        return got["rows"]
    out = subprocess.run([sys.executable, "-m", "proofs", "--quick", "--json", "-"],
                         capture_output=True, text=True, cwd=ROOT, timeout=1800)
    return json.loads(out.stdout.split("\n#JSON\n", 1)[1])


@pytest.mark.slow
def test_doc_rows_are_the_claims_the_code_makes():
    run = {(r["module"], _norm(r["claim"])) for r in _run_rows()}
    doc = {(m, _norm(c)) for m, c, _ in _doc_rows()}
    assert run <= doc, sorted(run - doc)[:5]
    # --quick runs every variant of every enumerated claim (at smaller n),
    # so the full run (docs/proofs.md's, or make verify's saved one) has no
    # row the quick one lacks
    assert doc == run, sorted(doc ^ run)[:5]
