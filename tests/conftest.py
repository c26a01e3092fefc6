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


#: the tests of `make test` that take longest (CPU or wall seconds, one
#: `-p bench.pytest_cpu` run, docs/testing.md), longest first: started
#: first, so that neither xdist worker begins one of them when the other
#: is nearly done (at main 6953ce0 the longest, 47 s CPU, came 1,839th of
#: 2,175 and the run ended on it; refreshed in the fifth round; in the
#: sixth, that test, now about 4 CPU s, left the list).  A name
#: that no longer matches is simply not moved.
LONGEST_FIRST = (
    "tests/machines/test_resolve_proofs.py::test_the_whole_run_on_the_pair_machine_is_proved"
    "_and_its_twin_refuted",
    "tests/conform/test_conform_classes.py::test_several_planted_bugs_are_several_classes",
    "tests/conform/test_conform_machines.py::test_the_v8_x64_frame_client_passes_on_a_frame"
    "_with_slot_parts",
    "tests/protocol/test_compact_reader.py::test_served_with_the_compact_reader_on_every_line"
    "_the_bytes_are_the_same",
    "tests/conform/test_conform_machines.py::test_our_resolver_passes_every_small_case",
    "tests/conform/test_conform_shard.py::test_failure_classes_and_program_failures_merge_as"
    "_one_run",
    "tests/machines/test_resolve_proofs.py::test_small_machine_outputs_enumerated_and_the"
    "_mutant_refuted",
    "tests/machines/test_fuzz_machines.py::test_hostile_machine_requests_get_one_clean_answer",
    "tests/proofs/test_proofs_symbolic.py::test_xchg_real_run_agrees_with_z3_at_every_step",
    "tests/proofs/test_proofs_symbolic.py::test_windmill_real_run_agrees_with_z3_at_every_step",
    "tests/protocol/test_compact_reader.py::test_the_readers_agree_on_every_golden_request_and"
    "_edge",
    "tests/protocol/test_machine_vectors.py::test_flags_and_comments_golden",
    "tests/cli/test_install.py::test_pip_install_of_a_clone_gives_the_verified_command",
)


#: the same for the tests of `make test-slow` (-p bench.pytest_cpu, main
#: 2feab53, 14 CPU s or more each), after those above: `make verify` runs
#: both selections in one session, and at main these came in collection
#: order (test_fuzz_protocol.py's three long ones 1,979th to 1,988th of
#: 2,320), where a 20 s test late can leave the other worker idle at the end.
#: make test does not select them, so its order is unchanged.
LONGEST_SLOW = (
    "tests/algorithms/test_algorithms.py::test_exhaustive_n7[",
    "tests/protocol/test_fuzz_protocol.py::test_huge_request_to_solve[permi-optimal]",
    "tests/protocol/test_fuzz_protocol.py::test_check_serves_every_hostile_line_long",
    "tests/machines/test_slot_parts.py::test_resolver_against_the_search_on_a_small_frame"
    "_three_moves",
    "tests/protocol/test_fuzz_protocol.py::test_solve_serves_every_hostile_line_long",
    "tests/machines/test_resolve.py::test_resolver_typed_small_machine_every_request[treg]",
)

_ORDER = LONGEST_FIRST + LONGEST_SLOW


def _rank(nodeid: str) -> int:
    return next((i for i, p in enumerate(_ORDER) if nodeid.startswith(p)), len(_ORDER))


#: the tests that assert on one shared conform run (tests/support.py
#: ``conform_json_once``, kept per process), by node-id prefix: under
#: ``--dist loadgroup`` (`make test`) each group is one work unit, run by one
#: xdist worker, so its run is made once, not once in each worker.  (pytest
#: 9.2 ignores the node id xdist 3.8 gives an ``xdist_group``-marked test, so
#: the mark would group nothing: the scheduler below groups by this table.)
SHARED_RUNS = {
    # swap_two_slots+immediate_before_read on x86-64 with --max-classes 2,
    # and the client failing on one case
    "several-bugs": (
        "tests/conform/test_conform_classes.py::test_several_planted_bugs_are_several_classes",
        "tests/conform/test_conform_classes.py::test_a_client_failing_on_one_case[",
        "tests/protocol/test_schemas.py::test_conform_reports_with_classes_failures_and_shards"
        "_validate"),
    "swap_two_slots": (
        "tests/conform/test_conform_machines.py::test_every_mutant_client_is_caught_with_its"
        "_smallest_case[swap_two_slots]",
        "tests/conform/test_conform_classes.py::test_one_planted_bug_is_one_class[swap_two_slots-"),
    "scratch_reused_while_parked": (
        "tests/conform/test_conform_machines.py::test_every_mutant_client_is_caught_with_its"
        "_smallest_case[scratch_reused_while_parked]",
        "tests/conform/test_conform_classes.py::test_one_planted_bug_is_one_class"
        "[scratch_reused_while_parked-",
        "tests/cli/test_explain_machine.py::test_a_machine_conform_report_is_explained"),
    "v8_x64+push_twice": (
        "tests/conform/test_conform_machines.py::test_every_mutant_client_is_caught_with_its"
        "_smallest_case[v8_x64+push_twice]",
        "tests/conform/test_conform_machines.py::test_the_planted_unbalanced_push_is_its_own"
        "_class"),
    # the golden cross-class machine request's optimum search (about 4.3
    # CPU s), made once per process (tests/support.py ``optimum_once``)
    "cross-class-optimum": (
        "tests/protocol/test_compact_reader.py::test_served_with_the_compact_reader_on_every_line"
        "_the_bytes_are_the_same",
        "tests/protocol/test_compact_reader.py::test_the_readers_agree_on_every_golden_request_and"
        "_edge",
        "tests/protocol/test_schemas.py::test_every_verdict_check_writes_validates",
        "tests/machines/test_golden.py::test_illegal_operation_is_a_wrong_sequence[cross_class]"),
    "v8_arm+simd128_scratch_not_reserved": (
        "tests/conform/test_conform_machines.py::test_every_mutant_client_is_caught_with_its"
        "_smallest_case[v8_arm+simd128_scratch_not_reserved]",
        "tests/conform/test_conform_machines.py::test_the_planted_simd128_scratch_bug_is_found"
        "_and_shrunk_as_one_class"),
}


def shared_run(nodeid: str) -> str | None:
    """The SHARED_RUNS group of a test, or None."""
    return next((g for g, prefixes in SHARED_RUNS.items()
                 if any(nodeid.startswith(p) for p in prefixes)), None)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: xdist's load-by-scope scheduling with a test's
    scope its SHARED_RUNS group (else the test alone), in collection order
    (LONGEST_FIRST, not the largest group first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedRunScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return shared_run(nodeid) or nodeid

    config.option.loadscopereorder = False
    return SharedRunScheduling(config, log)


def pytest_collection_modifyitems(items: list) -> None:
    # a stable sort: the rest keep their order (every xdist worker must
    # collect the same order, and does: it depends on the names alone)
    items.sort(key=lambda item: _rank(item.nodeid))


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
