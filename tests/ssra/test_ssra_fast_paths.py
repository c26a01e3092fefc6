"""The fast paths of the SSRA agree with their specifications: the tape
readers (``_parse_canonical`` and the one-pass ``_parse_plain``) with the
line parser (``_parse_lines``), and the printer (``Allocation.lines``) with
``format_asm`` line by line."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified import ssra
from verified.cases.tapes import STATE_EXAMPLES
from verified.ssra import tape as tape_module

BENCH_TAPE = os.path.join(os.path.dirname(__file__), "..", "data", "ssra-bench-6362.tape")


def both(text: str) -> tuple[ssra.Tape | None, ssra.Tape | str]:
    """(the fast reader's tape or None, the line parser's tape or its error)."""
    fast = tape_module._parse_plain(text, "t.tape")
    try:
        slow: ssra.Tape | str = tape_module._parse_lines(text, "t.tape")
    except ssra.TapeError as e:
        slow = str(e)
    return fast, slow


#: pieces a line can be dressed in; each is either plain (the fast reader
#: takes it) or sends the whole tape to the line parser
SPACE = st.sampled_from(["", " ", "  ", "\t", " \t"])
ODD = st.sampled_from(["\r", "\x0c", "\x0b", "\x1c", "\x1f", "\u00a0", "\u2028", "é"])


@st.composite
def dressed_tapes(draw) -> str:
    """Tape text in every spelling the syntax allows, and some it does not:
    spaces and tabs anywhere a space may go, trailing ``;``, blank and
    comment lines, literal operands, three operands, undefined, repeated and
    reserved names, odd line ends and spaces, a missing final newline."""
    k = draw(st.integers(1, 8))
    lines = []
    for j in range(k):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# note", "  # x ( $1 = ", "\t", "#"]))
                         + ("" if draw(st.integers(0, 3)) else f"{draw(ODD)}$9{j} = Q()"))
        arity = 0 if j == 0 else draw(st.integers(0, 3 if draw(st.booleans()) else 2))
        args = [f"${draw(st.integers(0, j + (1 if draw(st.integers(0, 15)) == 0 else -1)))}"
                for _ in range(arity)]
        if draw(st.integers(0, 12)) == 0:
            args.insert(draw(st.integers(0, len(args))), draw(st.sampled_from(["1.5", "-2", "x"])))
        out = j if draw(st.integers(0, 20)) else draw(st.integers(0, max(j - 1, 0)))
        name = draw(st.sampled_from(["FOO", "neg", "_b2", "LOAD", "store", "9X", "A B"]
                                    if draw(st.integers(0, 10)) == 0 else ["FOO", "NEG", "BAR"]))
        s = [draw(SPACE) for _ in range(8)]
        sep = f"{s[4]},{s[5]}"
        line = (f"{s[0]}${out}{s[1]}={s[2]}{name}{s[3]}({s[6]}{sep.join(args)}{s[7]})"
                + draw(st.sampled_from(["", ";", " ;", "\t", "; "])))
        lines.append(line)
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n", "\n# end\n"]))
    if draw(st.integers(0, 8)) == 0:   # anywhere: inside a comment too
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(ODD) + text[at:]
    return text


@settings(max_examples=1500, deadline=None)
@given(text=dressed_tapes())
def test_fast_reader_agrees_with_the_line_parser(text):
    fast, slow = both(text)
    if fast is not None:
        assert fast == slow
    # and parse_tape is the line parser's answer either way
    try:
        assert ssra.parse_tape(text, "t.tape") == slow
    except ssra.TapeError as e:
        assert str(e) == slow


@pytest.mark.parametrize("text", [
    "$0 = A()\n$0 = B()\n",                   # defined twice
    "$0 = A()\n$1 = B($2)\n$2 = C()\n",       # used before defined
    "$0 = A($0)\n",                           # reads its own output
    "$0 = load()\n",                          # reserved
    "$0 = A()\r\n$1 = B($0)\r\n",             # odd line end
    "$0 = A()\n$1 = B($0, 2.5)\n",            # literal
    "$0 = A()\n$1 = B($0, $0, $0)\n",         # three inputs
    "# nothing\n\n",                          # empty
    "$0 = A()\n# a\r$1 = B($0)\n",             # a line end only splitlines sees
    "$0 = A()\n# a\x1c$1 = B($0)\n",
    "$0 = A()\n# a\u2028$1 = B($0)\n",
])
def test_fast_reader_leaves_these_to_the_line_parser(text):
    assert both(text)[0] is None
    assert tape_module._parse_canonical(text, "t.tape") is None


@st.composite
def near_canonical_tapes(draw) -> tuple[str, bool]:
    """(text, edited): a valid tape in the canonical spelling
    (``$3 = FOO($1, $2)``, as ``TapeCase.lines`` writes it), and often one
    edit of it: a character inserted, deleted or replaced, or a line
    repeated."""
    k = draw(st.integers(1, 8))
    lines = []
    for j in range(k):
        arity = 0 if j == 0 else draw(st.integers(0, 2))
        args = [f"${draw(st.integers(0, j - 1))}" for _ in range(arity)]
        out = draw(st.sampled_from([f"${j}", f"$v{j}", f"$_{j}x"]))
        lines.append((out, draw(st.sampled_from(["FOO", "neg", "_b2"])), args))
    outs = {f"${j}": lines[j][0] for j in range(k)}
    text = "".join(f"{out} = {name}({', '.join(outs[a] for a in args)})\n"
                   for out, name, args in lines)
    if draw(st.booleans()):
        text = text.rstrip("\n")
    edit = draw(st.integers(0, 4))
    if edit == 1:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(
            [" ", ",", "(", ")", "$", "=", "\n", "#", "x", "1", ";", "\t", "\r", "é", ", $0"])) + text[at:]
    elif edit == 2 and text:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + text[at + 1:]
    elif edit == 3 and text:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from(["L", " ", "_", "$", "0"])) + text[at + 1:]
    elif edit == 4:
        text = text + text.splitlines(keepends=True)[draw(st.integers(0, k - 1))]
    return text, edit != 0


@settings(max_examples=1500, deadline=None)
@given(case=near_canonical_tapes())
def test_canonical_reader_agrees_with_the_line_parser(case):
    text, edited = case
    fast = tape_module._parse_canonical(text, "t.tape")
    slow = both(text)[1]
    if fast is not None:
        assert fast == slow
    if not edited:       # not vacuous: the spelling it is for, it reads
        assert fast is not None


@pytest.mark.parametrize("text", [
    "x$ = FOO()\n$1 = BAR(x$)\n",          # as many `$` as outputs, one misplaced
    "$a = FOO()\na$ = BAR($a)\n",
    "$a$ = FOO()\nb = BAR($a$)\n",
    "$ = FOO()\n$1 = BAR($)\n",              # `$` alone
    "$a = FOO()\n$a = BAR()\n",              # defined twice
])
def test_canonical_reader_refuses_outputs_spelled_almost_right(text):
    """Outputs the str-method reader must leave to the line parser (which
    refuses them), though the `$` count of the column is right."""
    assert tape_module._parse_canonical(text, "t.tape") is None
    with pytest.raises(ssra.TapeError):
        tape_module._parse_lines(text, "t.tape")


def test_canonical_reader_takes_the_bench_tape():
    with open(BENCH_TAPE, encoding="utf-8") as f:
        text = f.read()
    fast = tape_module._parse_canonical(text, "t.tape")
    assert fast is not None and fast == tape_module._parse_lines(text, "t.tape")


def test_fast_reader_takes_plain_tapes():
    """Not vacuous: the benchmark tape, every state example and a tape with
    comments, blank lines, tabs and ``;`` are read by the fast reader, with
    the line parser's line numbers."""
    with open(BENCH_TAPE, encoding="utf-8") as f:
        texts = [f.read()] + [text for _, _, text, _ in STATE_EXAMPLES]
    texts.append("# c\n\n\t$a = X() ;\n$b=Y($a,$a)\n  # d\n$c = Z( $b )\n")
    for text in texts:
        fast, slow = both(text)
        assert fast is not None and fast == slow
    assert fast.lines == [3, 4, 6] and fast.inputs == [(), (0, 0), (1,)]


@st.composite
def programs(draw) -> tuple[str, int]:
    k = draw(st.integers(1, 20))
    lines = []
    for j in range(k):
        arity = 0 if j == 0 else draw(st.integers(0, 2))
        args = [f"${draw(st.integers(0, j - 1))}" for _ in range(arity)]
        if draw(st.integers(0, 5)) == 0:
            args.insert(draw(st.integers(0, len(args))), draw(st.sampled_from(["1.5", "-2"])))
        lines.append(f"${j} = {draw(st.sampled_from(['FOO', 'NEG']))}({', '.join(args)})")
    return "\n".join(lines) + "\n", draw(st.integers(2, 5))


def assert_printer_agrees(allocation: ssra.Allocation) -> None:
    n, tape = allocation.registers, allocation.tape
    expected = [ssra.format_asm(tape, n, o) for o in allocation.ops]
    assert allocation.lines() == expected
    assert allocation.text() == "".join(line + "\n" for line in expected)


@settings(max_examples=300, deadline=None)
@given(program=programs())
def test_printer_agrees_with_format_asm(program):
    text, n = program
    assert_printer_agrees(ssra.allocate(ssra.parse_tape(text), n))


@pytest.mark.parametrize("registers", [8, 24])
def test_printer_agrees_on_the_bench_tape(registers):
    assert_printer_agrees(ssra.allocate(ssra.load_tape(BENCH_TAPE), registers))


def test_a_tape_from_its_records_is_the_same_tape():
    """``Tape.from_ops`` (for hand-built tapes, proofs/crosshair_targets.py)
    gives back the parsed tape from its ``SsaOp`` view, and refuses records
    whose operation ``i`` does not define variable ``i``."""
    for text in ("$0 = A()\n$1 = B($0, 2.5)\n$2 = C($1, $0)\n", STATE_EXAMPLES[4][2]):
        tape = ssra.parse_tape(text, "t.tape")
        assert ssra.Tape.from_ops(tape.ops, tape.names, "t.tape") == tape
    ops = ssra.parse_tape("$0 = A()\n$1 = B($0)\n").ops
    with pytest.raises(ssra.TapeError, match="operation i must define variable i"):
        ssra.Tape.from_ops([ops[0], ops[1]._replace(out=0)], ["$0", "$1"])


#: modules `verified ssra alloc` does without (its start-up time,
#: docs/ssra.md): the checker and `json` are loaded only by `check`,
#: `--json` and `--counts`; `verified.core.semantics`, `dataclasses`,
#: `typing` and `inspect` by nothing on its path; `argparse` by no plain
#: command line (verified.ssra.cli.plain_alloc_args); `re` and `enum` by no
#: tape in the canonical spelling (tape._parse_canonical); `collections`
#: by nothing on its path (``SsaOp``, a named tuple, is in ssaop.py)
NOT_LOADED_BY_ALLOC = ("json", "verified.ssra.checker", "verified.core.semantics",
                       "dataclasses", "typing", "inspect", "argparse", "re", "enum",
                       "collections")


def test_ssra_alloc_loads_none_of_the_heavy_modules():
    """A fresh interpreter runs `verified ssra alloc` through the command's
    own entry point, then names what it loaded of the list (none of them is
    loaded by the interpreter's own start-up, checked first)."""
    import subprocess
    import sys
    code = ("import sys\n"
            f"names = {NOT_LOADED_BY_ALLOC!r}\n"
            "before = [m for m in names if m in sys.modules]\n"
            "from verified import cli\n"
            f"status = cli.main(['ssra', 'alloc', '--registers', '4', {BENCH_TAPE!r}])\n"
            "print(before, status, [m for m in names if m in sys.modules], file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stderr == "[] 0 []\n"
    assert p.stdout == ssra.allocate(ssra.load_tape(BENCH_TAPE), 4).text()


def test_reading_allocating_and_printing_pause_the_collector_and_restore_it():
    """``parse_tape``, ``parse_vm``, ``allocate`` and ``Allocation.lines``
    run with the cyclic collector paused: reading, allocating and printing
    the bench tape sets off no collection (with the collector running, some
    twenty), nor does one hand its deferred collection to the next.  Each
    gives the collector back as it was, on or off, also when it raises."""
    import gc

    from verified.core.errors import PreconditionError
    with open(BENCH_TAPE, encoding="utf-8") as f:
        text = f.read()
    vm = "_0 const 2\n" + "".join(f"_{k} neg _{k - 1}\n" for k in range(1, 3000))
    collections: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    assert gc.isenabled()
    gc.collect()
    gc.callbacks.append(count)
    try:
        ssra.allocate(ssra.parse_tape(text), 24).text()
        ssra.allocate(ssra.parse_vm(vm, "t.vm"), 3).lines()
        assert collections == []
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            small = ssra.parse_tape("$0 = X()\n$1 = Y($0)\n")
            assert gc.isenabled() is enabled
            ssra.parse_vm("_0 const 2\n")
            assert gc.isenabled() is enabled
            ssra.allocate(small, 2).lines()
            assert gc.isenabled() is enabled
            with pytest.raises(ssra.TapeError):
                ssra.parse_tape("$0 = X($9)\n")
            assert gc.isenabled() is enabled
            with pytest.raises(ssra.TapeError):
                ssra.parse_vm("_0 neg _9\n")
            assert gc.isenabled() is enabled
            with pytest.raises(PreconditionError):
                ssra.allocate(small, 1)
            assert gc.isenabled() is enabled
    finally:
        gc.callbacks.remove(count)
        gc.enable()
