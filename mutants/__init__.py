"""The one mutant engine: deliberately broken variants of the real code.

A checker that cannot fail is a defect, so every checker (the oracle, the
Hypothesis properties, the Z3 proofs, CrossHair, the allocation checker,
``conform``) is shown to catch mutants from the catalogues here:

* ``mutants/core.py``: the parallel-move algorithms (shuf, leroy, windmill,
  mincopy, xchg);
* ``mutants/permi.py``: GREEDY, the copy-set DP and the search that judges
  them;
* ``mutants/ssra.py``: the solid-state register allocator;
* ``mutants/explain.py``: ``verified explain``'s "first value destroyed"
  finder;
* ``mutants/machines.py``: the machine oracle (``verified/core/machine/``):
  each mutant forgets one fact of the machine model.

A ``Mutant`` is one textual edit of one module of ``verified/``: ``old`` is
replaced by ``new`` exactly once (``scope`` narrows the search to one
function, method or class).  ``load`` applies the edit to the module's real
source and executes the result as a fresh module, with

* ``assert`` statements stripped (``optimize=1``), as a release build would
  run, and the registry's postconditions off (``raw_definitions``), so what
  catches the mutant is the checker under test, not the code's own checks;
* the other modules named in ``with_modules`` executed afresh beside it, in
  order, their references to the real module's functions and classes (and
  to those of the ``with_modules`` before them) re-bound to the mutated or
  fresh ones (GREEDY's mutants reach ``permi_optimal`` through ``copyset``;
  a mutant of one module of ``verified/core/machine/`` reaches the oracle
  through the modules after it);
* every top-level class the edit does not touch replaced by the real one
  (a mutated allocator still returns a real ``Allocation``).

If the real code changes so that ``old`` no longer occurs exactly once,
``load`` fails loudly (``MutantDoesNotApply``) instead of silently testing
the unmutated code; ``python -m proofs`` reports that as "mutant could not
apply" (exit 2), never as a catch.

A catch is a **rejection verdict** (the oracle says not ok, the checker
rejects the allocation, a proof finds a counterexample): an exception raised
by the mutated code is a crash, and the tests do not count it as a catch.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import inspect
import marshal
import os
import re
import tempfile
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path

from verified.algorithms.registry import raw_definitions


class MutantDoesNotApply(AssertionError):
    """The edit of a mutant cannot be applied to today's source (its text
    or scope is gone, or occurs twice): a broken catalogue entry, not a
    verdict about the code.  An ``AssertionError`` so that older callers
    that expect one keep working."""


@dataclass(frozen=True)
class Mutant:
    """One deliberate bug: where (``module``, ``scope``), the edit
    (``old`` -> ``new``), why it is a bug, and how to run and catch it."""

    name: str
    #: the module of verified/ that is edited, e.g. "verified.algorithms.xchg"
    module: str
    old: str
    new: str
    #: the bug, in words
    why: str
    #: what it breaks ("shuf", "leroy", "windmill", "mincopy", "xchg", "permi", "ssra", ...)
    family: str = ""
    #: the attribute of the mutated module that runs it (e.g. "xchg")
    entry: str = ""
    #: the qualified name of the function/class/method the edit lies in
    scope: str = ""
    #: further modules executed against the mutated one (see the docstring)
    with_modules: tuple[str, ...] = ()
    #: the model of the operations it emits (parallel-move mutants)
    model: str = ""
    #: the name of the same bug in the proofs' Z3 model, when they model it
    z3: str | None = None
    #: an input on which a checker rejects it (the catalogue says which)
    witness: object = None
    #: further edits of the same module applied after this one (``combine``:
    #: a program with several planted bugs at once)
    also: tuple["Mutant", ...] = ()


def combine(*mutants: Mutant) -> Mutant:
    """One mutant with every edit of ``mutants`` (all of one module, each
    still required to occur exactly once, in order): several bugs in one
    program, as a real one has."""
    first, *rest = mutants
    if any(m.module != first.module for m in rest):
        raise AssertionError("combine: the mutants edit different modules")
    return Mutant("+".join(m.name for m in mutants), first.module, first.old, first.new,
                  "; ".join(m.why for m in mutants), first.family, first.entry, first.scope,
                  first.with_modules, first.model, None, None, tuple(rest))


def source_of(mutant: Mutant) -> str:
    """The mutated source of ``mutant.module`` (the edit applied once)."""
    real = importlib.import_module(mutant.module)
    edits = repr([(e.name, e.old, e.new, e.scope) for e in (mutant, *mutant.also)])
    return _memo("source", (_source(real), edits), lambda source, _: _edited(source, mutant))


def _edited(source: str, mutant: Mutant) -> str:
    for edit in (mutant, *mutant.also):
        try:
            lo, hi = _scope_span(source, edit.scope) if edit.scope else (0, len(source))
        except MutantDoesNotApply as e:
            raise MutantDoesNotApply(f"mutant {mutant.name}: {e} ({mutant.module})") from None
        source = source[:lo] + _replace_once(source[lo:hi], edit) + source[hi:]
    return source


@functools.cache
def load(mutant: Mutant) -> types.SimpleNamespace:
    """The mutated module and the ``with_modules`` beside it, as one
    namespace (later modules' names shadow earlier ones'; the mutated
    module's names win)."""
    real = importlib.import_module(mutant.module)
    source = source_of(mutant)
    mutated = _execute(mutant.module, source, f"mutant {mutant.name}")
    # a class the edit does not touch stays the real class, so that
    # isinstance checks between the mutant's output and the real checkers hold
    for name in _memo("classes", (_source(real), source), _unchanged_classes):
        mutated[name] = getattr(real, name)
    replaced = {id(v): mutated[k] for k, v in vars(real).items()
                if k in mutated and callable(v)}
    merged: dict = {}
    for name in mutant.with_modules:
        real_other = importlib.import_module(name)
        other = _execute(name, _source(real_other),
                         f"{name} against mutant {mutant.name}")
        for k, v in list(other.items()):
            if id(v) in replaced:
                other[k] = replaced[id(v)]
        # a later module sees this fresh copy, not the real one, so a chain
        # of modules (a package split one concern a file) reaches the mutant
        replaced.update({id(v): other[k] for k, v in vars(real_other).items()
                         if k in other and callable(v) and id(v) not in replaced})
        merged.update(other)
    merged.update(mutated)
    return types.SimpleNamespace(**{k: v for k, v in merged.items() if not k.startswith("__")})


def run(mutant: Mutant):
    """The mutated entry point (``mutant.entry``)."""
    return getattr(load(mutant), mutant.entry)


def _source(module: types.ModuleType) -> str:
    """The module's Python source: in the compiled build (setup.py) the
    module is an extension and its ``.py``, installed beside it, is the
    source it was compiled from."""
    path = Path(module.__file__ or "")
    if path.suffix != ".py":
        return path.with_name(module.__name__.rpartition(".")[2] + ".py").read_text()
    return inspect.getsource(module)


def _execute(module: str, source: str, label: str) -> dict:
    """Execute ``source`` as a fresh copy of ``module`` (relative imports
    resolve to the real package), asserts stripped, contracts off."""
    real = importlib.import_module(module)
    namespace = {"__name__": f"{module}", "__package__": real.__package__,
                 "__file__": real.__file__, "__builtins__": __builtins__}
    code = _memo("code", (source, f"<{label}>"), _compile)
    with raw_definitions():
        exec(code, namespace)
    return namespace


def _compile(source: str, filename: str) -> types.CodeType:
    return compile(source, filename, "exec", optimize=1)


#: where ``_memo`` keeps its results: beside Python's own bytecode cache
MEMO_DIR = Path(__file__).resolve().parent / "__pycache__" / "mutant-memo"


def _memo(kind: str, args: tuple[str, ...], fn):
    """``fn(*args)`` (a pure function of its strings, with a result marshal
    can write: a code object, a list of names), kept on disk under a hash of
    its inputs, this file and the interpreter's bytecode version.  Loading a
    mutant of resolve.py (compiling it, parsing both sources for the
    unchanged classes) is most of a mutant client's start-up, paid again at
    every re-run conform's shrinking makes.  Unwritable or unreadable:
    computed, as without the memo."""
    h = hashlib.sha256()
    for part in (importlib.util.MAGIC_NUMBER, _ENGINE, kind.encode(), *(a.encode() for a in args)):
        h.update(len(part).to_bytes(8, "little") + part)
    path = MEMO_DIR / f"{kind}-{h.hexdigest()}"
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    value = fn(*args)
    try:
        MEMO_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=MEMO_DIR, delete=False) as f:
            f.write(marshal.dumps(value))
        os.replace(f.name, path)
    except OSError:
        pass
    return value


#: this file's bytes: part of every memo key (an edit of the engine, its
#: ``from __future__`` flags that compile inherits included, starts afresh)
_ENGINE = Path(__file__).read_bytes()


def _unchanged_classes(original: str, mutated: str) -> list[str]:
    """Top-level classes whose source text is the same in both and that do
    not refer (directly or through other definitions) to a changed one."""
    def defs(text: str) -> dict[str, ast.AST]:
        out: dict[str, ast.AST] = {}
        for n in ast.parse(text).body:
            if isinstance(n, (ast.ClassDef, ast.FunctionDef)):
                out[n.name] = n
            elif isinstance(n, (ast.Assign, ast.AnnAssign)):  # tables, constants
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                out.update({t.id: n for t in targets if isinstance(t, ast.Name)})
        return out
    before, after = defs(original), defs(mutated)
    old_text, new_text = _segments(original), _segments(mutated)
    same = {name for name, node in after.items() if name in before
            and new_text(node) == old_text(before[name])}
    uses = {name: {x.id for x in ast.walk(node) if isinstance(x, ast.Name)}
            for name, node in after.items()}
    affected = set(after) - same
    while True:
        more = {name for name in same - affected if uses[name] & affected}
        if not more:
            break
        affected |= more
    return [name for name in same - affected if isinstance(after[name], ast.ClassDef)]


def _segments(source: str):
    """``ast.get_source_segment(source, node)`` as a function of ``node``,
    with ``source`` split into lines once (the library splits it again for
    every node: 60 definitions of resolve.py cost a mutant client 0.3 s of
    its start, paid again on every re-run conform's shrinking makes).
    Lines end at \\r\\n, \\r or \\n, as the library splits them; columns are
    UTF-8 byte offsets."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)

    def segment(node: ast.AST) -> str | None:
        if getattr(node, "end_lineno", None) is None or node.end_col_offset is None:
            return None
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
        return (lines[first].encode()[node.col_offset:].decode() + "".join(lines[first + 1:last])
                + lines[last].encode()[:node.end_col_offset].decode())
    return segment


def _scope_span(source: str, qualname: str) -> tuple[int, int]:
    """Character span of the function/class ``qualname`` (``A.b`` for a
    method) in ``source``, decorators included."""
    tree = ast.parse(source)
    body, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None:
            raise MutantDoesNotApply(f"no {qualname} in the source")
        body = node.body
    lines = source.splitlines(keepends=True)
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    lo = sum(len(x) for x in lines[:first - 1])
    hi = sum(len(x) for x in lines[:node.end_lineno])
    return lo, hi


def _replace_once(text: str, mutant: Mutant) -> str:
    """Replace ``mutant.old`` by ``mutant.new`` in ``text``: an exact
    occurrence, or (for a multi-line ``old`` written without its
    indentation) a block of lines equal up to leading whitespace, re-indented.
    Exactly one occurrence is required."""
    old, new = mutant.old, mutant.new
    count = text.count(old)
    if count == 1:
        return text.replace(old, new)
    if count == 0 and "\n" in old.strip("\n"):
        lines = text.split("\n")
        want = [x.strip() for x in textwrap.dedent(old).strip("\n").split("\n")]
        hits = [k for k in range(len(lines) - len(want) + 1)
                if [x.strip() for x in lines[k:k + len(want)]] == want]
        if len(hits) == 1:
            k = hits[0]
            indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
            body = [indent + x if x.strip() else ""
                    for x in textwrap.dedent(new).strip("\n").split("\n")]
            if not new.strip():
                body = []
            return "\n".join(lines[:k] + body + lines[k + len(want):])
        count = len(hits)
    where = f"{mutant.module}" + (f" ({mutant.scope})" if mutant.scope else "")
    raise MutantDoesNotApply(
        f"mutant {mutant.name}: the text to replace occurs {count} times in "
        f"{where}, expected exactly once; update the mutant: {old!r}")
