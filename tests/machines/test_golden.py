"""Golden answers of ``verified check`` on machine requests
(``docs/machines.md``): each bug class of the design as the failing and the
fixed sequence, each operation a machine can lack (a wrong sequence, exit
1, the operation's index and what the machine lacks), each class of bad
input (exit 2, the message names the pair or the field).  The answers are
pinned byte for byte without ``"optimal"``/``"optimal_note"``, which come
from the optimum module and are pinned apart (``test_optimal_hook_*``)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import types

import pytest

from tests.machines.corpus import BAD_INPUT, BUG_CLASSES, ILLEGAL
from verified.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from verified.core.machine import MachineOptimum, parse_machine_request
from verified.tools import check as C
from verified.tools.wire import parse_request, serve

from tests.support import optimum_once

GOLDEN_BUGS = [
    (1, '{"ok": false, "length": 1, "reason": "operation #0: swap m0, m1 is a memory-to-memory swap, which x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)", "operation": 0}'),
    (0, '{"ok": true, "length": 3, "cost": 3}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination [a1, a2] (unit a2) must hold the original value of a1 but holds that of a0", "counterexample": {"location": ["a1", "a2"], "unit": "a2", "expected": "a1", "got": "a0"}}'),
    (1, '{"ok": false, "length": 1, "cost": 2, "reason": "destination [a1, a2] (unit a2) must hold the original value of a1 but holds that of a0", "counterexample": {"location": ["a1", "a2"], "unit": "a2", "expected": "a1", "got": "a0"}}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination s4 (unit s4) must hold the original value of s1 but holds that of s3", "counterexample": {"location": "s4", "unit": "s4", "expected": "s1", "got": "s3"}}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination x1 (unit x1) must hold the original value of x0 but holds the immediate piece #42", "counterexample": {"location": "x1", "unit": "x1", "expected": "x0", "got": "#42"}}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    (1, '{"ok": false, "length": 5, "cost": 5, "reason": "destination rbx (unit rbx) must hold the original value of rax but holds that of m1", "counterexample": {"location": "rbx", "unit": "rbx", "expected": "rax", "got": "m1"}}'),
    (0, '{"ok": true, "length": 5, "cost": 5}'),
    (1, '{"ok": false, "length": 3, "reason": "operation #0: mov t0, f0 goes between classes gpr and fpr, which two-classes lacks (cross_class is false)", "operation": 0}'),
    (0, '{"ok": true, "length": 3, "cost": 3}'),
    (1, '{"ok": false, "length": 6, "cost": 6, "reason": "destination a1 (unit a1) must hold the original value of a0 but holds that of fa0", "counterexample": {"location": "a1", "unit": "a1", "expected": "a0", "got": "fa0"}}'),
    (0, '{"ok": true, "length": 6, "cost": 6}'),
    (1, '{"ok": false, "length": 3, "cost": 3, "reason": "rax (unit rax) is not a destination, so it must keep its own value, but it was clobbered with that of m1", "counterexample": {"location": "rax", "unit": "rax", "expected": "rax", "got": "m1"}}'),
    (0, '{"ok": true, "length": 3, "cost": 3}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination [a0, a1] (unit a1) must hold the immediate piece #0 but holds the immediate piece #5", "counterexample": {"location": ["a0", "a1"], "unit": "a1", "expected": "#0", "got": "#5"}}'),
    (0, '{"ok": true, "length": 1, "cost": 2}'),
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "destination m1 (unit m1) must hold the original value of m0 but holds that of m1", "counterexample": {"location": "m1", "unit": "m1", "expected": "m0", "got": "m1"}}'),
    (0, '{"ok": true, "length": 4, "cost": 4}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination [rdx, rbx] (unit rbx) must hold the immediate piece #18446744073709551615 but holds the immediate piece #0", "counterexample": {"location": ["rdx", "rbx"], "unit": "rbx", "expected": "#18446744073709551615", "got": "#0"}}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "xmm15 (unit xmm15.1) is not a destination, so it must keep its own value, but it was clobbered with an undefined value (the rest of a typed write\'s destination)", "counterexample": {"location": "xmm15", "unit": "xmm15.1", "expected": "xmm15.1", "got": "?"}}'),
    (0, '{"ok": true, "length": 4, "cost": 4}'),
    (1, '{"ok": false, "length": 2, "cost": 2, "reason": "destination d0 (unit s1) must hold the original value of r1 but holds that of r0", "counterexample": {"location": "d0", "unit": "s1", "expected": "r1", "got": "r0"}}'),
    (0, '{"ok": true, "length": 1, "cost": 1}'),
    # stack operations (round 3)
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "destination m0 (unit m0) must hold the original value of m1 but holds that of m0", "counterexample": {"location": "m0", "unit": "m0", "expected": "m1", "got": "m0"}}'),
    (0, '{"ok": true, "length": 4, "cost": 4}'),
    (1, '{"ok": false, "length": 3, "cost": 3, "reason": "the stack is left with 1 word pushed; a sequence must pop every word it pushes"}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "operation #0 pops 1 word(s) from a stack that holds 0: a pop from an empty stack takes a value that was never pushed", "operation": 0}'),
    (0, '{"ok": true, "length": 2, "cost": 2}'),
    # parts and overlap of slots (issue 23)
    (1, '{"ok": false, "length": 3, "cost": 3, "reason": "destination mq2 (unit m3) must hold the original value of m1 but holds that of m0", "counterexample": {"location": "mq2", "unit": "m3", "expected": "m1", "got": "m0"}}'),
    (0, '{"ok": true, "length": 4, "cost": 4}'),
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "destination mq1 (unit m2) must hold the original value of m1 but holds that of m0", "counterexample": {"location": "mq1", "unit": "m2", "expected": "m1", "got": "m0"}}'),
    (0, '{"ok": true, "length": 4, "cost": 4}'),
    (1, '{"ok": false, "length": 3, "cost": 3, "reason": "destination m3 (unit m3) must hold the original value of m1 but holds that of xmm0.1", "counterexample": {"location": "m3", "unit": "m3", "expected": "m1", "got": "xmm0.1"}}'),
    (0, '{"ok": true, "length": 3, "cost": 3}'),
    (1, '{"ok": false, "length": 1, "cost": 1, "reason": "destination m1 (unit m1) must hold the original value of xmm0.0 but holds that of xmm0.1", "counterexample": {"location": "m1", "unit": "m1", "expected": "xmm0.0", "got": "xmm0.1"}}'),
    (0, '{"ok": true, "length": 1, "cost": 1}'),
    (1, '{"ok": false, "length": 4, "cost": 4, "reason": "destination mq0 (unit m1) must hold the original value of m3 but holds that of m1", "counterexample": {"location": "mq0", "unit": "m1", "expected": "m3", "got": "m1"}}'),
    (0, '{"ok": true, "length": 6, "cost": 6}'),
]

GOLDEN_ILLEGAL = {
    'mov_mem_mem': '{"ok": false, "length": 1, "reason": "operation #0: mov m0, m1 is a memory-to-memory move, which x86-64 lacks (mem_to_mem is false)", "operation": 0}',
    'swap_mem_mem': '{"ok": false, "length": 1, "reason": "operation #0: swap m0, m1 is a memory-to-memory swap, which x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps two slots)", "operation": 0}',
    'swap_reg_reg': '{"ok": false, "length": 1, "reason": "operation #0: swap x0, x1 is a reg-reg swap, which aarch64 lacks (its swaps: none)", "operation": 0}',
    'swap_reg_mem': '{"ok": false, "length": 1, "reason": "operation #0: swap x0, m0 is a reg-mem swap, which aarch64 lacks (its swaps: none)", "operation": 0}',
    'swap_class_lacks': '{"ok": false, "length": 1, "reason": "operation #0: swap xmm0, xmm1 is a reg-reg swap, which class xmm of x86-64 lacks (its swaps: none)", "operation": 0}',
    'swap_s_on_armv7': '{"ok": false, "length": 1, "reason": "operation #0: swap s0, s1 is a reg-reg swap, which armv7-vfp lacks (its swaps: none)", "operation": 0}',
    'width_store': '{"ok": false, "length": 1, "reason": "operation #0: mov m0, xmm0 has operands of widths 1 and 2; a mov needs equal widths", "operation": 0}',
    'width_scratch': '{"ok": false, "length": 2, "reason": "operation #0: mov xmm0, m1 has operands of widths 2 and 1; a mov needs equal widths", "operation": 0}',
    'width_reg': '{"ok": false, "length": 1, "reason": "operation #0: mov d0, s2 has operands of widths 2 and 1; a mov needs equal widths", "operation": 0}',
    'cross_class': '{"ok": false, "length": 1, "reason": "operation #0: mov a0, f0 goes between classes gpr and fpr, which two-classes lacks (cross_class is false)", "operation": 0}',
    'imm_to_mem': '{"ok": false, "length": 1, "reason": "operation #0: mov m0, #5 writes an immediate to a stack slot, which aarch64 lacks (immediate_to is [\\"reg\\"])", "operation": 0}',
    'imm_to_class': '{"ok": false, "length": 1, "reason": "operation #0: mov xmm0, #5 writes an immediate to xmm0 of class xmm, which takes no immediate on x86-64", "operation": 0}',
    'imm_to_slot_group': '{"ok": false, "length": 1, "reason": "operation #0: mov mw0, #5 writes an immediate to slot mw0, whose group takes no immediate on x86-64", "operation": 0}',
    'list_vs_single': '{"ok": false, "length": 1, "reason": "operation #0: mov [s0, s1], d1 pairs a list of 2 part(s) with a single location; a list operand is moved part by part, so the other side must be a list of as many parts", "operation": 0}',
    'list_part_illegal': '{"ok": false, "length": 1, "reason": "operation #0: mov [m0, m1], [m2, m3]: part mov m0, m2 is a memory-to-memory move, which riscv64 lacks (mem_to_mem is false)", "operation": 0}',
    'unknown_name': '{"ok": false, "length": 1, "reason": "operation #0: \'eax\' is not a register or slot of x86-64", "operation": 0}',
    'unknown_op': '{"ok": false, "length": 1, "reason": "operation #0: unknown operation \'perm\' on a machine; known: mov, swap, push, pop", "operation": 0}',
    'malformed_op': '{"ok": false, "length": 1, "reason": "operation #0: mov takes 2 operands, got 1 in [\\"mov\\", \\"rax\\"]", "operation": 0}',
    'imm_destination': '{"ok": false, "length": 1, "reason": "operation #0: {\\"imm\\": 1} is an immediate, which cannot be written to", "operation": 0}',
    'swap_imm': '{"ok": false, "length": 1, "reason": "operation #0: {\\"imm\\": 1} is an immediate, which cannot be written to", "operation": 0}',
    'not_a_list': '{"ok": false, "length": 0, "reason": "\\"sequence\\" must be a list of operations, not \\"mov\\""}',
    'second_op_illegal': '{"ok": false, "length": 2, "reason": "operation #1: mov m0, m1 is a memory-to-memory move, which x86-64 lacks (mem_to_mem is false)", "operation": 1}',
    'imm_wider_than_store': '{"ok": false, "length": 1, "reason": "operation #0: mov.i64 m0, #1099511627776 writes the constant 1099511627776 into a stack slot, but one mov of x86-64 writes at most a 32-bit immediate there (immediate_bits); build it in a register first", "operation": 0}',
    'imm_does_not_fit': '{"ok": false, "length": 1, "reason": "operation #0: mov rax, #18446744073709551616: the constant 18446744073709551616 does not fit in 64 bits (1 unit(s) of 64 bits); a constant takes -2^63 .. 2^64-1 there", "operation": 0}',
    'typed_cannot_hold': '{"ok": false, "length": 1, "reason": "operation #0: mov.v128 rax, xmm0: rax cannot hold v128: rax is of class gpr (v128 is 2 unit(s) wide and lives in registers of class xmm or stack slots at least 2 unit(s) wide)", "operation": 0}',
    'typed_swap_class_lacks': '{"ok": false, "length": 1, "reason": "operation #0: swap.f64 xmm0, xmm1 is a reg-reg swap, which class xmm of x86-64 lacks (its swaps: none)", "operation": 0}',
    'unknown_type': '{"ok": false, "length": 1, "reason": "operation #0: unknown type \\"f80\\" on x86-64; its types are i32, i64, f32, f64, v128: name one of them, or drop the type for an untyped value that fills its locations", "operation": 0}',
    'typed_list_too_wide': '{"ok": false, "length": 1, "reason": "operation #0: mov.i64 [r0, r1, r4], [r2, r3, r5]: the list [r0, r1, r4] has width 3, but a typed operation on a list moves it part by part, so the list must be exactly as wide as i64 (2)", "operation": 0}',
    'pair_move_lacking': '{"ok": false, "length": 1, "reason": "operation #0: mov [a0, a1], fa0 pairs a list of 2 part(s) with a single location; a list operand is moved part by part, so the other side must be a list of as many parts", "operation": 0}',
    'pair_move_mixed_classes': '{"ok": false, "length": 1, "reason": "operation #0: mov d0, [r0, s1] pairs a list of 2 part(s) with a single location; a list operand is moved part by part, so the other side must be a list of as many parts", "operation": 0}',
    'writes_reserved': '{"ok": false, "length": 3, "reason": "operation #0: swap rax, rbp writes rbp, which x86-64 reserves (reserved: rsp, rbp); a sequence never writes a reserved register", "operation": 0}',
    # stack operations (round 3)
    'push_none_on_aarch64': '{"ok": false, "length": 2, "reason": "operation #0: push x1 pushes a register, which aarch64 lacks (push is [])", "operation": 0}',
    'push_xmm': '{"ok": false, "length": 2, "reason": "operation #0: push xmm1 names xmm1 of class xmm, which push and pop do not take on x86-64", "operation": 0}',
    'push_imm_too_wide': '{"ok": false, "length": 2, "reason": "operation #0: push #1099511627776 pushes the constant 1099511627776, but a push of x86-64 takes at most a 32-bit immediate, sign-extended (immediate_bits \\"mem\\"); build it in a register first", "operation": 0}',
    'pop_into_slot_on_arm': '{"ok": false, "length": 2, "reason": "operation #1: pop m0 pops into a stack slot, which armv7-vfp lacks (pop is [\\"reg\\"])", "operation": 1}',
    # parts and overlap of slots (issue 23)
    'slot_part_to_slot_part': '{"ok": false, "length": 1, "reason": "operation #0: mov m3, m1 is a memory-to-memory move, which x64-frame lacks (mem_to_mem is false)", "operation": 0}',
    'swap_overlapping_slots': '{"ok": false, "length": 1, "reason": "operation #0: swap mq0, mq1 swaps overlapping slots mq0 and mq1", "operation": 0}',
    'push_wide_slot': '{"ok": false, "length": 2, "reason": "operation #0: push mq0 names slot mq0, whose group push and pop do not take on x64-frame", "operation": 0}',
}

GOLDEN_BAD = {
    'overlap_alias': '{"error": "line 1: destinations overlap: d0 <- d1 and s1 <- s0 both write unit s1; a parallel move needs disjoint destinations"}',
    'overlap_alias_q': '{"error": "line 1: destinations overlap: q0 <- q1 and d1 <- d4 both write unit s2; a parallel move needs disjoint destinations"}',
    'overlap_pair': '{"error": "line 1: destinations overlap: [a0, a1] <- [a2, a3] and a1 <- a4 both write unit a1; a parallel move needs disjoint destinations"}',
    'width_mismatch': '{"error": "line 1: move d0 <- s1: d0 has width 2 but s1 has width 1; a move needs equal widths"}',
    'width_mismatch_pair': '{"error": "line 1: move [a0, a1] <- a2: [a0, a1] has width 2 but a2 has width 1; a move needs equal widths"}',
    'unknown_name': '{"error": "line 1: move #0 [\\"rax\\", \\"d1\\"]: \'rax\' is not a register or slot of armv7-vfp"}',
    'unknown_temp': '{"error": "line 1: temporary \\"t\\": \'t\' is not a register or slot of x86-64"}',
    'imm_destination': '{"error": "line 1: move #0 [{\\"imm\\": 1}, \\"rax\\"]: {\\"imm\\": 1} is an immediate, which cannot be written to"}',
    'bad_imm': '{"error": "line 1: move #0 [\\"rax\\", {\\"imm\\": \\"1\\"}]: an immediate is {\\"imm\\": k} with a whole number k, not {\\"imm\\": \\"1\\"}"}',
    'mixed_list': '{"error": "line 1: move #0 [[\\"a0\\", \\"m0\\"], [\\"a1\\", \\"a2\\"]]: [\\"a0\\", \\"m0\\"] mixes registers and slots; a multi-register value is all registers or all slots"}',
    'overlapping_list': '{"error": "line 1: move #0 [[\\"d0\\", \\"s1\\"], [\\"s4\\", \\"s5\\", \\"s6\\"]]: [\\"d0\\", \\"s1\\"] names overlapping parts d0 and s1"}',
    'integer_location': '{"error": "line 1: move #0 [1, 0]: a location on a machine is a register or slot name, a list of them, or {\\"imm\\": k}; not 1"}',
    'temp_in_move': '{"error": "line 1: temporary s0 overlaps the move d0 <- d1 (unit s0); a temporary must be a location the moves do not touch"}',
    'temps_overlap': '{"error": "line 1: temporaries d0 and s1 overlap (unit s1); declare each once"}',
    'model_with_machine': '{"error": "line 1: \\"model\\" does not go with \\"machine\\": the machine says which registers and operations exist; drop \\"model\\""}',
    'registers_with_machine': '{"error": "line 1: \\"registers\\" does not go with \\"machine\\": the machine says which registers and operations exist; drop \\"registers\\""}',
    'unknown_field': '{"error": "line 1: unknown field(s) \'cost\'; a machine request has id, machine, moves, temps, preserve, sequence"}',
    'unknown_preset': '{"error": "line 1: unknown machine \'z80\'; the presets are x86-64, aarch64, riscv64, armv7-vfp, the profiles v8-x64, v8-arm, v8-arm-d16, qbe-amd64, qbe-arm64, qbe-rv64, cranelift-x64, cranelift-aarch64 (or give a machine object, docs/machines.md)"}',
    'machine_not_object': '{"error": "line 1: \\"machine\\": must be a preset or profile name (x86-64, aarch64, riscv64, armv7-vfp, v8-x64, v8-arm, v8-arm-d16, qbe-amd64, qbe-arm64, qbe-rv64, cranelift-x64, cranelift-aarch64) or a machine object, not 5"}',
    'machine_unknown_field': '{"error": "line 1: \\"machine\\": a machine object has unknown field(s) \'regs\'; it has name, source, classes, aliases, stack, swap, mem_to_mem, immediate_to, cross_class, cost, unit_bits, types, immediate_bits, pair_moves, reserved, scratch, push, pop"}',
    'machine_no_classes': '{"error": "line 1: \\"machine\\": missing \\"classes\\": {\\"NAME\\": {\\"registers\\": [...], \\"width\\": W}, ...}"}',
    'machine_duplicate_name': '{"error": "line 1: \\"machine\\": \'a\' is declared twice (class \'g\' and class \'h\')"}',
    'machine_slot_clash': '{"error": "line 1: \\"machine\\": slot \'s0\' is declared twice (class \'s\' and the stack) (a machine whose registers use s-names names its slots otherwise: \\"names\\": [\\"m0\\", \\"m1\\", ...])"}',
    'machine_alias_not_in_class': '{"error": "line 1: \\"machine\\": alias \'d0\' is not a register of any class; list it in its class (with its width) and in \\"aliases\\""}',
    'machine_alias_width': '{"error": "line 1: \\"machine\\": alias \'d0\': its parts [\\"s0\\", \\"s1\\"] have width 2 but class \'d\' says 3"}',
    'machine_alias_unknown_part': '{"error": "line 1: \\"machine\\": alias \'d0\': part \'s0\' is not a register of any class"}',
    'machine_alias_overlap': '{"error": "line 1: \\"machine\\": alias \'d0\': its parts [\\"s0\\", \\"s0\\"] overlap"}',
    'machine_alias_cycle': '{"error": "line 1: \\"machine\\": alias \'d0\' contains itself (d0 -> d1 -> d0)"}',
    'machine_bad_width': '{"error": "line 1: \\"machine\\": class \'g\': \\"width\\" must be a whole number in 1..65536, not 0"}',
    'machine_bad_swap': '{"error": "line 1: \\"machine\\": \\"swap\\" must be a list of distinct values among \\"reg-reg\\", \\"reg-mem\\", not [\\"mem-mem\\"]"}',
    'machine_bad_cost': '{"error": "line 1: \\"machine\\": \\"cost\\": \'mov\' must be a whole number in 0..65536, not -1"}',
    'machine_bad_name': '{"error": "line 1: \\"machine\\": a register of class \'g\' must be a name (a letter or _, then letters, digits, _), not \'a.0\'"}',
    'machine_stack_both': '{"error": "line 1: \\"machine\\": \\"stack\\" needs exactly one of \\"slots\\": N (slots s0..s{N-1}) or \\"names\\": [...]"}',
    'unknown_type': '{"error": "line 1: move #0 [\\"rax\\", \\"rbx\\", \\"f80\\"]: unknown type \\"f80\\" on x86-64; its types are i32, i64, f32, f64, v128: name one of them, or drop the type for an untyped value that fills its locations"}',
    'type_on_untyped_machine': '{"error": "line 1: move #0 [\\"a0\\", \\"a1\\", \\"i64\\"]: \\"i64\\" names a type, but two-classes declares no types; drop the type (an untyped value fills its locations) or describe the machine\'s \\"types\\" (docs/machines.md)"}',
    'cannot_hold_type': '{"error": "line 1: move rax <- xmm0 (v128): rax cannot hold v128: rax is of class gpr (v128 is 2 unit(s) wide and lives in registers of class xmm or stack slots at least 2 unit(s) wide)"}',
    'slot_too_narrow_for_type': '{"error": "line 1: move m0 <- xmm0 (v128): m0 has width 1, too narrow for v128 (v128 is 2 unit(s) wide and lives in registers of class xmm or stack slots at least 2 unit(s) wide)"}',
    'register_too_narrow_for_type': '{"error": "line 1: move r0 <- d1 (f64): r0 has width 1, too narrow for f64 (f64 is 2 unit(s) wide and lives in registers of class d or gpr or stack slots at least 2 unit(s) wide)"}',
    'imm_does_not_fit': '{"error": "line 1: move rax <- #18446744073709551616: the constant 18446744073709551616 does not fit in 64 bits (1 unit(s) of 64 bits); a constant takes -2^63 .. 2^64-1 there"}',
    'imm_does_not_fit_type': '{"error": "line 1: move r0 <- #4294967296 (i32): the constant 4294967296 does not fit in 32 bits (1 unit(s) of 32 bits); a constant takes -2^31 .. 2^32-1 there"}',
    'move_too_long': '{"error": "line 1: move #0 must be a [dst, src] pair (or [dst, src, TYPE]), not [\\"rax\\", \\"rbx\\", \\"i64\\", \\"x\\"]"}',
    'machine_type_bad_class': '{"error": "line 1: \\"machine\\": type \'i64\': \'fpr\' is not a class of this machine (its classes: g)"}',
    'machine_bad_pair_move': '{"error": "line 1: \\"machine\\": pair move #0: \'x\' is neither a class of this machine nor \\"mem\\""}',
    'machine_bad_immediate_bits': '{"error": "line 1: \\"machine\\": \\"immediate_bits\\": \'reg\' must be a whole number in 1..65536, not 0"}',
    'reserved_in_move': '{"error": "line 1: move rsp <- rax: rsp is reserved on x86-64 (reserved: rsp, rbp); a move or temporary never names a reserved register"}',
    'reserved_as_temp': '{"error": "line 1: temporary rbp: rbp is reserved on x86-64 (reserved: rsp, rbp); a move or temporary never names a reserved register"}',
    'machine_reserved_unknown': '{"error": "line 1: \\"machine\\": \\"reserved\\": \'sp\' is not a register of machine"}',
    'machine_scratch_reserved': '{"error": "line 1: \\"machine\\": \\"scratch\\": \'a\' overlaps the reserved register \'a\'; a reserved register is never written, so it cannot be a scratch"}',
    'machine_empty_class_name': '{"error": "line 1: \\"machine\\": a class name must be a name (a letter or _, then letters, digits, _), not \'\'"}',
    'machine_alias_twice': '{"error": "line 1: \\"machine\\": aliases \'d0\' and \'x0\' have the same parts [\\"s0\\", \\"s1\\"]; declare the register once"}',
    # parts and overlap of slots (issue 23)
    'overlap_slot_part': '{"error": "line 1: destinations overlap: mq0 <- mq2 and m1 <- rax both write unit m1; a parallel move needs disjoint destinations"}',
    'overlap_slots': '{"error": "line 1: destinations overlap: mq0 <- xmm0 and mq1 <- xmm1 both write unit m1; a parallel move needs disjoint destinations"}',
    'temp_slot_part_in_move': '{"error": "line 1: temporary m2 overlaps the move mq1 <- xmm0 (unit m2); a temporary must be a location the moves do not touch"}',
    'machine_slot_alias_register_part': '{"error": "line 1: \\"machine\\": alias \'mq0\' is a stack slot, so its parts are slots, but \'a\' is a register; list the narrower slots it lies over in \\"stack\\""}',
    'machine_slot_alias_width': '{"error": "line 1: \\"machine\\": alias \'mq0\': its parts [\\"m0\\", \\"md0\\"] have width 2 but its stack group has width 4; a slot\'s parts add up to its width"}',
    'machine_slot_alias_unknown_part': '{"error": "line 1: \\"machine\\": alias \'mq0\' is a stack slot, so its parts are slots, but \'m0\' is no slot of the stack; list the narrower slots it lies over in \\"stack\\""}',
    'machine_slot_alias_cycle': '{"error": "line 1: \\"machine\\": alias \'m0\' contains itself (m0 -> m1 -> m0)"}',
    'machine_slot_alias_one_part': '{"error": "line 1: \\"machine\\": alias \'m1\' has the same units as the slot \'m0\'; declare the slot once"}',
    'machine_slot_aliases_twice': '{"error": "line 1: \\"machine\\": aliases \'mq0\' and \'mq1\' have the same parts [\\"m0\\", \\"m1\\"]; declare the slot once"}',
    'machine_register_alias_slot_part': '{"error": "line 1: \\"machine\\": alias \'d0\': part \'m0\' is not a register of any class"}',
}


def answer(obj: dict) -> tuple[int, str]:
    """(exit status, answer line without the optimum fields) of one line
    served by ``verified check``'s own loop."""
    out = io.StringIO()
    status = serve(io.BytesIO(json.dumps(obj).encode() + b"\n"), out, C._handle_check)
    got = json.loads(out.getvalue())
    got.pop("optimal", None)
    got.pop("optimal_note", None)
    return status, json.dumps(got)


@pytest.mark.parametrize("i", range(len(BUG_CLASSES)),
                         ids=[f"{c[0]}-{'fixed' if c[3] else 'failing'}" for c in BUG_CLASSES])
def test_bug_class(i):
    name, request, sequence, ok = BUG_CLASSES[i]
    status, line = answer({**request, "sequence": sequence})
    assert (status, line) == GOLDEN_BUGS[i]
    assert json.loads(line)["ok"] is ok
    assert status == (EXIT_OK if ok else EXIT_WRONG)


def test_every_bug_class_has_a_failing_and_a_fixed_sequence():
    names = {c[0] for c in BUG_CLASSES}
    assert names >= {"slot_xchg", "pair_shift", "alias_d_over_s", "imm_first",
                     "scratch_reuse", "cross_class_scratch", "float_slot_swap",
                     "wide_constant_halves", "typed_save_of_a_borrowed_register",
                     "pair_move_vmov"}
    for name in names:
        assert {ok for n, _, _, ok in BUG_CLASSES if n == name} == {True, False}, name


@pytest.mark.parametrize("name, request_", ILLEGAL, ids=[n for n, _ in ILLEGAL])
def test_illegal_operation_is_a_wrong_sequence(name, request_, monkeypatch):
    optimum_once(monkeypatch)  # cross_class's search, once a process (tests/support.py)
    status, line = answer(request_)
    assert (status, line) == (EXIT_WRONG, GOLDEN_ILLEGAL[name])
    got = json.loads(line)
    assert got["ok"] is False and "cost" not in got
    if name != "not_a_list":
        assert got["reason"].startswith(f"operation #{got['operation']}: ")


@pytest.mark.parametrize("name, request_", BAD_INPUT, ids=[n for n, _ in BAD_INPUT])
def test_bad_input(name, request_):
    assert answer({**request_, "sequence": []}) == (EXIT_BAD_INPUT, GOLDEN_BAD[name])


def test_the_cli_end_to_end():
    """One run of the real command over every bug line: the same answers,
    each with "optimal", and the worst exit status (1)."""
    lines = [{**r, "sequence": s} for _, r, s, _ in BUG_CLASSES]
    p = subprocess.run([sys.executable, "-m", "verified.cli", "check"],
                       input="".join(json.dumps(x) + "\n" for x in lines).encode(),
                       capture_output=True, timeout=120)
    assert p.returncode == EXIT_WRONG and p.stderr == b""
    got = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert all("optimal" in g for g in got)
    for g in got:
        g.pop("optimal")
        g.pop("optimal_note", None)
    assert [json.dumps(g) for g in got] == [line for _, line in GOLDEN_BUGS]


SLOT_SWAP = {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]], "temps": ["rax"],
             "sequence": [["mov", "rax", "m0"], ["swap", "rax", "m1"], ["mov", "m0", "rax"]]}


def test_optimal_hook_absent_gives_null_with_a_note(monkeypatch):
    monkeypatch.setattr(C, "MACHINE_OPTIMUM", "verified.algorithms.no_such_module")
    req = parse_machine_request(SLOT_SWAP, need_sequence=True)
    assert C.check_machine(req) == {
        "ok": True, "length": 3, "cost": 3, "optimal": None,
        "optimal_note": "the optimum on a machine is not computed by this version"}


def test_optimal_hook_present_is_called_with_the_request(monkeypatch):
    seen = []
    fake = types.ModuleType("fake_machine_optimum")
    fake.optimum = lambda req: seen.append(req) or MachineOptimum(3)
    monkeypatch.setitem(sys.modules, "fake_machine_optimum", fake)
    monkeypatch.setattr(C, "MACHINE_OPTIMUM", "fake_machine_optimum")
    req = parse_machine_request(SLOT_SWAP, need_sequence=True)
    assert C.check_machine(req) == {"ok": True, "length": 3, "cost": 3, "optimal": 3}
    assert seen == [req]
    fake.optimum = lambda req: MachineOptimum(None, "no legal sequence exists")
    assert C.check_machine(req)["optimal_note"] == "no legal sequence exists"


def test_a_broken_optimum_module_is_not_hidden(monkeypatch):
    """An optimum module that fails to import for another reason (a missing
    dependency of its own) is an internal error, not a silent null."""
    monkeypatch.setattr(C, "MACHINE_OPTIMUM", "tests.machines.no_such_parent.child")
    req = parse_machine_request(SLOT_SWAP, need_sequence=True)
    with pytest.raises(ModuleNotFoundError):
        C.check_machine(req)


def test_round_one_commands_refuse_a_machine_request_by_name():
    with pytest.raises(Exception, match='"machine" requests are not served by this command'):
        parse_request({"machine": "x86-64", "moves": []}, need_sequence=False)


def test_id_is_echoed():
    out = io.StringIO()
    serve(io.BytesIO(json.dumps({**SLOT_SWAP, "id": "q"}).encode() + b"\n"), out,
          C._handle_check)
    assert out.getvalue().startswith('{"id": "q", "ok": true, "length": 3, "cost": 3, ')


def test_the_docs_quote_the_pinned_answers():
    """Every verdict or error that docs/machines.md quotes in its tables is
    (part of) a pinned answer, so the reference cannot drift from the code."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "machines.md").read_text()
    pinned = [line for _, line in GOLDEN_BUGS] + list(GOLDEN_ILLEGAL.values()) + list(
        GOLDEN_BAD.values())
    from tests.conform.test_conform_machines import Q_OVER_S_VERDICT
    pinned.append(Q_OVER_S_VERDICT)
    quoted = [q for q in re.findall(r"`([^`]{30,})`", doc)
              if re.match(r"(operation #\d|destination|destinations overlap|move |"
                          r"temporary |rax \(unit)", q)]
    assert len(quoted) >= 15, quoted
    for q in quoted:
        text = " ".join(q.split("; ...")[0].rstrip(" .").replace("...", "").split())
        assert any(text.replace('"', '\\"') in p or text in p for p in pinned), q


@pytest.mark.parametrize("command", [("check",), ("solve", "-a", "resolve")])
def test_a_machine_request_without_moves_is_bad_input(command):
    """A machine request with no "moves" is bad input (exit 2, the message
    says what to send), never an internal error (issue 22's mutation run)."""
    from tests.support import verified
    for line in ('{"machine": "x86-64"}', '{"machine": "x86-64", "sequence": []}'):
        proc = verified(*command, input=line + "\n")
        assert (proc.returncode, proc.stdout) == (
            2, '{"error": "line 1: missing \\"moves\\": a list of [dst, src] pairs"}\n'), line
