"""The client kits' request readers (kits/c/verified_protocol.h,
kits/rust/verified_protocol.rs) on hostile lines, and their answer writers.

tests/kits/reader_driver.c and reader_driver.rs print, for each request,
what the reader decoded (byte by byte: printable ASCII as is, other bytes
as \\xNN), or "error id=ID MESSAGE" for a line that is not a valid request.
Both kits are held to the same golden lines: a change in one reader that
the other does not share fails here.  The C driver is built with ASan and
UBSan where the compiler has them (a report fails the run: stderr must stay
empty).  Every case below was reviewed by hand against RFC 8259 and
docs/clients.md; "line {n}" is the line's number in the stream."""

from __future__ import annotations

import json

import pytest

from tests.kits.support import run

ID_PREFIX = b'{"moves": [], "model": "swap", "id": '

#: (name, line, what the driver prints)
GOLDEN = [
    ('basic',
     b'{"moves": [[1, 0], [0, 1]], "model": "swap", "temps": [], "registers": 2}',
     'ok id=- model=swap preserve=all registers=2 machine=- machine_json=- moves=[1 <- 0, 0 <- 1] temps=[]'),
    ('order_whitespace',
     b' \t{ "registers" :3 ,"model":"temp",\t"moves":[ [ 2 , 1 ] ] , "temps" : [ "t" ] }\r',
     'ok id=- model=temp preserve=all registers=3 machine=- machine_json=- moves=[2 <- 1] temps=["t"]'),
    ('unknown_fields',
     b'{"sequence": [["mov", 1, 0]], "moves": [[1, 0]], "extra": {"a": [1, 2.5e-3, -0.0, 1E+9, true, false, null, {}, []]}, "model": "swap", "x": "y"}',
     'ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- moves=[1 <- 0] temps=[]'),
    ('escapes',
     b'{"moves": [], "model": "temp", "temps": ["t\\"q", "a\\\\b", "s\\/l", "\\b\\f\\n\\r\\t", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9\xe2\x82\xac"]}',
     'ok id=- model=temp preserve=all registers=-1 machine=- machine_json=- moves=[] temps=["t"q", "a\\\\b", "s/l", "\\x08\\x0c\\x0a\\x0d\\x09", "\\xc3\\xa9", "\\xf0\\x9f\\x98\\x80", "\\xc3\\xa9\\xe2\\x82\\xac"]'),
    ('escaped_key',
     b'{"mo\\u0076es": [[1, 0]], "\\u006dodel": "swap"}',
     'ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- moves=[1 <- 0] temps=[]'),
    ('id_int',
     b'{"id": 7, "moves": [], "model": "swap"}',
     'ok id=7 model=swap preserve=all registers=-1 machine=- machine_json=- moves=[] temps=[]'),
    ('id_nested',
     b'{"moves": [], "model": "swap", "id": {"run": [1, {"x": null, "y": "a\\"b"}], "z": -1.5e+10}}',
     'ok id={"run": [1, {"x": null, "y": "a\\\\"b"}], "z": -1.5e+10} model=swap preserve=all registers=-1 machine=- machine_json=- moves=[] temps=[]'),
    ('id_null',
     b'{"moves": [], "model": "swap", "id": null}',
     'ok id=null model=swap preserve=all registers=-1 machine=- machine_json=- moves=[] temps=[]'),
    ('machine_preset',
     b'{"machine": "x86-64", "moves": [["rax", "rbx"]], "id": "m"}',
     'ok id="m" model=- preserve=all registers=-1 machine=x86-64 machine_json=- moves=["rax" <- "rbx"] temps=[]'),
    ('machine_object',
     b'{"machine": {"name": "tiny", "classes": {"gpr": {"registers": ["a", "b"], "width": 1}}, "swap": []}, "moves": [["a", "b"]]}',
     'ok id=- model=- preserve=all registers=-1 machine=- machine_json={"name": "tiny", "classes": {"gpr": {"registers": ["a", "b"], "width": 1}}, "swap": []} moves=["a" <- "b"] temps=[]'),
    ('immediates',
     b'{"moves": [["rax", {"imm": 42}], ["m0", { "imm" : -9223372036854775808 }], [3, {"imm": 9223372036854775807}]], "model": "temp"}',
     'ok id=- model=temp preserve=all registers=-1 machine=- machine_json=- moves=["rax" <- {imm 42}, "m0" <- {imm -9223372036854775808}, 3 <- {imm 9223372036854775807}] temps=[]'),
    ('lists',
     b'{"moves": [[["a2", "a3"], ["a0", "a1"]]], "model": "swap", "temps": [["t0", "t1"]]}',
     'ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- moves=[["a2", "a3"] <- ["a0", "a1"]] temps=[["t0", "t1"]]'),
    ('register_names',
     b'{"moves": [["r3", 2], [2, "r3"]], "model": "swap", "registers": 4}',
     'ok id=- model=swap preserve=all registers=4 machine=- machine_json=- moves=["r3" <- 2, 2 <- "r3"] temps=[]'),
    ('registers_null',
     b'{"moves": [], "model": "swap", "registers": null, "preserve": "loops"}',
     'ok id=- model=swap preserve=loops registers=-1 machine=- machine_json=- moves=[] temps=[]'),
    ('minus_zero',
     b'{"moves": [[-0, 1]], "model": "swap"}',
     'ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- moves=[0 <- 1] temps=[]'),
    ('max_register',
     b'{"moves": [[2147483647, 0]], "model": "swap", "registers": 2147483647}',
     'ok id=- model=swap preserve=all registers=2147483647 machine=- machine_json=- moves=[2147483647 <- 0] temps=[]'),
    ('depth_ok',
     ID_PREFIX + b'[' * 63 + b']' * 63 + b'}',
     'ok id=' + '[' * 63 + ']' * 63 + ' model=swap preserve=all registers=-1 machine=- machine_json=- moves=[] temps=[]'),
    ('depth_hostile',
     ID_PREFIX + b'[' * 200_000,
     'error id=- line {n}: nested deeper than 64 arrays/objects (byte 101)'),
    ('depth_too_deep',
     ID_PREFIX + b'[' * 64 + b']' * 64 + b'}',
     'error id=- line {n}: nested deeper than 64 arrays/objects (byte 101)'),
    ('truncated_moves',
     b'{"moves": [[1, 0]',
     "error id=- line {n}: invalid JSON at byte 18 (end of line): expected ',' or ']'"),
    ('truncated_string',
     b'{"moves": [[1, 0]], "model": "swa',
     'error id=- line {n}: invalid JSON at byte 34 (end of line): unterminated string'),
    ('empty_object',
     b'{}',
     'error id=- line {n}: missing "moves": a list of [dst, src] pairs'),
    ('missing_model',
     b'{"moves": [], "id": 1}',
     'error id=1 line {n}: missing "model": temp, swap, permi or spill (or a "machine")'),
    ('nan',
     b'{"moves": [], "model": "swap", "id": NaN}',
     'error id=- line {n}: invalid JSON at byte 38: NaN and Infinity are not JSON values'),
    ('infinity',
     b'{"moves": [], "model": "swap", "x": -Infinity}',
     'error id=- line {n}: invalid JSON at byte 37: NaN and Infinity are not JSON values'),
    ('leading_zero',
     b'{"moves": [], "model": "swap", "x": 01}',
     "error id=- line {n}: invalid JSON at byte 38: expected ',' or '}'"),
    ('bare_point',
     b'{"moves": [], "model": "swap", "x": 1.}',
     'error id=- line {n}: invalid JSON at byte 38: a digit must follow the decimal point'),
    ('bare_exponent',
     b'{"moves": [], "model": "swap", "x": 1e}',
     'error id=- line {n}: invalid JSON at byte 39: a digit must follow the exponent'),
    ('plus_sign',
     b'{"moves": [], "model": "swap", "x": +1}',
     'error id=- line {n}: invalid JSON at byte 37: expected a value'),
    ('trailing_comma',
     b'{"moves": [], "model": "swap",}',
     'error id=- line {n}: invalid JSON at byte 31: expected a field name in double quotes'),
    ('trailing_comma_list',
     b'{"moves": [[1, 0],], "model": "swap"}',
     'error id=- line {n}: invalid JSON at byte 19: expected a value'),
    ('bad_utf8',
     b'{"moves": [], "model": "swap", "id": "\xff"}',
     'error id=- line {n}: invalid JSON at byte 39: invalid UTF-8 in a string'),
    ('overlong_utf8',
     b'{"moves": [], "model": "swap", "id": "\xc0\xaf"}',
     'error id=- line {n}: invalid JSON at byte 39: invalid UTF-8 in a string'),
    ('utf8_surrogate',
     b'{"moves": [], "model": "swap", "id": "\xed\xa0\x80"}',
     'error id=- line {n}: invalid JSON at byte 39: invalid UTF-8 in a string'),
    ('lone_high',
     b'{"moves": [], "model": "swap", "id": "\\ud800"}',
     'error id=- line {n}: invalid JSON at byte 39: high surrogate not followed by a low surrogate \\\\uDC00..\\\\uDFFF'),
    ('lone_low',
     b'{"moves": [], "model": "swap", "id": "\\udc00"}',
     'error id=- line {n}: invalid JSON at byte 39: lone low surrogate \\\\uDC00..\\\\uDFFF'),
    ('high_then_other',
     b'{"moves": [], "model": "swap", "id": "\\ud800\\u0041"}',
     'error id=- line {n}: invalid JSON at byte 39: high surrogate not followed by a low surrogate \\\\uDC00..\\\\uDFFF'),
    ('bad_escape',
     b'{"moves": [], "model": "swap", "id": "\\x41"}',
     'error id=- line {n}: invalid JSON at byte 39: invalid escape in a string'),
    ('short_u',
     b'{"moves": [], "model": "swap", "id": "\\u12"}',
     'error id=- line {n}: invalid JSON at byte 39: \\\\u needs four hex digits'),
    ('raw_tab_in_string',
     b'{"moves": [], "model": "swap", "id": "a\tb"}',
     'error id=- line {n}: invalid JSON at byte 40: control character in a string (write it as \\\\n, \\\\t or \\\\u00XX)'),
    ('nul_outside_string',
     b'{"moves": [], "model"\x00: "swap"}',
     "error id=- line {n}: invalid JSON at byte 22: expected ':'"),
    ('top_level_list',
     b'[1, 2]',
     'error id=- line {n}: a request is a JSON object {"moves": ..., "model": ...}'),
    ('top_level_string',
     b'"moves"',
     'error id=- line {n}: a request is a JSON object {"moves": ..., "model": ...}'),
    ('text_after',
     b'{"moves": [], "model": "swap"} x',
     'error id=- line {n}: invalid JSON at byte 32: text after the request object'),
    ('two_objects',
     b'{"moves": [], "model": "swap"}{"moves": [], "model": "swap"}',
     'error id=- line {n}: invalid JSON at byte 31: text after the request object'),
    ('garbage',
     b'garbage',
     'error id=- line {n}: invalid JSON at byte 1: expected a value'),
    ('moves_not_list',
     b'{"id": "a", "moves": 3, "model": "swap"}',
     'error id="a" line {n}: "moves" must be a list of [dst, src] pairs'),
    ('typed_moves',
     b'{"machine": "x86-64", "moves": [["xmm0", "m1", "f64"], ["rax", {"imm": 7} , "i64" ], ["m0", "m1"], [["a0", "a1"], ["b0", "b1"], "i\\u0031\\u00328"]]}',
     'ok id=- model=- preserve=all registers=-1 machine=x86-64 machine_json=- moves=["xmm0" <- "m1" : f64, "rax" <- {imm 7} : i64, "m0" <- "m1", ["a0", "a1"] <- ["b0", "b1"] : i128] temps=[]'),
    ('pair_of_three',
     b'{"id": "b", "moves": [[1, 0, 2]], "model": "swap"}',
     'error id="b" line {n}: "moves"[0] type must be a type name (a string)'),
    ('pair_of_four',
     b'{"id": "b", "moves": [[1, 0, "i64", "f64"]], "model": "swap"}',
     'error id="b" line {n}: "moves"[0] must be a [dst, src] pair or [dst, src, type]'),
    ('empty_type',
     b'{"id": "b", "moves": [[1, 0, ""]], "model": "swap"}',
     'error id="b" line {n}: "moves"[0] type must not be empty'),
    ('nul_in_type',
     b'{"id": "b", "moves": [[1, 0, "i\\u00006"]], "model": "swap"}',
     'error id="b" line {n}: "moves"[0] type must not contain \\\\u0000'),
    ('pair_of_one',
     b'{"id": "b", "moves": [[1]], "model": "swap"}',
     'error id="b" line {n}: "moves"[0] must be a [dst, src] pair or [dst, src, type]'),
    ('negative_register',
     b'{"id": "c", "moves": [[-1, 0]], "model": "swap"}',
     'error id="c" line {n}: "moves"[0] destination: register number -1 is out of range 0..2147483647'),
    ('register_too_big',
     b'{"id": "d", "moves": [[1, 2147483648]], "model": "swap"}',
     'error id="d" line {n}: "moves"[0] source: register number 2147483648 is out of range 0..2147483647'),
    ('float_register',
     b'{"id": "e", "moves": [[1.0, 0]], "model": "swap"}',
     'error id="e" line {n}: "moves"[0] destination: register number must be an integer, not 1.0'),
    ('huge_register',
     b'{"id": "e", "moves": [[1, 9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999]], "model": "swap"}',
     'error id="e" line {n}: "moves"[0] source: register number 9999999999999999999999999999999999999999... (100 bytes) is out of range 0..2147483647'),
    ('imm_as_dst',
     b'{"id": "f", "moves": [[{"imm": 1}, 0]], "model": "swap"}',
     'error id="f" line {n}: "moves"[0] destination: an immediate {"imm": k} may only be a move\'s source'),
    ('imm_in_temps',
     b'{"id": "f", "moves": [], "temps": [{"imm": 1}], "model": "swap"}',
     'error id="f" line {n}: "temps"[0]: an immediate {"imm": k} may only be a move\'s source'),
    ('imm_too_big',
     b'{"id": "g", "moves": [[1, {"imm": 9223372036854775808}]], "model": "swap"}',
     'error id="g" line {n}: "moves"[0] source: immediate 9223372036854775808 is out of range -9223372036854775808..9223372036854775807'),
    ('imm_float',
     b'{"id": "g", "moves": [[1, {"imm": 1.5}]], "model": "swap"}',
     'error id="g" line {n}: "moves"[0] source: immediate must be an integer, not 1.5'),
    ('imm_extra_key',
     b'{"id": "h", "moves": [[1, {"imm": 1, "w": 2}]], "model": "swap"}',
     'error id="h" line {n}: "moves"[0] source: an immediate is {"imm": k} with no other field'),
    ('imm_wrong_key',
     b'{"id": "h", "moves": [[1, {"imn": 1}]], "model": "swap"}',
     'error id="h" line {n}: "moves"[0] source: an immediate is {"imm": k}, k an integer'),
    ('empty_name',
     b'{"id": "i", "moves": [["", 0]], "model": "swap"}',
     'error id="i" line {n}: "moves"[0] destination: a location name must not be empty'),
    ('nul_in_name',
     b'{"id": "j", "moves": [["a\\u0000b", 0]], "model": "swap"}',
     'error id="j" line {n}: "moves"[0] destination: a location name must not contain \\\\u0000'),
    ('nul_in_model',
     b'{"id": "j", "moves": [], "model": "swap\\u0000x"}',
     'error id="j" line {n}: "model" must not contain \\\\u0000'),
    ('empty_list_loc',
     b'{"id": "k", "moves": [[[], 0]], "model": "swap"}',
     'error id="k" line {n}: "moves"[0] destination: a multi-register location is a non-empty list of names'),
    ('list_of_numbers',
     b'{"id": "k", "moves": [[[1, 2], 0]], "model": "swap"}',
     'error id="k" line {n}: "moves"[0] destination: a multi-register location is a non-empty list of names'),
    ('bool_loc',
     b'{"id": "l", "moves": [[true, 0]], "model": "swap"}',
     'error id="l" line {n}: "moves"[0] destination: a location is a register number, a name, or a list of names'),
    ('duplicate_field',
     b'{"id": "m", "moves": [], "model": "swap", "moves": []}',
     'error id="m" line {n}: field "moves" appears twice'),
    ('registers_string',
     b'{"id": "n", "moves": [], "model": "swap", "registers": "3"}',
     'error id="n" line {n}: "registers" must be an integer n >= 0 (the registers r0..r{n-1})'),
    ('registers_negative',
     b'{"id": "n", "moves": [], "model": "swap", "registers": -3}',
     'error id="n" line {n}: "registers" -3 is out of range 0..2147483647'),
    ('model_number',
     b'{"id": "o", "moves": [], "model": 5}',
     'error id="o" line {n}: "model" must be a string: temp, swap, permi or spill'),
    ('machine_number',
     b'{"id": "p", "moves": [], "machine": 5}',
     'error id="p" line {n}: "machine" must be a preset name (a string) or an object'),
    ('temps_not_list',
     b'{"id": "q", "moves": [], "model": "swap", "temps": "t"}',
     'error id="q" line {n}: "temps" must be a list of locations'),
    ('semantic_then_syntax',
     b'{"id": "r", "moves": 3, "model": "swap", "x": [1,}',
     'error id=- line {n}: invalid JSON at byte 50: expected a value'),
    ('two_semantic',
     b'{"id": "s", "moves": [[-1, 0]], "model": 5}',
     'error id="s" line {n}: "moves"[0] destination: register number -1 is out of range 0..2147483647'),
    ('id_after_error',
     b'{"moves": [[1.5, 0]], "model": "swap", "id": [1, "late"]}',
     'error id=[1, "late"] line {n}: "moves"[0] destination: register number must be an integer, not 1.5'),
]


def feed(driver, lines: list[bytes], *args: str) -> list[str]:
    data = b"".join(line + b"\n" for line in lines)
    return run([str(driver), *args], data).stdout.decode("ascii").splitlines()


@pytest.mark.parametrize("name, line, want", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_reader_golden_line_alone(driver, name, line, want):
    assert feed(driver, [line]) == [want.replace("{n}", "1")]


def test_reader_golden_lines_in_one_stream(driver):
    """All cases in one stream, with blank lines between: each bad line gets
    its error and the next line is still read; blank lines get no answer
    but count in the line numbers."""
    lines, want = [], []
    for name, line, expected in GOLDEN:
        lines.append(line)
        want.append(expected.replace("{n}", str(len(lines))))
        lines.append(b" \t \r" if len(lines) % 3 else b"")
    assert feed(driver, lines) == want


def test_empty_input_and_last_line_without_newline(driver):
    assert run([str(driver)], b"").stdout == b""
    assert run([str(driver)], b"\n\n  \n").stdout == b""
    out = run([str(driver)], b'{"moves": [[1, 0]], "model": "swap"}').stdout
    assert out == (b"ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- "
                   b"moves=[1 <- 0] temps=[]\n")


def test_crlf_lines(driver):
    data = b'{"moves": [], "model": "swap", "id": 1}\r\n{"moves": [], "model": "temp", "id": 2}\r\n'
    out = run([str(driver)], data).stdout.decode().splitlines()
    assert [o.split()[:3] for o in out] == [["ok", "id=1", "model=swap"], ["ok", "id=2", "model=temp"]]


def test_huge_lines_grow_the_buffers(driver):
    """No fixed limits: a 4 MiB id, 100,000 moves, a 1 MiB name, an unknown
    field holding 200,000 numbers."""
    big_id = "x" * (4 << 20)
    moves = [[i + 1, i] for i in range(100_000)]
    name = "n" * (1 << 20)
    lines = [
        json.dumps({"moves": [[1, 0]], "model": "swap", "id": big_id}).encode(),
        json.dumps({"moves": moves, "model": "swap", "registers": 100_001}).encode(),
        json.dumps({"moves": [[name, 0]], "model": "swap", "temps": [name]}).encode(),
        json.dumps({"moves": [], "model": "swap", "x": list(range(200_000)) + [1.5e300]}).encode(),
    ]
    out = feed(driver, lines)
    assert out[0] == (f'ok id="{big_id}" model=swap preserve=all registers=-1 machine=- '
                      "machine_json=- moves=[1 <- 0] temps=[]")
    assert out[1] == ("ok id=- model=swap preserve=all registers=100001 machine=- machine_json=- "
                      "moves=[" + ", ".join(f"{d} <- {s}" for d, s in moves) + "] temps=[]")
    assert out[2] == (f'ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- '
                      f'moves=["{name}" <- 0] temps=["{name}"]')
    assert out[3] == ("ok id=- model=swap preserve=all registers=-1 machine=- machine_json=- "
                      "moves=[] temps=[]")


# The answer writers: every operation, every location form, strings that
# need escaping, the id echoed first, unsupported after a begun sequence.
ANSWER_LINES = [
    (b'{"id": {"k": [1, "x"]}, "moves": [[1, 0], ["r3", "a\\"b\\\\c\\u0001\\u00e9\\ud83d\\ude00"], '
     b'[["a0", "a1"], ["b0", "b1"]], ["m0", {"imm": -7}]], "model": "swap", "temps": ["t", 9]}',
     '{"id": {"k": [1, "x"]}, "sequence": [["mov", 1, 0], ["mov", "r3", "a\\"b\\\\c\\u0001\u00e9\U0001f600"], '
     '["mov", ["a0", "a1"], ["b0", "b1"]], ["mov", "m0", {"imm": -7}], ["swap", "t", "t"], '
     '["swap", 9, 9], ["perm", [[1, 0], ["r3", "a\\"b\\\\c\\u0001\u00e9\U0001f600"], '
     '[["a0", "a1"], ["b0", "b1"]], ["m0", {"imm": -7}]]], ["load", 1, 0], ["store", 1, 0]]}'),
    (b'{"id": 5, "moves": [[1, 0]], "model": "decline", '
     b'"preserve": "why: \\"quoted\\"\\n\\ttabbed \\u001f\\u007f end"}',
     '{"id": 5, "unsupported": "why: \\"quoted\\"\\n\\ttabbed \\u001f\x7f end"}'),
    (b'{"moves": [], "model": "swap"}', '{"sequence": []}'),
    (b'{"moves": [["xmm0", "m1", "f\\"64"]], "machine": "x86-64"}',
     '{"sequence": [["mov", "xmm0", "m1"], ["mov", "xmm0", "m1", "f\\"64"], '
     '["swap", "xmm0", "m1", "f\\"64"], ["perm", [["xmm0", "m1"]]], ["load", "xmm0", "m1"], '
     '["store", "xmm0", "m1"]]}'),
    (b'{"id": "bad", "moves": 3, "model": "swap"}',
     '{"id": "bad", "error": "line 5: \\"moves\\" must be a list of [dst, src] pairs"}'),
    (b'not json {', '{"error": "line 6: invalid JSON at byte 1: expected a value"}'),
]


def test_answer_writer_golden(driver):
    data = b"".join(line + b"\n" for line, _ in ANSWER_LINES)
    out = run([str(driver), "answer"], data).stdout.decode("utf-8").splitlines()
    assert out == [want for _, want in ANSWER_LINES]
    for line in out:  # each answer is one valid JSON object
        assert isinstance(json.loads(line), dict)
    first = json.loads(out[0])
    assert list(first) == ["id", "sequence"]
    assert first["sequence"][1] == ["mov", "r3", 'a"b\\c\x01\u00e9\U0001f600']


def test_c_driver_runs_under_sanitizers(c_sanitize, c_driver, tmp_path):
    """The golden runs above use an ASan+UBSan build of the C kit (so a
    memory error or a leak in the reader fails them), and that check can
    fail: a client that never calls vp_close is reported as leaking."""
    import os
    import subprocess

    from tests.kits.support import compile_c

    if not c_sanitize:
        pytest.skip("this C compiler cannot build with -fsanitize=address,undefined here: "
                    "the golden runs used a plain build")
    env = {**os.environ, "ASAN_OPTIONS": "help=1"}
    probe = subprocess.run([str(c_driver)], input=b"", capture_output=True, env=env)
    assert b"Available flags for AddressSanitizer" in probe.stderr
    leaky = tmp_path / "leaky.c"
    leaky.write_text('#define VERIFIED_PROTOCOL_IMPLEMENTATION\n#include "verified_protocol.h"\n'
                     "int main(void)\n{\n    const vp_request *q;\n"
                     "    vp_reader *r = vp_open(stdin, stdout);\n"
                     "    while (vp_read(r, &q) != 0)\n        ;\n    return 0;\n}\n")
    exe = compile_c(leaky, tmp_path / "leaky", sanitize=True)
    got = subprocess.run([str(exe)], input=b'{"moves": [["a", "b"]], "model": "swap"}\n',
                         capture_output=True)
    assert got.returncode != 0 and b"LeakSanitizer: detected memory leaks" in got.stderr


def test_header_builds_as_cpp_and_reads_alike(tmp_path, c_driver):
    """C++ adapters include the same header: it compiles warning-free as
    C++11 and reads the golden lines exactly as the C build does."""
    import subprocess

    from tests.kits.support import HERE, KITS, tool

    cxx = tool("c++", "g++", "clang++")
    if cxx is None:
        pytest.skip("no C++ compiler (c++/g++/clang++) on PATH")
    exe = tmp_path / "reader_driver_cpp"
    cmd = [cxx, "-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2",
           "-I", str(KITS / "c"), "-o", str(exe), str(HERE / "reader_driver.c")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    lines = [line for _, line, _ in GOLDEN]
    assert feed(exe, lines) == feed(c_driver, lines)
