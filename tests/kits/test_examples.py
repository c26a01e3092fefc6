"""The client kits' worked examples (kits/c, kits/rust) and the Go, Python
and JavaScript clients of docs/clients.md, each built as documented and run
through `verified conform`: the correct ones pass exhaustively (exact
counts), the planted bugs are rejected (exit 1, smallest failure pinned).

Exhaustive n <= 4 here keeps the suite fast; the n = 6 (swap) and n = 5
(temp) runs the docs quote pass too (measured for the kits' report, not in
a timed test)."""

from __future__ import annotations

import sys

import pytest

from verified import cases
from verified.tools.conform import MoveType

from tests.kits.support import compile_rust, conform, doc_block, required_tool, run, tool

EXHAUSTIVE_4 = 700  # every parallel move over 1..4 registers
assert cases.exhaustive_count(4) == EXHAUSTIVE_4

# What the planted bug (one pass of Kahn's loop) gets wrong, the same in C
# and Rust: a blade that becomes ready only after a later one was emitted.
BROKEN = {
    "swap": {"failures": 146, "moves": [[1, 0], [2, 1]], "registers": 3,
             "answer": '{"sequence": [["mov", 2, 1], ["swap", 1, 0]]}'},
    "temp": {"failures": 20, "moves": [[1, 0], [2, 1], [3, 2]], "registers": 4,
             "answer": '{"sequence": [["mov", 3, 2], ["mov", "t", 1], ["mov", 1, 0], '
                       '["mov", "t", 2], ["mov", 2, 1]]}'},
}


def assert_passes(cmd: list[str], model: str, n: int = 4, total: int = EXHAUSTIVE_4) -> dict:
    code, r = conform(cmd, "--model", model, "--registers", str(n), "--exhaustive")
    assert code == 0, r
    assert (r["planned"], r["run"], r["correct"], r["failures"]) == (total, total, total, 0), r
    assert r["refused_unsolvable"] == 0 and r["exit"] == 0
    if model == "temp":
        assert r["temps"] == ["t"]  # conform's default temporary was declared
    return r


def assert_rejected(cmd: list[str], model: str) -> None:
    code, r = conform(cmd, "--model", model, "--registers", "4", "--exhaustive")
    want = BROKEN[model]
    assert code == 1 and r["exit"] == 1, r
    assert (r["run"], r["failures"]) == (EXHAUSTIVE_4, want["failures"]), r
    small = r["smallest_failure"]
    assert small["fails_alone"] is True
    assert small["request"]["moves"] == want["moves"]
    assert small["request"]["registers"] == want["registers"]
    assert small["answer"] == want["answer"]
    assert small["verdict"]["ok"] is False


# ---------------------------------------------------------------------------
# C and Rust kits
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["swap", "temp"])
def test_c_example_conforms(c_example, model):
    assert_passes([str(c_example)], model)


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_rust_example_conforms(rust_example, model):
    assert_passes([str(rust_example)], model)


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_c_example_broken_build_is_rejected(c_example_broken, model):
    assert_rejected([str(c_example_broken)], model)


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_rust_example_broken_build_is_rejected(rust_example_broken, model):
    assert_rejected([str(rust_example_broken)], model)


def test_c_and_rust_examples_answer_byte_for_byte_alike(c_example, rust_example):
    """Same algorithm, same order: the two kits' examples (and so their
    writers) must print identical answers for every case n <= 4."""
    ct = MoveType("swap")
    data = b"".join(ct.encode(case) for case in cases.exhaustive_cases(4))
    c_out = run([str(c_example)], data).stdout
    assert c_out.count(b"\n") == EXHAUSTIVE_4
    assert run([str(rust_example)], data).stdout == c_out


# Beyond what conform sends: declining, other models, bad lines, ids.
EXAMPLE_LINES = [
    (b'{"id": 1, "moves": [[0, 1], [1, 0]], "model": "temp", "temps": []}',
     b'{"id": 1, "unsupported": "a cycle needs a temporary and the request declares none"}'),
    (b'{"id": 2, "moves": [[1, 0], [2, 1]], "model": "temp"}',  # no cycle: no temporary needed
     b'{"id": 2, "sequence": [["mov", 2, 1], ["mov", 1, 0]]}'),
    (b'{"id": "p", "moves": [[1, 0]], "model": "permi"}',
     b'{"id": "p", "unsupported": "this example implements the temp and swap models"}'),
    (b'{"machine": "x86-64", "moves": [["rax", "rbx"]]}',
     b'{"unsupported": "this example implements the temp and swap models"}'),
    (b'{"moves": [[0, "r1"], ["r1", 0], [2, "r0"]], "model": "swap", "id": [3]}',  # r1 is 1
     b'{"id": [3], "sequence": [["mov", 2, "r0"], ["swap", 0, "r1"]]}'),
    (b'{"moves": [["a", "b"], ["b", "a"], ["m0", {"imm": -5}]], "model": "temp", "temps": ["t"]}',
     b'{"sequence": [["mov", "m0", {"imm": -5}], ["mov", "t", "a"], ["mov", "a", "b"], '
     b'["mov", "b", "t"]]}'),
    (b'{"moves": [[1, 0]], "model": "swap", "id": 5',
     b'{"error": "line 7: invalid JSON at byte 45 (end of line): expected \',\' or \'}\'"}'),
    (b'{"moves": [[1, 0]], "model": "swap", "id": 6}',  # the next line is still served
     b'{"id": 6, "sequence": [["mov", 1, 0]]}'),
]


@pytest.mark.parametrize("which", ["c", "rust"])
def test_example_answers_beyond_conform(which, request):
    exe = request.getfixturevalue(f"{which}_example")
    data = b"".join(line + b"\n" for line, _ in EXAMPLE_LINES)
    got = run([str(exe)], data).stdout.splitlines()
    assert got == [want for _, want in EXAMPLE_LINES]


# ---------------------------------------------------------------------------
# The Go, Python and JavaScript clients of docs/clients.md
# ---------------------------------------------------------------------------

def test_python_client_of_the_docs_conforms(tmp_path):
    src = tmp_path / "resolver.py"
    src.write_text(doc_block("python"))
    assert_passes([sys.executable, str(src)], "temp")


def test_python_client_of_the_docs_mutant_is_rejected(tmp_path):
    """The harness can fail on this client: its readers are redirected to
    the temporary, but the value is never parked there."""
    code = doc_block("python")
    park = 'seq.append(["mov", temp, d])'
    assert code.count(park) == 1
    src = tmp_path / "mutant.py"
    src.write_text(code.replace(park, "pass"))
    rc, r = conform([sys.executable, str(src)], "--model", "temp", "--registers", "3")
    assert rc == 1 and r["failures"] > 0
    assert r["smallest_failure"]["request"]["moves"] == [[0, 1], [1, 0]]


def test_python_client_of_the_docs_declines_and_echoes(tmp_path):
    src = tmp_path / "resolver.py"
    src.write_text(doc_block("python"))
    data = (b'{"id": 1, "moves": [[0, 1], [1, 0]], "model": "temp"}\n'
            b'{"id": {"k": [2]}, "moves": [[0, 1], [1, 0]], "model": "swap"}\n'
            b'{"moves": [], "model": "temp", "id": NaN}\n'
            b'{"moves": [[0, 1], [1, 0], [2, 0]], "model": "temp", "temps": ["t"], "id": 3}\n')
    assert run([sys.executable, str(src)], data).stdout.decode().splitlines() == [
        '{"id": 1, "unsupported": "a cycle needs a temporary and none is declared"}',
        '{"id": {"k": [2]}, "unsupported": "this example implements the temp model"}',
        '{"error": "not JSON: NaN is not JSON"}',
        '{"id": 3, "sequence": [["mov", 2, 0], ["mov", "t", 0], ["mov", 0, 1], ["mov", 1, "t"]]}',
    ]


def test_javascript_client_of_the_docs_conforms(tmp_path):
    node = tool("node", "nodejs")
    if node is None:
        pytest.skip("node is not installed: the JavaScript client of docs/clients.md is untested here")
    src = tmp_path / "resolver.js"
    src.write_text(doc_block("javascript"))
    assert_passes([node, str(src)], "temp")


def test_go_client_of_the_docs_conforms(tmp_path):
    go = required_tool("go", "the Go client of docs/clients.md",
                        "Debian: apt-get install golang-go")
    import os
    import subprocess

    (tmp_path / "resolver.go").write_text(doc_block("go"))
    env = {**os.environ, "GOCACHE": str(tmp_path / "gocache"), "GOPATH": str(tmp_path / "gopath")}
    proc = subprocess.run([go, "build", "-o", str(tmp_path / "resolver"), "resolver.go"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert_passes([str(tmp_path / "resolver")], "temp")


def test_rust_doc_sketch_builds(tmp_path):
    """The Rust sketch of docs/clients.md compiles (warning-free) against the kit."""
    import shutil

    from tests.kits.support import KITS

    shutil.copy(KITS / "rust" / "verified_protocol.rs", tmp_path)
    (tmp_path / "sketch.rs").write_text(doc_block("rust"))
    exe = compile_rust(tmp_path / "sketch.rs", tmp_path / "sketch")
    out = run([str(exe)], b'{"moves": [[1, 0]], "model": "swap", "id": 1}\n').stdout
    assert out == b'{"id": 1, "sequence": [["mov", 1, 0]]}\n'


def test_c_doc_sketch_builds(tmp_path):
    """The C sketch of docs/clients.md compiles (-Werror) inside a main()."""
    from tests.kits.support import compile_c

    body = doc_block("c")
    head, _, loop = body.partition("vp_reader *r")
    (tmp_path / "sketch.c").write_text(f"{head}int main(void)\n{{\n    vp_reader *r{loop}    return 0;\n}}\n")
    exe = compile_c(tmp_path / "sketch.c", tmp_path / "sketch")
    out = run([str(exe)], b'{"moves": [[1, 0]], "model": "swap", "id": 1}\n').stdout
    assert out == b'{"id": 1, "sequence": [["mov", 1, 0]]}\n'


def test_a_required_tool_that_is_missing_fails_instead_of_skipping(monkeypatch):
    """CI (.ci/run) sets VERIFIED_REQUIRE_TOOLS=go: a missing go must then
    fail the Go client's test with the install line, not skip it."""
    name = "verified-no-such-tool"
    monkeypatch.setenv("VERIFIED_REQUIRE_TOOLS", "")
    with pytest.raises(pytest.skip.Exception, match="is untested here"):
        required_tool(name, "a client", "apt-get install it")
    monkeypatch.setenv("VERIFIED_REQUIRE_TOOLS", f"go, {name}")
    with pytest.raises(pytest.fail.Exception) as failed:
        required_tool(name, "a client", "apt-get install it")
    assert str(failed.value) == (
        f"{name} is not installed but VERIFIED_REQUIRE_TOOLS requires it (a client): "
        f"install it (apt-get install it) or leave {name} out of VERIFIED_REQUIRE_TOOLS")
    assert required_tool("sh", "a client", "apt-get install it") == tool("sh")
