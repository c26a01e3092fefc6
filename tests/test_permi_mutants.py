"""Every mutant of verified.permi (tests/mutants/permi_mutants.py) is caught
by the checks, and the real module passes all of them."""

from __future__ import annotations

import pytest

try:  # tests/ is a package (tests/__init__.py) or a rootdir on sys.path
    from tests.mutants import permi_mutants as pm_mut
except ImportError:  # pragma: no cover
    from mutants import permi_mutants as pm_mut
from verified import permi


def test_real_module_passes_every_check():
    assert pm_mut.catch(vars(permi)) is None


@pytest.mark.parametrize("mutant", pm_mut.MUTANTS, ids=lambda m: m.name)
def test_mutant_is_caught(mutant):
    caught_by = pm_mut.catch(mutant.ns)
    print(f"\n{mutant.name}: caught by {caught_by}")
    assert caught_by is not None, f"mutant {mutant.name} ({mutant.description}) survived"
