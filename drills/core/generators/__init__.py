"""Seeded problem generators, registered by name (see registry.py)."""

from __future__ import annotations

from drills.core.generators.registry import REGISTRY, Generator, Param, register

__all__ = ["REGISTRY", "Generator", "Param", "register"]
