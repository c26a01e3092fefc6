"""The machine requests the tests judge (no tests here): each bug class of
``docs/machines.md`` as a failing and a fixed sequence, each illegal
operation, each class of bad input.  ``answer`` is the line ``verified
check`` gives, without ``"optimal"``/``"optimal_note"`` (pinned apart:
they come from the optimum module, ``docs/machines.md``)."""

from __future__ import annotations

import json
from pathlib import Path

#: a machine with two classes of equal width and no cross-class move, as
#: riscv64 would be without FMV (the cross-class bug needs one)
TWO_CLASSES = {"name": "two-classes",
               "classes": {"gpr": {"registers": ["a0", "a1", "t0"]},
                           "fpr": {"registers": ["f0", "f1", "ft0"]}},
               "stack": {"names": ["m0", "m1"], "width": 1}}

# (name, request without "sequence", sequence, ok)
BUG_CLASSES = [
    # a swap-model resolver emits xchg between two stack slots
    ("slot_xchg", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
                   "temps": ["rax"]},
     [["swap", "m0", "m1"]], False),
    ("slot_xchg", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
                   "temps": ["rax"]},
     [["mov", "rax", "m0"], ["swap", "rax", "m1"], ["mov", "m0", "rax"]], True),
    # a two-register value shifted by one register, low half copied first
    ("pair_shift", {"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]]},
     [["mov", "a1", "a0"], ["mov", "a2", "a1"]], False),
    ("pair_shift", {"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]]},
     [["mov", ["a1", "a2"], ["a0", "a1"]]], False),  # a list is moved low part first
    ("pair_shift", {"machine": "riscv64", "moves": [[["a1", "a2"], ["a0", "a1"]]]},
     [["mov", "a2", "a1"], ["mov", "a1", "a0"]], True),
    # an aliased d register written while one of its s halves is still a source
    ("alias_d_over_s", {"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s4", "s1"]]},
     [["mov", "d0", "d1"], ["mov", "s4", "s1"]], False),
    ("alias_d_over_s", {"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s4", "s1"]]},
     [["mov", "s4", "s1"], ["mov", "d0", "d1"]], True),
    # an immediate written before its register is read
    ("imm_first", {"machine": "aarch64", "moves": [["x0", {"imm": 42}], ["x1", "x0"]]},
     [["mov", "x0", {"imm": 42}], ["mov", "x1", "x0"]], False),
    ("imm_first", {"machine": "aarch64", "moves": [["x0", {"imm": 42}], ["x1", "x0"]]},
     [["mov", "x1", "x0"], ["mov", "x0", {"imm": 42}]], True),
    # the scratch parks a cycle's value, then carries a slot-to-slot move
    ("scratch_reuse", {"machine": "x86-64",
                       "moves": [["rax", "rbx"], ["rbx", "rax"], ["m0", "m1"]],
                       "temps": ["r11"]},
     [["mov", "r11", "rax"], ["mov", "rax", "rbx"], ["mov", "r11", "m1"],
      ["mov", "m0", "r11"], ["mov", "rbx", "r11"]], False),
    ("scratch_reuse", {"machine": "x86-64",
                       "moves": [["rax", "rbx"], ["rbx", "rax"], ["m0", "m1"]],
                       "temps": ["r11"]},
     [["mov", "r11", "rax"], ["mov", "rax", "rbx"], ["mov", "rbx", "r11"],
      ["mov", "r11", "m1"], ["mov", "m0", "r11"]], True),
    # a cycle of one class broken through the other class's scratch
    ("cross_class_scratch", {"machine": TWO_CLASSES,
                             "moves": [["f0", "f1"], ["f1", "f0"]], "temps": ["t0", "ft0"]},
     [["mov", "t0", "f0"], ["mov", "f0", "f1"], ["mov", "f1", "t0"]], False),
    ("cross_class_scratch", {"machine": TWO_CLASSES,
                             "moves": [["f0", "f1"], ["f1", "f0"]], "temps": ["t0", "ft0"]},
     [["mov", "ft0", "f0"], ["mov", "f0", "f1"], ["mov", "f1", "ft0"]], True),
    # two classes' cycles parked in one shared spill slot (RISC-V, equal slot sizes)
    ("shared_spill_slot", {"machine": "riscv64",
                           "moves": [["a0", "a1"], ["a1", "a0"], ["fa0", "fa1"], ["fa1", "fa0"]],
                           "temps": ["m0"], "preserve": "loops"},
     [["mov", "m0", "a0"], ["mov", "a0", "a1"], ["mov", "m0", "fa0"], ["mov", "fa0", "fa1"],
      ["mov", "a1", "m0"], ["mov", "fa1", "m0"]], False),
    ("shared_spill_slot", {"machine": "riscv64",
                           "moves": [["a0", "a1"], ["a1", "a0"], ["fa0", "fa1"], ["fa1", "fa0"]],
                           "temps": ["m0"], "preserve": "loops"},
     [["mov", "m0", "a0"], ["mov", "a0", "a1"], ["mov", "a1", "m0"],
      ["mov", "m0", "fa0"], ["mov", "fa0", "fa1"], ["mov", "fa1", "m0"]], True),
]

BUG_CLASSES += [
    # a scratch register used without being declared or restored
    ("undeclared_scratch", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]]},
     [["mov", "rax", "m0"], ["swap", "rax", "m1"], ["mov", "m0", "rax"]], False),
    ("undeclared_scratch", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]]},
     [["swap", "rax", "m0"], ["swap", "rax", "m1"], ["swap", "rax", "m0"]], True),
    # a 128-bit constant written as the same immediate into both halves
    ("imm_pair_split", {"machine": "riscv64", "moves": [[["a0", "a1"], {"imm": 5}]]},
     [["mov", "a0", {"imm": 5}], ["mov", "a1", {"imm": 5}]], False),
    ("imm_pair_split", {"machine": "riscv64", "moves": [[["a0", "a1"], {"imm": 5}]]},
     [["mov", ["a0", "a1"], {"imm": 5}]], True),
]

# typed values, immediates as bit patterns, pair moves (round 3)
F64_SWAP = {"machine": "x86-64", "moves": [["m0", "m1", "f64"], ["m1", "m0", "f64"]],
            "temps": ["xmm15", "r11"]}
WIDE_CONSTANT = {"machine": "x86-64", "moves": [[["rdx", "rbx"], {"imm": -2}]]}
BORROW_XMM = {"machine": "x86-64", "moves": [["m0", "m1", "f64"]], "temps": ["mw0"]}
BUG_CLASSES += [
    # two spilled doubles swapped through xmm15: the slot-to-slot copy m0 <- m1
    # reuses xmm15 while it still holds the parked m0 (the JIT bug, typed)
    ("float_slot_swap", {**F64_SWAP, "temps": ["xmm15"]},
     [["mov", "xmm15", "m0", "f64"], ["mov", "xmm15", "m1", "f64"],
      ["mov", "m0", "xmm15", "f64"], ["mov", "m1", "xmm15", "f64"]], False),
    ("float_slot_swap", F64_SWAP,
     [["mov", "xmm15", "m0", "f64"], ["mov", "r11", "m1", "f64"],
      ["mov", "m0", "r11", "f64"], ["mov", "m1", "xmm15", "f64"]], True),
    # a 128-bit -2 in two 64-bit halves: the high half is all ones, not 0
    ("wide_constant_halves", WIDE_CONSTANT,
     [["mov", "rdx", {"imm": -2}], ["mov", "rbx", {"imm": 0}]], False),
    ("wide_constant_halves", WIDE_CONSTANT,
     [["mov", "rdx", {"imm": -2}], ["mov", "rbx", {"imm": -1}]], True),
    # a borrowed xmm register saved and restored as a double: its high half is lost
    ("typed_save_of_a_borrowed_register", BORROW_XMM,
     [["mov", "mw0", "xmm15", "f64"], ["mov", "xmm15", "m1", "f64"],
      ["mov", "m0", "xmm15", "f64"], ["mov", "xmm15", "mw0", "f64"]], False),
    ("typed_save_of_a_borrowed_register", BORROW_XMM,
     [["mov", "mw0", "xmm15"], ["mov", "xmm15", "m1", "f64"],
      ["mov", "m0", "xmm15", "f64"], ["mov", "xmm15", "mw0"]], True),
    # a double in a core-register pair (soft-float AAPCS) into a d register
    ("pair_move_vmov", {"machine": "armv7-vfp", "moves": [["d0", ["r0", "r1"], "f64"]]},
     [["mov", "s0", "r0"], ["mov", "s1", "r0"]], False),
    ("pair_move_vmov", {"machine": "armv7-vfp", "moves": [["d0", ["r0", "r1"], "f64"]]},
     [["mov", "d0", ["r0", "r1"], "f64"]], True),
]

# stack operations (round 3)
BUG_CLASSES += [
    # stack operations (round 3): slot to slot through the stack, LIFO order
    ("stack_slot_swap", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]]},
     [["push", "m0"], ["push", "m1"], ["pop", "m1"], ["pop", "m0"]], False),
    ("stack_slot_swap", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]]},
     [["push", "m0"], ["push", "m1"], ["pop", "m0"], ["pop", "m1"]], True),
    # a push never popped: the caller's stack pointer is off by a word
    ("stack_unbalanced", {"machine": "x86-64", "moves": [["m0", "m1"]]},
     [["push", "m1"], ["push", "m1"], ["pop", "m0"]], False),
    ("stack_unbalanced", {"machine": "x86-64", "moves": [["m0", "m1"]]},
     [["push", "m1"], ["pop", "m0"]], True),
    # a pop before its push: it takes a word of the caller's frame
    ("stack_pop_empty", {"machine": "x86-64", "moves": [["m0", "m1"]], "temps": ["r10"]},
     [["pop", "r10"], ["push", "m1"], ["pop", "m0"], ["push", "r10"]], False),
    ("stack_pop_empty", {"machine": "x86-64", "moves": [["m0", "m1"]], "temps": ["r10"]},
     [["push", "m1"], ["pop", "m0"]], True),
]

# parts and overlap of slots (issue 23): an x86-64 frame whose 16-byte slots
# lie over its 8-byte ones (mq0 = m0:m1, mq1 = m1:m2 overlapping both
# neighbours, mq2 = m2:m3), as a frame layout does
FRAME = json.loads((Path(__file__).resolve().parents[2] / "mutants" / "data"
                    / "x64-frame.json").read_text())
SLOT_HALVES = {"machine": FRAME, "moves": [["mq2", "mq0"]], "temps": ["r10"]}
SLOT_SHIFT = {"machine": FRAME, "moves": [["mq1", "mq0"]], "temps": ["r10"]}
SLOT_CLOBBER = {"machine": FRAME, "moves": [["mq0", "xmm0"], ["m3", "m1"]], "temps": ["r10"]}
SIMD_SLOT_SWAP = {"machine": FRAME, "moves": [["mq0", "mq2"], ["mq2", "mq0"]],
                  "temps": ["xmm15"]}
BUG_CLASSES += [
    # a 16-byte slot copied as its two 8-byte halves through r10: the high half
    # is never read, so mq2's high half gets the low half again
    ("slot_halves", SLOT_HALVES,
     [["mov", "r10", "m0"], ["mov", "m2", "r10"], ["mov", "m3", "r10"]], False),
    ("slot_halves", SLOT_HALVES,
     [["mov", "r10", "m0"], ["mov", "m2", "r10"], ["mov", "r10", "m1"], ["mov", "m3", "r10"]],
     True),
    # a 16-byte slot moved 8 bytes up onto itself (mq1 = m1:m2 <- mq0 = m0:m1),
    # halves low first: the first store overwrites the high half it still reads
    ("overlapping_slot_shift", SLOT_SHIFT,
     [["mov", "r10", "m0"], ["mov", "m1", "r10"], ["mov", "r10", "m1"], ["mov", "m2", "r10"]],
     False),
    ("overlapping_slot_shift", SLOT_SHIFT,
     [["mov", "r10", "m1"], ["mov", "m2", "r10"], ["mov", "r10", "m0"], ["mov", "m1", "r10"]],
     True),
    # a store to the 16-byte slot mq0 clobbers its 8-byte part m1 before m1 is read
    ("wide_slot_clobbers_part", SLOT_CLOBBER,
     [["mov", "mq0", "xmm0"], ["mov", "r10", "m1"], ["mov", "m3", "r10"]], False),
    ("wide_slot_clobbers_part", SLOT_CLOBBER,
     [["mov", "r10", "m1"], ["mov", "m3", "r10"], ["mov", "mq0", "xmm0"]], True),
    # a double in xmm0 to the high 8 bytes of the 16-byte slot mq0 (its part
    # m1): storing the whole register puts the double in m0, not m1
    ("double_into_high_part", {"machine": FRAME, "moves": [["m1", "xmm0", "f64"]],
                               "temps": ["m0"]},
     [["mov", "mq0", "xmm0"]], False),
    ("double_into_high_part", {"machine": FRAME, "moves": [["m1", "xmm0", "f64"]],
                               "temps": ["m0"]},
     [["mov", "m1", "xmm0", "f64"]], True),
    # two 16-byte slots swapped V8's way (one through xmm15, the other's 8-byte
    # halves pushed and popped), with the high half's push and pop forgotten
    ("simd_slot_swap_by_halves", SIMD_SLOT_SWAP,
     [["mov", "xmm15", "mq0"], ["push", "m2"], ["pop", "m0"], ["mov", "mq2", "xmm15"]], False),
    ("simd_slot_swap_by_halves", SIMD_SLOT_SWAP,
     [["mov", "xmm15", "mq0"], ["push", "m2"], ["pop", "m0"], ["push", "m3"], ["pop", "m1"],
      ["mov", "mq2", "xmm15"]], True),
]

# (name, request with "sequence"): every operation class a machine can lack
ILLEGAL = [
    ("mov_mem_mem", {"machine": "x86-64", "moves": [["m0", "m1"]],
                     "sequence": [["mov", "m0", "m1"]]}),
    ("swap_mem_mem", {"machine": "x86-64", "moves": [["m0", "m1"], ["m1", "m0"]],
                      "sequence": [["swap", "m0", "m1"]]}),
    ("swap_reg_reg", {"machine": "aarch64", "moves": [["x0", "x1"], ["x1", "x0"]],
                      "sequence": [["swap", "x0", "x1"]]}),
    ("swap_reg_mem", {"machine": "aarch64", "moves": [["x0", "m0"], ["m0", "x0"]],
                      "sequence": [["swap", "x0", "m0"]]}),
    ("swap_class_lacks", {"machine": "x86-64", "moves": [["xmm0", "xmm1"], ["xmm1", "xmm0"]],
                          "sequence": [["swap", "xmm0", "xmm1"]]}),
    ("swap_s_on_armv7", {"machine": "armv7-vfp", "moves": [["s0", "s1"], ["s1", "s0"]],
                         "sequence": [["swap", "s0", "s1"]]}),
    ("width_store", {"machine": "x86-64", "moves": [["mw0", "xmm0"]],
                     "sequence": [["mov", "m0", "xmm0"]]}),
    ("width_scratch", {"machine": "x86-64", "moves": [["m0", "m1"]], "temps": ["xmm0"],
                       "sequence": [["mov", "xmm0", "m1"], ["mov", "m0", "xmm0"]]}),
    ("width_reg", {"machine": "armv7-vfp", "moves": [["d0", "d1"]],
                   "sequence": [["mov", "d0", "s2"]]}),
    ("cross_class", {"machine": TWO_CLASSES, "moves": [["a0", "f0"]],
                     "sequence": [["mov", "a0", "f0"]]}),
    ("imm_to_mem", {"machine": "aarch64", "moves": [["m0", {"imm": 5}]],
                    "sequence": [["mov", "m0", {"imm": 5}]]}),
    ("imm_to_class", {"machine": "x86-64", "moves": [["xmm0", {"imm": 5}]],
                      "sequence": [["mov", "xmm0", {"imm": 5}]]}),
    ("imm_to_slot_group", {"machine": "x86-64", "moves": [["mw0", {"imm": 5}]],
                           "sequence": [["mov", "mw0", {"imm": 5}]]}),
    ("list_vs_single", {"machine": "armv7-vfp", "moves": [["d0", "d1"]],
                        "sequence": [["mov", ["s0", "s1"], "d1"]]}),
    ("list_part_illegal", {"machine": "riscv64", "moves": [[["m0", "m1"], ["m2", "m3"]]],
                           "sequence": [["mov", ["m0", "m1"], ["m2", "m3"]]]}),
    ("unknown_name", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                      "sequence": [["mov", "rax", "eax"]]}),
    ("unknown_op", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                    "sequence": [["perm", [["rax", "rbx"]]]]}),
    ("malformed_op", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                      "sequence": [["mov", "rax"]]}),
    ("imm_destination", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                         "sequence": [["mov", {"imm": 1}, "rbx"]]}),
    ("swap_imm", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                  "sequence": [["swap", "rax", {"imm": 1}]]}),
    ("not_a_list", {"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": "mov"}),
    ("second_op_illegal", {"machine": "x86-64", "moves": [["m0", "m1"]], "temps": ["rax"],
                           "sequence": [["mov", "rax", "m1"], ["mov", "m0", "m1"]]}),
    # typed operations and immediates (round 3)
    ("imm_wider_than_store", {"machine": "x86-64", "moves": [["m0", {"imm": 1 << 40}, "i64"]],
                              "sequence": [["mov", "m0", {"imm": 1 << 40}, "i64"]]}),
    ("imm_does_not_fit", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                          "sequence": [["mov", "rax", {"imm": 1 << 64}]]}),
    ("typed_cannot_hold", {"machine": "x86-64", "moves": [["rax", "xmm0", "f64"]],
                           "sequence": [["mov", "rax", "xmm0", "v128"]]}),
    ("typed_swap_class_lacks", {"machine": "x86-64",
                                "moves": [["xmm0", "xmm1", "f64"], ["xmm1", "xmm0", "f64"]],
                                "sequence": [["swap", "xmm0", "xmm1", "f64"]]}),
    ("unknown_type", {"machine": "x86-64", "moves": [["rax", "rbx"]],
                      "sequence": [["mov", "rax", "rbx", "f80"]]}),
    ("typed_list_too_wide", {"machine": "armv7-vfp",
                             "moves": [[["r0", "r1"], ["r2", "r3"], "i64"]],
                             "sequence": [["mov", ["r0", "r1", "r4"], ["r2", "r3", "r5"],
                                           "i64"]]}),
    ("pair_move_lacking", {"machine": "riscv64", "moves": [[["a0", "a1"], ["a2", "a3"]]],
                           "sequence": [["mov", ["a0", "a1"], "fa0"]]}),
    # VMOV d0, r0, r1 is a pair move; a list mixing classes (r0 of gpr, s1
    # of s) is none, whatever its width: it is moved part by part
    ("pair_move_mixed_classes", {"machine": "armv7-vfp", "moves": [["d0", ["r0", "r1"], "f64"]],
                                 "sequence": [["mov", "d0", ["r0", "s1"]]]}),
    # profiles: the frame pointer borrowed as a swap scratch (and given back)
    ("writes_reserved", {"machine": "x86-64", "moves": [["rax", "rbx"], ["rbx", "rax"]],
                         "sequence": [["swap", "rax", "rbp"], ["swap", "rbp", "rbx"],
                                      ["swap", "rax", "rbp"]]}),
    # stack operations (round 3)
    ("push_none_on_aarch64", {"machine": "aarch64", "moves": [["x0", "x1"]],
                              "sequence": [["push", "x1"], ["pop", "x0"]]}),
    ("push_xmm", {"machine": "x86-64", "moves": [["xmm0", "xmm1"]],
                  "sequence": [["push", "xmm1"], ["pop", "xmm0"]]}),
    ("push_imm_too_wide", {"machine": "x86-64", "moves": [["m0", {"imm": 1 << 40}]],
                           "sequence": [["push", {"imm": 1 << 40}], ["pop", "m0"]]}),
    ("pop_into_slot_on_arm", {"machine": "armv7-vfp", "moves": [["m0", "r0"]],
                              "sequence": [["push", "r0"], ["pop", "m0"]]}),
]

# parts and overlap of slots (issue 23)
ILLEGAL += [
    ("slot_part_to_slot_part", {"machine": FRAME, "moves": [["m3", "m1"]],
                                "sequence": [["mov", "m3", "m1"]]}),
    ("swap_overlapping_slots", {"machine": FRAME, "moves": [["mq1", "mq0"]],
                                "sequence": [["swap", "mq0", "mq1"]]}),
    ("push_wide_slot", {"machine": FRAME, "moves": [["mq2", "mq0"]],
                        "sequence": [["push", "mq0"], ["pop", "mq2"]]}),
]

# (name, request): bad input
BAD_INPUT = [
    ("overlap_alias", {"machine": "armv7-vfp", "moves": [["d0", "d1"], ["s1", "s0"]]}),
    ("overlap_alias_q", {"machine": "armv7-vfp", "moves": [["q0", "q1"], ["d1", "d4"]]}),
    ("overlap_pair", {"machine": "riscv64", "moves": [[["a0", "a1"], ["a2", "a3"]],
                                                      ["a1", "a4"]]}),
    ("width_mismatch", {"machine": "armv7-vfp", "moves": [["d0", "s1"]]}),
    ("width_mismatch_pair", {"machine": "riscv64", "moves": [[["a0", "a1"], "a2"]]}),
    ("unknown_name", {"machine": "armv7-vfp", "moves": [["rax", "d1"]]}),
    ("unknown_temp", {"machine": "x86-64", "moves": [["rax", "rbx"]], "temps": ["t"]}),
    ("imm_destination", {"machine": "x86-64", "moves": [[{"imm": 1}, "rax"]]}),
    ("bad_imm", {"machine": "x86-64", "moves": [["rax", {"imm": "1"}]]}),
    ("mixed_list", {"machine": "riscv64", "moves": [[["a0", "m0"], ["a1", "a2"]]]}),
    ("overlapping_list", {"machine": "armv7-vfp", "moves": [[["d0", "s1"], ["s4", "s5", "s6"]]]}),
    ("integer_location", {"machine": "x86-64", "moves": [[1, 0]]}),
    ("temp_in_move", {"machine": "armv7-vfp", "moves": [["d0", "d1"]], "temps": ["s0"]}),
    ("temps_overlap", {"machine": "armv7-vfp", "moves": [["d4", "d5"]], "temps": ["d0", "s1"]}),
    ("model_with_machine", {"machine": "x86-64", "model": "swap", "moves": [["rax", "rbx"]]}),
    ("registers_with_machine", {"machine": "x86-64", "registers": 4,
                                "moves": [["rax", "rbx"]]}),
    ("unknown_field", {"machine": "x86-64", "moves": [["rax", "rbx"]], "cost": 1}),
    ("unknown_preset", {"machine": "z80", "moves": []}),
    ("machine_not_object", {"machine": 5, "moves": []}),
    ("machine_unknown_field", {"machine": {"classes": {"g": {"registers": ["a"]}}, "regs": 1},
                               "moves": []}),
    ("machine_no_classes", {"machine": {"name": "x"}, "moves": []}),
    ("machine_duplicate_name", {"machine": {"classes": {"g": {"registers": ["a"]},
                                                        "h": {"registers": ["a"]}}},
                                "moves": []}),
    ("machine_slot_clash", {"machine": {"classes": {"s": {"registers": ["s0", "s1"]}},
                                        "stack": {"slots": 2}}, "moves": []}),
    ("machine_alias_not_in_class", {"machine": {"classes": {"s": {"registers": ["s0", "s1"]}},
                                                "aliases": {"d0": ["s0", "s1"]}},
                                    "moves": []}),
    ("machine_alias_width", {"machine": {"classes": {"s": {"registers": ["s0", "s1"]},
                                                     "d": {"registers": ["d0"], "width": 3}},
                                         "aliases": {"d0": ["s0", "s1"]}}, "moves": []}),
    ("machine_alias_unknown_part", {"machine": {"classes": {"d": {"registers": ["d0"],
                                                                  "width": 2}},
                                                "aliases": {"d0": ["s0", "s1"]}}, "moves": []}),
    ("machine_alias_overlap", {"machine": {"classes": {"s": {"registers": ["s0"]},
                                                       "d": {"registers": ["d0"], "width": 2}},
                                           "aliases": {"d0": ["s0", "s0"]}}, "moves": []}),
    ("machine_alias_cycle", {"machine": {"classes": {"d": {"registers": ["d0", "d1"]}},
                                         "aliases": {"d0": ["d1"], "d1": ["d0"]}}, "moves": []}),
    ("machine_bad_width", {"machine": {"classes": {"g": {"registers": ["a"], "width": 0}}},
                           "moves": []}),
    ("machine_bad_swap", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                      "swap": ["mem-mem"]}, "moves": []}),
    ("machine_bad_cost", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                      "cost": {"mov": -1}}, "moves": []}),
    ("machine_bad_name", {"machine": {"classes": {"g": {"registers": ["a.0"]}}}, "moves": []}),
    ("machine_stack_both", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                        "stack": {"slots": 2, "names": ["m0"]}}, "moves": []}),
    # typed values and immediates (round 3)
    ("unknown_type", {"machine": "x86-64", "moves": [["rax", "rbx", "f80"]]}),
    ("type_on_untyped_machine", {"machine": TWO_CLASSES, "moves": [["a0", "a1", "i64"]]}),
    ("cannot_hold_type", {"machine": "x86-64", "moves": [["rax", "xmm0", "v128"]]}),
    ("slot_too_narrow_for_type", {"machine": "x86-64", "moves": [["m0", "xmm0", "v128"]]}),
    ("register_too_narrow_for_type", {"machine": "armv7-vfp", "moves": [["r0", "d1", "f64"]]}),
    ("imm_does_not_fit", {"machine": "x86-64", "moves": [["rax", {"imm": 1 << 64}]]}),
    ("imm_does_not_fit_type", {"machine": "armv7-vfp", "moves": [["r0", {"imm": 1 << 32}, "i32"]]}),
    ("move_too_long", {"machine": "x86-64", "moves": [["rax", "rbx", "i64", "x"]]}),
    ("machine_type_bad_class", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                            "types": {"i64": {"width": 1, "classes": ["fpr"]}}},
                                "moves": []}),
    ("machine_bad_pair_move", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                           "pair_moves": [{"pair": "g", "with": "x"}]},
                               "moves": []}),
    ("machine_bad_immediate_bits", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                                "immediate_bits": {"reg": 0}}, "moves": []}),
    # profiles (round 3)
    ("reserved_in_move", {"machine": "x86-64", "moves": [["rsp", "rax"]]}),
    ("reserved_as_temp", {"machine": "x86-64", "moves": [["rax", "rbx"]], "temps": ["rbp"]}),
    ("machine_reserved_unknown", {"machine": {"classes": {"g": {"registers": ["a"]}},
                                              "reserved": ["sp"]}, "moves": []}),
    ("machine_scratch_reserved", {"machine": {"classes": {"g": {"registers": ["a", "b"]}},
                                              "reserved": ["a"], "scratch": ["a"]},
                                  "moves": []}),
    # issue 21: a class named "" and two names for the same units
    ("machine_empty_class_name", {"machine": {"classes": {"": {"registers": ["a"]}}},
                                  "moves": []}),
    ("machine_alias_twice", {"machine": {"classes": {"s": {"registers": ["s0", "s1"]},
                                                     "d": {"registers": ["d0", "x0"],
                                                           "width": 2}},
                                         "aliases": {"d0": ["s0", "s1"], "x0": ["s0", "s1"]}},
                             "moves": []}),
    # parts and overlap of slots (issue 23)
    ("overlap_slot_part", {"machine": FRAME, "moves": [["mq0", "mq2"], ["m1", "rax"]]}),
    ("overlap_slots", {"machine": FRAME, "moves": [["mq0", "xmm0"], ["mq1", "xmm1"]]}),
    ("temp_slot_part_in_move", {"machine": FRAME, "moves": [["mq1", "xmm0"]], "temps": ["m2"]}),
    ("machine_slot_alias_register_part", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": [{"names": ["m0"]}, {"names": ["mq0"], "width": 2}],
                    "aliases": {"mq0": ["m0", "a"]}}, "moves": []}),
    ("machine_slot_alias_width", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": [{"names": ["m0", "md0"], "width": 1},
                              {"names": ["mq0"], "width": 4}],
                    "aliases": {"mq0": ["m0", "md0"]}}, "moves": []}),
    ("machine_slot_alias_unknown_part", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": {"names": ["mq0"], "width": 2},
                    "aliases": {"mq0": ["m0", "m1"]}}, "moves": []}),
    ("machine_slot_alias_cycle", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": {"names": ["m0", "m1"]},
                    "aliases": {"m0": ["m1"], "m1": ["m0"]}}, "moves": []}),
    ("machine_slot_alias_one_part", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": {"names": ["m0", "m1"]}, "aliases": {"m1": ["m0"]}},
        "moves": []}),
    ("machine_slot_aliases_twice", {
        "machine": {"classes": {"g": {"registers": ["a"]}},
                    "stack": [{"names": ["m0", "m1"]}, {"names": ["mq0", "mq1"], "width": 2}],
                    "aliases": {"mq0": ["m0", "m1"], "mq1": ["m0", "m1"]}}, "moves": []}),
    ("machine_register_alias_slot_part", {
        "machine": {"classes": {"d": {"registers": ["d0"], "width": 2}},
                    "stack": {"names": ["m0", "m1"]}, "aliases": {"d0": ["m0", "m1"]}},
        "moves": []}),
]
