"""``verified explain``: why a sequence does (or does not) implement a
parallel move, step by step (``docs/explain.md``).

Given one request and one sequence it prints

* the transfer graph (``core.graph.analyse``): each windmill with its axle
  and blades;
* the state after every operation, run through the one interpreter
  (``core.semantics.step``), and the value each location must hold at the
  end;
* the first operation that destroyed a value still needed: it overwrote
  the last location holding the original value of some ``v`` that a
  location must hold at the end.  Values are only ever copied from a
  location that holds them, so from then on the sequence cannot be right;
* the oracle's verdict (``tools.check.check_request``: the same answer
  ``verified check`` gives).

A machine request (``"machine"``, ``docs/machines.md``) is explained the
same way per unit (``explain_machine``): the units of every location, the
state of each unit after every operation (``core.machine.step``), the
first value destroyed, the operations the machine lacks, and the verdict
of ``tools.check.check_machine``.

``--dot`` prints the transfer graph as Graphviz text instead.  Exit status
as ``check``: 0 the sequence is right, 1 wrong, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass

from ..core import machine as M
from ..core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from ..core.graph import analyse
from ..core.oracle import Verdict, read_sequence
from ..core.semantics import (
    Location,
    Operation,
    ParallelMove,
    PreconditionError,
    format_op,
    loc_name,
    reads,
    sorted_locations,
    step,
    value_of,
)
from .check import check_machine, check_request
from .wire import Request, decode_line, parse_any

#: explain prints a table of every location after every operation: beyond
#: these it is no longer readable (shrink the case first; conform does)
MAX_COLUMNS = 64
MAX_OPERATIONS = 1000


# ---------------------------------------------------------------------------
# What must hold, and the first value destroyed
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Loss:
    """Operation ``index`` overwrote ``location``, the last copy of the
    original value of ``value``, which ``needed_by`` must hold at the end."""

    index: int
    op: Operation
    location: Location
    value: Location
    needed_by: Location


def needed_by(pm: ParallelMove, preserve: str, value: Location) -> Location | None:
    """The first location (destinations first, in the move's order; then,
    under "all", the value's own location if it is in the register file and
    no destination) that must hold the original value of ``value`` at the
    end; None when nothing needs it (a dead value)."""
    for dst, src in pm.moves:
        if src == value:
            return dst
    if (preserve == "all" and value not in pm.source_of and pm.in_file(value)
            and value not in pm.temps):
        return value
    return None


def first_loss(pm: ParallelMove, ops: list[Operation], preserve: str) -> Loss | None:
    """The first operation after which a needed value has no copy left.

    ``holders[v]`` is the set of locations holding v's original value; it
    starts, for each v, as {v} (the start state) and is created when v is
    first moved, so the cost is linear in the sequence.  The state itself
    comes from ``step``, the one interpreter."""
    state: dict = {}
    holders: dict[Location, set[Location]] = {}

    def copies(value: Location) -> set[Location]:
        if value not in holders:  # untouched so far: only its own location
            holders[value] = {value}
        return holders[value]

    for index, op in enumerate(ops):
        written = list(dict.fromkeys(op.writes()))
        before = {loc: value_of(state, loc) for loc in written}
        step(state, op)
        for loc in written:
            copies(before[loc]).discard(loc)
        for loc in written:
            copies(value_of(state, loc)).add(loc)
        for loc in written:
            value = before[loc]
            if not copies(value):
                needer = needed_by(pm, preserve, value)
                if needer is not None:
                    return Loss(index, op, loc, value, needer)
    return None


def must_hold(pm: ParallelMove, preserve: str, loc: Location) -> str:
    """The final-state requirement of one location, as the table shows it."""
    if loc in pm.source_of:
        return loc_name(pm.source_of[loc])
    if loc in pm.temps:
        return "any"
    if not pm.in_file(loc):
        return "-"  # outside the file and not a temporary: may not be used
    return loc_name(loc) if preserve == "all" else "any"


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def _graph_lines(pm: ParallelMove) -> list[str]:
    g = analyse(pm)
    loops = [(d, s) for d, s in pm.moves if d == s]
    out = [f"transfer graph (edge src -> dst): {g.non_loop_moves} non-loop "
           f"move(s), {len(g.windmills)} windmill(s), {g.cycles} axle(s) "
           f"({g.bare_cycles} bare)"]
    for i, w in enumerate(g.windmills, 1):
        out.append(f"  windmill {i}: {', '.join(loc_name(x) for x in sorted_locations(w.locations))}")
        if w.cycle:
            ring = " -> ".join(loc_name(c) for c in (*w.cycle, w.cycle[0]))
            bare = " (bare: no blade)" if w.is_bare_cycle else ""
            out.append(f"    axle:   {ring}{bare}")
        else:
            out.append("    axle:   none (a tree)")
        blades = ", ".join(f"{loc_name(d)} <- {loc_name(s)}" for d, s in w.blades)
        out.append(f"    blades: {blades or 'none'}")
    if loops:
        out.append("  self-moves: " + ", ".join(f"{loc_name(d)} <- {loc_name(s)}"
                                                for d, s in loops))
    return out


def _contract_line(pm: ParallelMove, preserve: str) -> str:
    file = (f"r0..r{pm.registers - 1}" if pm.registers else "no register")\
        if pm.registers is not None else "the locations the moves name"
    temps = ", ".join(loc_name(t) for t in pm.temps) or "none"
    if preserve == "all":
        rest = f"every other location of the file ({file}) keeps its own"
    else:
        rest = f"every other location of the file ({file}) is dead"
    return (f'contract: preserve "{preserve}": each destination gets its '
            f"source's original value, {rest}; temporaries: {temps}")


def _columns(pm: ParallelMove, ops: list[Operation]) -> list[Location]:
    named = {x for m in pm.moves for x in m}
    touched = {x for op in ops for x in (*op.writes(), *reads(op))}
    regular = sorted_locations((named | touched) - set(pm.temps))
    return regular + [t for t in pm.temps]


def _table(pm: ParallelMove, preserve: str, ops: list[Operation]) -> list[str]:
    cols = _columns(pm, ops)
    rows: list[list[str]] = [["#", "operation", *(loc_name(c) for c in cols)]]
    state: dict = {}
    rows.append(["-", "start", *(loc_name(c) for c in cols)])
    for i, op in enumerate(ops):
        step(state, op)
        written = set(op.writes())
        rows.append([str(i), format_op(op), *(
            loc_name(value_of(state, c)) + ("*" if c in written else "") for c in cols)])
    rows.append(["", "must hold", *(must_hold(pm, preserve, c) for c in cols)])
    return _aligned(rows)


def _aligned(rows: list[list[str]]) -> list[str]:
    """The table's rows as lines, each column as wide as its widest cell."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
            for r in rows]


def _loss_line(loss: Loss | None, verdict_ok: bool) -> str:
    if loss is None:
        if verdict_ok:
            return "first value destroyed: none"
        return ("first value destroyed: none (every needed value keeps a copy "
                "after each operation; the values end in the wrong places)")
    keeps = " (it is no destination, so it keeps its own)" \
        if loss.needed_by == loss.value else ""
    return (f"first value destroyed: operation #{loss.index} "
            f"({format_op(loss.op)}) overwrote {loc_name(loss.location)}, the "
            f"last copy of the original value of {loc_name(loss.value)}, which "
            f"{loc_name(loss.needed_by)} must hold at the end{keeps}")


def explain(req: Request) -> tuple[str, int]:
    """The explanation of a request that carries a sequence, and the exit
    status ``check`` would give it."""
    pm = req.pm
    answer = check_request(req)
    parsed = read_sequence(req.sequence)
    lines = [f"move:     {pm}" if pm.moves else "move:     () (no moves)",
             _contract_line(pm, req.preserve),
             f"model:    {req.model}", ""]
    lines += _graph_lines(pm)
    lines.append("")
    if isinstance(parsed, Verdict):
        lines.append(f"the sequence cannot be run: {parsed.reason}")
        loss = None
    else:
        lines.append("state after each operation (each cell: whose original "
                     "value the location holds; * = written by it):")
        lines += _table(pm, req.preserve, parsed)
        lines.append("")
        loss = first_loss(pm, parsed, req.preserve)
        lines.append(_loss_line(loss, answer["ok"]))
    if answer["ok"]:
        best = answer.get("optimal")
        lines.append(f"verdict: RIGHT: the sequence implements the move "
                     f"({answer['length']} operation(s); optimum "
                     f"{'unknown' if best is None else best})")
    else:
        lines.append(f"verdict: WRONG: {answer['reason']}")
    lines.append(f"oracle:  {json.dumps(answer)}")
    return "\n".join(lines) + "\n", EXIT_OK if answer["ok"] else EXIT_WRONG


# ---------------------------------------------------------------------------
# Machines: the same, per unit
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitLoss:
    """Operation ``index`` overwrote ``unit``, the last unit holding the
    original value ``value`` (a unit's name), which ``needed_by`` (a unit)
    must hold at the end."""

    index: int
    op: object
    unit: str
    value: str
    needed_by: str


def unit_needed_by(mm: M.MachineMove, preserve: str, value: str) -> str | None:
    """The first unit (destinations' units first, in the move's order; then,
    under "all", the value's own unit when it is no destination's and no
    temporary's) that must hold ``value`` at the end; None: nothing needs
    it.  An immediate piece is never destroyed: it can be written again;
    the undefined value (the rest of a typed write) is never needed, nor
    are the units of a typed move's destination above its type."""
    if value.startswith("#") or value == M.UNDEFINED:
        return None
    want = mm.expected()
    for unit, v in want.items():
        if v == value:
            return unit
    if preserve == "all" and value not in mm.written() and value not in mm.temp_units():
        return value
    return None


def _operands(op) -> list:
    """The locations an operation names (a push's source, a pop's
    destination: the stack itself is shown in its own column)."""
    if isinstance(op, M.MPush):
        return [op.src]
    if isinstance(op, M.MPop):
        return [op.dst]
    return [op.dst, op.src] if isinstance(op, M.MMov) else [op.a, op.b]


def _written_units(m: M.Machine, op) -> list[str]:
    if isinstance(op, M.MPush):
        return []
    places = [op.dst] if isinstance(op, (M.MMov, M.MPop)) else [op.a, op.b]
    return list(dict.fromkeys(u for p in places for u in M.units(m, p)))


def machine_first_loss(mm: M.MachineMove, ops: list, preserve: str) -> UnitLoss | None:
    """``first_loss`` on a machine, unit by unit: the first operation after
    which some needed value is held by no unit (the state from
    ``core.machine.step``, the one interpreter)."""
    m = mm.machine
    state: dict = {}
    holders: dict[str, set[str]] = {}

    def copies(value: str) -> set[str]:
        if value not in holders:
            holders[value] = {value}
        return holders[value]

    for index, op in enumerate(ops):
        written = _written_units(m, op)
        before = {u: state.get(u, u) for u in written}
        M.step(m, state, op)
        for u in written:
            copies(before[u]).discard(u)
        for u in written:
            copies(state.get(u, u)).add(u)
        for u in written:
            value = before[u]
            if value in state.get(M.STACK, ()):
                continue  # pushed: the stack keeps a copy
            if not copies(value):
                needer = unit_needed_by(mm, preserve, value)
                if needer is not None:
                    return UnitLoss(index, op, u, value, needer)
    return None


def _machine_ops(m: M.Machine, raw: object) -> tuple[list, list[str], str | None]:
    """The operations that can be run (every one up to the first that cannot
    be parsed or split), why each illegal one is not an operation of the
    machine, and why the rest cannot be run (None: all can)."""
    if not isinstance(raw, list):
        return [], [], f'"sequence" must be a list of operations, not {json.dumps(raw)[:80]}'
    ops, lacks = [], []
    for i, value in enumerate(raw):
        try:
            op = M.parse_op(m, value)
        except PreconditionError as e:
            return ops, lacks, f"operation #{i}: {e}"
        split = M.parts(m, op)
        if isinstance(split, str):
            return ops, lacks, f"operation #{i}: {split}"
        why = M.illegal(m, op)
        if why is not None:
            lacks.append(f"#{i} ({M.format_mop(op)}): {why}")
        ops.append(op)
    return ops, lacks, None


def _machine_columns(mm: M.MachineMove, ops: list) -> tuple[list[str], list]:
    """The units shown (machine order, the temporaries' last) and the
    locations they belong to (moves, temporaries, operations)."""
    m = mm.machine
    places: list = []
    for d, s in mm.moves:
        places += [d] + ([s] if isinstance(s, M.Place) else [])
    for op in ops:
        for p in _operands(op):
            if isinstance(p, M.Place):
                places.append(p)
    temps = list(mm.temps)
    seen = {u for p in places for u in M.units(m, p)}
    temp_units = [u for t in temps for u in M.units(m, t)]
    regular = [u for u in m.units() if u in seen and u not in set(temp_units)]
    locations = list({str(p): p for p in places + temps}.values())
    return regular + temp_units, locations


def _unit_must_hold(mm: M.MachineMove, preserve: str, unit: str) -> str:
    want = mm.expected()
    if unit in want:
        return want[unit]
    if unit in mm.temp_units() or unit in mm.written():
        return "any"  # a temporary's, or the rest of a typed move's destination
    return unit if preserve == "all" else "any"


def _machine_table(mm: M.MachineMove, preserve: str, ops: list, cols: list[str]) -> list[str]:
    m = mm.machine
    stack = any(isinstance(op, (M.MPush, M.MPop)) for op in ops)
    extra = ["stack (top last)"] if stack else []
    rows: list[list[str]] = [["#", "operation", *cols, *extra],
                             ["-", "start", *cols, *(["-"] if stack else [])]]
    state: dict = {}
    for i, op in enumerate(ops):
        M.step(m, state, op)
        written = set(_written_units(m, op))
        mark = "" if M.illegal(m, op) is None else " (!)"
        words = [" ".join(state.get(M.STACK, ())) or "-"] if stack else []
        rows.append([str(i), M.format_mop(op) + mark, *(
            state.get(u, u) + ("*" if u in written else "") for u in cols), *words])
    rows.append(["", "must hold", *(_unit_must_hold(mm, preserve, u) for u in cols),
                 *(["-"] if stack else [])])
    return _aligned(rows)


def _unit_loss_line(loss: UnitLoss | None, verdict_ok: bool) -> str:
    if loss is None:
        if verdict_ok:
            return "first value destroyed: none"
        return ("first value destroyed: none (every needed value keeps a copy "
                "after each operation; the values end in the wrong places, or the "
                "sequence uses an operation the machine lacks)")
    keeps = " (it is no destination's, so it keeps its own)" \
        if loss.needed_by == loss.value else ""
    return (f"first value destroyed: operation #{loss.index} ({M.format_mop(loss.op)}) "
            f"overwrote unit {loss.unit}, the last copy of the original value of "
            f"{loss.value}, which unit {loss.needed_by} must hold at the end{keeps}")


def machine_columns_needed(req: M.MachineRequest) -> int:
    """How many unit columns the explanation of ``req`` prints (for the limit)."""
    ops, _, _ = _machine_ops(req.machine, req.sequence)
    return len(_machine_columns(req.move, ops)[0])


def explain_machine(req: M.MachineRequest) -> tuple[str, int]:
    """The explanation of a machine request that carries a sequence, and
    the exit status ``check`` would give it."""
    mm, m = req.move, req.machine
    answer = check_machine(req)
    ops, lacks, stop = _machine_ops(m, req.sequence)
    cols, locations = _machine_columns(mm, ops)
    temps = ", ".join(str(t) for t in mm.temps) or "none"
    rest = ("every other unit of the machine keeps its own" if req.preserve == "all"
            else "every other unit is dead")
    lines = [f"machine:  {m.name}",
             f"move:     {mm}" if mm.moves else "move:     () (no moves)",
             f'contract: preserve "{req.preserve}": each destination unit gets its '
             f"source's original value (or the immediate's piece), {rest}; "
             f"temporaries: {temps}", ""]
    lines.append("units per location (low unit first):")
    for loc in locations:
        lines.append(f"  {loc}: {' '.join(M.units(m, loc))}")
    lines.append("")
    lines.append("state after each operation (each cell: the original value the unit "
                 "holds, a unit's name, an immediate's piece #k, or ? (undefined: the rest "
                 "of a typed write); * = written by it; (!) = an operation the machine "
                 "lacks):")
    lines += _machine_table(mm, req.preserve, ops, cols)
    lines.append("")
    if stop is not None:
        lines.append(f"the sequence cannot be run further: {stop}")
        loss = None
    else:
        loss = machine_first_loss(mm, ops, req.preserve)
        lines.append(_unit_loss_line(loss, answer["ok"]))
    if lacks:
        lines += ["operations the machine lacks:"] + [f"  {x}" for x in lacks]
    else:
        lines.append("operations the machine lacks: none")
    if answer["ok"]:
        best = answer.get("optimal")
        lines.append(f"verdict: RIGHT: the sequence implements the move "
                     f"({answer['length']} operation(s), cost {answer.get('cost')}; optimum "
                     f"{'unknown' if best is None else best})")
    else:
        lines.append(f"verdict: WRONG: {answer['reason']}")
    lines.append(f"oracle:  {json.dumps(answer)}")
    return "\n".join(lines) + "\n", EXIT_OK if answer["ok"] else EXIT_WRONG


# ---------------------------------------------------------------------------
# Graphviz
# ---------------------------------------------------------------------------


def _dot_id(loc: Location) -> str:
    name = loc_name(loc).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{name}"'


def dot(pm: ParallelMove) -> str:
    """Graphviz text of the transfer graph: one cluster per windmill, edge
    src -> dst, the axle's edges bold red, self-moves dashed loops."""
    g = analyse(pm)
    out = ["digraph transfer_graph {",
           f"  // {pm}: edge src -> dst; bold red: an axle; dashed: a self-move",
           "  rankdir=LR;",
           '  node [shape=box, fontname="monospace"];']
    for i, w in enumerate(g.windmills, 1):
        axle = set(zip(w.cycle, w.cycle[1:] + w.cycle[:1])) if w.cycle else set()
        out += [f"  subgraph cluster_{i} {{",
                f'    label="windmill {i}";',
                "    " + " ".join(f"{_dot_id(x)};" for x in sorted_locations(w.locations))]
        for d, s in w.moves:
            style = " [color=red, penwidth=2]" if (s, d) in axle else ""
            out.append(f"    {_dot_id(s)} -> {_dot_id(d)}{style};")
        out.append("  }")
    for d, s in pm.moves:
        if d == s:
            out.append(f"  {_dot_id(s)} -> {_dot_id(d)} [style=dashed];")
    out.append("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Input and the command
# ---------------------------------------------------------------------------

HELP = """\
Explains one request and one sequence: the transfer graph (windmills, axles,
blades), the state after every operation, the first operation that destroyed
a value still needed, and the oracle's verdict (the answer `verified check`
gives).

input, one of:
  --request JSON --sequence JSON   a request (the fields of `verified check`)
                                   and the sequence to explain
  --request JSON                   a request that carries its "sequence"
  FILE or stdin                    one JSON document: a request with its
                                   "sequence"; or conform's smallest case
                                   ({"request": ..., "answer": ...}); or a
                                   whole `verified conform --json` report (its
                                   smallest failing case is explained)

A machine request ("machine": a preset or a machine object, docs/machines.md)
or a `conform --machine --json` report is explained per unit: the units of
each location, every unit after every operation (an immediate's pieces as
#k), the first value destroyed, the operations the machine lacks, the verdict.

--dot prints the transfer graph as Graphviz text instead (no sequence needed):
  verified explain --dot --request '{"moves": [[1,0],[0,1]], "model": "swap"}' | dot -Tsvg

exit status (docs/exit-codes.md): 0 the sequence is right; 1 it is wrong;
2 bad input (and --dot: 0 once the request is valid).

examples:
  verified explain --request '{"moves": [[1,0],[2,1]], "model": "swap"}' \\
                   --sequence '[["mov",1,0],["mov",2,1]]'
  verified explain --request '{"machine": "x86-64", "moves": [["m0","m1"],["m1","m0"]]}' \\
                   --sequence '[["swap","m0","m1"]]'
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="a JSON document (default: stdin; - is stdin)")
    parser.add_argument("--request", metavar="JSON", help="the request, as JSON")
    parser.add_argument("--sequence", metavar="JSON", help="the sequence, as JSON")
    parser.add_argument("--dot", action="store_true",
                        help="print the transfer graph as Graphviz text")


def _argument_bytes(text: str) -> bytes:
    """A command-line argument's own bytes: an argument that is not UTF-8
    reaches Python with its bad bytes as surrogates (PEP 383), which a plain
    encode refuses; given back as bytes, the reader names the bad byte."""
    return os.fsencode(text)


def _json(text: bytes, what: str) -> object:
    try:
        return decode_line(text)
    except PreconditionError as e:
        raise PreconditionError(f"{what}: {str(e).replace('line is', 'it is')}") from None


def _from_document(doc: object) -> tuple[object, object, bool]:
    """(request, sequence or None, sequence given?) from a document."""
    if isinstance(doc, dict) and "smallest_failure" in doc:
        doc = doc["smallest_failure"]
    elif isinstance(doc, dict) and "program" in doc and "cases" in doc:
        raise PreconditionError("the conform report has no failing case: nothing "
                                "to explain")
    if isinstance(doc, dict) and "request" in doc and "answer" in doc:
        answer = doc["answer"]
        if isinstance(answer, str):
            answer = _json(answer.encode("utf-8"), "the case's answer")
        if not isinstance(answer, dict) or "sequence" not in answer:
            raise PreconditionError(
                f"the case's answer has no \"sequence\" to explain: "
                f"{json.dumps(answer)[:200]}")
        return doc["request"], answer["sequence"], True
    if isinstance(doc, dict) and "sequence" in doc:
        rest = {k: v for k, v in doc.items() if k != "sequence"}
        return rest, doc["sequence"], True
    return doc, None, False


def _read_input(args: argparse.Namespace) -> tuple[object, object, bool]:
    if args.request is not None:
        if args.file is not None:
            raise PreconditionError("give the request once: --request or a FILE, not both")
        return _from_document(_json(_argument_bytes(args.request), "--request"))
    if args.file in (None, "-"):
        data = sys.stdin.buffer.read()
        where = "stdin"
    else:
        try:
            with open(args.file, "rb") as f:
                data = f.read()
        except OSError as e:
            raise PreconditionError(f"cannot read {args.file}: {e.strerror or e}") from None
        where = args.file
    if not data.strip():
        raise PreconditionError(f"{where} is empty: give a request and a sequence "
                                "(see `verified explain --help`)")
    return _from_document(_json(data, where))


def _check_size(sequence: object, columns: int, what: str) -> None:
    ops = sequence if isinstance(sequence, list) else []
    if len(ops) > MAX_OPERATIONS or columns > MAX_COLUMNS:
        raise PreconditionError(
            f"explain prints every {what[:-1]} after every operation: at most "
            f"{MAX_COLUMNS} {what} and {MAX_OPERATIONS} operations (this "
            f"case: {columns} and {len(ops)}); shrink the case first "
            f"(`verified conform` shrinks its failures)")


def run(args: argparse.Namespace) -> int:
    try:
        request, sequence, given = _read_input(args)
        if args.sequence is not None:
            if given:
                raise PreconditionError("the sequence is given twice: in the input "
                                        "and by --sequence")
            sequence, given = _json(_argument_bytes(args.sequence), "--sequence"), True
        if isinstance(request, dict) and "sequence" in request:
            raise PreconditionError("the sequence is given twice")
        req = parse_any(request, need_sequence=False)
        if isinstance(req, M.MachineRequest):
            if args.dot:
                raise PreconditionError("--dot draws the transfer graph of a register "
                                        "request; a machine request has none yet")
            if not given:
                raise PreconditionError('no sequence to explain: add "sequence" to the '
                                        'request or give --sequence')
            req = M.MachineRequest(req.move, req.preserve, sequence, req.id)
            _check_size(sequence, 0, "units")
            _check_size(sequence, machine_columns_needed(req), "units")
            text, status = explain_machine(req)
        else:
            if args.dot:
                sys.stdout.write(dot(req.pm))
                return EXIT_OK
            if not given:
                raise PreconditionError('no sequence to explain: add "sequence" to the '
                                        'request or give --sequence')
            req = Request(req.pm, req.model, req.preserve, sequence, req.id)
            _check_size(sequence, len({x for m in req.pm.moves for x in m}), "locations")
            text, status = explain(req)
    except PreconditionError as e:
        print(f"verified explain: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return status
