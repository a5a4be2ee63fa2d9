"""Running one quiz session to its summary: the transcript, the recorder, the session row,
and what follows a practice session (the resume hint, the retry round).

``drills practice``, ``drills mock`` and ``drills review`` all end here; the session
itself is the pure state machine in ``drills.quiz.session``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import IO, Any

import click

from drills.cli.errors import Exit, fail, silence_stdout
from drills.cli.quiz.flow import retry_items
from drills.cli.quiz.recorder import Recorder, Signals
from drills.cli.style import echo_prose, roughly
from drills.grading.scenario import RIGHT
from drills.model import Question
from drills.quiz.session import Options, Session
from drills.safetext import plural, visible
from drills.store import StoreError
from drills.tui.frontend import run
from drills.tui.output import Signalled
from drills.tui.terminal import is_terminal

FEEDBACK_ALIASES = {"immediate": "brief"}  # mock's older name for feedback after each answer


def open_transcript(path: str) -> IO[str]:
    """Open ``--transcript FILE`` for writing, or exit 2 with one line before any question.

    Never over the history database; a FIFO with no reader is refused at once instead of
    hanging (opened non-blocking, then made blocking), while a pipe that has a reader
    (``--transcript >(jq .)``) works.
    """
    import errno
    import os

    from drills.store.guard import history_target  # lazy: only with --transcript

    hit = history_target(path)
    if hit is not None:
        fail(f"refusing to write the transcript over the history database {visible(str(hit))}; "
             "choose another file")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        why = "a pipe that nobody reads" if exc.errno == errno.ENXIO else exc.strerror or str(exc)
        fail(f"cannot write the transcript {visible(path)}: {why}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w", encoding="utf-8")


def run_quiz(items: list[Question], *, mode: str, seed: int, store: Any, options: dict[str, Any],
             transcript: str | None = None, per_question: float | None = None,
             minutes: float | None = None, feedback: str | None = None, tolerance: Any = None,
             store_mode: str | None = None, offset: int = 0,
             catalog: Sequence[Question] = (), limits: tuple[float, ...] | None = None,
             resume: tuple[int, list[Any]] | None = None, after_summary: str | None = None) -> int:
    """Run one session to its summary (then, after practice, the retry round); the exit code.
    ``resume``: (session row, earlier records): the session cut short goes on in its row.
    ``after_summary``: a line said under the summary (the plan had to repeat recent questions).

    The session row is ended (time, score, report) however the quiz ends: its summary, a
    failed save, SIGTERM or SIGHUP (exit 128 + the signal), or a terminal that went away.
    """
    interactive = is_terminal()
    try:
        code, session = _one_session(items, mode=mode, seed=seed, store=store, options=options,
                                     transcript=transcript, per_question=per_question,
                                     minutes=minutes, feedback=feedback, tolerance=tolerance,
                                     store_mode=store_mode, offset=offset, interactive=interactive,
                                     limits=limits, resume=resume)
        if after_summary and code < 128:  # after a signal the terminal may be gone
            echo_prose(after_summary)
        if mode == "practice" and store_mode is None and code == Exit.OK:
            code = _after_practice(session, store, catalog, seed, feedback, tolerance, interactive)
    finally:
        store.close()
    return int(code)


def _after_practice(session: Any, store: Any, catalog: Sequence[Question], seed: int,
                    feedback: str | None, tolerance: Any, interactive: bool) -> int:
    """Say how to resume a session cut short; offer a round of the questions just missed."""
    summary = session.summary()
    if summary.quit_early:
        number, total = session.position()
        q = session.items[min(session.index, len(session.items) - 1)]
        where = (f"in question {number} of {total} (a scenario, at step {q.part.step} of {q.part.of}): "
                 "`drills practice --resume` asks that scenario again from its first step."
                 if q.part is not None and q.part.step > 1 else
                 f"before question {number} of {total}: `drills practice --resume` goes on from there.")
        echo_prose(f"Stopped {where}")
        return int(Exit.OK)
    missed: list[Question] = []  # a scenario with a missed step is asked again whole
    for r in summary.records:
        q = session.planned[r.item] if r.question.part is not None else r.question
        # a concept answer graded by its rubric is missed by its verdict (its self-grade
        # only rates recall); one without a rubric was graded by the learner: not offered
        if r.verdict not in RIGHT and (r.concept is not None or not r.self_grade) and q not in missed:
            missed.append(q)
    if not (interactive and missed):
        return int(Exit.OK)
    try:
        again = click.confirm(f"Retry the {plural(len(missed), 'question')} you missed?", default=False)
    except (click.Abort, EOFError):
        return int(Exit.OK)
    if not again:
        return int(Exit.OK)
    items = retry_items(missed, catalog, seed + 1)
    code, _ = _one_session(items, mode="retry", seed=seed + 1, store=store,
                           options={"retry_of": session.options.seed, "count": len(items)},
                           feedback=feedback, tolerance=tolerance, interactive=interactive)
    return code


def _interval_hint(store: Any) -> Any:
    """For a review: what each self-grade would schedule next (fsrs, nothing committed)."""
    def hint(question: Question) -> str | None:
        from drills.store.cards import (  # lazy: fsrs, only in a review
            format_intervals,
            preview_intervals,
            question_key,
        )

        try:
            return format_intervals(preview_intervals(store, question_key(question)))
        except (StoreError, ValueError):
            return None

    return hint


def _next_review(store: Any) -> Any:
    """For a review: under each graded answer, when its item comes back (its card, just saved)."""
    def note(record: Any) -> str | None:
        q = record.question
        if q.part is not None and q.part.step != q.part.of:
            return None  # a scenario's one card is reviewed at its last step
        from drills.store.cards import load_card, question_key  # lazy: fsrs, only in a review

        try:
            card = load_card(store, question_key(q))
        except (StoreError, ValueError):
            return None
        if card is None:
            return None
        now = datetime.now(timezone.utc)
        secs = (card.due - now).total_seconds()
        when = ("now (still due)" if secs < 30 else "in under a minute" if secs < 60
                else roughly(card.due, now))
        return f"Next review of this question: {when}"

    return note


def _grade_code(question: Any, source: str) -> Any:
    from drills.cli.quiz.code_grader import grade  # lazy: the runner, for a code question only

    return grade(question, source)


def _one_session(items: list[Question], *, mode: str, seed: int, store: Any, options: dict[str, Any],
                 transcript: str | None = None, per_question: float | None = None,
                 minutes: float | None = None, feedback: str | None = None, tolerance: Any = None,
                 store_mode: str | None = None, offset: int = 0,
                 interactive: bool = False, limits: tuple[float, ...] | None = None,
                 resume: tuple[int, list[Any]] | None = None) -> tuple[int, Any]:
    """One session, recorded; the store stays open for what follows."""
    out = open_transcript(transcript) if transcript is not None else None
    if feedback is None:  # a card that waits on a terminal; everything at once in a log
        feedback = "brief" if interactive else "full"
    session = Session(items, Options(mode="practice" if mode == "retry" else mode,
                                     feedback=FEEDBACK_ALIASES.get(feedback, feedback),
                                     seconds=per_question, minutes=minutes, tolerance=tolerance,
                                     seed=None if store_mode == "review" or mode == "retry" else seed,  # neither replays by --seed
                                     pause=interactive, offset=offset, limits=limits),
                      code_grader=_grade_code)
    if resume is not None:
        session.restore(resume[1])
    recorder = None
    code = Exit.OK
    try:
        with Signals() as signals:
            session_id = (resume[0] if resume is not None else
                          store.start_session(store_mode or mode, seed, options))
            recorder = Recorder(store, session_id, out, signals, transcript)
            recorder.attach(session)  # :undo takes answers back out of the history
            try:
                run(session, recorder, interactive=interactive,
                    grade_hint=_interval_hint(store) if store_mode == "review" else None,
                    record_note=_next_review(store) if store_mode == "review" else None)
            except Signalled as sig:
                code = 128 + sig.signum
            except BrokenPipeError:  # `drills practice | head`: the reader left; end quietly
                silence_stdout()
            except OSError:  # the terminal went away mid-session: end the session row all the same
                code = Exit.FAILED
            summary = session.summary()
            report = {"counts": summary.counts,
                      "by_topic": {k: list(v) for k, v in summary.by_topic.items()},
                      "misconceptions": summary.misconceptions, "review": list(summary.review),
                      "asked": summary.asked, "quit_early": summary.quit_early or not session.finished}
            store.end_session(session_id, summary.score, summary.asked, report)
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        fail(f"{type(exc).__name__}: {exc}", Exit.FAILED)
    finally:
        if recorder is not None:
            recorder.close()
            with contextlib.suppress(OSError):
                recorder.report_unsaved()
        elif out is not None:
            with contextlib.suppress(OSError):
                out.close()
    if code != Exit.OK:
        return int(code), session
    # the answers are in the history either way; a transcript or history that was asked
    # for and could not be written makes the run a failure a script can see
    lost = recorder is not None and (recorder.lost_transcript or recorder.failed
                                     or recorder.schedule_failed)
    return int(Exit.FAILED if lost else Exit.OK), session
