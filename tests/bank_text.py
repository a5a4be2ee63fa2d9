"""Bank tests read packs with yaml.safe_load: a key point there is text, or a mapping with
its ``text`` and rubric (``required``, ``accept``); these helpers give the texts."""

from __future__ import annotations

from typing import Any


def point_texts(points: Any) -> list[str]:
    """The texts of a question's raw ``key_points`` (strings or {text, ...} mappings)."""
    return [p["text"] if isinstance(p, dict) else p for p in points or []]
