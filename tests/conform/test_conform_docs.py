"""The options of `verified conform` as the README and docs/conform.md list
them are generated from the parser (``cli.options_markdown``): this test
fails when either drifts, and ``python -m tests.conform.test_conform_docs``
rewrites both."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from verified.tools.conform.cli import options_markdown

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", ROOT / "docs" / "conform.md"]
BLOCK = re.compile(r"(<!-- conform-options:[^\n]*-->\n)(.*?)(<!-- /conform-options -->)", re.S)


def _block(path: Path) -> str:
    m = BLOCK.search(path.read_text())
    assert m, f"{path.name}: no <!-- conform-options --> block"
    return m.group(2)


def test_options_tables_are_the_parsers():
    want = options_markdown()
    for path in FILES:
        assert _block(path) == want, f"{path.name}: run python -m tests.conform.test_conform_docs"


def test_every_option_is_in_the_table():
    import argparse
    from verified.tools.conform.cli import add_arguments
    p = argparse.ArgumentParser()
    add_arguments(p)
    table = options_markdown()
    for a in p._actions:
        for o in a.option_strings:
            if o not in ("-h", "--help"):
                assert f"`{o}" in table, o
    for o in ("--optimal", "--seed", "--no-shrink", "--progress", "--shapes", "--order",
              "--relabel", "--allow-refusals", "--allocator"):
        assert f"`{o}" in table


def main() -> None:
    for path in FILES:
        text = path.read_text()
        path.write_text(BLOCK.sub(lambda m: m.group(1) + options_markdown() + m.group(3), text))


if __name__ == "__main__":
    sys.exit(main())
