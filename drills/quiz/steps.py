"""The part of the quiz state machine that knows a scenario's steps: where the learner is
(question n of N, step n of N), the time a scenario's steps share, what Enter goes on to, and
the earlier steps' records carry-forward grades against. No I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drills.model import Question
    from drills.quiz.events import Options, Record


class Steps:
    """Mixed into ``drills.quiz.session.Session`` (which sets these attributes)."""

    items: list[Question]
    planned: list[Question]
    records: list[Record]
    options: Options
    index: int
    _owner: list[int]

    def item_limit(self) -> float | None:
        """The current planned item's time: a scenario's is shared by its steps (``--per-question``
        gives it that many seconds per step)."""
        owner = self._owner[self.index]
        if self.options.limits:
            return self.options.limits[owner]
        seconds = self.options.seconds
        q = self.planned[owner]
        return seconds * len(q.steps) if seconds and q.kind == "scenario" else seconds

    def position(self, index: int | None = None) -> tuple[int, int]:
        """(1-based number, total) of the current planned item (or of step ``index``'s), as
        the learner counts them."""
        offset = self.options.offset
        owner = self._owner[min(self.index if index is None else index, len(self.items) - 1)]
        return owner + 1 + offset, len(self.planned) + offset

    def _next(self) -> str:
        """What comes after Enter: the same scenario's next step, the next question, or (after
        the last) the summary."""
        if self.index >= len(self.items):
            return "summary"
        q = self.items[self.index]
        return "step" if q.part is not None and q.part.step > 1 else "question"

    def _chain(self) -> list[Record]:
        """The records of the current scenario's earlier steps."""
        owner = self._owner[self.index]
        return [r for r in self.records if self._owner[r.index] == owner]
