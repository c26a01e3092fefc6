"""``verified schema``: the JSON Schemas (draft 2020-12) of every message and
file of the protocol, shipped in the package (``verified/data/schemas/``,
``docs/schemas.md``), so that a C, Rust or Go team can validate requests,
answers, verdicts, machine descriptions, vectors and conform reports with
its own tools.  ``verified schema`` lists them; ``verified schema NAME``
prints one.  The schemas refer to each other by ``$id``
(``https://verified.invalid/schemas/NAME.json``: a name, never fetched):
load them all into your validator's registry."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK

#: name -> what it describes, in the order ``verified schema`` lists them
SCHEMAS = {
    "request": "a request line: register form (\"model\") or machine form (\"machine\")",
    "answer": "an answer line of solve and of a program under conform",
    "verdict": "an answer line of check",
    "machine": "a machine description (\"machine\" object, --machine FILE.json)",
    "vector": "one line of a vectors file (register or machine vectors)",
    "manifest": "MANIFEST.json of a vectors directory",
    "conform-report": "the report of conform --json",
}

HELP = """\
verified schema          list the JSON Schemas (draft 2020-12) of the protocol
verified schema NAME     print one (validate with any JSON Schema tool; load
                         all of them: they refer to each other by $id)

What each schema accepts that the oracle rejects, and the reverse:
docs/schemas.md.  exit status: 0; 2 for an unknown NAME.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="one of: " + ", ".join(SCHEMAS))


def schema_text(name: str) -> str:
    """The schema file ``name`` as shipped."""
    return resources.files("verified").joinpath("data", "schemas", f"{name}.json").read_text(
        encoding="utf-8")


def load(name: str) -> dict:
    return json.loads(schema_text(name))


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        width = max(map(len, SCHEMAS))
        for name, what in SCHEMAS.items():
            print(f"{name:{width}}  {what}")
        return EXIT_OK
    if args.name not in SCHEMAS:
        print(f"verified schema: error: no schema {args.name!r}; the schemas are "
              f"{', '.join(SCHEMAS)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(schema_text(args.name))
    return EXIT_OK
