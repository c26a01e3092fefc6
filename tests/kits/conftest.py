"""Builds shared by tests/kits (once per session, into temporary directories)."""

from __future__ import annotations

import pytest

from tests.kits.support import HERE, KITS, c_compiler, compile_c, compile_rust, sanitizers_work


@pytest.fixture(scope="session")
def c_sanitize() -> bool:
    return sanitizers_work(c_compiler())


@pytest.fixture(scope="session")
def c_example(tmp_path_factory, c_sanitize):
    return compile_c(KITS / "c" / "example_resolver.c",
                     tmp_path_factory.mktemp("c") / "example_resolver", sanitize=c_sanitize)


@pytest.fixture(scope="session")
def c_example_broken(tmp_path_factory):
    return compile_c(KITS / "c" / "example_resolver.c",
                     tmp_path_factory.mktemp("c") / "example_resolver_broken", "-DBROKEN")


@pytest.fixture(scope="session")
def c_driver(tmp_path_factory, c_sanitize):
    return compile_c(HERE / "reader_driver.c", tmp_path_factory.mktemp("c") / "reader_driver",
                     sanitize=c_sanitize)


@pytest.fixture(scope="session")
def rust_example(tmp_path_factory):
    return compile_rust(KITS / "rust" / "example_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "example_resolver")


@pytest.fixture(scope="session")
def rust_example_broken(tmp_path_factory):
    return compile_rust(KITS / "rust" / "example_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "example_resolver_broken",
                        "--cfg", "broken")


@pytest.fixture(scope="session")
def rust_driver(tmp_path_factory):
    return compile_rust(HERE / "reader_driver.rs", tmp_path_factory.mktemp("rust") / "reader_driver")


@pytest.fixture(scope="session", params=["c", "rust"])
def driver(request):
    """Each kit's reader driver: both print the same lines (one golden table)."""
    return request.getfixturevalue(f"{request.param}_driver")


@pytest.fixture(scope="session")
def c_machine_example(tmp_path_factory, c_sanitize):
    return compile_c(KITS / "c" / "machine_resolver.c",
                     tmp_path_factory.mktemp("c") / "machine_resolver", sanitize=c_sanitize)


@pytest.fixture(scope="session")
def c_machine_example_broken(tmp_path_factory):
    return compile_c(KITS / "c" / "machine_resolver.c",
                     tmp_path_factory.mktemp("c") / "machine_resolver_broken", "-DBROKEN")


@pytest.fixture(scope="session")
def rust_machine_example(tmp_path_factory):
    return compile_rust(KITS / "rust" / "machine_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "machine_resolver")


@pytest.fixture(scope="session")
def rust_machine_example_broken(tmp_path_factory):
    return compile_rust(KITS / "rust" / "machine_resolver.rs",
                        tmp_path_factory.mktemp("rust") / "machine_resolver_broken",
                        "--cfg", "broken")
