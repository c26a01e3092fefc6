"""Session fixtures shared by every test directory: the CLI runner and the
C client (tests/clients/shuf_client.c), compiled once per session, plain and
with its planted bug (-DBROKEN).  The client kits' builds are in
tests/kits/conftest.py."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from tests.support import compile_client, verified


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
