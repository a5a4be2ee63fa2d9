"""Seeded problem generators, registered by name (see registry.py)."""

from __future__ import annotations

# Importing the generator modules registers every generator.
from drills.generators import (  # noqa: F401
    cascade,
    compare,
    concepts,
    precision,
    ranking,
    scenarios,
    significance,
    versus,
)
from drills.generators.registry import REGISTRY, Generator, Param, register

__all__ = ["REGISTRY", "Generator", "Param", "register"]
