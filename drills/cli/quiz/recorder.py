"""Where a graded answer goes before the next question: the history (retried) and the transcript.

Nothing graded is lost silently. A save that fails is tried once more after a short
pause; if it still fails the Recorder raises ``SaveFailed`` (the front end pauses or
stops) and keeps the answer as a transcript-shaped JSON line in ``unsaved``, which the
command prints on stderr at the end so it can be recovered. A signal that arrives while
an answer is being written waits until the write is committed (``Signals``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import IO, Any

import click

from drills.grading.scenario import RIGHT
from drills.model import Question
from drills.safetext import json_text, visible
from drills.store import StoreError
from drills.store.verdicts import new_uid
from drills.tui.output import SaveFailed, Signalled

RETRY_DELAY = 0.25  # seconds before the one automatic retry of a failed save


def params_of(q: Question) -> dict[str, Any] | None:
    """The concrete parameters of a generated question (None for fixed questions)."""
    return json.loads(json.dumps(dict(q.params), default=str)) if q.generator and q.params else None


def overridden(record: Any) -> bool:
    """Whether the learner overruled the grader's verdict (the quiz's ``:override``)."""
    return getattr(record, "overridden", False) is True


def transcript_line(record: Any) -> dict[str, Any]:
    """One graded question as the transcript (and the unsaved report) writes it."""
    q = record.question
    line: dict[str, Any] = {"id": q.id, "topic": q.topic, "kind": q.kind, "prompt": q.prompt}
    if q.part is not None:  # a scenario's step: the scenario's id and the step's number (1-based)
        line.update(scenario=q.part.scenario, step=q.part.step)
    params = params_of(q)
    if params is not None:
        line["params"] = params
    line.update(given=record.given, verdict=record.verdict)
    if overridden(record):  # the verdict is the learner's; the grader said otherwise
        line["overridden"] = True
    if record.self_grade:
        line["self_grade"] = record.self_grade
    if record.expected_value is not None:
        line["expected"] = {"exact": record.expected, "value": record.expected_value}
    else:
        line["expected"] = record.expected
    line.update(misconceptions=list(record.misconceptions), seconds=record.seconds)
    if record.question.kind != "concept":  # the one slip the answer counts under
        line["slip"] = record.misconceptions[0] if record.misconceptions else None
    return line


class Signals:
    """SIGTERM and SIGHUP end the quiz like :quit (``Signalled``), but never mid-write."""

    NAMES = ("SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.pending: int | None = None
        self._writing = False
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> Signals:
        for name in self.NAMES:
            num = getattr(signal, name, None)
            if num is not None:
                with contextlib.suppress(ValueError, OSError):  # not the main thread
                    self._saved[num] = signal.signal(num, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for num, old in self._saved.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(num, old)

    def _handle(self, signum: int, frame: Any) -> None:
        for num in self._saved:  # one signal ends the session; the rest must not cut the ending
            signal.signal(num, signal.SIG_IGN)
        if self._writing:
            self.pending = signum
            return
        raise Signalled(signum)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """A signal during the block is raised after it, once the answer is committed."""
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
            if self.pending is not None:
                signum, self.pending = self.pending, None
                raise Signalled(signum)


class Recorder:
    """Store + transcript: each graded question is saved before the next one is shown."""

    def __init__(self, store: Any, session_id: int, transcript: IO[str] | None,
                 signals: Signals | None = None, transcript_name: str | None = None) -> None:
        self.store, self.session_id, self.transcript = store, session_id, transcript
        self.name = visible(transcript_name or str(getattr(transcript, "name", "")))
        self.signals = signals or Signals()
        self.schedule_failed = False  # an answer saved, its review schedule not (the run exits 1)
        self.lost_transcript = False
        self.unsaved: dict[int, dict[str, Any]] = {}  # question index -> transcript-shaped line
        self.reason = ""  # why the last save failed
        self._written: set[int] = set()
        self._chains: dict[int, dict[int, str]] = {}  # planned item -> its steps' verdicts so far
        self.undoable = False  # keep what each answer changes, for :undo (``attach``)
        self._before: dict[int, Any] = {}  # question index -> drills.store.undo.Before
        self._unreviewed: set[int] = set()  # saved, but the review card update failed

    def attach(self, session: Any) -> None:
        """Let ``session``'s :undo take answers back out of the history (``undo``)."""
        self.undoable = True
        session.take_back = self.undo

    @property
    def failed(self) -> bool:
        return bool(self.unsaved)

    def close(self) -> None:
        """Close the transcript; a failure here was already reported at the write, or is now."""
        out, self.transcript = self.transcript, None
        if out is None:
            return
        try:
            out.close()
        except OSError as exc:
            self.lost_transcript = True
            click.echo(f"Error: cannot write the transcript {self.name}: {exc.strerror or exc}", err=True)

    def __call__(self, record: Any) -> None:
        with self.signals.writing():  # a signal now is raised once this answer is dealt with
            self._record(record)

    def _record(self, record: Any) -> None:
        line = transcript_line(record)
        if record.index not in self._written:  # a retried save writes its line once
            self._written.add(record.index)
            self._write(line)
        from drills.store.cards import ReviewError  # lazy: fsrs, after the first question

        q = record.question
        scenario: dict[str, Any] = {}
        if q.part is not None:  # one review card per scenario, rated once its last step is in
            chain = self._chains.setdefault(record.item, {})
            chain[q.part.step] = record.verdict
            scenario = {"scenario": q.part.scenario, "step": q.part.step}
            if q.part.step == q.part.of:
                scenario["scenario_verdict"] = "correct" if all(
                    v in RIGHT for v in chain.values()) else "wrong"
        from drills.store.attempt import Attempt  # lazy: the first question is up before it is made

        attempt = Attempt(q.id, q.topic, q.kind, record.verdict, record.given or None,
                          record.expected or None, record.expected_value,
                          tuple(record.misconceptions), float(record.seconds),
                          generator=q.generator, params=line.get("params"),
                          self_grade=record.self_grade, difficulty=q.difficulty,
                          overridden=overridden(record), **scenario)
        if self.undoable:
            attempt = self._keep_before(record.index, attempt)
        for last in (False, True):
            try:
                self.store.record_attempt(self.session_id, attempt)
            except ReviewError as exc:  # the answer is in; only its schedule is not
                if not self.schedule_failed:
                    click.echo(f"Error: {exc}", err=True)
                self.schedule_failed = True
                self._unreviewed.add(record.index)
            except StoreError as exc:
                if last:
                    self.unsaved[record.index] = line
                    self.reason = str(exc)
                    raise SaveFailed(self.reason) from None
                time.sleep(RETRY_DELAY)
                continue
            self.unsaved.pop(record.index, None)
            return

    def _keep_before(self, index: int, attempt: Any) -> Any:
        """The attempt with its uid and time fixed, and what it is about to change kept for
        :undo (when that cannot be read, the answer is saved all the same, not undoable)."""
        from drills.store import undo  # lazy: fsrs, after the first question

        attempt = dataclasses.replace(attempt, uid=new_uid(), answered_at=datetime.now(timezone.utc))
        self._unreviewed.discard(index)
        try:
            self._before[index] = undo.before(self.store, attempt)
        except StoreError:
            self._before.pop(index, None)
        return attempt

    def undo(self, record: Any) -> str | None:
        """Take ``record``'s answer back out of the history and restore its review card (the
        quiz's :undo); None when done, else why not (the answer then stays). One transaction:
        a signal during it rolls it back, and the session is left as it was too."""
        if record.index in self.unsaved:  # never saved: nothing to take out
            self.unsaved.pop(record.index)
        else:
            from drills.store import undo  # lazy: fsrs, after the first question

            was = self._before.get(record.index)
            if was is None:
                return "the history could not be read when it was saved, so it stays"
            try:
                note = undo.take_back(self.store, self.session_id, was,
                                      reviewed=record.index not in self._unreviewed)
            except StoreError as exc:
                return str(exc)
            if note:
                click.echo(f"Note: the answer was taken back; {note}.", err=True)
        self._forget(record)
        return None

    def _forget(self, record: Any) -> None:
        """After :undo: the answer is asked again, so its next save is a new one."""
        self._written.discard(record.index)
        self._before.pop(record.index, None)
        self._unreviewed.discard(record.index)
        q = record.question
        line: dict[str, Any] = {"id": q.id}
        if q.part is not None:
            self._chains.get(record.item, {}).pop(q.part.step, None)
            line.update(scenario=q.part.scenario, step=q.part.step)
        line["undone"] = True
        self._write(line)

    def _write(self, line: dict[str, Any]) -> None:
        if self.transcript is None:
            return
        try:
            self.transcript.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            self.transcript.flush()
        except OSError as exc:
            click.echo(f"Error: cannot write the transcript {self.name}: "
                       f"{exc.strerror or exc} (the rest of the session is not written to it)",
                       err=True)
            with contextlib.suppress(OSError):
                self.transcript.close()
            self.transcript = None
            self.lost_transcript = True

    def report_unsaved(self) -> None:
        """Say how many answers were not saved, then print them as JSON lines on stderr."""
        if not self.unsaved:
            return
        n = len(self.unsaved)
        what = "1 answer was" if n == 1 else f"{n} answers were"
        click.echo(f"Not saved: {what} graded but not saved to the history ({self.reason}). "
                   f"{'It follows' if n == 1 else 'They follow'} as JSON lines, as in a "
                   "transcript, so nothing is lost:", err=True)
        for line in self.unsaved.values():
            click.echo(json_text(line, ensure_ascii=False, default=str), err=True)
