"""Mutants of the machine oracle (``verified/core/machine/``): each one
small edit of the real code (the engine in ``mutants/__init__.py``) that
makes the oracle forget one fact of the machine model.

``witness`` is a request with its sequence, as JSON text (a mutant is
hashable), on which the mutated oracle answers differently from the real
one: it accepts a wrong sequence, or judges a request the real oracle
refuses as bad input.  ``tests/machines/test_mutants.py`` checks that the
golden suite (the pinned answers of ``tests/machines/corpus.py``) rejects
each one, and that the Z3 cross-check of ``proofs/machine.py`` rejects the
ones that change the semantics or the legality of an operation
(``z3`` says which).
"""

from __future__ import annotations

import json
from pathlib import Path

from . import Mutant

MACHINE = "verified.core.machine"
#: the modules of the machine package, in the order of the math: a mutant
#: edits one, and the ones after it (which import it) and the package itself
#: (which re-exports every name) run afresh against it (``with_modules``); the
#: ones before it do not import it and stay as they are
MODULES = tuple(f"{MACHINE}.{m}" for m in
                ("description", "locations", "operations", "semantics", "oracle"))
#: where each edited function or class lives
HOME = {"MachineMove": "oracle", "_checked_pair": "oracle", "judge": "oracle", "_resolve_names": "description",
        "_single_illegal": "operations", "_immediate_illegal": "operations",
        "reserved_write": "operations",
        "_effects": "semantics", "Imm": "locations", "_holds": "locations",
        "_stack_illegal": "operations", "apply_effects": "semantics"}


def _m(name: str, scope: str, old: str, new: str, why: str, witness: dict,
       z3: str | None = None) -> Mutant:
    module = f"{MACHINE}.{HOME[scope.split('.')[0]]}"
    return Mutant(name, module, old, new, why, family="machine", entry="check_machine_request",
                  scope=scope, z3=z3, witness=json.dumps(witness),
                  with_modules=MODULES[MODULES.index(module) + 1:] + (MACHINE,))


MUTANTS = [
    _m("alias_overlap_by_name", "MachineMove.make",
       "            for u in units(m, dst):\n                if u in owner:",
       "            for u in dst.parts:\n                if u in owner:",
       "destinations are compared by name, so d0 and its half s1 pass as disjoint",
       {"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s1", "s0"]],
        "sequence": [["mov", "d0", "d1"], ["mov", "s1", "s0"]]}),
    _m("alias_units_ignored", "_resolve_names",
       "        if name in alias_parts:", "        if False:",
       "an aliased register gets units of its own: writing d0 leaves s0, s1 alone",
       {"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s4", "s1"]],
        "sequence": [["mov", "d0", "d1"], ["mov", "s4", "s1"]]}, z3="alias_units_ignored"),
    _m("mem_to_mem_forgotten", "_single_illegal",
       '        if what == "mem<-mem" and not m.mem_to_mem:', "        if False:",
       "a slot-to-slot mov passes on a machine without one",
       {"machine": "x86-64", "moves": [["m0", "m1"]], "sequence": [["mov", "m0", "m1"]]},
       z3="mem_to_mem_forgotten"),
    _m("slot_swap_allowed", "_single_illegal",
       '    if what == "swap mem-mem":', "    if False:",
       "xchg between two stack slots passes (x86 has none)",
       {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
        "sequence": [["swap", "m0", "m1"]]}, z3="slot_swap_allowed"),
    _m("list_moved_at_once", "_effects",
       "    split = parts(m, op)", "    split = [op]",
       "a register pair is moved in one go, hiding the lost high half of a shifted pair",
       {"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]],
        "sequence": [["mov", ["a1", "a2"], ["a0", "a1"]]]}, z3="list_moved_at_once"),
    _m("preserve_all_forgotten", "judge",
       '    if preserve == "all":', "    if False:",
       'under "all", a clobbered register that is no destination goes unnoticed',
       {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
        "sequence": [["mov", "rax", "m0"], ["swap", "rax", "m1"], ["mov", "m0", "rax"]]},
       z3="preserve_all_forgotten"),
    _m("cross_class_forgotten", "_single_illegal",
       "rx.cls != ry.cls and not m.cross_class", "rx.cls != ry.cls and False",
       "a mov between two classes passes on a machine without one",
       {"machine": {"name": "two-classes",
                    "classes": {"gpr": {"registers": ["a0", "a1", "t0"]},
                                "fpr": {"registers": ["f0", "f1", "ft0"]}}},
        "moves": [["f0", "f1"], ["f1", "f0"]], "temps": ["t0"],
        "sequence": [["mov", "t0", "f0"], ["mov", "f0", "f1"], ["mov", "f1", "t0"]]},
       z3="cross_class_forgotten"),
    _m("op_width_forgotten", "_single_illegal",
       "    if t is None and rx.width != ry.width:", "    if False:",
       "a mov between locations of different widths passes (and copies a part)",
       {"machine": "x86-64", "moves": [["m0", "m1"]], "temps": ["xmm0"],
        "sequence": [["mov", "xmm0", "m1"], ["mov", "m0", "xmm0"]]}, z3="op_width_forgotten"),
    _m("immediate_to_forgotten", "_single_illegal",
       "        if where not in m.immediate_to:", "        if False:",
       "an immediate stored to a slot passes on a machine that has no such store",
       {"machine": "aarch64", "moves": [["m0", {"imm": 5}]],
        "sequence": [["mov", "m0", {"imm": 5}]]}, z3="immediate_to_forgotten"),
    _m("class_swap_forgotten", "_single_illegal",
       "            have = m.swap if c.swap is None else c.swap", "            have = m.swap",
       "a class's own swaps are ignored: x86 xchg between two XMM registers passes",
       {"machine": "x86-64", "moves": [["xmm0", "xmm1"], ["xmm1", "xmm0"]],
        "sequence": [["swap", "xmm0", "xmm1"]]}, z3="class_swap_forgotten"),
    _m("move_width_forgotten", "_checked_pair",
       "    if ws is not None and wd != ws:", "    if False:",
       "a move between locations of different widths is judged instead of refused",
       {"machine": "armv7-vfp", "moves": [["d0", "s1"]], "sequence": [["mov", "s0", "s1"]]}),
    _m("temp_overlap_forgotten", "MachineMove.make",
       "                if u in touched:", "                if False:",
       "a temporary that overlaps a move (s0 inside d0) is accepted",
       {"machine": "armv7-vfp", "moves": [["d0", "d1"]], "temps": ["s0"],
        "sequence": [["mov", "d0", "d1"]]}),
    _m("imm_pieces_equal", "Imm.piece",
       "        k = self.offset + i", "        k = 0",
       "every unit of a wide constant holds the same piece: a 128-bit constant written "
       "as the same immediate into both halves passes",
       {"machine": "riscv64", "moves": [[["a0", "a1"], {"imm": 5}]],
        "sequence": [["mov", "a0", {"imm": 5}], ["mov", "a1", {"imm": 5}]]},
       z3="imm_pieces_equal"),
    # typed values and immediates as bit patterns (round 3)
    _m("typed_rest_kept", "_effects",
       "                out.append((\"set\", [(u, UNDEFINED) for u in du[w:]]))",
       "                pass",
       "a typed mov keeps the rest of its destination: a borrowed xmm register saved "
       "and restored as a double passes with its high half lost",
       {"machine": "x86-64", "moves": [["m0", "m1", "f64"]], "temps": ["mw0"],
        "sequence": [["mov", "mw0", "xmm15", "f64"], ["mov", "xmm15", "m1", "f64"],
                     ["mov", "m0", "xmm15", "f64"], ["mov", "xmm15", "mw0", "f64"]]}),
    _m("type_width_ignored", "_holds",
       "    if w < t.width:", "    if False:",
       "a location narrower than the type holds it: a double is truncated into one "
       "32-bit core register",
       {"machine": "armv7-vfp", "moves": [["r0", "d1", "f64"]],
        "sequence": [["mov", "r0", "d1", "f64"]]}),
    _m("type_classes_ignored", "_holds",
       "        other = next((r for r in regs if r.cls not in t.classes), None)",
       "        other = None",
       "a register of a class the type does not list holds it: an i32 in a d register",
       {"machine": "armv7-vfp", "moves": [["d0", "r0", "i32"]],
        "sequence": [["mov", "d0", "r0", "i32"]]}),
    _m("imm_bits_sliced_wrong", "Imm.piece",
       "            return f\"#{(self.value >> (k * bits)) & ((1 << bits) - 1)}\"",
       "            return f\"#{(self.value >> k) & ((1 << bits) - 1)}\"",
       "unit i of a constant is sliced at bit i, not at bit i * unit_bits: a wrong high "
       "half of a 128-bit constant passes",
       {"machine": "x86-64", "moves": [[["rdx", "rbx"], {"imm": 7}]],
        "sequence": [["mov", "rdx", {"imm": 7}], ["mov", "rbx", {"imm": 3}]]}),
    _m("reserved_write_forgotten", "reserved_write",
       "    hit = set(written_units(m, op)) & m.reserved_units()", "    hit = set()",
       "a sequence may write a reserved register: the frame pointer borrowed as a swap "
       "scratch (and given back) passes",
       {"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]],
        "sequence": [["swap", "rax", "rbp"], ["swap", "rbp", "rbx"], ["swap", "rax", "rbp"]]}),
    _m("immediate_bits_forgotten", "_immediate_illegal",
       "    limit = m.immediate_limit(where)", "    limit = None",
       "a 64-bit constant stored straight to a slot passes on x86-64 (mov m64 takes imm32)",
       {"machine": "x86-64", "moves": [["m0", {"imm": 1 << 40}, "i64"]],
        "sequence": [["mov", "m0", {"imm": 1 << 40}, "i64"]]}),
    # stack operations (round 3)
    _m("stack_left_unchecked", "judge",
       "    if left:", "    if False:",
       "a sequence that leaves words pushed passes: the caller's stack pointer is off",
       {"machine": "x86-64", "moves": [["m0", "m1"]],
        "sequence": [["push", "m1"], ["push", "m1"], ["pop", "m0"]]}),
    _m("pop_underflow_unchecked", "judge",
       "    if UNDERFLOW in state:", "    if False:",
       "a pop from an empty stack passes when what it took lands in a temporary: it took "
       "a word of the caller's frame",
       {"machine": "x86-64", "moves": [], "temps": ["r10"], "sequence": [["pop", "r10"]]}),
    _m("push_kinds_ignored", "_stack_illegal",
       "    if k not in have:", "    if False:",
       "push and pop pass on a machine without them (aarch64 has no push)",
       {"machine": "aarch64", "moves": [["x0", "x1"]],
        "sequence": [["push", "x1"], ["pop", "x0"]]}),
    _m("stack_fifo", "apply_effects",
       "                state[u] = stack[-1 - i]\n            state[STACK] = stack[:len(stack) - len(pairs)]",
       "                state[u] = stack[i]\n            state[STACK] = stack[len(pairs):]",
       "the stack is read first in, first out: a slot swap that pops in push order passes",
       {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
        "sequence": [["push", "m0"], ["push", "m1"], ["pop", "m1"], ["pop", "m0"]]}),
]

# parts and overlap of slots (issue 23): a wide slot as an alias over
# narrower slots, on the frame of mutants/data/x64-frame.json
_FRAME = json.loads((Path(__file__).resolve().parent / "data" / "x64-frame.json").read_text())
MUTANTS += [
    _m("slot_alias_units_ignored", "_resolve_names",
       "        if name in alias_parts:", "        if name in alias_parts and not slot:",
       "a wide slot gets units of its own: a store to mq0 leaves its part m1 alone, so "
       "overlapping slots never clobber each other",
       {"machine": _FRAME, "moves": [["mq0", "xmm0"], ["m3", "m1"]], "temps": ["r10"],
        "sequence": [["mov", "mq0", "xmm0"], ["mov", "r10", "m1"], ["mov", "m3", "r10"]]},
       z3="slot_alias_units_ignored"),
    _m("slot_parts_high_first", "_resolve_names",
       "                got += resolve(p, chain + (name,))",
       "                got = [*resolve(p, chain + (name,)), *got] if slot else "
       "[*got, *resolve(p, chain + (name,))]",
       "a wide slot's parts are taken high part first: the low half of a register "
       "stored to mq0 lands in its high part m1",
       {"machine": _FRAME, "moves": [["m1", "xmm0", "f64"]], "temps": ["m0"],
        "sequence": [["mov", "mq0", "xmm0"]]}, z3="slot_parts_high_first"),
    _m("slot_part_kinds_unchecked", "_resolve_names",
       "                if slot and p not in group_of:",
       "                if slot and p not in group_of and p not in cls_of:",
       "a slot may lie over a register: a machine whose 16-byte slot is half a GPR "
       "is accepted",
       {"machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": [{"names": ["m0"]}, {"names": ["mq0"], "width": 2}],
                    "aliases": {"mq0": ["m0", "a"]}}, "moves": [], "sequence": []}),
    _m("slot_part_widths_unchecked", "_resolve_names",
       "            if len(got) != width:", "            if len(got) != width and not slot:",
       "a slot's parts need not add up to its width: a 16-byte slot over two 4-byte "
       "ones is accepted",
       {"machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": [{"names": ["m0", "md0"], "width": 1},
                              {"names": ["mq0"], "width": 4}],
                    "aliases": {"mq0": ["m0", "md0"]}}, "moves": [], "sequence": []}),
]

BY_NAME = {m.name: m for m in MUTANTS}
