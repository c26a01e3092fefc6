"""Parallel-move cases (``docs/protocol.md``): the request a program gets,
how its ``{"sequence": [...]}`` answer is judged (``oracle.implements``, the
one interpreter, the same verdict as ``verified check``), when declining is
right, our reference sequence, the optimum's gap, and shrinking.

The requests come from ``verified.cases``: every move over 1..N registers
(``exhaustive_cases``), seeded random ones (``random_case_stream``), or every
move up to renaming (``shape_cases``)."""

from __future__ import annotations

import functools
import itertools
from itertools import chain, filterfalse
import random as gen_random
import json
import shlex
from dataclasses import dataclass

from ... import cases as gen
from ...core.memo import remember
from ...core.oracle import (
    Effect, Verdict, effect, effect_of_facts, implements, implements_effect,
    read_sequence_memo)
from ...core.semantics import (
    MODELS,
    Location,
    ParallelMove,
    PreconditionError,
    execute,
    loc_name,
    operation,
)
from ..wire import ANSWER_EMPTY, ANSWER_HEAD, ANSWER_TAIL, OP_TEXT, learn_op_text, texts_read
from .checker import CaseType, Judgement, decode_answer

#: Our reference algorithm per model (registered in ``verified.algorithms``,
#: optimal and correct there; ``tests/conform`` checks both): the witness
#: that a refused case has a sequence, and "ours" in the optimality report.
#: The spill model has load and store besides mov; the temp model's
#: sequences are spill-model sequences, and since ``semantics.step`` runs a
#: load or a store as a copy (a mov with typed operands), the temp optimum
#: with the same temporaries is the spill optimum.
REFERENCE = {"temp": "mincopy", "swap": "shuf", "permi": "permi-optimal", "spill": "mincopy"}

#: The model whose optimum a model's answers are measured against.
OPTIMUM_MODEL = {"temp": "temp", "swap": "swap", "permi": "permi", "spill": "temp"}

#: Default temporaries per model: a register-like "t" for temp, a stack slot
#: for spill (reached with load/store, or mov), none for swap and permi.
DEFAULT_TEMPS: dict[str, list[Location]] = {"temp": ["t"], "spill": ["m0"], "swap": [], "permi": []}

#: ``oracle.read_sequence`` memoised per operation (one memo for conform
#: and ``verified check``)
parse_sequence = read_sequence_memo
_new_tuple = tuple.__new__


#: answer line -> the Effect of its operations (None: not a plain,
#: well-formed sequence answer); bounded, emptied when full
_LINE_MEMO: dict = {}
_LINE_MEMO_SIZE = 1 << 16
#: the longest line the memo keeps (a 48 MB garbage line was held there
#: through the rest of the run, its replay alone included)
_LINE_MEMO_MAX_LINE = 1 << 16
#: (model, temps) -> answer line -> its ``settled`` pairs (None: judged the
#: usual way); each bounded like ``_LINE_MEMO``
_SETTLED: dict = {}


def answer_effect(line: bytes) -> "Effect | None":
    """The operations of an answer line that is an object with a
    well-formed ``"sequence"``, as an ``oracle.Effect`` (run once, judged
    against each move by ``implements_effect``), else None.  A pure
    function of the bytes (``decoded_effect``; a line written the usual
    way is read from its operations' texts, ``_op_facts_of``), memoised
    on them: answers repeat (the same sequence answers every register
    count the move fits in), and a repeated line costs one dictionary
    look-up.  Callers only read it."""
    memo = _LINE_MEMO
    got = memo.get(line, memo)
    if got is not memo:
        return got
    eff = _line_effect(line)
    if len(line) > _LINE_MEMO_MAX_LINE:
        return eff  # not kept: a huge line would stay alive in the memo
    return remember(memo, line, eff, _LINE_MEMO_SIZE)


def _line_effect(line: bytes) -> "Effect | None":
    """``answer_effect`` without its memo."""
    facts = _op_facts_of(line)
    return decoded_effect(line) if facts is None else effect_of_facts(facts)


#: every self-move ``(d, d)`` the settled test leaves out of a move (on
#: r0..r1023; a self-move beyond sends the case the long way)
_SELF_MOVES = frozenset((d, d) for d in range(1 << 10))
_is_self_move = _SELF_MOVES.__contains__
#: the operation classes of each model, as a set (as ``implements_effect``)
_MODEL_KINDS = {model: frozenset(kinds) for model, kinds in MODELS.items()}


def settled(eff: Effect, model: str, temps: tuple) -> "tuple | None":
    """``(eff.top, changed)``, where ``changed`` lists the registers whose
    value ``eff.state`` changes, each as the pair (register, the value it
    ends with), by register, when ``implements_effect`` judges ``eff`` by
    ``judge`` on its state for any move in this model with these
    temporaries over at least ``eff.top`` registers (its operations are the
    model's, the other locations it names are declared temporaries); else
    None.

    ``changed`` is what ``sure_until`` compares a move with: when a valid
    move (distinct destinations) over ``registers >= eff.top`` lists
    exactly the pairs of ``changed`` once its self-moves are left out,
    ``judge`` finds it right under either contract: each destination holds
    its source (a pair of ``changed``: the value the state leaves; a
    self-move's register: not in ``changed``, so unchanged), and every
    register that holds another value than its own is in ``changed``, so a
    destination, never clobbered.  Any other move is judged the usual way
    (``implements_effect``): this is a sufficient test, never a second
    opinion."""
    if not eff.kinds <= _MODEL_KINDS[model] or (eff.names and not eff.names <= frozenset(temps)) \
            or type(eff.ops) is not list:
        return None
    return _changed(eff.top, eff.state)


def _changed(top: int, state: dict) -> tuple:
    changed = [(loc, got) for loc, got in state.items() if got != loc and type(loc) is int]
    changed.sort()
    return (top, tuple(changed))


def settled_of_facts(facts: list, model: str, temps: tuple) -> "tuple | None":
    """``settled(effect_of_facts(facts), model, temps)`` without building
    the ``Effect`` (a new answer line's cost: most lines are judged once
    or a few times)."""
    if not facts:
        return (0, ())
    ops, kinds, tops, names = zip(*facts)
    if not _MODEL_KINDS[model].issuperset(kinds) or (
            any(names) and not frozenset(temps).issuperset(chain.from_iterable(names))):
        return None
    return _changed(max(tops), execute(ops))


def decoded_effect(line: bytes) -> "Effect | None":
    """``answer_effect`` the long way, unmemoised: the line decoded
    (``decode_answer``), its sequence read (``parse_sequence``) and run
    (``oracle.effect``)."""
    obj = decode_answer(line)
    # exactly one field, as classify requires: {"sequence": [], "unsupported": "x"} is garbage
    if type(obj) is dict and len(obj) == 1 and "sequence" in obj:
        parsed = parse_sequence(obj["sequence"])
        if type(parsed) is list:
            return effect(parsed)
    return None


def _op_facts_of(line: bytes) -> "list | None":
    """The ``op_facts`` of the operations of ``{"sequence": [[...], ...,
    [...]]}`` written exactly so (each operation in brackets, ", " between
    them, no other space), when the text of each operation is one seen
    before alone (``wire.OP_TEXT``, one memo with check's request lines); else None, and the caller decodes the line.

    Why this is the line's own reading, not a second parser: each piece
    between the separators, in brackets, was decoded on its own by the
    strict reader (``wire.decode_line``) and read by ``parse_sequence``; JSON
    values joined by ", " inside "[...]" are an array of exactly those
    values (however the text was cut: a piece that is not a whole value
    on its own fails and the line goes the long way), the separators are
    ASCII (so the line is UTF-8 when each piece is), and an object with the
    single key "sequence" has no duplicate key.  So decoding the line gives
    ``{"sequence": [v1, ..., vk]}`` and ``parse_sequence`` the operations
    of the pieces, each read alone."""
    if line == ANSWER_EMPTY:
        return []
    if not (line.startswith(ANSWER_HEAD) and line.endswith(ANSWER_TAIL)
            and len(ANSWER_HEAD) + len(ANSWER_TAIL) <= len(line) <= _LINE_MEMO_MAX_LINE):
        return None
    return texts_read(line[len(ANSWER_HEAD):-len(ANSWER_TAIL)], OP_TEXT, learn_op_text)


class _PairText(dict):
    """(dst, src) -> its JSON text "[dst, src]", kept for the first 2^16
    pairs seen (requests repeat the same few pairs)."""

    def __missing__(self, pair: tuple) -> str:
        text = f"[{pair[0]}, {pair[1]}]"
        if len(self) < 1 << 16:
            self[pair] = text
        return text


_PAIR_TEXT = _PairText()


def format_moves(case: gen.Case) -> str:
    return "(" + ", ".join(f"{loc_name(d)} <- {loc_name(s)}" for d, s in case.moves) + ")"


@dataclass(frozen=True)
class MoveType(CaseType):
    """Parallel-move requests in one model and contract, with the declared
    temporaries; ``fan_out=False`` keeps shrinking inside the out-degree-1
    domain (``--no-fan-out``)."""

    model: str
    temps: tuple[Location, ...] = ()
    preserve: str = "all"
    fan_out: bool = True

    answer_key = "sequence"
    answer_noun = "sequence"

    def request(self, case: gen.Case) -> dict:
        req = {"moves": [list(m) for m in case.moves], "model": self.model,
               "temps": list(self.temps)}
        if self.preserve != "all":
            req["preserve"] = self.preserve
        req["registers"] = case.registers
        return req

    def encode(self, case: gen.Case) -> bytes:
        """``json.dumps(self.request(case))`` plus a newline, built by hand
        (the writer's hot path; the tests compare the two)."""
        moves = ", ".join(map(_PAIR_TEXT.__getitem__, case.moves))
        return f'{{"moves": [{moves}]{self._tail}{case.registers}}}\n'.encode()

    @functools.cached_property
    def _tail(self) -> str:
        return (f', "model": {json.dumps(self.model)}, "temps": '
                f'{json.dumps(list(self.temps))}'
                + (f', "preserve": {json.dumps(self.preserve)}'
                   if self.preserve != "all" else "")
                + ', "registers": ')

    def decode(self, request: dict) -> gen.Case:
        return gen.Case(request["registers"], tuple((d, s) for d, s in request["moves"]))

    def pack(self, case: gen.Case) -> tuple:
        return (case.registers, case.moves)

    def unpack(self, packed: tuple) -> gen.Case:
        return _new_tuple(gen.Case, packed)

    def parallel_move(self, case: gen.Case) -> ParallelMove:
        return self._pm(case.registers, case.moves)

    def _pm(self, registers: int, moves: tuple) -> ParallelMove:
        # Our own request: every generator's output is validated with
        # ParallelMove.make in tests/conform, and the temporaries once per
        # run by the command line; the answer is what gets checked.
        return ParallelMove.trusted(moves, registers, self.temps)

    def judge(self, case: gen.Case, answer: object) -> Judgement:
        ops = parse_sequence(answer)
        if isinstance(ops, Verdict):
            return Judgement(False, ops.to_json())
        verdict = implements(self.parallel_move(case), ops, self.model, self.preserve)
        return Judgement(verdict.ok, verdict.to_json(), len(ops))

    def correct(self, packed: tuple, line: bytes) -> bool:
        """``CaseType.correct``: the answer's operations (``answer_effect``)
        judged by ``implements_effect`` (``implements``, the sequence run
        once per answer line) as ``judge`` does, without building the case,
        the judgement or the verdict's JSON; any doubt (and any exception)
        is False, and ``classify`` then says why."""
        try:
            eff = answer_effect(line)
            return eff is not None and implements_effect(
                self._pm(*packed), eff, self.model, self.preserve).ok
        except Exception:
            return False

    def sure_until(self, cases: list, lines: list[bytes], i: int) -> int:
        """``CaseType.sure_until``: ``correct`` on each case, its look-ups
        made once per call (a subclass with its own ``correct`` gets the
        plain loop)."""
        if type(self).correct is not MoveType.correct:
            return super().sure_until(cases, lines, i)
        memo, pm_of, judge = _LINE_MEMO, self._pm, implements_effect
        model, preserve = self.model, self.preserve
        known = _SETTLED.get((model, self.temps))
        if known is None:
            known = _SETTLED[model, self.temps] = {}
        is_self = _is_self_move
        n = len(cases)
        try:
            while i < n:
                line = lines[i]
                # first the settled test (``settled``): the move, self-moves
                # left out, is the pairs the answer changes
                got = known.get(line, known)
                if got is known:
                    got = self._settle(line, known)
                if got is not None:
                    registers, moves = cases[i]
                    if got[0] <= registers and (moves == got[1] or tuple(
                            filterfalse(is_self, moves)) == got[1]):
                        i += 1
                        continue
                eff = memo.get(line, memo)
                if eff is memo:
                    eff = answer_effect(line)
                if eff is None or not judge(pm_of(*cases[i]), eff, model, preserve).ok:
                    return i
                i += 1
        except Exception:
            return i  # any doubt: classify says why
        return n

    def _settle(self, line: bytes, known: dict) -> "tuple | None":
        """``settled`` of the line's operations (None: not an answer, or
        judged the usual way), kept in ``known``."""
        eff = _LINE_MEMO.get(line, _LINE_MEMO)
        if eff is not _LINE_MEMO:
            got = None if eff is None else settled(eff, self.model, self.temps)
        elif (facts := _op_facts_of(line)) is not None:
            got = settled_of_facts(facts, self.model, self.temps)
        else:  # not kept in _LINE_MEMO: the settled pairs are enough
            eff = decoded_effect(line)
            got = None if eff is None else settled(eff, self.model, self.temps)
        if len(line) <= _LINE_MEMO_MAX_LINE:
            remember(known, line, got, _LINE_MEMO_SIZE)
        return got

    def forget(self) -> None:
        _LINE_MEMO.clear()
        OP_TEXT.clear()
        _SETTLED.clear()

    def solvable(self, case: gen.Case) -> bool:
        if self.model in ("swap", "permi"):
            return True  # a swap or a 2-element perm breaks any cycle
        from ...algorithms.optimum import optimum
        best = optimum(self.parallel_move(case), "temp", self.preserve)
        return best.length is not None

    def gap(self, case: gen.Case, judgement: Judgement) -> int | None:
        from ...algorithms.optimum import optimum
        best = optimum(self.parallel_move(case), OPTIMUM_MODEL[self.model], self.preserve)
        return None if best.length is None else judgement.length - best.length

    def reference(self, case: gen.Case) -> tuple[object | None, str]:
        from ...algorithms import solve
        name = REFERENCE[self.model]
        pm = self.parallel_move(case)
        try:
            ops = solve(name, pm, preserve=self.preserve)
        except PreconditionError as e:
            return None, f"our {name} gives no sequence here: {e}"
        verdict = implements(pm, ops, self.model, self.preserve)
        if not verdict.ok:  # never: the registry checks every output; say so if it happens
            return None, f"our {name} is wrong here ({verdict.reason}): please report"
        return [op.to_json() for op in ops], f"verified solve --algorithm {name}"

    def size(self, case: gen.Case) -> tuple:
        return (case.registers, len(case.moves))

    def shrink_candidates(self, case: gen.Case) -> list:
        cands = gen.shrink_candidates(case)
        return cands if self.fan_out else [c for c in cands if gen.no_fan_out(c)]

    def describe(self, case: gen.Case) -> str:
        return format_moves(case)

    def failure_class(self, case: gen.Case, answer: object, verdict: dict) -> str:
        """The kind of mistake, locations by kind (``docs/conform.md``,
        "Failure classes"): an operation the model lacks (which one), an
        undeclared location, a malformed operation; or a wrong value: which
        location (a destination, a register that is no destination, a
        source or not), what it holds instead (its own old value, a
        temporary's leftover, another source's value, an unmoved
        register's value).  Every register is one kind, so the class never
        depends on register numbers."""
        cx = verdict.get("counterexample")
        index = verdict.get("operation")
        if cx is None:
            if index is None or not isinstance(answer, list):
                return "malformed: the sequence is not a list of operations"
            try:
                op = operation(answer[index])
            except PreconditionError:
                name = answer[index][0] if isinstance(answer[index], list) and answer[
                    index] and isinstance(answer[index][0], str) else None
                return "malformed operation" + (f" ({json.dumps(name)})" if name else "")
            name = type(op).__name__.lower()
            if not isinstance(op, MODELS[self.model]):
                return f"illegal operation: {name}, which the {self.model} model lacks"
            return f"illegal operation: {name} names a location outside the file and the temps"
        pm = self.parallel_move(case)
        loc = cx["location"]
        got = _value_kind(pm, loc, cx["got"])
        if loc in pm.source_of:
            return f"wrong value: a destination holds {got}, not its source's value"
        role = "a source" if loc in {s for _, s in pm.moves} else "not in the move"
        return f"clobbered: a register that is no destination ({role}) holds {got}"

    def explain_command(self, case: gen.Case, answer: object) -> str | None:
        return ("verified explain --request " + shlex.quote(json.dumps(self.request(case)))
                + " --sequence " + shlex.quote(json.dumps(answer)))


def _value_kind(pm: ParallelMove, loc: Location, got: str) -> str:
    """What a wrong location holds, by kind: whose original value it is."""
    if got == loc_name(loc):
        return "its own old value"
    if any(loc_name(t) == got for t in pm.temps):
        return "a temporary's leftover"
    if any(loc_name(s) == got for _, s in pm.moves):
        return "another source's value"
    return "an unmoved register's value"


def check_reference_table() -> list[str]:
    """Problems with ``REFERENCE`` (each entry registered, correct and
    optimal in its model): the tests call it."""
    from ...algorithms import ALGORITHMS
    problems = []
    for model, name in REFERENCE.items():
        a = ALGORITHMS.get(name)
        if a is None or not a.correct or not a.optimal or a.model != OPTIMUM_MODEL[model]:
            problems.append(f"{model}: {name} is not a correct, optimal {OPTIMUM_MODEL[model]}"
                            f"-model algorithm in the registry")
    return problems


# ---------------------------------------------------------------------------
# The suites: which cases, lazily
# ---------------------------------------------------------------------------


def exhaustive(n: int, fan_out: bool):
    every = gen.exhaustive_cases(n)
    return every if fan_out else filter(gen.no_fan_out, every)


def exhaustive_planned(n: int, fan_out: bool) -> int:
    if fan_out:
        return gen.exhaustive_count(n)
    # the out-degree-1 moves over r0..r{m-1}: partial injections, counted
    return sum(_partial_injections(m) for m in range(1, n + 1))


def _partial_injections(m: int) -> int:
    from math import comb, factorial
    return sum(comb(m, k) * comb(m, k) * factorial(k) for k in range(m + 1))


def random(n: int, k: int, seed: object, fan_out: bool):
    stream = gen.random_case_stream(n, seed, None if fan_out else gen.no_fan_out)
    return itertools.islice(stream, k)


def shapes(n: int, relabel: int, order: str, seed: object, preserve: str):
    """Every move on n registers up to renaming.  Under "all" the self-moves
    are left out (a register that is not a destination keeps its value, so
    the request means the same, and each shape with fixed points stands for
    the partial moves); under "loops" a self-move says "keep this register"
    and is sent."""
    return gen.shape_cases(n, relabel, order, seed, self_moves=preserve == "loops")


def ordered(cases, order: str, seed: object):
    """``cases`` with their moves listed in ``order`` (the generators list
    them sorted by destination already)."""
    if order == "sorted":
        return cases
    rng = gen_random.Random(f"verified-conform-order:{order}:{seed}")
    return (gen.reorder_moves(c, order, rng) for c in cases)
