"""Terminal front ends over ``drills.quiz.session``: prompt_toolkit when on a terminal, plain lines otherwise.

Both front ends hand every event to ``Output.emit``, which first passes records to
the caller (store + transcript, committed before anything else is shown) and then
prints the rendered text. prompt_toolkit is imported only by the interactive front end.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from drills.quiz.session import (
    RECORD_EVENTS,
    Event,
    Finished,
    QuestionShown,
    Record,
    Revealed,
    Session,
    Summary,
)
from drills.tui.render import Style, display_width, render

OnRecord = Callable[[Record], None]
CONCEPT_END = "finish with an empty line (or Esc then Enter)"
PLAIN_END = "all on one line"

_warm: list[threading.Thread] = []


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
            if text and not (self.pager is not None and self.pager(text)):
                self.echo(text)
            if isinstance(ev, QuestionShown) and self._first:
                self._first = False
                if os.environ.get("DRILLS_DEBUG_IMPORTS"):
                    self.echo(f"[debug] sympy imported at first question: {'sympy' in sys.modules}")


def _print(text: str) -> None:
    print(text, flush=True)


def warm_up() -> None:
    """Import the grader (and sympy) in the background once the first question is up."""
    if _warm:
        return

    def work() -> None:
        try:
            import sympy  # noqa: F401

            import drills.grading.check  # noqa: F401
            import drills.grading.diagnose  # noqa: F401
            import drills.grading.tolerance  # noqa: F401
        except Exception:  # noqa: BLE001 - warming is best effort; the real import reports
            pass

    t = threading.Thread(target=work, name="drills-warm-up", daemon=True)
    _warm.append(t)
    t.start()


def settle(timeout: float = 3.0) -> None:
    """Let a half-done warm-up import finish so the interpreter never exits mid-import."""
    for t in _warm:
        t.join(timeout)


def is_terminal(stdin: IO[Any] | None = None, stdout: IO[Any] | None = None) -> bool:
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    try:
        return bool(stdin.isatty() and stdout.isatty())
    except (AttributeError, ValueError):
        return False


def run(session: Session, on_record: OnRecord | None = None, *,
        interactive: bool | None = None,
        grade_hint: Callable[[Any], str | None] | None = None) -> Summary:
    """Run ``session`` to its summary in the right front end for this terminal."""
    from drills.tui.render import use_color

    if interactive is None:
        interactive = is_terminal()
    width = display_width()
    out = Output(Style(use_color(sys.stdout), width, CONCEPT_END if interactive else PLAIN_END),
                 on_record)
    out.grade_hint = grade_hint
    try:
        if interactive:
            from drills.tui.pager import make_pager, terminal_rows

            out.pager = make_pager(terminal_rows)
            out.emit(session.start())  # the first question is up before prompt_toolkit is imported
            from drills.tui.interactive import run_interactive

            return run_interactive(session, out=out)
        from drills.tui.plain import run_plain

        return run_plain(session, out=out)
    except Signalled:
        if not session.finished:  # a typed concept answer is saved; the summary shown if it can be
            out.give_up()
            with contextlib.suppress(OSError, ValueError):
                out.emit(session.quit())
        raise
