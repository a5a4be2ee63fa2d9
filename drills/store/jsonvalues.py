"""Strict JSON for the history: no NaN or infinity, no integer SQLite or a float cannot hold,
no nesting or size without a bound. What an export brings in and what the database gives
back are both checked with these, so NaN never reaches the database and an export is always
standard JSON (``json.dumps(..., allow_nan=False)`` cannot fail on it).
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_INT = 2**63 - 1  # SQLite's INTEGER; a float holds it (to the nearest double)
MAX_DEPTH = 32


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def strict_loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN, Infinity and -Infinity (ValueError)."""
    return json.loads(text, parse_constant=_refuse)


def plain(value: Any, depth: int = 0) -> bool:
    """``value`` is JSON data drills can store and write back: null, true/false, text,
    integers within SQLite's range, finite floats, and lists and objects of these (text
    keys) nested at most MAX_DEPTH deep."""
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, int):
        return -MAX_INT - 1 <= value <= MAX_INT
    if isinstance(value, float):
        return math.isfinite(value)
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, list):
        return all(plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v, depth + 1) for k, v in value.items())
    return False


def finite_number(value: Any) -> bool:
    """A JSON number (not true/false) that is finite and within SQLite's integer range."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_INT - 1 <= value <= MAX_INT
    return isinstance(value, float) and math.isfinite(value)


def size(value: Any) -> int:
    """The length of ``value`` as compact JSON (the bytes a stored column takes, about)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


__all__ = ["MAX_DEPTH", "MAX_INT", "finite_number", "plain", "size", "strict_loads"]
