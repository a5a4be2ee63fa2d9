"""A pack's header, kept apart from the YAML reader so a cached catalog loads without it."""

from __future__ import annotations

from dataclasses import dataclass

from drills.model import Tolerance


@dataclass(frozen=True)
class PackMeta:
    """The ``pack:`` header and ``defaults:`` of one pack file."""

    name: str
    version: str
    description: str = ""
    author: str = ""
    tolerance: Tolerance | None = None
    gain: str = "exponential"
    difficulty: str = "medium"
    line: int = 0  # of ``name:``, for cross-pack errors
