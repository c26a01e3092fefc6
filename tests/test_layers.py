"""The architecture the tree shows, enforced: each layer of ``verified/``
imports only its own package and the layers below it, nothing in
``verified/`` imports ``proofs``, ``mutants`` or ``tests``, and no module
imports itself through a circle.  Every import counts, including the ones
inside functions.  The checker is shown to fail on a planted back-edge and
on a planted circle."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: lowest first; a package may import its own modules and lower layers only
LAYERS: list[tuple[str, ...]] = [
    ("verified.core",),
    ("verified.algorithms", "verified.cases"),
    ("verified.ssra",),
    ("verified.tools",),
    ("verified.cli",),
]
FORBIDDEN = ("proofs", "mutants", "tests", "bench", "fast")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in the file."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from x import y`: y may be a module of x or a name in x
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names]
    return out


def _owner(module: str) -> tuple[int, str] | None:
    """(layer index, package) of a module of verified/, or None."""
    for i, packages in enumerate(LAYERS):
        for p in packages:
            if module == p or module.startswith(p + "."):
                return i, p
    return None


def violations(root: Path) -> list[str]:
    """Every layering violation and import circle under ``root/verified``."""
    problems = []
    modules = {_module_name(p, root): p for p in sorted((root / "verified").rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        mine = _owner(module)
        for line, target in _imports(path, root):
            where = f"{path.relative_to(root)}:{line}"
            if target.split(".")[0] in FORBIDDEN:
                problems.append(f"{where}: verified/ imports {target}")
                continue
            if not target.startswith("verified"):
                continue
            # `from x import y` was listed as x.y: a module, or a name in x
            if target not in modules and target.rpartition(".")[0] in modules:
                target = target.rpartition(".")[0]
            dep = target
            if dep in modules:
                graph[module].add(dep)
            theirs = _owner(target)
            if mine is None or theirs is None or theirs[1] == mine[1]:
                continue
            if theirs[0] >= mine[0]:
                problems.append(f"{where}: {module} (layer {mine[0]}, {mine[1]}) imports "
                                f"{target} (layer {theirs[0]}, {theirs[1]})")
    # circles: a depth-first search for a back edge
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if d == m:
                continue
            if state.get(d) == 1:
                problems.append("import circle: " + " -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return problems


def test_the_tree_keeps_its_layers():
    assert violations(ROOT) == []


def test_every_package_of_verified_has_a_layer():
    packages = {_module_name(p.parent / "__init__.py", ROOT)
                for p in (ROOT / "verified").rglob("__init__.py")} - {"verified"}
    assert all(_owner(p) for p in packages), packages


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "verified", tmp_path / "verified",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_a_planted_back_edge_is_reported(tmp_path):
    root = _copy(tmp_path)
    oracle = root / "verified" / "core" / "oracle.py"
    text = oracle.read_text()
    oracle.write_text(text + "\n\ndef _late():\n    from ..tools import wire\n")
    line = text.count("\n") + 4  # the import, after two blank lines and the def
    assert _canon(violations(root)) == _canon([
        f"verified/core/oracle.py:{line}: verified.core.oracle (layer 0, verified.core) imports "
        "verified.tools.wire (layer 3, verified.tools)",
        # wire reaches the oracle directly and through core.machine (whose
        # oracle module imports it): two circles
        "import circle: verified.core.oracle -> verified.tools.wire -> verified.core.machine "
        "-> verified.core.machine.oracle -> verified.core.oracle",
        "import circle: verified.core.oracle -> verified.tools.wire -> verified.core.oracle"])


def _canon(problems: list[str]) -> list[str]:
    """Each circle from its smallest module (where the search enters a
    circle depends on which modules exist, e.g. verified.cases.machines)."""
    out = []
    for p in problems:
        if p.startswith("import circle: "):
            ring = p[len("import circle: "):].split(" -> ")[:-1]
            k = ring.index(min(ring))
            ring = ring[k:] + ring[:k]
            p = "import circle: " + " -> ".join(ring + ring[:1])
        out.append(p)
    return out


def test_a_planted_forbidden_import_and_circle_are_reported(tmp_path):
    root = _copy(tmp_path)
    graph = root / "verified" / "core" / "graph.py"
    graph.write_text(graph.read_text() + "\nfrom . import oracle\nimport mutants\n")
    oracle = root / "verified" / "core" / "oracle.py"
    oracle.write_text(oracle.read_text() + "\nfrom . import graph\n")
    found = violations(root)
    assert any("verified/ imports mutants" in f for f in found), found
    assert any(f.startswith("import circle:") and "verified.core.graph" in f
               and "verified.core.oracle" in f for f in found), found
