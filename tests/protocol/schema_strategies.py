"""Hypothesis strategies drawn from the protocol's JSON Schemas (no tests
here): ``documents(name, pointer)`` draws documents that schema ``name``
accepts, for the keywords our schemas use (type, const, enum, properties,
required, additionalProperties, propertyNames with a pattern, items and
prefixItems, minItems/maxItems, uniqueItems, minimum/maximum, minLength,
pattern, oneOf/anyOf, $ref, and a oneOf of "required"/"not required"
branches beside properties).  Every drawn document is checked against the
schema itself (``filter``), so a keyword this generator misreads can only
cost examples, never yield a document the schema rejects.

Why not hypothesis-jsonschema: its 0.23.1 (the latest) draws objects
through a Hypothesis internal (``many.more``) that the Hypothesis pinned
here (6.170) no longer has, and it reads draft-07 only."""

from __future__ import annotations

import functools

from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from verified.tools import schema as S

ANY_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8)


@functools.cache
def registry() -> Registry:
    return Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in map(S.load, S.SCHEMAS)])


def _resolve(file: str, pointer: str) -> dict:
    node = S.load(file)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    return node


def documents(name: str, pointer: str = "") -> st.SearchStrategy:
    """Documents that schema ``name`` (at ``pointer``) accepts."""
    node = _resolve(name, pointer)
    validator = Draft202012Validator(
        {"$ref": f"https://verified.invalid/schemas/{name}.json#{pointer}"}, registry=registry())
    return _strategy(node, name).filter(validator.is_valid)


@functools.cache
def _ref(file: str, pointer: str) -> st.SearchStrategy:
    return st.deferred(lambda: _strategy(_resolve(file, pointer), file))


def _strategy(node: object, file: str) -> st.SearchStrategy:
    if node is True or node == {}:
        return ANY_JSON
    assert isinstance(node, dict), node
    if "$ref" in node:
        target, _, pointer = node["$ref"].partition("#")
        return _ref(target[:-len(".json")] if target else file, pointer)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "properties" in node or node.get("type") == "object":
        return _object(node, file)
    for key in ("oneOf", "anyOf"):
        if key in node:
            return st.one_of([_strategy(b, file) for b in node[key]])
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**node, "type": k}, file) for k in kind])
    if kind == "integer":
        return st.integers(node.get("minimum", -2**40), node.get("maximum", 2**40))
    if kind == "number":
        return st.floats(node.get("minimum"), node.get("maximum"), allow_nan=False,
                         allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "string":
        if "pattern" in node:
            return st.from_regex(node["pattern"], fullmatch=True).filter(lambda s: len(s) < 40)
        return st.text(min_size=node.get("minLength", 0), max_size=12)
    if kind == "array":
        return _array(node, file)
    raise AssertionError(f"a schema keyword this generator does not know: {node}")


def _array(node: dict, file: str) -> st.SearchStrategy:
    lo, hi = node.get("minItems", 0), node.get("maxItems", 6)
    prefix = node.get("prefixItems")
    if prefix is None:
        return st.lists(_strategy(node.get("items", True), file), min_size=lo,
                        max_size=min(hi, lo + 6), unique_by=(
                            (lambda x: repr(x)) if node.get("uniqueItems") else None))
    fixed = st.tuples(*[_strategy(p, file) for p in prefix])
    optional = [i for i in range(lo, min(hi, len(prefix)) + 1)]
    return st.tuples(fixed, st.sampled_from(optional)).map(lambda t: list(t[0][:t[1]]))


def _object(node: dict, file: str) -> st.SearchStrategy:
    props = node.get("properties", {})
    branches = node.get("oneOf") if "properties" in node else None
    # each property's strategy is built once, here, not at every draw: a
    # strategy built afresh is validated afresh by Hypothesis (half the CPU
    # of test_fuzz_schemas.py's machine test went there); the same
    # strategies, drawn in the same order, draw the same documents
    subs = {key: _strategy(sub, file) for key, sub in props.items()}
    extra = node.get("additionalProperties")
    more = (st.dictionaries(_strategy(node.get("propertyNames", {"type": "string"}), file),
                            _strategy(extra, file), max_size=3)
            if isinstance(extra, dict) else None)

    @st.composite
    def draw(draw_):
        required = set(node.get("required", ()))
        forbidden: set = set()
        if branches:
            b = draw_(st.sampled_from(branches))
            required |= set(b.get("required", ()))
            forbidden |= set(b.get("not", {}).get("required", ()))
        out = {}
        for key in props:
            if key in forbidden:
                continue
            if key in required or draw_(st.booleans()):
                out[key] = draw_(subs[key])
        if more is not None:
            out.update({k: v for k, v in draw_(more).items() if k not in props})
        return out

    return draw()
