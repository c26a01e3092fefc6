"""The ``verified`` command.  Each subcommand lives in its own module, which
provides ``add_arguments(parser)`` and ``run(args) -> int`` (the exit
status); this file only lists them, so ``verified --help`` is the index.

It also holds the part of the exit-status contract (``docs/exit-codes.md``)
that no subcommand can forget: a usage error is one line naming the
subcommand (``verified check: error: ...``), exit 2; an unreadable path, an
exhausted memory or a bug of ours is one line too, never a traceback."""

from __future__ import annotations

import importlib
import os
import sys

from .core.exits import EXIT_BAD_INPUT

# argparse is imported by the parser's builder, not here: a plain
# `verified ssra alloc` command line never builds it (start-up time,
# docs/ssra.md)
TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse

#: (name, module, one-line help).  Modules are imported only when used.
SUBCOMMANDS = [
    ("check", "verified.tools.check",
     "oracle: read JSON-lines requests with a sequence, answer ok/counterexample"),
    ("solve", "verified.tools.solve",
     "reference answers: read JSON-lines requests, answer with our algorithm's sequence"),
    ("conform", "verified.tools.conform", "drive another implementation over the protocol and check every answer (CI gate)"),
    ("vectors", "verified.tools.vectors", "write deterministic JSON-lines test vectors (request, expected state, optimum, reference)"),
    ("explain", "verified.tools.explain", "explain one request and sequence: the transfer graph, the state after every operation, the first value destroyed, the verdict"),
    ("machines", "verified.tools.machines", "the preset machine descriptions: list them, or `show NAME` as JSON"),
    ("schema", "verified.tools.schema", "the JSON Schemas of the protocol's messages and files: list them, or print one"),
    ("ssra", "verified.ssra.cli", "solid-state register allocator: `alloc` a straight-line SSA tape, `check` anyone's allocation of it"),
]

#: (command, verb, module): verbs of a command that have their own parser
#: (conform's wants --cmd); each module provides ``build_parser()`` and
#: ``main(argv) -> int``
VERBS = [
    ("conform", "merge", "verified.tools.conform.merge"),
    ("conform", "cluster", "verified.tools.conform.cluster"),
]

EPILOG = """\
exit status (every command, docs/exit-codes.md): 0 everything checked is
right; 1 something checked is wrong (a sequence, an answer, an allocation);
2 bad input, bad use, or a client that broke the protocol.  Run
`verified COMMAND --help` for each one's protocol.
"""

#: set VERIFIED_TRACEBACK=1 to see the traceback of an internal error
_TRACEBACK = os.environ.get("VERIFIED_TRACEBACK", "") not in ("", "0")


def _parser_class() -> "type[argparse.ArgumentParser]":
    """``Parser``, defined on first use (with argparse's import)."""
    global _PARSER
    if _PARSER is None:
        import argparse

        class Parser(argparse.ArgumentParser):
            """An argument parser whose usage errors are one line that names the
            (sub)command and where its help is, with exit status 2."""

            def error(self, message: str):  # type: ignore[override]
                self.exit(EXIT_BAD_INPUT,
                          f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")

        _PARSER = Parser
    return _PARSER


_PARSER: "type[argparse.ArgumentParser] | None" = None


def __getattr__(name: str):
    if name == "Parser":   # verified.cli.Parser, as when it was defined here
        return _parser_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Only the chosen subcommand's module is imported (so `verified check`
    does not import Z3 or the allocator)."""
    import argparse
    Parser = _parser_class()
    parser = Parser(
        prog="verified",
        description="Formally-checked reference register shuffling: an oracle "
        "for parallel-move sequentialisation, reference algorithms, and tools "
        "to test other implementations against them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module, help_text in SUBCOMMANDS:
        p = sub.add_parser(
            name, help=help_text, description=help_text,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        # a nested action (ssra alloc) sets its own _parser, which wins
        p.set_defaults(_module=module, _parser=p)
        if only is None or only == name:
            importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for command, name, module in VERBS:
        if argv[:2] == [command, name]:
            verb = importlib.import_module(module)
            return _guarded(f"verified {command} {name}", lambda: verb.main(argv[2:]))
    if argv[:2] == ["ssra", "alloc"]:
        # the plain form read without building the parser: the same values
        # (verified.ssra.cli.plain_alloc_args); anything else goes on below
        from .ssra import cli as ssra_cli
        plain = ssra_cli.plain_alloc_args(argv[2:])
        if plain is not None:
            return _guarded("verified ssra alloc", lambda: ssra_cli.run(plain))
    chosen = next((a for a in argv if not a.startswith("-")), None)
    names = {name for name, _, _ in SUBCOMMANDS}
    parser = build_parser(chosen if chosen in names else None)
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "command", None):
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        parser.print_help()
        return EXIT_BAD_INPUT
    prog = args._parser.prog
    if extra:  # reported by the subcommand's parser, with its usage, not the index's
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return _guarded(prog, lambda: importlib.import_module(args._module).run(args))


def _guarded(prog: str, run) -> int:
    """Run a command; a broken pipe, exhausted memory, an unusable path or a
    bug of ours ends it with one line, never a traceback."""
    try:
        status = run()
        # a reader that went away after our last print is seen only when
        # the buffer is flushed: flush here, where BrokenPipeError is quiet
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`| head`): nothing more to say to it
        _silence_stdout()
        return 0
    except MemoryError:
        print(f"{prog}: error: out of memory; the input is larger than this "
              f"machine can hold (see `{prog} --help` for the limits)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        print(f"{prog}: error: cannot use{where}: {e.strerror or e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:  # a bug of ours: one line, nothing judged
        if _TRACEBACK:
            raise
        print(f"{prog}: internal error: {type(e).__name__}: {e} (nothing was "
              f"judged; please report this, VERIFIED_TRACEBACK=1 shows where)",
              file=sys.stderr)
        return EXIT_BAD_INPUT


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at /dev/null so that
    # second flush does not print a BrokenPipeError of its own
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
