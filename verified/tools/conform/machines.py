"""Parallel moves on a machine (``conform --machine``, ``docs/machines.md``):
the request a program gets, how its ``{"sequence": [...]}`` answer is
judged (``core.machine.implements``: the verdict ``verified check`` gives
the same request with that sequence), when declining is right, our
reference sequence (``verified solve --algorithm resolve``), the gap in
cost to the optimum, and shrinking (``cases.machines``: kind and class
kept).

One request shape: every request carries the machine as an object
(``request_machine``), in every mode: the small machine
``cases.machines.small_machine`` derives for exhaustive runs, the whole
machine (a preset expanded, or a ``--machine FILE.json`` as read) for
random ones.  Never a preset's name: a name would make every adapter keep
its own copy of each preset, in step with this version's presets, and a
request would mean a different machine when a preset changes; an object
reads with the kits' one machine parser (docs/clients.md) and a printed
``verified check`` command reproduces its verdict on any version."""

from __future__ import annotations

import functools
import json
import random
import re
import shlex
from dataclasses import dataclass

from ...algorithms import solve_machine
from ...cases import machines as gen
from ...core import machine as M
from ...core import oracle
from ...core.machine.description import MEMO_LIMIT
from ...core.memo import remember
from ...core.semantics import PreconditionError
from ..wire import ANSWER_EMPTY, ANSWER_HEAD, ANSWER_TAIL, PIECE_SEP, decode_line
from .checker import CaseType, Judgement, decode_answer

#: our reference resolver for machines (``verified solve --algorithm resolve``)
REFERENCE = "resolve"
#: answer lines ``MachineType.correct`` remembers (then it starts afresh),
#: and the longest it keeps
LINE_MEMO_SIZE = 1 << 16
LINE_MEMO_MAX_LINE = 1 << 16
#: operation texts ``_op_of_text`` remembers, and the longest it keeps
_OP_TEXT_SIZE = 1 << 14
_OP_TEXT_MAX = 128


def load_machine(spec: str) -> M.Machine:
    """``--machine PRESET|FILE.json``: the machine.  PreconditionError says
    what is wrong, naming the presets."""
    if spec in M.PRESETS or spec in M.PROFILES:
        return M.preset(spec)
    if not spec.endswith(".json"):
        raise PreconditionError(
            f"--machine {spec}: not a preset ({', '.join(M.PRESETS)}), a profile "
            f"({', '.join(M.PROFILES)}) nor a .json file of a machine object "
            f"(docs/machines.md); `verified machines` lists the presets and profiles")
    try:
        with open(spec, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PreconditionError(f"--machine {spec}: cannot read it: {e.strerror or e}") from None
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicate_keys,
                         parse_constant=_no_constant)
    except PreconditionError as e:
        raise PreconditionError(f"--machine {spec}: {e}") from None
    except (ValueError, RecursionError) as e:
        raise PreconditionError(f"--machine {spec}: not JSON ({e})") from None
    try:
        return M.machine_from_json(obj)
    except PreconditionError as e:
        raise PreconditionError(f"--machine {spec}: {e}") from None


def request_machine(m: M.Machine) -> dict:
    """What ``"machine"`` says in every request on ``m``: its whole object
    (``Machine.to_json``, every field written out, defaults included), so
    that an adapter reads the machine from the request alone."""
    return m.to_json()


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    # as in a request line (tools/wire.py): "last one wins" would test a
    # machine the file's author did not mean
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise PreconditionError(f"the key {json.dumps(key)} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> object:
    raise PreconditionError(f"not JSON: {name} is not a JSON value")


@dataclass(frozen=True)
class MachineType(CaseType):
    """Machine requests on one machine (``spec``: the machine object every
    request carries as ``"machine"``, ``request_machine``), with declared
    temporaries (names) and a contract.  ``places`` are the sites the cases
    are drawn from (shrinking renames within them)."""

    spec: dict
    temps: tuple[str, ...] = ()
    preserve: str = "all"
    places: tuple = ()
    label: str = ""

    answer_key = "sequence"
    answer_noun = "sequence"

    @classmethod
    def on(cls, m: M.Machine, temps: tuple[str, ...] = (), preserve: str = "all",
           places: tuple = ()) -> "MachineType":
        """Requests on ``m``, which each carry it whole."""
        return cls(request_machine(m), tuple(temps), preserve, places, m.name)

    def __post_init__(self) -> None:
        if not isinstance(self.spec, dict):  # one shape: never a preset's name
            raise TypeError(f"MachineType needs a machine object, not {self.spec!r}")

    @functools.cached_property
    def machine(self) -> M.Machine:
        return M.machine(self.spec)

    # -- the wire ----------------------------------------------------------

    def request(self, case: gen.MachineCase) -> dict:
        req = {"machine": self.spec, "moves": gen.moves_json(case), "temps": list(self.temps)}
        if self.preserve != "all":
            req["preserve"] = self.preserve
        return req

    def encode(self, case: gen.MachineCase) -> bytes:
        """``json.dumps(self.request(case))`` plus a newline, from the
        machine object's text made once and each move's text remembered (the
        writer's hot path, issue 20: the machine object was dumped afresh
        for every request; the tests compare the two)."""
        text = self._move_text
        moves = []
        for mv in case.moves:
            t = text.get(mv)
            if t is None:
                t = json.dumps(gen.moves_json(gen.MachineCase((mv,)))[0])
                if len(text) < MEMO_LIMIT:
                    text[mv] = t
            moves.append(t)
        return f'{self._head}[{", ".join(moves)}]{self._tail}'.encode()

    @functools.cached_property
    def _head(self) -> str:
        return f'{{"machine": {json.dumps(self.spec)}, "moves": '

    @functools.cached_property
    def _tail(self) -> str:
        return (f', "temps": {json.dumps(list(self.temps))}'
                + (f', "preserve": {json.dumps(self.preserve)}' if self.preserve != "all" else "")
                + "}\n")

    @functools.cached_property
    def _move_text(self) -> dict:
        return {}

    def decode(self, request: dict) -> gen.MachineCase:
        m = self.machine
        return gen.MachineCase(tuple(
            (M.parse_loc(m, mv[0], allow_imm=False), M.parse_loc(m, mv[1]), *mv[2:])
            for mv in request["moves"]))

    def move(self, case: gen.MachineCase) -> M.MachineMove:
        # our own request: every generator's output is validated with
        # MachineMove.make in tests/conform; the answer is what is checked.
        # A typed case's moves are (dst, src, type) triples (cases.machines)
        moves = case.moves
        types = tuple([mv[2] if len(mv) > 2 else None for mv in moves])
        return M.MachineMove(self.machine, tuple([mv[:2] for mv in moves]),
                             self._temp_places, types if any(types) else ())

    @functools.cached_property
    def _temp_places(self) -> tuple:
        return tuple(M.Place((t,)) for t in self.temps)

    # -- judging -------------------------------------------------------------

    def judge(self, case: gen.MachineCase, answer: object) -> Judgement:
        m = self.machine
        ops = M.read_machine_sequence(m, answer)
        if isinstance(ops, M.MachineVerdict):
            return Judgement(False, ops.to_json())
        # read_machine_sequence has judged every operation's legality (the
        # verdict ``verified check`` gives): run and judge the contract, as
        # check does, without ``implements``' second legality pass
        verdict = M.judge(self.move(case), M.execute(m, ops), self.preserve, len(ops),
                          M.cost(m, ops))
        return Judgement(verdict.ok, verdict.to_json(), verdict.cost)

    def correct(self, case: gen.MachineCase, line: bytes) -> bool:
        """``CaseType.correct``: the answer line read, run and costed once
        per distinct line (``_run_of``), then judged against the case as
        ``judge`` does; any doubt (and any exception) is False, and
        ``classify`` then says why."""
        try:
            run = self._run_of(line)
            if run is None:
                return False
            length, state, total = run
            return M.judge(self.move(case), state, self.preserve, length, total).ok
        except Exception:
            return False

    def _run_of(self, line: bytes) -> tuple | None:
        """(length, final state, cost) of an answer line that is an object
        with exactly one field, a ``"sequence"`` of legal operations (as
        ``classify`` and ``judge`` read it), else None.  A pure function of
        the line on this machine, remembered: answers repeat (issue 20:
        about half the answers of the x86-64 exhaustive run are a line seen
        before); callers only read the state."""
        memo = self._line_memo
        got = memo.get(line, memo)
        if got is not memo:
            return got
        m = self.machine
        ops = self._ops_of_pieces(line)
        if ops is None:  # not written the usual way: the line decoded whole
            obj = decode_answer(line)
            if type(obj) is dict and len(obj) == 1 and self.answer_key in obj:
                ops = M.read_machine_sequence(m, obj[self.answer_key])
        run = None
        if type(ops) is list:
            run = (len(ops), M.execute(m, ops), M.cost(m, ops))
        if len(line) <= LINE_MEMO_MAX_LINE:  # a huge line would stay alive in the memo
            remember(memo, line, run, LINE_MEMO_SIZE)
        return run

    @functools.cached_property
    def _line_memo(self) -> dict:
        return {}

    def _ops_of_pieces(self, line: bytes) -> "list | bool | None":
        """What ``read_machine_sequence`` makes of the sequence of an answer
        line written ``{"sequence": [[...], ..., [...]]}`` (each operation
        in brackets, ", " between them), read from the texts of its
        operations, each remembered (``_op_of_text``): the operations, or
        False when one is not a legal operation (a verdict: no run); None
        when the line is not written so, or a piece is not one JSON value
        alone: the caller decodes the line whole.  Why it is the line's own
        reading: as ``moves._op_facts_of`` (JSON values joined by ", "
        inside brackets are the array of exactly those values, and an
        object with the one key "sequence" has no duplicate key), and
        ``read_machine_sequence`` reads each operation alone (issue 20:
        decoding and reading each distinct answer line was about half of
        judging the x86-64 exhaustive run)."""
        if line == ANSWER_EMPTY:
            return []
        if not (line.startswith(ANSWER_HEAD) and line.endswith(ANSWER_TAIL)
                and len(ANSWER_HEAD) + len(ANSWER_TAIL) <= len(line) <= LINE_MEMO_MAX_LINE):
            return None
        ops = []
        texts = self._op_text
        for piece in line[len(ANSWER_HEAD):-len(ANSWER_TAIL)].split(PIECE_SEP):
            got = texts.get(piece)
            if got is None:
                got = self._op_of_text(piece)
            if got is False:
                return None
            if got is True:
                return False
            ops.append(got)
        return ops

    def _op_of_text(self, piece: bytes) -> "object | bool":
        """The operation the text ``[piece]`` reads as, when the machine has it
        (``oracle._read_op``); True when it is a value that is no legal
        operation (``read_machine_sequence`` gives a verdict); False when
        it is not one JSON value.  Kept in ``_op_text`` (bounded)."""
        got: object = False
        try:
            value = decode_line(b"[" + piece + b"]")
        except PreconditionError:
            pass
        else:
            ops = M.read_machine_sequence(self.machine, [value])
            got = ops[0] if type(ops) is list else True
        texts = self._op_text
        if len(piece) <= _OP_TEXT_MAX:
            remember(texts, piece, got, _OP_TEXT_SIZE)
        return got

    @functools.cached_property
    def _op_text(self) -> dict:
        return {}

    def _optimum(self, case: gen.MachineCase) -> M.MachineOptimum:
        from ..check import machine_optimum
        return machine_optimum(M.MachineRequest(self.move(case), self.preserve))

    def solvable(self, case: gen.MachineCase) -> bool:
        """Does a legal sequence exist?  Our resolver's answer (it declines
        only when none exists: its contract, checked by the tests against
        the optimum's search); where it gives none, the optimum decides.
        First the resolver's own refusal lemmas (``machine_optimum.
        no_free_unit``, ``unreachable_goal``): where one proves that no
        sequence exists, the resolver declines too (its every sequence is
        judged by the oracle) after its greedy steps have tried every way
        (issue 20: on x86-64 they were most of conform's CPU; the tests
        check that the two agree on every case of the x86-64 run at 2
        moves)."""
        from ...algorithms import machine_optimum as O
        mm = self.move(case)
        if O.no_free_unit(mm, self.preserve) or O.unreachable_goal(mm, self.preserve):
            return False
        ours, _ = self.reference(case)
        if ours is not None:
            return True
        best = self._optimum(case)
        return best.cost is not None

    def gap(self, case: gen.MachineCase, judgement: Judgement) -> int | None:
        """Answer cost - the optimum's cost (None: not known)."""
        best = self._optimum(case)
        if best.cost is None or judgement.length is None:
            return None
        return judgement.length - best.cost

    def reference(self, case: gen.MachineCase) -> tuple[object | None, str]:
        mm = self.move(case)
        try:
            ops = solve_machine(REFERENCE, mm, self.preserve)
        except PreconditionError as e:
            return None, f"our {REFERENCE} gives no sequence here: {e}"
        # the registry judged the output with the oracle (a wrong one raises
        # PostconditionError: an internal error, never a witness); judge it
        # here only when that check is off (VERIFIED_CONTRACTS=0)
        verdict = None if oracle.CONTRACTS_ON else M.implements(mm, ops, self.preserve)
        if verdict is not None and not verdict.ok:
            return None, f"our {REFERENCE} is wrong here ({verdict.reason}): please report"
        return [op.to_json() for op in ops], f"verified solve --algorithm {REFERENCE}"

    # -- reporting and shrinking -------------------------------------------

    def size(self, case: gen.MachineCase) -> tuple:
        return gen.size(case, self.places)

    def shrink_candidates(self, case: gen.MachineCase) -> list:
        return gen.shrink_candidates(case, self.places)

    def describe(self, case: gen.MachineCase) -> str:
        return gen.format_case(case)

    def failure_class(self, case: gen.MachineCase, answer: object, verdict: dict) -> str:
        """The kind of mistake, every location by its kind and class
        (``docs/conform.md``, "Failure classes"; ``location_label``)."""
        return machine_failure_class(self.machine, self.move(case), answer, verdict)

    def explain_command(self, case: gen.MachineCase, answer: object) -> str:
        """``verified explain`` on the request and the answer's sequence."""
        return ("verified explain --request " + shlex.quote(json.dumps(self.request(case)))
                + " --sequence " + shlex.quote(json.dumps(answer)))

    def check_command(self, case: gen.MachineCase, answer: object) -> str:
        """The request with the answer's sequence, fed to ``verified check``
        (which gives the same verdict)."""
        req = self.request(case)
        req["sequence"] = answer
        return f"echo {shlex.quote(json.dumps(req))} | verified check"



# ---------------------------------------------------------------------------
# Failure classes
# ---------------------------------------------------------------------------


def location_label(m: M.Machine, loc: M.MLoc) -> str:
    """A location by kind rather than name: its register class (``gpr``),
    ``slot`` (whatever its width: a slot swap is one bug on any slots),
    ``imm``; a list, its parts' labels in brackets (``[gpr, gpr]``)."""
    if isinstance(loc, M.Imm):
        return "imm"
    labels = [_name_label(m, p) for p in loc.parts]
    return f"[{', '.join(labels)}]" if loc.is_list else labels[0]


def _name_label(m: M.Machine, name: str) -> str:
    r = m.lookup(name)
    return str(r.cls) if r.kind == "reg" else "slot"


def _generalise(m: M.Machine, text: str, names: set[str]) -> str:
    """A reason with each of ``names`` (the operation's operands) as its
    label; the rest (the machine's name, widths) as written."""
    def word(match) -> str:
        w = match.group(0)
        return _name_label(m, w) if w in names else w
    return re.sub(r"[A-Za-z_][A-Za-z0-9_.]*", word, text)


def _loc(m: M.Machine, raw: object) -> M.MLoc | None:
    try:
        return M.parse_loc(m, raw)
    except PreconditionError:
        return None


def machine_failure_class(m: M.Machine, mm: M.MachineMove, answer: object,
                          verdict: dict) -> str:
    """The class of a wrong machine sequence: an illegal operation (its
    shape by operand labels and why the machine lacks it), a malformed one,
    or a wrong unit: which destination (by label) holds what instead
    (``_held_kind``), or which non-destination was clobbered."""
    cx = verdict.get("counterexample")
    index = verdict.get("operation")
    if cx is None:
        if str(verdict.get("reason", "")).startswith("the stack is left with"):
            return "unbalanced stack: words left pushed at the end"
        if index is None or not isinstance(answer, list):
            return "malformed: the sequence is not a list of operations"
        try:
            op = M.parse_op(m, answer[index])
        except PreconditionError:
            raw = answer[index]
            name = raw[0] if isinstance(raw, list) and raw and isinstance(raw[0], str) else None
            return "malformed operation" + (f" ({json.dumps(name)})" if name else "")
        if isinstance(op, (M.MPush, M.MPop)):
            loc = op.src if isinstance(op, M.MPush) else op.dst
            if "a pop from an empty stack" in str(verdict.get("reason", "")):
                return f"pop from an empty stack: pop {location_label(m, loc)}"
            x, y = loc, loc
            shape = f"{answer[index][0]} {location_label(m, loc)}"
        else:
            x, y = (op.dst, op.src) if isinstance(op, M.MMov) else (op.a, op.b)
            shape = f"{answer[index][0]} {location_label(m, x)}, {location_label(m, y)}"
        why = verdict.get("reason", "")
        why = re.sub(r"^operation #\d+: ", "", why)
        text = M.format_mop(op)
        why = why[len(text):].lstrip() if why.startswith(text) else why
        names = {p for loc in (x, y) if isinstance(loc, M.Place) for p in loc.parts}
        return f"illegal operation: {shape}: {_generalise(m, why, names)}"
    unit = cx.get("unit")
    got = str(cx.get("got"))
    dest = [(d, s) for d, s in mm.moves if unit in M.units(m, d)]
    if dest:
        d, s = dest[0]
        wanted = "the immediate" if isinstance(s, M.Imm) else "its source's value"
        return (f"wrong value: a {location_label(m, d)} destination holds "
                f"{_held_kind(mm, d, s, got)}, not {wanted}")
    name = cx.get("location")
    where = _loc(m, name)
    label = location_label(m, where) if where is not None else str(name)
    sources = {u for _, s in mm.moves for u in M.units(m, s)}
    role = "a source" if unit in sources else "not in the move"
    return (f"clobbered: a {label} that is no destination ({role}) holds "
            f"{_held_kind(mm, None, None, got)}")


def _held_kind(mm: M.MachineMove, d, s, got: str) -> str:
    """What a wrong unit holds, by kind (not by where it came from: one bug
    moves values of every class): an undefined value (the rest of a typed
    write's destination), an immediate piece, its own old value, a
    temporary's leftover, another part of its own source (a pair shifted),
    another source's value, an unmoved location's value."""
    m = mm.machine
    if got == M.UNDEFINED:
        return "an undefined value (the rest of a typed write)"
    if got.startswith("#"):
        return "an immediate piece" if not isinstance(s, M.Imm) else "a wrong immediate piece"
    if d is not None and got in M.units(m, d):
        return "its own old value"
    if got in mm.temp_units():
        return "a temporary's leftover"
    if s is not None and not isinstance(s, M.Imm) and got in M.units(m, s):
        return "another unit of its own source"
    if any(got in M.units(m, src) for _, src in mm.moves):
        return "another source's value"
    return "an unmoved location's value"


def ordered(cases, order: str, seed: object):
    """``cases`` with their moves listed ``order`` (sorted: as generated, in
    the order of the machine's sites; reversed; shuffled from ``seed``): a
    parallel move is a set, and a resolver must not depend on its order."""
    if order == "sorted":
        return cases
    if order == "reversed":
        return (gen.MachineCase(c.moves[::-1]) for c in cases)
    rng = random.Random(f"verified-conform-machine-order:{order}:{seed}")

    def shuffled(c: gen.MachineCase) -> gen.MachineCase:
        moves = list(c.moves)
        rng.shuffle(moves)
        return gen.MachineCase(tuple(moves))
    return (shuffled(c) for c in cases)
