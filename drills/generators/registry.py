"""The generator registry: seeded problem generators registered by name.

A generator turns a ``generated`` Question (its ``params`` from YAML) and a
``random.Random`` into a concrete numeric or choice Question. Generators must be
deterministic for a given Random state and must not import sympy.

The generator modules are imported when a generator is first looked up, not at start-up:
``REGISTRY[name]`` imports the one module ``HOMES`` names for it (a plan that draws an
NDCG question imports drills.generators.ranking and no other), listing the registry imports
them all. A generator missing from ``HOMES`` is still found (every module is imported to
look for it); tests/test_generator_homes.py keeps ``HOMES`` and ``MODULES`` complete.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping, MutableMapping
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
    """A registered generator: its name, topic, summary, the function that makes a question,
    and its parameters."""

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


# Every module under drills.generators that registers generators, and each generator's module.
MODULES = ("cascade", "compare", "concepts", "experiments", "precision", "ranking", "retrieval",
           "scenarios", "significance", "versus")
HOMES: dict[str, str] = {
    "mrr-queries": "cascade", "err-hand": "cascade",
    "compare-rankings": "compare", "binary-vs-graded": "compare",
    "single-relevant": "concepts", "ndcg-at-1-binary": "concepts", "gain-ratio": "concepts",
    "discount-at-rank": "concepts",
    "cuped": "experiments", "delta-method-ctr": "experiments", "srm-chi-square": "experiments",
    "off-policy": "experiments",
    "ap-hand": "precision", "map-queries": "precision", "precision-recall": "precision",
    "ndcg-hand": "ranking", "swap-delta": "ranking", "edge-case": "ranking",
    "ads-calibration": "retrieval", "ads-auc": "retrieval", "pr-area": "retrieval",
    "sampled-softmax": "retrieval",
    "ndcg-chain": "scenarios", "binary-graded-chain": "scenarios",
    "lambdarank-swap-chain": "scenarios", "ndcg-vs-mrr-chain": "scenarios",
    "ctr-lift": "significance", "paired-test": "significance",
    "map-vs-ndcg": "versus",
}


class Registry(MutableMapping[str, Generator]):
    """Generators by name, each module imported when one of its generators is looked up."""

    def __init__(self) -> None:
        self._known: dict[str, Generator] = {}
        self._complete = False

    def add(self, gen: Generator) -> None:
        if gen.name in self._known:
            raise ValueError(f"generator {gen.name!r} registered twice")
        self._known[gen.name] = gen

    def load_all(self) -> None:
        """Import every generator module (listing the registry needs them all)."""
        if not self._complete:
            for module in MODULES:
                importlib.import_module(f"drills.generators.{module}")
            self._complete = True

    def __getitem__(self, name: str) -> Generator:
        gen = self._known.get(name)
        if gen is None and isinstance(name, str):
            home = HOMES.get(name)
            if home is not None:
                importlib.import_module(f"drills.generators.{home}")
            if name not in self._known:
                self.load_all()
            gen = self._known.get(name)
        if gen is None:
            raise KeyError(name)
        return gen

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return iter(dict(self._known))

    def __len__(self) -> int:
        self.load_all()
        return len(self._known)

    def __setitem__(self, name: str, gen: Generator) -> None:
        self._known[name] = gen

    def __delitem__(self, name: str) -> None:
        del self._known[name]


REGISTRY = Registry()


def register(
    name: str, *, topic: str, summary: str, params: Mapping[str, Param] | None = None,
    kind: str = "question",
) -> Callable[[Make], Make]:
    """Decorator: register ``make`` under ``name``."""

    def deco(make: Make) -> Make:
        REGISTRY.add(Generator(name, topic, summary, make, dict(params or {}), kind))
        return make

    return deco
