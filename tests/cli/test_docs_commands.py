"""Every ``verified WORD`` the README, docs/ and the kits' READMEs name is a
command of ``verified`` (issue 21: the README named ``verified
exhaustive``, which never existed)."""

from __future__ import annotations

import re
from pathlib import Path

from verified.cli import SUBCOMMANDS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "kits").glob("*/README.md"))]
#: "verified WORD" where WORD is a command: in code spans, code blocks and
#: prose alike (a word after "verified " that is not a command, e.g. "the
#: verified package", must not look like one)
NAMED = re.compile(r"(?<![\w/.-])verified ([a-z][a-z-]+)(?=[\s`])")
NOT_COMMANDS = {"import", "package", "and", "or", "is", "by", "in", "on", "at", "to", "as",
                "with", "from", "that", "itself", "one", "command", "commands"}


def test_every_named_command_exists():
    commands = {name for name, _, _ in SUBCOMMANDS}
    named = {}
    for doc in DOCS:
        for m in NAMED.finditer(doc.read_text()):
            if m.group(1) not in NOT_COMMANDS:
                named.setdefault(m.group(1), doc.relative_to(ROOT).as_posix())
    unknown = {w: where for w, where in named.items() if w not in commands}
    assert unknown == {}
    assert {"check", "solve", "conform", "vectors", "explain"} <= set(named)
