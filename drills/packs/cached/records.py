"""The pack cache's records: how a value is written as JSON (``encode``) and read back
(``decode``, or ``loads`` as the JSON reader reads it), every record's fields type-checked
(drills.packs.cached.checks) into a fixed set of types: the dataclasses below, tuples,
fractions and mappings. Never pickle: a file in DRILLS_HOME cannot run code.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from drills.engine.problem import Problem
from drills.model import (
    Example,
    KeyPoint,
    Misconception,
    Narrowing,
    Option,
    Part,
    Question,
    Rubric,
    Source,
    Tolerance,
)
from drills.packs.cached.checks import Schema, build
from drills.packs.cached.unread import Unread, read
from drills.packs.meta import PackMeta

MAX_DEPTH = 64  # a question nests a scenario's steps, rubrics, problems: far less than this
_TYPES: dict[str, type] = {t.__name__: t for t in
                           (Question, Option, Problem, Tolerance, Narrowing, Source, Part, PackMeta,
                            Rubric, KeyPoint, Misconception, Example)}
_LAZY_TYPES = {"CodeTask": "drills.coding.task"}  # imported when a cached pack has one


def _type(name: str) -> type | None:
    if name in _LAZY_TYPES and name not in _TYPES:
        import importlib  # stdlib, already loaded: the lazy part is the module named

        _TYPES[name] = getattr(importlib.import_module(_LAZY_TYPES[name]), name)
    return _TYPES.get(name)


class CacheError(ValueError):
    """The cached text is not what this version of drills wrote."""


_SCHEMA = Schema()
DAMAGE = (CacheError, KeyError, TypeError, ValueError, AttributeError, ArithmeticError,
          RecursionError, UnicodeError)  # ProblemError is a ValueError


def encode(value: Any) -> Any:
    """A JSON-able form that keeps dataclasses, tuples and non-string dict keys apart."""
    if type(value) is Unread:
        value = read(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _type(name) is None:
            raise CacheError(f"cannot cache a {name}")
        # a field at its default is left out (most of a Question's are): a smaller file, a faster load
        return {"@": name, **{f.name: encode(v) for f in dataclasses.fields(value)
                              if not _is_default(f, v := getattr(value, f.name))}}
    if isinstance(value, tuple):
        return {"@t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {"@d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, Fraction):  # RBP's persistence
        return {"@f": str(value)}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise CacheError(f"cannot cache a {type(value).__name__}")


def _is_default(f: dataclasses.Field, value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return type(value) is type(f.default) and value == f.default
    if f.default_factory is not dataclasses.MISSING:
        default = f.default_factory()
        return type(value) is type(default) and value == default
    return False


_PLAIN = (str, int, float, bool, type(None))


def decode(value: Any, depth: int = 0) -> Any:
    """The value ``encode`` made, each record's fields type-checked; CacheError otherwise."""
    if type(value) in _PLAIN:  # most values: return at once
        return value
    if depth > MAX_DEPTH:
        raise CacheError("the pack cache nests too deep")
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return _object(value, lambda v: decode(v, depth + 1))
    raise CacheError("a value of an unknown type in the pack cache")


def _same(value: Any) -> Any:
    return value


def loads(text: str) -> Any:
    """``decode(json.loads(text))`` in one pass: the JSON reader hands each object to
    ``_object`` as it is read, innermost first, so no second walk over every value. An object
    without a tag may only be the outermost one (the entry itself: read last). Depth is
    bounded by the JSON reader, whose RecursionError is damage like any other."""
    outer: list[dict[str, Any]] = []

    def hook(value: dict[str, Any]) -> Any:
        if outer:  # an untagged object was read before this one: it was not the outermost
            raise CacheError("an untagged object inside a pack cache entry")
        if "@t" in value or "@f" in value or "@d" in value or "@" in value:
            return _object(value, _same)
        outer.append(value)
        return value

    return json.loads(text, object_hook=hook)


def _object(value: dict[str, Any], inner: Any) -> Any:
    """A tagged object: a tuple, a fraction, a mapping or a record, its parts decoded by
    ``inner`` (``_same`` when the JSON reader decoded them already)."""
    if "@t" in value:
        items = value["@t"]
        if not isinstance(items, list):
            raise CacheError("a damaged tuple in the pack cache")
        return tuple(items) if inner is _same else tuple(map(inner, items))
    if "@f" in value:
        try:
            return Fraction(value["@f"])
        except (TypeError, ValueError, ZeroDivisionError):
            raise CacheError("a damaged fraction in the pack cache") from None
    if "@d" in value:
        pairs = value["@d"]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise CacheError("a damaged mapping in the pack cache")
        try:
            return dict(pairs) if inner is _same else {inner(k): inner(v) for k, v in pairs}
        except TypeError:  # an unhashable key
            raise CacheError("a damaged mapping key in the pack cache") from None
    name = value.get("@", "")
    cls = _type(name) if isinstance(name, str) else None
    if cls is None:
        raise CacheError("unknown record in the pack cache")
    if inner is _same:  # the JSON reader's own fresh object: decoded already
        fields = value
        del fields["@"]
    else:
        fields = {k: inner(v) for k, v in value.items() if k != "@"}
    task = fields.get("task") if cls is Question else None  # annotated Any: a CodeTask or None
    if task is not None and type(task).__name__ != "CodeTask":
        raise CacheError("a damaged code task in the pack cache")
    bad = _SCHEMA.bad_field(cls, fields)
    if bad is not None:
        raise CacheError(f"a {name} with a damaged field {bad!r} in the pack cache")
    try:
        return build(cls, fields)
    except DAMAGE as exc:
        raise CacheError(str(exc)) from None


__all__ = ["MAX_DEPTH", "CacheError", "DAMAGE", "decode", "encode", "loads"]
