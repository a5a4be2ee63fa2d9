"""``:undo``: the part of the quiz state machine that takes back the session's last answer.

The answer's record leaves the session, the score and the streak go back to what they were,
and its question is asked again, its clock going on from where the answer stopped it (a
mock's time is not handed back). ``:undo`` again takes back the answer before, down to the
first one of this sitting (answers given before a resume stay). Not taken back: a question
whose time ran out (not an answer), and nothing while a concept answer awaits its
self-grade. No I/O: the history is changed by ``take_back``, a callable the caller injects
(like the clock), which returns None when it is done or why it could not be; then the
session is left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from drills.grading.scenario import RIGHT
from drills.quiz.events import Notice, Undone

if TYPE_CHECKING:
    from drills.quiz.events import Event, Record

TakeBack = Callable[["Record"], "str | None"]


class Undo:
    """Mixed into ``drills.quiz.session.Session`` (which sets these attributes)."""

    records: list[Record]
    index: int
    streak: int
    best_streak: int
    kept: int  # records restored from before a resume: never taken back
    take_back: TakeBack | None
    _pending: Any
    _waiting: bool

    if TYPE_CHECKING:  # Steps' and Session's
        def position(self, index: int | None = None) -> tuple[int, int]: ...
        def _show(self, spent: float = 0.0) -> Event: ...

    def undo_last(self) -> list[Event]:
        """Take back the last answer (see the module docstring): ``Undone`` and the question
        again, or a ``Notice`` saying why not."""
        if self._pending is not None:
            return [Notice("grade this answer first (or :skip it); :undo then takes it back")]
        if len(self.records) <= self.kept:
            return [Notice("nothing to take back: the answers given before the resume stay"
                           if self.records else "nothing to take back yet")]
        rec = self.records[-1]
        if rec.verdict == "timeout":
            return [Notice("the time ran out on the last question: a timeout is not taken back")]
        if self.take_back is not None:
            why = self.take_back(rec)
            if why:
                return [Notice(f"could not take back your answer: {why}")]
        self.records.pop()
        self.index = rec.index
        self._waiting = False
        self.streak = self.best_streak = 0
        for r in self.records:
            self.streak = self.streak + 1 if r.verdict in RIGHT else 0
            self.best_streak = max(self.best_streak, self.streak)
        number, _ = self.position(rec.index)
        return [Undone(rec, number), self._show(spent=rec.seconds)]
