"""The JSON Schemas (``verified/data/schemas/``, docs/schemas.md) against
everything the project says or writes:

* every golden request of the test suite, every JSON example of the docs,
  each judged by the schema and by the oracle: where they disagree, the
  disagreement must be one of the classes docs/schemas.md lists (and each
  listed class must be shown by an example here);
* every verdict ``check`` writes for them, every answer ``solve`` writes,
  every vector file and manifest ``vectors`` writes, every preset, and
  conform reports: all must validate (our own output never disagrees).

The counts of what each schema validated are printed (``pytest -s``)."""

from __future__ import annotations

import io
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from verified.core import machine as M
from verified.core.semantics import PreconditionError
from verified.tools import check as C, schema as S
from verified.tools.wire import decode_line, parse_any, serve

from tests.machines import corpus
from tests.protocol import test_golden_check as golden
from tests.support import conform_json, conform_json_once, optimum_once, verified

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "verified" / "data" / "schemas"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "kits").glob("*/*.md"))]

COUNTS: Counter = Counter()


def _registry() -> Registry:
    resources = [(s["$id"], Resource.from_contents(s)) for s in map(S.load, S.SCHEMAS)]
    return Registry().with_resources(resources)


REGISTRY = _registry()
VALIDATORS = {name: Draft202012Validator(S.load(name), registry=REGISTRY) for name in S.SCHEMAS}


def valid(name: str, doc: object) -> bool:
    COUNTS[name] += 1
    return VALIDATORS[name].is_valid(doc)


def assert_valid(name: str, doc: object) -> None:
    COUNTS[name] += 1
    errors = list(VALIDATORS[name].iter_errors(doc))
    assert not errors, (name, json.dumps(doc)[:300], [e.message[:200] for e in errors[:3]])


# ---------------------------------------------------------------------------
# The schemas themselves
# ---------------------------------------------------------------------------


def test_every_schema_is_draft_2020_12_and_listed():
    assert sorted(p.stem for p in SCHEMA_DIR.glob("*.json")) == sorted(S.SCHEMAS)
    for name in S.SCHEMAS:
        s = S.load(name)
        Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["$id"] == f"https://verified.invalid/schemas/{name}.json"


def test_verified_schema_prints_each_and_lists_them():
    p = verified("schema")
    assert p.returncode == 0
    assert [line.split()[0] for line in p.stdout.splitlines()] == list(S.SCHEMAS)
    for name in S.SCHEMAS:
        p = verified("schema", name)
        assert p.returncode == 0 and json.loads(p.stdout) == S.load(name)
    p = verified("schema", "nope")
    assert p.returncode == 2
    assert p.stderr == ("verified schema: error: no schema 'nope'; the schemas are "
                        f"{', '.join(S.SCHEMAS)}\n")


# ---------------------------------------------------------------------------
# Requests and machines: the schema against the oracle
# ---------------------------------------------------------------------------

#: the oracle's messages for constraints between fields (class cross-field)
CROSS_FIELD = re.compile("|".join([
    r"is written twice", r"outside the declared register file", r"register file is empty",
    r"lies inside the register file", r"appears in the move", r"is declared twice",
    r"is out of range", r"is not a register or slot of", r"overlap", r"width",
    r"same parts", r"contains itself", r"not a register of any class", r"units; at most",
    r"mixes registers and slots", r"does not fit in",
    # round 3: a type, a type's classes, a pair move's classes, reserved and
    # scratch locations are names of the machine
    r"unknown type", r"is not a class of this machine", r"neither a class of this machine",
    r"is not a register of", r"declares no types", r"cannot hold", r"is reserved on",
    # issue 23: a slot's parts are slots, and not another name for one slot
    r"so its parts are slots", r"has the same units as the slot",
]))


def _walk(doc: object):
    yield doc
    if isinstance(doc, dict):
        for v in doc.values():
            yield from _walk(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _walk(v)


def oracle_request(raw: str | bytes) -> str | None:
    """None if the oracle takes the request (judging its sequence, if any),
    else its error message."""
    try:
        obj = decode_line(raw.encode() if isinstance(raw, str) else raw)
        parse_any(obj, need_sequence=False)
    except (PreconditionError, RecursionError) as e:
        return str(e)
    return None


def oracle_machine(obj: object) -> str | None:
    try:
        M.machine_from_json(obj)
    except PreconditionError as e:
        return str(e)
    return None


def disagreement(schema: str, raw: str, doc: object, schema_ok: bool,
                 error: str | None) -> str | None:
    """The class of docs/schemas.md a disagreement belongs to ("?" for none);
    None when the schema and the oracle agree."""
    if schema_ok == (error is None):
        return None
    if schema_ok:
        try:
            decode_line(raw.encode())
        except PreconditionError:
            return "strict-json"
        if any(isinstance(x, float) and x.is_integer() for x in _walk(doc)):
            return "integral-float"
        if CROSS_FIELD.search(error):
            return "cross-field"
        return "?"
    if schema == "request" and isinstance(doc, dict) and "sequence" in doc and valid(
            "request", {k: v for k, v in doc.items() if k != "sequence"}):
        return "sequence-judged"
    return "?"


def _golden_requests() -> list[str]:
    out = [r for r, _ in golden.GOLDEN]
    out += [r if isinstance(r, str) else r.decode("utf-8", "replace")
            for r, _ in golden.BAD_INPUT if not isinstance(r, bytes)]
    out += [json.dumps({"moves": [[1, 0], [0, 1]], "model": "permi", "sequence": s})
            for s, _ in golden.INSIDE]
    out += [json.dumps({**req, "sequence": seq}) for _, req, seq, _ in corpus.BUG_CLASSES]
    out += [json.dumps(req) for _, req in corpus.ILLEGAL]
    out += [json.dumps({**req, "sequence": []}) for _, req in corpus.BAD_INPUT]
    return out


#: one example per class of docs/schemas.md (the docs and the golden tests
#: may not show every class); each must be classified as named
CLASS_EXAMPLES = [
    ("strict-json", '{"moves": [[1,0]], "model": "temp", "model": "swap"}'),
    ("strict-json", '{"id": NaN, "moves": [[1,0]], "model": "temp"}'),
    ("integral-float", '{"moves": [[1,0]], "model": "temp", "registers": 2.0}'),
    ("cross-field", '{"moves": [[1,0],[1,2]], "model": "temp"}'),
    ("cross-field", '{"moves": [["r1048576", 0]], "model": "temp"}'),
    ("cross-field", '{"machine": "x86-64", "moves": [["rax", "xmm0"]]}'),
    ("sequence-judged", '{"moves": [[1,0]], "model": "temp", "sequence": [["jmp", 1]]}'),
    ("sequence-judged", '{"moves": [[1,0]], "model": "temp", "sequence": "mov"}'),
]


def _classify_requests(lines: list[str]) -> Counter:
    seen: Counter = Counter()
    for raw in lines:
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):
            continue  # not JSON at all: no schema can say anything
        got = disagreement("request", raw, doc, valid("request", doc), oracle_request(raw))
        assert got != "?", ("a disagreement docs/schemas.md does not list", raw[:300])
        seen[got or "agree"] += 1
    return seen


def test_golden_requests_schema_and_oracle_disagree_only_as_documented():
    seen = _classify_requests(_golden_requests())
    assert seen["agree"] > 50, seen


@pytest.mark.parametrize("cls, raw", CLASS_EXAMPLES)
def test_each_documented_class_is_shown(cls, raw):
    doc = json.loads(raw)
    assert disagreement("request", raw, doc, valid("request", doc), oracle_request(raw)) == cls
    assert f"| `{cls}` |" in (ROOT / "docs" / "schemas.md").read_text()


def test_docs_list_no_class_the_test_does_not_know():
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \| (?:accepts|rejects)",
                            (ROOT / "docs" / "schemas.md").read_text(), re.M))
    assert listed == {c for c, _ in CLASS_EXAMPLES}


#: the round-3 forms: the oracle on main accepts them as the schemas do
#: (they were the class "round-3" while the oracle did not)
ROUND_3_AGREE = [
    '{"machine": "x86-64", "moves": [["xmm0", "m1", "f64"]]}',
    '{"machine": "x86-64", "moves": [["xmm0", "m1", "f64"]], '
    '"sequence": [["mov", "xmm0", "m1", "f64"]]}',
    '{"machine": "x86-64", "moves": [["rax", "rbx"]], "sequence": [["push", "rbx"], ["pop", "rax"]]}',
    json.dumps({"machine": {"classes": {"g": {"registers": ["a"]}}, "reserved": ["a"]},
                "moves": []}),
]


@pytest.mark.parametrize("raw", ROUND_3_AGREE)
def test_round_3_forms_schema_and_oracle_agree(raw):
    doc = json.loads(raw)
    assert valid("request", doc) and oracle_request(raw) is None


def test_answer_has_exactly_one_field_as_conform_reads_it():
    # conform's reader agrees (tests/conform): two answer fields or an
    # unknown one are garbage there, as here
    assert not valid("answer", {"sequence": [], "unsupported": "x"})
    assert not valid("answer", {"sequence": [], "note": "x"})
    assert valid("answer", {"id": 3, "unsupported": "x"})


def test_machine_objects_schema_and_oracle_disagree_only_as_documented():
    docs = [req["machine"] for _, req in corpus.BAD_INPUT if isinstance(req.get("machine"), dict)]
    docs += [corpus.TWO_CLASSES] + [M.preset_json(n) for n in M.PRESETS]
    agree = 0
    for m in docs:
        raw = json.dumps(m)
        got = disagreement("machine", raw, m, valid("machine", m), oracle_machine(m))
        assert got not in ("?", "sequence-judged"), raw
        agree += got is None
    assert agree >= len(M.PRESETS) + 5


@pytest.mark.parametrize("name", M.PRESETS + M.PROFILES)
def test_every_preset_as_shown_validates(name):
    p = verified("machines", "show", name)
    assert_valid("machine", json.loads(p.stdout))
    assert_valid("machine", M.preset_json(name))


# ---------------------------------------------------------------------------
# Our own output always validates
# ---------------------------------------------------------------------------


def test_every_verdict_check_writes_validates(monkeypatch):
    optimum_once(monkeypatch)  # the cross-class request's search, once a process (tests/support.py)
    out = io.StringIO()
    data = "\n".join(_golden_requests() + [raw for _, raw in CLASS_EXAMPLES]).encode() + b"\n"
    serve(io.BytesIO(data), out, C._handle_check)
    lines = out.getvalue().splitlines()
    assert len(lines) > 100
    for line in lines:
        assert_valid("verdict", json.loads(line))


@pytest.mark.parametrize("algorithm, model", [("shuf", "swap"), ("mincopy", "temp"),
                                              ("permi-optimal", "permi"), ("leroy", "temp")])
def test_every_answer_solve_writes_validates(algorithm, model):
    lines = [json.dumps({"id": i, "moves": m, "model": model, "temps": ["t"]})
             for i, m in enumerate([[], [[1, 0]], [[1, 0], [0, 1]], [[1, 0], [2, 1], [0, 2]],
                                    [[1, 1], [2, 1], [0, 3], [3, 0]], [[1, 0], [1, 2]]])]
    p = verified("solve", "-a", algorithm, input="\n".join(lines) + "\n")
    answers = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(answers) == len(lines)
    for a in answers:
        assert_valid("answer", a)


def test_machine_answers_of_solve_validate():
    lines = [json.dumps({**req}) for _, req, _, _ in corpus.BUG_CLASSES]
    p = verified("solve", "-a", "resolve", input="\n".join(lines) + "\n")
    for a in map(json.loads, p.stdout.splitlines()):
        assert_valid("answer", a)


def test_every_vector_file_and_manifest_validates(tmp_path):
    # every kind of file (exhaustive and random, each model, each preset);
    # swap exhaustive up to 4 registers, 5 and 6 random: the 7,776 lines of
    # the exhaustive 5-register file cost 8 of the test's 11 CPU s for the
    # same schema paths as the 625 of 4 registers (docs/testing.md)
    runs = [("swap", ["--model", "swap", "-n", "6", "--exhaustive-max", "4", "--random", "50"]),
            ("temp", ["--model", "temp", "-n", "4", "--exhaustive-max", "3", "--random", "50"]),
            ("permi", ["--model", "permi", "-n", "4", "--exhaustive-max", "3", "--random", "20",
                       "--preserve", "loops"])]
    runs += [(m, ["--machine", m, "--max-moves", "1", "--random", "20"]) for m in M.PRESETS]
    lines = 0
    for name, args in runs:
        out = tmp_path / name
        p = verified("vectors", "--out", str(out), *args)
        assert p.returncode == 0, p.stderr
        manifest = json.loads((out / "MANIFEST.json").read_text())
        assert_valid("manifest", manifest)
        for f in manifest["files"]:
            for line in (out / f["file"]).read_text().splitlines():
                assert_valid("vector", json.loads(line))
                lines += 1
    assert lines == 1436
    print(f"\nvector lines validated: {lines:,}")


def test_conform_reports_validate(c_client, c_client_broken):
    reports = [
        conform_json("--cmd", str(c_client), "--model", "swap", "--registers", "3"),
        conform_json("--cmd", str(c_client_broken), "--model", "swap", "--registers", "3",
                     "--optimal"),
        conform_json("--cmd", "true", "--model", "swap", "--registers", "2"),
        conform_json("--cmd", f"{sys.executable} -m verified.cli solve -a resolve",
                     "--machine", "riscv64",
                     "--random", "20"),
    ]
    assert [r[0] for r in reports] == [0, 1, 2, 0]
    for _, r, _ in reports:
        assert_valid("conform-report", r)


def test_conform_reports_with_classes_failures_and_shards_validate():
    """The report fields of failure classes, {"failure"} answers and
    --shard (the report and speed branches) are in the schema and match it."""
    from tests.conform.test_conform_classes import FAILS_ON_ONE, client, mutant_cmd

    # the runs test_conform_classes.py asserts on (shared)
    classes = conform_json_once("--cmd", mutant_cmd("swap_two_slots+immediate_before_read"),
                                "--machine", "x86-64", "--max-moves", "2", "--max-classes",
                                "2")
    failed = conform_json_once("--cmd", client(FAILS_ON_ONE), "--model", "swap",
                               "--registers", "2")
    # a shard of the run on two types, one class shown: a report with every
    # field of the shard on all types (and classes_not_shown besides) at a
    # quarter of its CPU (docs/testing.md)
    shard = conform_json("--cmd", mutant_cmd("swap_two_slots+immediate_before_read"),
                         "--machine", "x86-64", "--max-moves", "2", "--shard", "1/2",
                         "--types", "i32", "v128", "--max-classes", "1")
    assert [r[0] for r in (classes, failed, shard)] == [1, 1, 1]
    assert {"classes", "failure_classes", "classes_not_shown"} <= set(classes[1])
    assert "failure_report" in failed[1] and failed[1]["program_failures"] == 1
    assert {"shard", "failure_classes", "classes_not_shown"} <= set(shard[1])
    for _, r, _ in (classes, failed, shard):
        assert_valid("conform-report", r)
    # the schema is not open where it describes: a class without its count fails
    bad = json.loads(json.dumps(classes[1]))
    del bad["failure_classes"][0]["count"]
    assert not valid("conform-report", bad)
    bad = json.loads(json.dumps(shard[1]))
    bad["shard"]["of"] = 0
    assert not valid("conform-report", bad)


# ---------------------------------------------------------------------------
# The docs' examples
# ---------------------------------------------------------------------------

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`(\{[^`]*\})`")
QUOTED = re.compile(r"'(\{[^']*\})'")


def doc_examples() -> list[tuple[str, str]]:
    """(doc, JSON text) of every JSON object the docs show: a fenced block
    that is one object, each line of a block that is one, each inline code
    span and each single-quoted shell argument that is one."""
    out = []
    for doc in DOCS:
        text = doc.read_text()
        where = doc.relative_to(ROOT).as_posix()
        cands = []
        for block in FENCE.findall(text):
            cands.append(block)
            cands += block.splitlines()
            cands += QUOTED.findall(block)
        cands += SPAN.findall(text)
        for c in cands:
            c = c.strip()
            if c.startswith("{"):
                try:
                    obj = json.loads(c)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    out.append((where, c))
    return out


def kind_of(obj: dict) -> str | None:
    keys = set(obj)
    if {"program", "exit"} <= keys:
        return "conform-report"
    if {"format", "files"} <= keys:
        return "manifest"
    if "reference" in keys and "request" in keys:
        return "vector"
    if "classes" in keys:
        return "machine"
    if "moves" in keys or "machine" in keys:
        return "request"
    if "ok" in keys:
        return "verdict"
    if keys and keys <= {"id", "sequence", "unsupported", "error", "failure"}:
        return "answer"
    return None


def test_every_json_example_of_the_docs_validates_or_disagrees_as_documented():
    examples = doc_examples()
    kinds: Counter = Counter()
    for where, raw in examples:
        obj = json.loads(raw)
        kind = kind_of(obj)
        kinds[kind] += 1
        if kind == "request":
            got = disagreement("request", raw, obj, valid("request", obj), oracle_request(raw))
            assert got != "?", (where, raw)
        elif kind == "machine":
            got = disagreement("machine", raw, obj, valid("machine", obj), oracle_machine(obj))
            assert got != "?", (where, raw)
        elif kind == "verdict" and "..." not in raw:
            assert_valid("verdict", obj)
        elif kind == "answer":
            # the docs' own example of a bad answer (both fields) is one
            # the schema rejects, as conform's reader does (garbage)
            bad = "sequence" in obj and "unsupported" in obj
            assert valid("answer", obj) != bad, (where, raw)
    print(f"\ndocs examples by schema: {dict(kinds)}")
    assert kinds["request"] >= 12 and kinds["verdict"] >= 5 and kinds["answer"] >= 5, kinds


def test_the_kits_docs_point_at_the_schemas():
    for doc in [ROOT / "docs" / "clients.md", *sorted((ROOT / "kits").glob("*/README.md"))]:
        assert "schemas.md" in doc.read_text() or "verified schema" in doc.read_text(), doc


def test_zz_counts():
    """How many documents each schema judged in this module (pytest -s)."""
    print("\nschema checks: " + ", ".join(f"{k} {v:,}" for k, v in sorted(COUNTS.items())))
