"""Every ``verified WORD`` the README, docs/ and the kits' READMEs name is a
command of ``verified`` (issue 21: the README named ``verified
exhaustive``, which never existed)."""

from __future__ import annotations

import re
from pathlib import Path

import argparse
import importlib

from verified.cli import SUBCOMMANDS, VERBS, build_parser

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


#: "verified COMMAND WORD" (`verified machines derive`, `verified conform merge`)
NAMED_VERB = re.compile(r"(?<![\w/.-])verified ([a-z][a-z-]+) ([a-z][a-z-]+)(?=[\s`])")


def verbs() -> dict[str, set[str]]:
    """The words that may follow each command that has verbs: its
    sub-parsers (ssra alloc), the choices of its first positional
    (machines show) and cli.VERBS (conform merge)."""
    out: dict[str, set[str]] = {}
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                out.setdefault(name, set()).update(a.choices)
            elif not a.option_strings and a.choices:
                out.setdefault(name, set()).update(a.choices)
                break
    for command, verb, module in VERBS:
        importlib.import_module(module).build_parser()  # it exists
        out.setdefault(command, set()).add(verb)
    return out


def test_every_named_verb_exists():
    known = verbs()
    named = {}
    for doc in DOCS:
        for m in NAMED_VERB.finditer(doc.read_text()):
            command, word = m.groups()
            if command in known:  # a command with verbs (not schema NAME, check, ...)
                named.setdefault((command, word), doc.relative_to(ROOT).as_posix())
    unknown = {f"{c} {w}": where for (c, w), where in named.items() if w not in known[c]}
    assert unknown == {}
    assert {("machines", "derive"), ("conform", "merge"), ("conform", "cluster"),
            ("ssra", "alloc")} <= set(named)
