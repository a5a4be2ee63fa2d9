"""The generator registry: seeded problem generators registered by name.

A generator turns a ``generated`` Question (its ``params`` from YAML) and a
``random.Random`` into a concrete numeric or choice Question. Generators must be
deterministic for a given Random state and must not import sympy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from drills.model import Question


@dataclass(frozen=True)
class Param:
    """One parameter a generator accepts from YAML."""

    type: type | tuple[type, ...]
    default: Any
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None


Make = Callable[[Question, Mapping[str, Any], random.Random], Question]


@dataclass(frozen=True)
class Generator:
    name: str
    topic: str
    summary: str
    make: Make
    params: Mapping[str, Param] = field(default_factory=dict)
    # "question": makes a numeric or choice question (kind: generated); "scenario": makes a
    # whole scenario, its problem and its steps (kind: scenario, see drills.grading.scenario).
    kind: str = "question"

    def validate(self, params: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Return (field, message) problems with ``params``; empty when they are fine."""
        problems: list[tuple[str, str]] = []
        for key in params:
            if key not in self.params:
                known = ", ".join(sorted(self.params)) or "none"
                problems.append((key, f"unknown parameter for generator {self.name!r} (known: {known})"))
        for key, spec in self.params.items():
            if key not in params:
                continue
            value = params[key]
            if isinstance(value, bool) and spec.type is not bool and bool not in _as_tuple(spec.type):
                problems.append((key, f"expected {_type_name(spec.type)}, got a boolean"))
                continue
            if not isinstance(value, spec.type):
                problems.append((key, f"expected {_type_name(spec.type)}, got {type(value).__name__}"))
                continue
            if spec.choices is not None and value not in spec.choices:
                problems.append((key, f"must be one of {', '.join(map(str, spec.choices))}"))
            if isinstance(value, int) and not isinstance(value, bool):
                if spec.minimum is not None and value < spec.minimum:
                    problems.append((key, f"must be at least {spec.minimum}"))
                if spec.maximum is not None and value > spec.maximum:
                    problems.append((key, f"must be at most {spec.maximum}"))
        return problems

    def resolved(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with the given params."""
        out = {key: spec.default for key, spec in self.params.items()}
        out.update(params)
        return out


def _as_tuple(t: type | tuple[type, ...]) -> tuple[type, ...]:
    return t if isinstance(t, tuple) else (t,)


def _type_name(t: type | tuple[type, ...]) -> str:
    return " or ".join(x.__name__ for x in _as_tuple(t))


REGISTRY: dict[str, Generator] = {}


def register(
    name: str, *, topic: str, summary: str, params: Mapping[str, Param] | None = None,
    kind: str = "question",
) -> Callable[[Make], Make]:
    """Decorator: register ``make`` under ``name``."""

    def deco(make: Make) -> Make:
        if name in REGISTRY:
            raise ValueError(f"generator {name!r} registered twice")
        REGISTRY[name] = Generator(name, topic, summary, make, dict(params or {}), kind)
        return make

    return deco
