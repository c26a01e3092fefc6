"""Every permi mutant (``mutants/permi.py``) is rejected by the checks
(a verdict, not a crash), and the real modules pass all of them."""

from __future__ import annotations

import pytest

from mutants import permi as catalogue


def test_real_modules_pass_every_check():
    assert catalogue.catch(catalogue.real()) is None


@pytest.mark.parametrize("mutant", catalogue.MUTANTS, ids=lambda m: m.name)
def test_mutant_is_rejected(mutant):
    caught = catalogue.catch_mutant(mutant)
    print(f"\n{mutant.name}: {caught}")
    assert caught is not None, f"mutant {mutant.name} ({mutant.why}) survived"
    assert caught[0] == "rejected", f"mutant {mutant.name} crashed instead: {caught[1]}"
