"""Parallel moves on a machine (``conform --machine``, ``docs/machines.md``):
the request a program gets, how its ``{"sequence": [...]}`` answer is
judged (``core.machine.implements``: the verdict ``verified check`` gives
the same request with that sequence), when declining is right, our
reference sequence (``verified solve --algorithm resolve``), the gap in
cost to the optimum, and shrinking (``cases.machines``: kind and class
kept).

The machine is named once per run: a preset's name, or the machine object
(the small machine ``cases.machines.small_machine`` derives, or a
``--machine FILE.json``), and every request carries it as ``"machine"``."""

from __future__ import annotations

import functools
import json
import random
import shlex
from dataclasses import dataclass

from ...algorithms import solve_machine
from ...cases import machines as gen
from ...core import machine as M
from ...core.semantics import PreconditionError
from .checker import CaseType, Judgement

#: our reference resolver for machines (``verified solve --algorithm resolve``)
REFERENCE = "resolve"


def load_machine(spec: str) -> tuple[M.Machine, object]:
    """``--machine PRESET|FILE.json``: the machine and how requests name it
    (the preset's name, or the file's object).  PreconditionError says what
    is wrong, naming the presets."""
    if spec in M.PRESETS:
        return M.preset(spec), spec
    if not spec.endswith(".json"):
        raise PreconditionError(
            f"--machine {spec}: not a preset ({', '.join(M.PRESETS)}) nor a .json file "
            f"of a machine object (docs/machines.md); `verified machines` lists the presets")
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
        return M.machine_from_json(obj), obj
    except PreconditionError as e:
        raise PreconditionError(f"--machine {spec}: {e}") from None


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
    """Machine requests on one machine (``spec``: what ``"machine"`` says in
    each request: a preset name or an object), with declared temporaries
    (names) and a contract.  ``places`` are the sites the cases are drawn
    from (shrinking renames within them)."""

    spec: object
    temps: tuple[str, ...] = ()
    preserve: str = "all"
    places: tuple = ()
    label: str = ""

    answer_key = "sequence"
    answer_noun = "sequence"

    @functools.cached_property
    def machine(self) -> M.Machine:
        return M.machine(self.spec)

    @functools.cached_property
    def _by_json(self) -> str:
        return json.dumps(self.spec)

    # -- the wire ----------------------------------------------------------

    def request(self, case: gen.MachineCase) -> dict:
        req = {"machine": self.spec, "moves": gen.moves_json(case), "temps": list(self.temps)}
        if self.preserve != "all":
            req["preserve"] = self.preserve
        return req

    def encode(self, case: gen.MachineCase) -> bytes:
        return (json.dumps(self.request(case)) + "\n").encode()

    def decode(self, request: dict) -> gen.MachineCase:
        m = self.machine
        return gen.MachineCase(tuple(
            (M.parse_loc(m, d, allow_imm=False), M.parse_loc(m, s)) for d, s in request["moves"]))

    def move(self, case: gen.MachineCase) -> M.MachineMove:
        # our own request: every generator's output is validated with
        # MachineMove.make in tests/conform; the answer is what is checked
        return M.MachineMove(self.machine, case.moves,
                             tuple(M.Place((t,)) for t in self.temps))

    # -- judging -------------------------------------------------------------

    def judge(self, case: gen.MachineCase, answer: object) -> Judgement:
        ops = M.read_machine_sequence(self.machine, answer)
        if isinstance(ops, M.MachineVerdict):
            return Judgement(False, ops.to_json())
        verdict = M.implements(self.move(case), ops, self.preserve)
        return Judgement(verdict.ok, verdict.to_json(), verdict.cost)

    def _optimum(self, case: gen.MachineCase) -> M.MachineOptimum:
        from ..check import machine_optimum
        return machine_optimum(M.MachineRequest(self.move(case), self.preserve))

    def solvable(self, case: gen.MachineCase) -> bool:
        """Does a legal sequence exist?  Our resolver's answer (it declines
        only when none exists: its contract, checked by the tests against
        the optimum's search); where it gives none, the optimum decides."""
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
        verdict = M.implements(mm, ops, self.preserve)
        if not verdict.ok:  # never: the registry checks every output; say so if it happens
            return None, f"our {REFERENCE} is wrong here ({verdict.reason}): please report"
        return [op.to_json() for op in ops], f"verified solve --algorithm {REFERENCE}"

    # -- reporting and shrinking -------------------------------------------

    def size(self, case: gen.MachineCase) -> tuple:
        return gen.size(case, self.places)

    def shrink_candidates(self, case: gen.MachineCase) -> list:
        return gen.shrink_candidates(case, self.places)

    def describe(self, case: gen.MachineCase) -> str:
        return gen.format_case(case)

    def check_command(self, case: gen.MachineCase, answer: object) -> str:
        """The request with the answer's sequence, fed to ``verified check``
        (which gives the same verdict)."""
        req = self.request(case)
        req["sequence"] = answer
        return f"echo {shlex.quote(json.dumps(req))} | verified check"



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
