"""The values an attempt is stored with: its verdict (and which verdicts count as a right
answer), its mode and self-grade, and its uid's form.

``consistent`` is a scenario step that follows from the learner's own wrong earlier number
(error carried forward): the slip was in an earlier step, so this step counts as right in
every accuracy, score and streak, while ``drills stats`` still shows it as its own verdict.
``partial`` is a concept answer the rubric found part right (something relevant said, no
wrong belief, a required point missing): a miss, like ``close`` for a number.
Its own module so that history, stats and sessions share one definition without importing
each other, and so that opening the history needs no Attempt (drills.store.attempt):
the first question is shown before that dataclass is made. Light: no sqlite3, no fsrs.
"""

from __future__ import annotations

from drills.grading.scenario import RIGHT  # noqa: F401 - the one definition (the quiz counts by it too)

SELF_GRADES: tuple[str, ...] = ("again", "hard", "good", "easy")
MODES: tuple[str, ...] = ("practice", "mock", "review", "retry", "code")  # code: `drills code`
VERDICTS: tuple[str, ...] = ("correct", "consistent", "close", "partial", "wrong", "skipped",
                             "timeout")
MISSES: tuple[str, ...] = tuple(v for v in VERDICTS if v not in RIGHT)


def new_uid() -> str:
    """A fresh stable id for an attempt or a session: a random UUID4 as 32 hex digits."""
    import uuid  # stdlib; lazy: needed when something is recorded

    return uuid.uuid4().hex


def right_sql(column: str = "verdict") -> str:
    """SQL that is 1 when ``column`` holds a right verdict: ``verdict IN ('correct', ...)``."""
    return f"{column} IN ({', '.join(repr(v) for v in RIGHT)})"


def is_right(verdict: object) -> bool:
    """True for a verdict counted as correct (``correct`` or ``consistent``)."""
    return verdict in RIGHT
