"""Session fixtures shared by every test directory: the CLI runner and the
C client (tests/clients/shuf_client.c), compiled once per session, plain and
with its planted bug (-DBROKEN).  The client kits' builds are in
tests/kits/conftest.py."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Callable

import pytest

from tests.support import compile_client, verified


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    """Collect what the tests before left, then freeze the survivors out of
    the cyclic collector's sight (gc.freeze): Python's full collections scan
    every tracked object, so in a worker that has run hundreds of tests
    (session fixtures, caches, Hypothesis' state) an allocation-heavy test
    paid for the whole heap again and again; CrossHair's Hypothesis tests
    took 4 to 8 times their fresh-interpreter CPU (docs/testing.md).  Only
    the collector's timing changes: frozen objects are still freed by their
    reference counts."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def cli() -> Callable:
    """``cli(*args, input=None, cwd=None, timeout=300)``: run ``verified ARGS``
    (tests/support.py ``verified``); stdout and stderr as text."""
    return verified


@pytest.fixture(scope="session")
def c_client(tmp_path_factory) -> Path:
    return compile_client(tmp_path_factory.mktemp("c-client"))


@pytest.fixture(scope="session")
def c_client_broken(tmp_path_factory) -> Path:
    return compile_client(tmp_path_factory.mktemp("c-client"), broken=True)
