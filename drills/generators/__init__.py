"""Seeded problem generators, registered by name (see registry.py), and instantiate.py:
a concrete question drawn from a written one with a seeded Random.

The generator modules are not imported here: ``REGISTRY`` imports a generator's module when
it is looked up (a plan imports only the generators it draws), all of them when it is listed.
Nor is the registry itself until one of its names is asked for: a plan of written questions
needs none, and the first question is shown sooner.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REGISTRY", "Generator", "Param", "register"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from drills.generators import registry  # lazy: see the module docstring

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
