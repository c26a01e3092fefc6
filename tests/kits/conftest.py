"""Builds shared by tests/kits (once per session, into temporary directories)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.kits.support import HERE, KITS, c_compiler, compile_c, compile_rust, sanitizers_work


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory) -> Path:
    """The session's one directory of kit builds (tests/kits/support.py
    ``built``): under xdist the parent of the workers' temporary roots,
    which all of this session's workers share."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    return root / "kit-builds"


@pytest.fixture(scope="session")
def c_sanitize() -> bool:
    return sanitizers_work(c_compiler())


@pytest.fixture(scope="session")
def c_example(tmp_path_factory, c_sanitize, build_cache):
    return compile_c(KITS / "c" / "example_resolver.c",
                     tmp_path_factory.mktemp("c") / "example_resolver", sanitize=c_sanitize,
                     cache=build_cache)


@pytest.fixture(scope="session")
def c_example_broken(tmp_path_factory, build_cache):
    return compile_c(KITS / "c" / "example_resolver.c",
                     tmp_path_factory.mktemp("c") / "example_resolver_broken", "-DBROKEN",
                     cache=build_cache)


@pytest.fixture(scope="session")
def c_driver(tmp_path_factory, c_sanitize, build_cache):
    return compile_c(HERE / "reader_driver.c", tmp_path_factory.mktemp("c") / "reader_driver",
                     sanitize=c_sanitize,
                     cache=build_cache)


@pytest.fixture(scope="session")
def rust_example(tmp_path_factory, build_cache):
    return compile_rust(KITS / "rust" / "example_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "example_resolver",
                        cache=build_cache)


@pytest.fixture(scope="session")
def rust_example_broken(tmp_path_factory, build_cache):
    return compile_rust(KITS / "rust" / "example_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "example_resolver_broken",
                        "--cfg", "broken", cache=build_cache)


@pytest.fixture(scope="session")
def rust_driver(tmp_path_factory, build_cache):
    return compile_rust(HERE / "reader_driver.rs",
                        tmp_path_factory.mktemp("rust") / "reader_driver", cache=build_cache)


@pytest.fixture(scope="session", params=["c", "rust"])
def driver(request):
    """Each kit's reader driver: both print the same lines (one golden table)."""
    return request.getfixturevalue(f"{request.param}_driver")


@pytest.fixture(scope="session")
def c_machine_example(tmp_path_factory, c_sanitize, build_cache):
    return compile_c(KITS / "c" / "machine_resolver.c",
                     tmp_path_factory.mktemp("c") / "machine_resolver", sanitize=c_sanitize,
                     cache=build_cache)


@pytest.fixture(scope="session")
def c_machine_example_broken(tmp_path_factory, build_cache):
    return compile_c(KITS / "c" / "machine_resolver.c",
                     tmp_path_factory.mktemp("c") / "machine_resolver_broken", "-DBROKEN",
                     cache=build_cache)


@pytest.fixture(scope="session")
def rust_machine_example(tmp_path_factory, build_cache):
    return compile_rust(KITS / "rust" / "machine_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "machine_resolver",
                        cache=build_cache)


@pytest.fixture(scope="session")
def rust_machine_example_broken(tmp_path_factory, build_cache):
    return compile_rust(KITS / "rust" / "machine_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "machine_resolver_broken",
                        "--cfg", "broken", cache=build_cache)
