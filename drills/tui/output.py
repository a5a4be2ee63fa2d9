"""The one path every event takes to the screen, shared by both front ends: ``Output`` (record
first, then print), the two ways a quiz is cut short (``Signalled``, ``SaveFailed``), and how
each front end ends a concept answer.

Records go to the caller (store + transcript, committed before anything else is shown),
then the rendered text is printed. May import quiz.session, display and tui.render.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from drills.display import Style
from drills.quiz.session import (
    RECORD_EVENTS,
    Event,
    Finished,
    QuestionShown,
    Record,
    Revealed,
    Summary,
)
from drills.tui.render import kept, render

OnRecord = Callable[[Record], None]
CONCEPT_END = "finish with an empty line (or Esc then Enter)"
PLAIN_END = "all on one line"

class Signalled(BaseException):
    """SIGTERM or SIGHUP arrived: end the session as :quit does, then exit 128 + ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class SaveFailed(Exception):
    """``on_record`` could not save a record, after retrying: the quiz must not go on silently."""


class Output:
    """Record, then print: the one path every event takes to the screen.

    A record that cannot be saved stops the events where they are (``failure`` is set and
    nothing more is drawn): the front end then calls ``retry`` or ``give_up``.
    """

    def __init__(self, style: Style, on_record: OnRecord | None = None,
                 echo: Callable[[str], None] | None = None) -> None:
        self.style = style
        self.on_record = on_record
        self.echo = echo or _print
        self.pager: Callable[[str], bool] | None = None  # on a terminal: page what is too tall
        # review: the next interval for each self-grade ("again 10m · hard 1d ..."), or None
        self.grade_hint: Callable[[Any], str | None] | None = None
        # review: a line under each graded answer ("Next review of this question: in 3 days")
        self.record_note: Callable[[Record], str | None] | None = None
        self.summary: Summary | None = None
        self.failure: SaveFailed | None = None
        self._held: list[Event] = []
        self._next = 0  # the held event whose record is still to be saved
        self._giving_up = False
        self._first = True

    def emit(self, events: list[Event]) -> None:
        self._held, self._next = list(events), 0
        self._persist()

    def retry(self) -> None:
        """Try the failed save again; the held events go on when it works."""
        self._persist()

    def give_up(self, keep: Callable[[Event], bool] = lambda ev: not isinstance(ev, QuestionShown)) -> None:
        """Go on without the failed save: draw what was held (by default no next question)."""
        self._giving_up = True
        if self.failure is not None:  # its record stays with on_record's owner, reported unsaved
            self._next += 1
        self._persist(keep)

    def _persist(self, keep: Callable[[Event], bool] | None = None) -> None:
        events = self._held
        while self._next < len(events):  # persist first: a crash while drawing must not lose an answer
            ev = events[self._next]
            if isinstance(ev, RECORD_EVENTS) and self.on_record is not None:
                try:
                    self.on_record(ev.record)
                except SaveFailed as exc:
                    if not self._giving_up:
                        self.failure = exc
                        return
                except Signalled:  # raised once the record was dealt with: do not save it twice
                    self._next += 1
                    raise
            if isinstance(ev, Finished):
                self.summary = ev.summary
            self._next += 1
        self.failure, self._held = None, []
        self._draw([ev for ev in events if keep is None or keep(ev)])

    def _draw(self, events: list[Event]) -> None:
        for ev in events:
            text = render(ev, self.style)
            if isinstance(ev, QuestionShown):
                text = "\n" + text
            if isinstance(ev, Finished):
                text = "\n" + text
            if isinstance(ev, Revealed) and self.grade_hint is not None:
                hint = self.grade_hint(ev.question)
                if hint:
                    text += "\n" + self.style.paint(self.style.wrap(f"Next review: {hint}"), "dim")
            if isinstance(ev, RECORD_EVENTS) and self.record_note is not None:
                note = self.record_note(ev.record)  # read once the record is saved
                if note:
                    text += "\n" + self.style.paint(self.style.wrap(note), "dim")
            pager = self.pager
            parts = kept(ev, self.style) if pager is not None else None
            if pager is not None and parts is not None and text.startswith(parts[0]):
                # the body through the pager, the end after it: q on its first page hides nothing
                body, tail = parts[0], text[len(parts[0]):].lstrip("\n")
                if not pager(body):
                    self.echo(body)
                self.echo(tail)
            elif text and not (pager is not None and pager(text)):
                self.echo(text)
            if isinstance(ev, QuestionShown) and self._first:
                self._first = False
                if os.environ.get("DRILLS_DEBUG_IMPORTS"):
                    self.echo(f"[debug] sympy imported at first question: {'sympy' in sys.modules}")
                    generators = sorted(m.rsplit(".", 1)[1] for m in sys.modules
                                        if m.startswith("drills.generators."))
                    self.echo(f"[debug] generator modules at first question: {' '.join(generators)}")


def _print(text: str) -> None:
    print(text, flush=True)
