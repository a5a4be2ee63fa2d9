"""Seeded problem generators, registered by name (see registry.py), and instantiate.py:
a concrete question drawn from a written one with a seeded Random.
"""

from __future__ import annotations

# Importing the generator modules registers every generator.
from drills.generators import (  # noqa: F401
    cascade,
    compare,
    concepts,
    experiments,
    precision,
    ranking,
    retrieval,
    scenarios,
    significance,
    versus,
)
from drills.generators.registry import REGISTRY, Generator, Param, register

__all__ = ["REGISTRY", "Generator", "Param", "register"]
