"""Time per question in a mock interview, weighed by what the question asks for.

A choice is read and answered with a letter; a hand computation takes a table of sums; a
"why" question takes a few sentences. Without ``--per-question`` the interview's time is
shared in proportion to these weights (``--minutes``), or each question gets the base
time times its weight.
"""

from __future__ import annotations

from collections.abc import Sequence

from drills.model import Question

BASE_SECONDS = 90.0
KIND_WEIGHT = {"choice": 0.5, "numeric": 1.0, "concept": 1.5, "code": 5.0}  # code: write a function


def mock_limits(items: Sequence[Question], minutes: float | None = None) -> tuple[float, ...]:
    """Seconds for each item: ``minutes`` shared by weight, else BASE_SECONDS x weight."""
    weights = [sum(KIND_WEIGHT.get(s.kind, 1.0) for s in q.steps) if q.kind == "scenario"
               else KIND_WEIGHT.get(q.kind, 1.0) for q in items]  # a scenario: its steps' time
    unit = minutes * 60 / sum(weights) if minutes and weights else BASE_SECONDS
    return tuple(round(unit * w, 1) for w in weights)
