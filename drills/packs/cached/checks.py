"""The types a cached record's fields may hold, checked as the pack cache decodes them.

The cache (drills.packs.cache) is data written by drills, but it sits in DRILLS_HOME where
anything can change it. Each dataclass it may build declares its fields' types; a decoded
value of another type (an id that is a list, a tolerance that is text, options that are
numbers) makes the entry damaged, so it is dropped and its pack read again from YAML,
instead of reaching the quiz and failing there.

The checkers are built once, from the classes' own annotations, on the first decode; a
checked record is then made by ``build`` (its fields straight into its __dict__).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]


def _any(_: Any) -> bool:
    return True


def _instance(tp: type) -> Check:
    if tp is float:
        return lambda v: type(v) in (float, int)
    if tp is int:
        return lambda v: type(v) is int
    return lambda v: isinstance(v, tp)


def checker(tp: Any, overrides: Mapping[Any, Check] | None = None) -> Check:
    """A predicate for values of the annotation ``tp`` (unions, tuples, mappings, classes)."""
    if overrides and tp in overrides:
        return overrides[tp]
    if tp is Any:
        return _any
    if tp is type(None) or tp is None:
        return lambda v: v is None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [checker(a, overrides) for a in args]
        if len(options) == 2:  # X | None, most of them: no generator per value
            first, second = options
            return lambda v: first(v) or second(v)
        return lambda v: any(c(v) for c in options)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = checker(args[0], overrides)
            return lambda v: type(v) is tuple and all(map(each, v))
        parts = [checker(a, overrides) for a in args]
        return lambda v: type(v) is tuple and len(v) == len(parts) and all(
            c(x) for c, x in zip(parts, v, strict=True))
    if origin is list:
        each = checker(args[0], overrides) if args else _any
        return lambda v: type(v) is list and all(map(each, v))
    if origin in (dict, Mapping, typing.Mapping) or tp in (dict, Mapping):
        key, value = (checker(a, overrides) for a in args) if args else (_any, _any)
        return lambda v: isinstance(v, dict) and all(key(k) and value(x) for k, x in v.items())
    if isinstance(tp, type):
        return _instance(tp)
    return _any  # an annotation this checker does not know: not checked


class Schema:
    """Per class, per field: the check of a decoded value."""

    def __init__(self, overrides: Mapping[tuple[str, str], Any] | None = None) -> None:
        self._fields: dict[type, dict[str, Check]] = {}
        self._overrides = dict(overrides or {})

    def fields(self, cls: type) -> dict[str, Check]:
        known = self._fields.get(cls)
        if known is None:
            hints = typing.get_type_hints(cls)
            known = {}
            for f in dataclasses.fields(cls):
                tp = self._overrides.get((cls.__name__, f.name), hints.get(f.name, Any))
                known[f.name] = checker(tp)
            self._fields[cls] = known
        return known

    def bad_field(self, cls: type, values: Mapping[str, Any]) -> str | None:
        """The first field of ``values`` that is unknown to ``cls`` or of the wrong type."""
        checks = self.fields(cls)
        for name, value in values.items():
            check = checks.get(name)
            if check is None or not check(value):
                return name
        return None


_MAKERS: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]] | None] = {}


def build(cls: type, fields: dict[str, Any]) -> Any:
    """``cls(**fields)`` for a frozen dataclass, about three times faster: its __init__ sets
    every field (a Question has 40, most left at their defaults) one ``object.__setattr__`` at
    a time. Here the defaults, then ``fields`` (type-checked already), go into the new
    object's __dict__ at once. A class with __post_init__, slots or a missing required field
    goes through its own __init__, which says what is wrong; tests compare the two."""
    maker = _MAKERS.get(cls, False)
    if maker is False:
        maker = _MAKERS[cls] = _maker(cls)
    if maker is None or not maker[2] <= fields.keys():
        return cls(**fields)
    plain, factories, _ = maker
    made = object.__new__(cls)
    state = made.__dict__
    state.update(plain)
    for name, factory in factories:
        if name not in fields:
            state[name] = factory()
    state.update(fields)
    return made


def _maker(cls: type) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]] | None:
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        return None
    plain: dict[str, Any] = {}
    factories: list[tuple[str, Any]] = []
    required = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            plain[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            factories.append((f.name, f.default_factory))
        else:
            required.append(f.name)
    return plain, tuple(factories), frozenset(required)


__all__ = ["Schema", "build", "checker"]
