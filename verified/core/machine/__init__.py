"""Machines: the oracle on real register files (``docs/machines.md``).

Round 1 speaks abstract registers ``r0..r{n-1}``.  A machine description
adds what real resolvers move values between: register **classes** (with a
width), **stack slots**, **immediates**, **multi-register values** (a list
of names, ``["a0", "a1"]``) and **aliased registers** (ARMv7 VFP: ``d0`` is
``s0:s1``).  This package holds, one concern a module, in the order of the
math:

1. ``description``: the description (``Machine``, parsed from a preset
   name or a JSON object by ``machine``), with its presets
   (``verified/data/machines/``);
2. ``locations``: locations on a machine (``Place``: a register, a slot or
   a list of them; ``Imm``: an immediate source) and their **units**: every
   register and slot is one or more units, an alias is its parts' units;
3. ``operations``: operations (``MMov``, ``MSwap``, and the stack
   operations ``MPush``, ``MPop``), their classification
   (reg<-reg, load, store, mem<-mem, reg<-imm, mem<-imm, swap reg-reg /
   reg-mem / mem-mem), ``illegal`` (what the machine lacks) and their
   ``cost``;
4. ``semantics``: the per-unit interpreter ``execute``;
5. ``oracle``: the parallel move on a machine (``MachineMove``, with its
   preconditions), ``implements`` (the verdict) and the request parser.

Every public name is re-exported here (``from verified.core.machine import
X``).  A request without ``"machine"`` never reaches this package: round 1
stays as it is (``verified/core/semantics.py``, ``verified/core/oracle.py``).
"""

from __future__ import annotations

from .description import (
    CLASS_KEYS, COST_KEYS, IMMEDIATE_KINDS, MACHINE_KEYS, MAX_UNITS, PAIR_KEYS, PRESETS,
    PROFILE_KEYS, PROFILES, POP_KINDS, PUSH_KINDS, STACK_COST_KEYS, STACK_KEYS, SWAP_KINDS, TYPE_KEYS, UNDEFINED,
    Cost, Machine, PairMove, Reg, RegClass,
    StackGroup, Unit, Value, ValueType, machine, machine_from_json, preset, preset_json,
    profile_json)
from .locations import (
    KINDS, Imm, MLoc, Place, class_of, classes_of, holds, imm_fits, kind, parse_loc, units,
    value_type, values, width)
from .operations import (
    OP_CLASSES, STACK_OP_CLASSES, MMov, MOperation, MPop, MPush, MSwap, classify, cost,
    format_mop, illegal, op_cost, pair_move, parse_op, parts, reserved_write, words,
    written_units)
from .oracle import (
    MACHINE_REQUEST_KEYS, MachineMove, MachineOptimum, MachineRequest, MachineVerdict,
    check_machine_request, format_move, implements, judge, parse_machine_request,
    read_machine_sequence)
from .semantics import (
    STACK, UNDERFLOW, Effect, MState, apply_effects, effects, execute, run_effects, step)

__all__ = [
    "CLASS_KEYS", "COST_KEYS", "IMMEDIATE_KINDS", "MACHINE_KEYS", "MAX_UNITS", "PRESETS",
    "PROFILE_KEYS", "PROFILES", "profile_json",
    "POP_KINDS", "PUSH_KINDS", "STACK_COST_KEYS", "STACK_KEYS", "SWAP_KINDS", "TYPE_KEYS",
    "PAIR_KEYS", "UNDEFINED", "Cost", "Machine",
    "PairMove", "Reg", "RegClass", "StackGroup", "Unit", "Value", "ValueType", "machine",
    "machine_from_json", "preset", "preset_json",
    "KINDS", "Imm", "MLoc", "Place", "class_of", "classes_of", "holds", "imm_fits", "kind",
    "parse_loc", "units", "value_type", "values", "width",
    "OP_CLASSES", "STACK_OP_CLASSES", "MMov", "MOperation", "MPop", "MPush", "MSwap",
    "classify", "cost", "format_mop", "illegal",
    "op_cost", "pair_move", "parse_op", "parts", "reserved_write", "words", "written_units",
    "STACK", "UNDERFLOW", "Effect", "MState", "apply_effects", "effects", "execute",
    "run_effects", "step",
    "MACHINE_REQUEST_KEYS", "MachineMove", "MachineOptimum", "MachineRequest",
    "MachineVerdict", "check_machine_request", "format_move", "implements", "judge",
    "parse_machine_request", "read_machine_sequence",
]
