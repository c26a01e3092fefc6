"""Coverage-guided fuzz targets (Atheris, the optional extra ``fuzz``): one
per entry point that reads outside data.  Each takes the fuzzer's bytes and
fails (an exception, which Atheris reports as a crash with the input saved)
when the entry point breaks its contract: one answer line per input line,
no ``internal error``, exit status 0..2, only the documented error type.

    python fuzz/targets.py TARGET [libFuzzer options] [CORPUS...]

``make fuzz`` (fuzz/run.py) runs every target on its seed corpus
(fuzz/corpus/TARGET/) for a time budget and prints the figures."""

from __future__ import annotations

import contextlib
import io
import json
import sys

import atheris

with atheris.instrument_imports():
    from verified import cli, ssra
    from verified.algorithms import solve, solve_machine
    from verified.cases import Case
    from verified.core import machine as M
    from verified.core.semantics import PreconditionError
    from verified.tools import check, conform, wire


class Broken(Exception):
    """The entry point broke its contract on this input."""


def _served(data: bytes, handle) -> None:
    out = io.StringIO()
    status = wire.serve(io.BytesIO(data), out, handle)
    answers = out.getvalue().splitlines()
    if len(answers) != sum(1 for x in data.split(b"\n") if x.strip()):
        raise Broken(f"{len(answers)} answers")
    if status not in (0, 1, 2) or "internal error" in out.getvalue():
        raise Broken(out.getvalue()[:500])


def check_target(data: bytes) -> None:
    _served(data, check._handle_check)


def _solve(obj):
    req = wire.parse_any(obj, need_sequence=False)
    if isinstance(req, M.MachineRequest):
        ops = solve_machine("resolve", req.move, req.preserve)
    else:
        ops = solve("xchg" if req.model == "swap" else "mincopy", req.pm, req.model, req.preserve)
    return {"sequence": [o.to_json() for o in ops]}, 0


def solve_target(data: bytes) -> None:
    _served(data, _solve)


def explain_target(data: bytes) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["explain", "--request", data.decode("utf-8", "replace")])
        except SystemExit as e:
            status = e.code
    if status not in (0, 1, 2) or "internal error" in out.getvalue() + err.getvalue():
        raise Broken(err.getvalue()[:500])


def machine_target(data: bytes) -> None:
    try:
        obj = wire.decode_line(data)
        M.machine_from_json(obj)
    except PreconditionError:
        pass


CASE = Case(3, ((0, 1), (1, 0), (2, 0)))
TYPE = conform.MoveType("swap", (), "all")


def answer_target(data: bytes) -> None:
    kind, _ = conform.classify(TYPE, CASE, data.replace(b"\n", b" "), True)
    if kind not in (conform.OK, conform.WRONG, conform.GARBAGE, conform.REFUSED_OK,
                    conform.REFUSED):
        raise Broken(kind)


def tape_target(data: bytes) -> None:
    try:
        ssra.parse_tape(data.decode("utf-8", "replace"))
    except PreconditionError:
        pass


TARGETS = {"check": check_target, "solve": solve_target, "explain": explain_target,
           "machine": machine_target, "answer": answer_target, "tape": tape_target}


def main() -> None:
    target = TARGETS[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
