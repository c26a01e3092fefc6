"""The reference docs against what they describe:

* the registry table of docs/algorithms.md (between its ``registry table``
  markers) is the one generated from ``verified.algorithms.ALGORITHMS``
  (``python tests/test_docs.py`` rewrites it);
* every proof file the registry names exists, and the README names every
  algorithm's file;
* every repository path README.md and docs/*.md cite (inline code and
  links) exists;
* nothing in the repository cites the design notes or the directory
  outside it that held them (the repository must stand on its own);
* docs/vectors.md's format section is the text `verified vectors` writes
  into its output's README, and its example line is a real vector.

Run as a script, it rewrites the registry table and says whether anything
changed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import this checkout
    sys.path.insert(0, str(ROOT))

from verified.algorithms import ALGORITHMS  # noqa: E402

ALGORITHMS_MD = ROOT / "docs" / "algorithms.md"
BEGIN, END = "<!-- registry table: begin -->", "<!-- registry table: end -->"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# ---------------------------------------------------------------------------
# The registry table
# ---------------------------------------------------------------------------


def module_file(module: str) -> str:
    return module.replace(".", "/") + ".py"


def registry_table() -> str:
    """The table of docs/algorithms.md, from the registry (one row per
    algorithm, in registration order)."""
    rows = ["| name | file | model | contract | length | optimal | proof | source |",
            "|---|---|---|---|---|---|---|---|"]
    for a in ALGORITHMS.values():
        length = a.bound_text if a.correct else "none: wrong on purpose"
        proof = f"`{a.proof}`" if a.proof else "none"
        rows.append(f"| `{a.name}` | `{module_file(a.module)}` | {a.model} | {a.preserve} | "
                    f"{length} | {'yes' if a.optimal else 'no'} | {proof} | {a.source} |")
    return "\n".join(rows)


def _split(text: str) -> tuple[str, str, str]:
    head, sep, rest = text.partition(BEGIN + "\n")
    table, sep2, tail = rest.partition(END)
    assert sep and sep2, f"docs/algorithms.md lacks the markers {BEGIN} ... {END}"
    return head + sep, table, sep2 + tail


def test_registry_table_is_the_registry():
    _, table, _ = _split(ALGORITHMS_MD.read_text())
    assert table == registry_table() + "\n", (
        "docs/algorithms.md's registry table differs from ALGORITHMS; "
        "run `python tests/test_docs.py` to regenerate it")


def test_every_registered_proof_file_exists():
    named = {a.name: a.proof for a in ALGORITHMS.values()}
    missing = {n: p for n, p in named.items() if p is None or not (ROOT / p).is_file()}
    assert missing == {}


def test_readme_names_each_algorithms_file():
    readme = (ROOT / "README.md").read_text()
    files = {module_file(a.module) for a in ALGORITHMS.values()}
    assert sorted(f for f in files if f"`{f}`" not in readme) == []


# ---------------------------------------------------------------------------
# Paths cited in the docs
# ---------------------------------------------------------------------------

#: cited names that are not repository files: what a command writes (each
#: with the command), and example file names of a usage line
NOT_IN_THE_REPOSITORY = {
    "MANIFEST.json": "written by `verified vectors` into --out",
    ".mutation/seed-SEED/": "written by `make mutation`",
    ".fuzz/corpus/": "written by `make fuzz` (the corpus it grows; git-ignored)",
    ".fuzz/crashes/": "written by `make fuzz` (a crash input; git-ignored)",
    "mutants/__pycache__/mutant-memo/": "written by the first mutant client a run starts "
                                        "(git-ignored): absent from a fresh clone until then",
    ".mutation/*/report.md": "written by `make mutation`",
    "report.md": "written by `make mutation` into .mutation/seed-SEED/",
    "results.json": "written by `make mutation` into .mutation/seed-SEED/",
    "good.jsonl": "an example file name in an example command",
    "PRESET-small.jsonl": "written by `verified vectors --machine PRESET` into --out",
    "PRESET-random.jsonl": "written by `verified vectors --machine PRESET` into --out",
}

#: files another branch adds, cited ahead of it; each entry must go once the
#: file exists (the test fails then), so the list cannot outlive its reason
PLANNED: dict[str, str] = {}

_EXT = r"\.(py|md|c|h|rs|json|jsonl|toml|tape|vm|txt|sh)"
_PATH = re.compile(rf"^[\w.*-]+(/[\w.*-]*)*(/|{_EXT})(:\S*)?$")


def _prose(text: str) -> str:
    """The text outside fenced code blocks (commands there are run by
    tests/cli/test_readme.py and may name files they create)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def cited_paths(text: str, folder: Path) -> set[str]:
    """Repository paths cited by a doc in ``folder``: inline code that is
    a path (a line suffix such as ``:83`` or ``::test_x`` dropped) and
    relative link targets (resolved against ``folder``)."""
    prose = _prose(text)
    out = {span.split(":")[0] for span in re.findall(r"`([^`\n]+)`", prose)
           if _PATH.match(span)}
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        if not re.match(r"\w+:", target):  # not http:, mailto:
            out.add((folder / target).resolve().relative_to(ROOT).as_posix())
    return out


def _exists(path: str, basenames: set[str]) -> bool:
    if "/" not in path.rstrip("/"):  # a bare file name, in context: some file has it
        return path.rstrip("/") in basenames or (ROOT / path).exists()
    if "*" in path:
        return any(ROOT.glob(path.rstrip("/")))
    return (ROOT / path).exists()


def _repository_files() -> list[Path]:
    skip = {".git", ".venv", ".venv-fast", "build", "__pycache__", ".hypothesis", ".pytest_cache",
            ".mutation", ".ci"}
    return [p for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]


def test_every_cited_path_exists():
    basenames = {p.name for p in _repository_files()}
    missing = {}
    for doc in DOCS:
        for path in sorted(cited_paths(doc.read_text(), doc.parent)):
            if path in NOT_IN_THE_REPOSITORY or path in PLANNED:
                continue
            if not _exists(path, basenames):
                missing.setdefault(doc.relative_to(ROOT).as_posix(), []).append(path)
    assert missing == {}


def test_planned_files_are_still_planned():
    """A PLANNED entry whose file now exists must be removed (so that the
    path is checked like every other)."""
    assert [p for p in PLANNED if (ROOT / p).exists()] == []


def test_the_path_finder_finds_what_it_must():
    """The checker above can fail: it sees a code span, a line suffix, a
    bare name, a glob and a relative link, and a missing one is missing."""
    basenames = {"moves.py"}
    text = ("`verified/cli.py:12` `moves.py` `tests/clients/*.py` [p](protocol.md) "
            "`verified/nope.py` `not a path` `verified.cli`\n```\n`tests/in-a-block.py`\n```\n")
    got = cited_paths(text, ROOT / "docs")
    assert got == {"verified/cli.py", "moves.py", "tests/clients/*.py", "docs/protocol.md",
                   "verified/nope.py"}
    assert [p for p in sorted(got) if not _exists(p, basenames)] == ["verified/nope.py"]


# ---------------------------------------------------------------------------
# The repository stands on its own
# ---------------------------------------------------------------------------

_OUTSIDE = ("DESIGN" + ".md", ".." + "/shared")  # spelt apart so this file does not cite them


def test_nothing_cites_the_design_notes_or_the_directory_beside_the_repository():
    cites = []
    for p in _repository_files():
        if p.suffix in (".pyc", ".tape", ".vm") or p.name == "test_docs.py":
            continue
        try:
            text = p.read_text()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if any(word in line for word in _OUTSIDE):
                cites.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    assert cites == []


# ---------------------------------------------------------------------------
# docs/vectors.md is what `verified vectors` writes
# ---------------------------------------------------------------------------

VECTORS_MARK = "<!-- the same text as the README written into the output (tests/test_docs.py) -->\n"


def test_vectors_doc_is_the_written_readme(cli, tmp_path):
    proc = cli("vectors", "--model", "swap", "--registers", "3", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    written = (tmp_path / "README.md").read_text()
    doc = (ROOT / "docs" / "vectors.md").read_text()
    head, mark, fields = doc.partition(VECTORS_MARK)
    assert mark, "docs/vectors.md lost its marker before the field list"
    assert fields.strip() in written
    example = re.search(r"^```\n(\{.*\})\n```", head, re.M).group(1)
    vectors = (tmp_path / "swap-n3.jsonl").read_text().splitlines()
    assert example in vectors
    assert f"```\n{example}\n```" in written  # the output's README shows the same one


# ---------------------------------------------------------------------------


def main() -> int:
    head, table, tail = _split(ALGORITHMS_MD.read_text())
    new = registry_table() + "\n"
    if table == new:
        print("docs/algorithms.md: registry table up to date")
        return 0
    ALGORITHMS_MD.write_text(head + new + tail)
    print("docs/algorithms.md: registry table rewritten from verified.algorithms.ALGORITHMS")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def test_the_kits_point_at_the_schemas():
    """Issue 21, Build 1: a C or Rust team reads the kit's own header first;
    it names `verified schema NAME` and docs/schemas.md."""
    for kit in ("kits/c/verified_protocol.h", "kits/rust/verified_protocol.rs"):
        head = " ".join((ROOT / kit).read_text().split()[:200])
        for needle in ("`verified schema NAME`", "docs/schemas.md"):
            assert needle in head, (kit, needle)
