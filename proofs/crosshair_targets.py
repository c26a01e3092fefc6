"""List-shaped entry points for CrossHair, generated from the registry
(one per correct algorithm of the swap and temp models, plus
``xchg-as-published``) and from the mutant catalogue (``mutants/core.py``).

CrossHair handles list-shaped inputs well and dict-shaped ones badly, so
each target takes ``srcs`` (register d receives the original value of
``srcs[d]``; in the temp model register ``len(srcs)`` is the temporary) and
returns the operations in their JSON form.  Its contract is the oracle:

    pre:  all(0 <= s < len(srcs) for s in srcs)
    post: implements(move_of(srcs, MODEL), sequence(__return__), MODEL).ok

and, for an algorithm with a length bound, the registry's bound.  A target
runs the algorithm *without* its own postcondition (``Algorithm.raw``), so
what CrossHair checks is the contract above.  ``proofs/crosshair_run.py``
runs them; ``TARGETS`` lists (name, expect a counterexample).
"""

from __future__ import annotations

import linecache
from typing import Callable, List

import mutants
from mutants.core import BY_NAME
from verified.algorithms import ALGORITHMS
from verified.core.oracle import implements  # noqa: F401  (used by the contracts)
from verified.core.semantics import ParallelMove, sequence  # noqa: F401


def move_of(srcs: List[int], model: str) -> ParallelMove:
    """The move d <- srcs[d] on len(srcs) registers (temporary len(srcs)
    in the temp model)."""
    return ParallelMove.from_map(srcs, temps=[len(srcs)] if model == "temp" else [])


def within_bound(name: str, srcs: List[int], ops: list) -> bool:
    """The registry's length bound of algorithm ``name`` holds."""
    algo = ALGORITHMS[name]
    return algo.bound is None or len(ops) == algo.bound(move_of(srcs, algo.model), "all")


_RUNS: dict[str, Callable] = {}


def _define(label: str, source: str) -> Callable:
    """Define ``label`` from generated source: CrossHair reads a contract
    from the function's source lines, so the source is registered with
    ``linecache`` under a file name of its own."""
    filename = f"<crosshair target {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), globals())
    return globals()[label]


def _target(label: str, run: Callable, model: str, bounded_by: str | None) -> Callable:
    """A target running the algorithm ``run`` on the move d <- srcs[d]."""
    _RUNS[label] = run
    bound = (f"\n    post: within_bound({bounded_by!r}, srcs, __return__)" if bounded_by else "")
    source = (
        f"def {label}(srcs: List[int]) -> List[list]:\n"
        f'    """{label}: the move d <- srcs[d] ({model} model).\n\n'
        f"    pre: all(0 <= s < len(srcs) for s in srcs)\n"
        f"    post: implements(move_of(srcs, {model!r}), sequence(__return__), {model!r}).ok"
        f"{bound}\n"
        f'    """\n'
        f"    return [op.to_json() for op in _RUNS[{label!r}](move_of(srcs, {model!r}))]\n")
    return _define(label, source)


#: (target name, CrossHair must find a counterexample)
TARGETS: list[tuple[str, bool]] = []

for _name, _algo in ALGORITHMS.items():
    if _algo.model not in ("swap", "temp"):
        continue  # permi: CrossHair does not get through the DP's tables
    _label = _name.replace("-", "_") + "_srcs"
    _target(_label, _algo.raw, _algo.model, _name if _algo.bound is not None else None)
    TARGETS.append((_label, not _algo.correct))

#: the mutants CrossHair must catch (one per family it handles)
CROSSHAIR_MUTANTS = ["leroy_no_cycle", "windmill_no_save", "xchg_no_alias_update",
                     "shuf_swap_as_move"]
for _m in CROSSHAIR_MUTANTS:
    _mutant = BY_NAME[_m]
    _label = f"{_m}_srcs"
    _target(_label, mutants.run(_mutant), _mutant.model, None)
    TARGETS.append((_label, True))


# ---------------------------------------------------------------------------
# GREEDY (permi model) on out-degree-1 RTGs, the real code paths
# ---------------------------------------------------------------------------
#
# An out-degree-1 RTG as a list: ``succ[u] = v`` is the edge (u, v) ("u's
# content must end in v", the move v <- u), ``-1`` no out-edge; in-degree
# <= 1 is the precondition (distinct targets).  Each target runs the real
# ``greedy`` (``ALGORITHMS["greedy"].raw``: no run-time postcondition) on
# the move, and its contract is
#
#     post: the oracle accepts the sequence (permi model, "loops")
#     post: its length is greedy_length(signature(edges)) -- the real
#           Lemma 3 function of verified/algorithms/greedy.py --
#     post: ... and Lemma 3 computed here from the component sizes
#     post: ... and the optimum the exhaustive search (search.py) found for
#           an RTG of the same shape (``SEARCH_OPTIMUM``, built at import)
#
# A planted twin runs the same contract with the mutant engine's edit of
# greedy.py (``mutants.load``): CrossHair must find its counterexample.

from mutants import load as _load_mutant  # noqa: E402
from mutants.permi import BY_NAME as _PERMI  # noqa: E402
from mutants.proofs import BY_NAME as _PROOF_MUTANTS  # noqa: E402
from verified.algorithms import greedy as _greedy  # noqa: E402
from verified.algorithms.search import search_optimum  # noqa: E402

#: the largest RTG the GREEDY targets take (vertices)
GREEDY_N = 4


def rtg_shape(succ: List[int]) -> tuple:
    """The RTG's components as a sorted tuple of (vertices, is a cycle),
    components with at least one edge only (an isolated vertex needs
    nothing): what the optimum depends on (renaming registers maps
    sequences to sequences of the same length)."""
    n = len(succ)
    pred = [-1] * n
    for u in range(n):
        if succ[u] >= 0:
            pred[succ[u]] = u
    seen = [False] * n
    comps = []
    for u in range(n):                      # paths, from their start
        if pred[u] < 0 and succ[u] >= 0:
            size, x = 0, u
            while x >= 0:
                seen[x] = True
                size, x = size + 1, succ[x]
            comps.append((size, False))
    for u in range(n):                      # what is left lies on cycles
        if not seen[u] and succ[u] >= 0:
            size, x = 0, u
            while not seen[x]:
                seen[x] = True
                size, x = size + 1, succ[x]
            comps.append((size, True))
    return tuple(sorted(comps))


def lemma3_of_shape(shape: tuple) -> int:
    """Lemma 3 (Buchwald, Mohr, Rutter) from the component sizes, written
    here: X + max(ceil((a2+a3)/2), ceil((a2+2*a3)/3))."""
    x = sum(size // 4 for size, _ in shape)
    a2 = sum(1 for size, _ in shape if size % 4 == 2)
    a3 = sum(1 for size, _ in shape if size % 4 == 3)
    return x + max((a2 + a3 + 1) // 2, (a2 + 2 * a3 + 2) // 3)


def _all_succ(n: int):
    """Every out-degree-1, in-degree-1 RTG on n vertices as a succ list."""
    from itertools import product
    for succ in product(range(-1, n), repeat=n):
        targets = [v for v in succ if v >= 0]
        if len(targets) == len(set(targets)):
            yield list(succ)


def _search_table(n_max: int) -> dict:
    """shape -> the length of the shortest sequence the exhaustive search
    of ``verified/algorithms/search.py`` finds (one RTG per shape)."""
    table: dict = {}
    for n in range(1, n_max + 1):
        for succ in _all_succ(n):
            shape = rtg_shape(succ)
            if shape not in table:
                table[shape] = search_optimum(rtg_move(succ), "loops")
    return table


def rtg_move(succ: List[int]) -> ParallelMove:
    """The move of the RTG: v <- u for every edge (u, v); a loop (u, u)
    is the move u <- u (u must keep its value)."""
    return ParallelMove.make([(v, u) for u, v in enumerate(succ) if v >= 0],
                             registers=max(len(succ), 1))


#: shape -> optimum found by the search, every RTG of 1..GREEDY_N vertices
SEARCH_OPTIMUM = _search_table(GREEDY_N)

#: the namespaces the GREEDY targets run: the real module, and the mutant
#: engine's edits of it (one Lemma 3 bug, one GREEDY steps bug)
_GREEDY_NS: dict = {"real": _greedy}


def greedy_contract_ok(ns_key: str, succ: List[int], length: int) -> bool:
    """``length`` is Lemma 3 by the namespace's own greedy_length and
    signature (the registry's bound), by the component sizes, and the
    search's optimum."""
    ns = _GREEDY_NS[ns_key]
    shape = rtg_shape(succ)
    edges = [(u, v) for u, v in enumerate(succ) if v >= 0]
    return (length == ns.greedy_length(ns.signature(edges)) == lemma3_of_shape(shape)
            == SEARCH_OPTIMUM[shape])


def _greedy_target(label: str, ns_key: str, ns) -> Callable:
    _GREEDY_NS[ns_key] = ns
    _RUNS[label] = ns.greedy if ns is not _greedy else ALGORITHMS["greedy"].raw
    source = (
        f"def {label}(succ: List[int]) -> List[list]:\n"
        f'    """{label}: GREEDY on the out-degree-1 RTG u -> succ[u] ({ns_key}).\n\n'
        f"    pre: 1 <= len(succ) <= {GREEDY_N}\n"
        f"    pre: all(-1 <= v < len(succ) for v in succ)\n"
        f"    pre: all(succ[i] < 0 or succ[i] != succ[j] for i in range(len(succ)) "
        f"for j in range(i + 1, len(succ)))\n"
        f"    post: implements(rtg_move(succ), sequence(__return__), 'permi', 'loops').ok\n"
        f"    post: greedy_contract_ok({ns_key!r}, succ, len(__return__))\n"
        f'    """\n'
        f"    return [op.to_json() for op in _RUNS[{label!r}](rtg_move(succ), 'loops')]\n")
    return _define(label, source)


#: the bounds of the signature targets: X <= 1, a2, a3 <= 3 (RTGs of up
#: to 4 + 6 + 9 = 19 vertices; Lemma 3's two terms cross inside them)
SIG_MAX = (1, 3, 3)


def rtg_of_signature(x: int, a2: int, a3: int) -> List[int]:
    """An out-degree-1 RTG with signature (x, a2, a3): x 4-cycles, a2
    2-cycles, a3 3-cycles, as a succ list (vertices numbered in order)."""
    succ: List[int] = []
    for size in [4] * x + [2] * a2 + [3] * a3:
        base = len(succ)
        succ += [base + (k + 1) % size for k in range(size)]
    return succ


def _signature_target(label: str, ns_key: str) -> Callable:
    """Lemma 3 as greedy_length computes it, over every signature within
    SIG_MAX: equal to the length of the real GREEDY steps on an RTG of that
    signature (which the oracle must accept), and to Lemma 3 from the
    component sizes."""
    source = (
        f"def {label}(x: int, a2: int, a3: int) -> int:\n"
        f'    """{label}: greedy_length((x, a2, a3)) ({ns_key}).\n\n'
        f"    pre: 0 <= x <= {SIG_MAX[0]} and 0 <= a2 <= {SIG_MAX[1]} and 0 <= a3 <= {SIG_MAX[2]}\n"
        f"    post: __return__ == lemma3_of_shape(rtg_shape(rtg_of_signature(x, a2, a3)))\n"
        f"    post: __return__ == len(greedy_steps_checked(rtg_of_signature(x, a2, a3)))\n"
        f'    """\n'
        f"    return _GREEDY_NS[{ns_key!r}].greedy_length((x, a2, a3))\n")
    return _define(label, source)


def greedy_steps_checked(succ: List[int]) -> list:
    """The real GREEDY steps (``greedy_edges``) on the RTG; an empty-handed
    [None] * 99 when the oracle rejects them (so no length can match)."""
    ops = _greedy.greedy_edges([(u, v) for u, v in enumerate(succ) if v >= 0])
    if not implements(rtg_move(succ), ops, "permi", "loops").ok:
        return [None] * 99
    return ops


#: (target name, CrossHair must find a counterexample), GREEDY's
GREEDY_TARGETS: list[tuple[str, bool]] = [("greedy_rtg", False), ("greedy_length_sig", False)]
_greedy_target("greedy_rtg", "real", _greedy)
_signature_target("greedy_length_sig", "real")
#: the planted twins, through the mutant engine: a steps bug (2-cycles
#: never paired: the RTG target) and a Lemma 3 bug (ceil -> floor in the
#: real greedy_length: no RTG of <= 4 vertices shows it, so the signature
#: target, where three 2-cycles do)
_m = _PERMI["greedy_skips_step_4"]
_greedy_target(f"{_m.name}_rtg", _m.name, _load_mutant(_m))
GREEDY_TARGETS.append((f"{_m.name}_rtg", True))
_m = _PROOF_MUTANTS["greedy_length_floor"]
_GREEDY_NS[_m.name] = _load_mutant(_m)
_signature_target(f"{_m.name}_sig", _m.name)
GREEDY_TARGETS.append((f"{_m.name}_sig", True))
TARGETS += GREEDY_TARGETS


# ---------------------------------------------------------------------------
# SSRA: the real allocator in each two-input state, judged by the
# allocation checker
# ---------------------------------------------------------------------------
#
# One target per state S of the 18 (output R/M, each input R/M/U): its
# input is the rest of the allocator's local configuration when the reverse
# walk arrives at ``$0 = FOO($1, $2)`` in state S, as lists (as
# ``proofs/ssra_states.py``'s ``local_steps`` enumerates them):
#
# * ``n``: 2 or 3 registers;
# * ``place[k]``: the register of the k-th role kept in a register (output,
#   then inputs, in that order);
# * ``fill[r]`` for every other register: 0 a live bystander, 1 a spare
#   (on the spare stack), 2 never used (the top registers only, and only
#   when nothing is in memory: the walk hands out registers first);
# * ``lru``: the LRU order (a permutation, newest first); ``spares_reversed``:
#   the order of the spare stack.
#
# The real ``RegisterAllocator.step`` runs from that configuration, and the
# allocation checker (``verified.ssra.check``, strict) judges the program
# framed around the emitted snippet: a prologue that puts every value where
# the step says it is before the operation (``r = DEFv()``, stored to its
# slot when it lives in memory), the snippet, and an epilogue that reads
# every value where the walk said it is after the operation and folds them
# into r0.  Post: the checker accepts.  A planted twin runs the same
# contract on the mutant engine's edit of the allocator.

from verified import ssra as _ssra  # noqa: E402
from mutants.ssra import MUTANTS as _SSRA_MUTANTS  # noqa: E402

SSRA_REGISTERS = 3
_ALLOCATORS: dict = {"real": _ssra.RegisterAllocator}


def _ssra_where(alloc) -> dict:
    """var -> ("r", reg) | ("m", slot) for every value the walk tracks."""
    where = {}
    for r, v in enumerate(alloc.registers):
        if v != _ssra.INVALID:
            where[v] = ("r", r)
    for v, a in enumerate(alloc.allocations):
        if a >= alloc.n and v not in where:
            where[v] = ("m", a)
    return where


def ssra_configure(ns_key: str, state: str, n: int, place: List[int], fill: List[int],
                   lru: List[int], spares_reversed: bool):
    """The allocator (``ns_key``'s class) in the configuration, and the
    operation ``$0 = FOO($1, $2)`` (``FOO($1, $1)`` for a SAME state)."""
    out_k, lhs_k, rhs_k = _ssra.TwoInputState[state].value
    inputs = (1, 1) if rhs_k == "=" else (1, 2)
    kinds = {0: out_k, 1: lhs_k}
    if rhs_k != "=":
        kinds[2] = rhs_k
    in_reg = [v for v in sorted(kinds) if kinds[v] == "R"]
    in_mem = [v for v in sorted(kinds) if kinds[v] == "M"]
    rest = [r for r in range(n) if r not in place]
    bystanders = [r for r, f in zip(rest, fill) if f == 0]
    spares = [r for r, f in zip(rest, fill) if f == 1]
    unused = [r for r, f in zip(rest, fill) if f == 2]
    a = _ALLOCATORS[ns_key](n)
    a.allocations = [_ssra.UNASSIGNED] * (3 + len(bystanders))
    for v, r in zip(in_reg, place):
        a.registers[r], a.allocations[v] = v, r
    for k, r in enumerate(bystanders):
        a.registers[r], a.allocations[3 + k] = 3 + k, r
    for k, v in enumerate(in_mem):
        a.allocations[v] = n + k
    a.total_slots = n - len(unused) if unused else n + len(in_mem)
    a.spare_registers = spares[::-1] if spares_reversed else spares
    for r in reversed(lru):                      # lru[0] newest
        a.register_lru.poke(r)
    return a, _ssra.SsaOp(0, "FOO", inputs, 0, inputs)


def ssra_configuration_ok(state: str, n: int, place: List[int], fill: List[int],
                          lru: List[int]) -> bool:
    """The lists describe a configuration of the walk (as ``local_steps``)."""
    out_k, lhs_k, rhs_k = _ssra.TwoInputState[state].value
    kinds = [out_k, lhs_k] + ([] if rhs_k == "=" else [rhs_k])
    rest = [r for r in range(n) if r not in place]
    unused = [r for r, f in zip(rest, fill) if f == 2]
    return (len(place) == kinds.count("R") and len(set(place)) == len(place)
            and all(0 <= r < n for r in place) and len(fill) == len(rest)
            and all(0 <= f <= 2 for f in fill)
            and (not unused or ("M" not in kinds and unused == list(range(n - len(unused), n))))
            and sorted(lru) == list(range(n)))


def ssra_framed_check(ns_key: str, state: str, n: int, place: List[int], fill: List[int],
                      lru: List[int], spares_reversed: bool) -> bool:
    """Run the real step from the configuration; the allocation checker
    judges the framed program (see above)."""
    a, op = ssra_configure(ns_key, state, n, place, fill, lru, spares_reversed)
    post = _ssra_where(a)
    a.step(0, op)
    pre = _ssra_where(a)
    snippet = a.out[::-1]                        # forward order
    tape_ops: list = []
    names: list = []
    lines: list = []
    tv: dict = {}                                # role var -> tape var

    def define(name: str, args: tuple) -> int:
        t = len(tape_ops)
        tape_ops.append(_ssra.SsaOp(t, name, args, t + 1, args))
        names.append(f"$t{t}")
        return t

    def line(kind: str, **kw) -> None:
        lines.append(_ssra.AsmLine(kind, len(lines) + 1, **kw))

    # prologue: memory values first (computed in r0, stored), then registers
    for v, (kind, at) in sorted(pre.items(), key=lambda i: i[1][0] == "r"):
        tv[v] = define(f"DEF{v}", ())
        if kind == "m":
            line("op", reg=0, name=f"DEF{v}", args=())
            line("store", reg=0, slot=at - n)
        else:
            line("op", reg=at, name=f"DEF{v}", args=())
    for o in snippet:
        if o[0] == _ssra.OP:
            tv[0] = define("FOO", tuple(tv.get(v, -1) for v in op.inputs))
            line("op", reg=o[2], name="FOO", args=tuple(o[3]))
        else:
            line("load" if o[0] == _ssra.LOAD else "store", reg=o[1], slot=o[2] - n)
    # epilogue: fold every value where the walk said it lives after the op
    regs = sorted((at, v) for v, (kind, at) in post.items() if kind == "r")
    mems = sorted((at, v) for v, (kind, at) in post.items() if kind == "m")
    if regs:
        acc_reg, acc = regs[0][0], tv[regs[0][1]]
        regs = regs[1:]
    else:
        acc_reg = 0
        line("load", reg=0, slot=mems[0][0] - n)
        acc, mems = tv[mems[0][1]], mems[1:]
    for at, v in regs:
        acc = define("FOLD", (acc, tv[v]))
        line("op", reg=acc_reg, name="FOLD", args=(acc_reg, at))
    other = (acc_reg + 1) % n
    for at, v in mems:
        line("load", reg=other, slot=at - n)
        acc = define("FOLD", (acc, tv[v]))
        line("op", reg=acc_reg, name="FOLD", args=(acc_reg, other))
    define("END", (acc,))
    line("op", reg=0, name="END", args=(acc_reg,))
    tape = _ssra.Tape.from_ops(tape_ops, names)
    return _ssra.check(tape, lines, n, strict=True).ok


def _ssra_target(label: str, ns_key: str, state: str) -> Callable:
    source = (
        f"def {label}(n: int, place: List[int], fill: List[int], lru: List[int],\n"
        f"        spares_reversed: bool) -> bool:\n"
        f'    """{label}: the allocator ({ns_key}) arriving in state {state}.\n\n'
        f"    pre: 2 <= n <= {SSRA_REGISTERS}\n"
        f"    pre: ssra_configuration_ok({state!r}, n, place, fill, lru)\n"
        f"    post: __return__\n"
        f'    """\n'
        f"    return ssra_framed_check({ns_key!r}, {state!r}, n, place, fill, lru, "
        f"spares_reversed)\n")
    return _define(label, source)


#: the 18 two-input states (the 6 repeated-input SAME states of
#: ``TwoInputState`` are not among the design card's 18)
SSRA_STATES = [s.name for s in _ssra.TwoInputState if "SAME" not in s.name]
SSRA_TARGETS: list[tuple[str, bool]] = []
for _state in SSRA_STATES:
    _ssra_target(f"ssra_{_state}", "real", _state)
    SSRA_TARGETS.append((f"ssra_{_state}", False))
#: planted twins (mutants/ssra.py, through the engine), each on a state
#: whose arm it breaks
SSRA_TWINS = {"store_after_op": "R_MR", "operands_swapped_mu": "R_MU"}
for _name, _state in SSRA_TWINS.items():
    _mut = next(m for m in _SSRA_MUTANTS if m.name == _name)
    _ALLOCATORS[_name] = _load_mutant(_mut).RegisterAllocator
    _ssra_target(f"ssra_{_state}_{_name}", _name, _state)
    SSRA_TARGETS.append((f"ssra_{_state}_{_name}", True))
TARGETS += SSRA_TARGETS
