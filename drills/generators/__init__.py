"""Seeded problem generators, registered by name (see registry.py), and instantiate.py:
a concrete question drawn from a written one with a seeded Random.

The generator modules are not imported here: ``REGISTRY`` imports a generator's module when
it is looked up (a plan imports only the generators it draws), all of them when it is listed.
"""

from __future__ import annotations

from drills.generators.registry import REGISTRY, Generator, Param, register

__all__ = ["REGISTRY", "Generator", "Param", "register"]
