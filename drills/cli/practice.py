"""``drills practice`` and ``drills mock``: the quiz loop, plus the hook ``drills review`` calls.

Start-up order matters: options are checked, the Store is opened (a bad DRILLS_HOME
fails here, before any question), packs are loaded and planned, and the first question
is drawn before the grader or sympy is imported. Every graded answer is committed to
the Store and appended to the transcript before the next question is shown.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import IO, Any

import click

from drills.cli.catalog import check_topics, load_questions
from drills.cli.common import (
    MAX_MINUTES,
    Exit,
    check_count,
    check_difficulty,
    check_seconds,
    check_seed,
    fail,
    open_store,
    pick_seed,
    silence_stdout,
    tolerance_option,
)
from drills.cli.complete import complete_difficulty, complete_packs, complete_topics
from drills.core.questions import Question
from drills.tui import is_terminal

DEFAULT_COUNT = 10
FEEDBACK_ALIASES = {"immediate": "brief"}  # mock's older name for feedback after each answer


def _plan(questions: Sequence[Question], seed: int, count: int, topics: Sequence[str],
          difficulty: str | None) -> list[Question]:
    from drills.core.plan import GenerationError, plan

    try:
        return plan(questions, seed=seed, count=count, topics=tuple(topics), difficulty=difficulty)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


def _adaptive(store: Any, questions: Sequence[Question], seed: int, count: int,
              topics: Sequence[str], difficulty: str | None) -> list[Question]:
    """Weight topics by recent misses (from the history), then plan each topic's share."""
    from drills.core.plan import GenerationError, weighted_plan
    from drills.store.stats import topic_weights

    available = sorted({q.topic for q in questions if not topics or q.topic in topics})
    try:
        return weighted_plan(questions, seed, count, topic_weights(store, available), difficulty)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


def _mock_mix(questions: Sequence[Question], seed: int, count: int) -> list[Question]:
    from drills.core.plan import GenerationError, mock_plan

    try:
        return mock_plan(questions, seed, count)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


def open_transcript(path: str) -> IO[str]:
    """Open ``--transcript FILE`` for writing, or exit 2 with one line before any question.

    Never over the history database; a FIFO with no reader is refused at once instead of
    hanging (opened non-blocking, then made blocking), while a pipe that has a reader
    (``--transcript >(jq .)``) works.
    """
    import errno
    import os

    from drills.core.safetext import visible
    from drills.store.guard import history_target

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
             catalog: Sequence[Question] = (), limits: tuple[float, ...] | None = None) -> int:
    """Run one session to its summary (then, after practice, the retry round); the exit code.

    The session row is ended (time, score, report) however the quiz ends: its summary, a
    failed save, SIGTERM or SIGHUP (exit 128 + the signal), or a terminal that went away.
    """
    from drills.tui import is_terminal

    interactive = is_terminal()
    try:
        code, session = _one_session(items, mode=mode, seed=seed, store=store, options=options,
                                     transcript=transcript, per_question=per_question,
                                     minutes=minutes, feedback=feedback, tolerance=tolerance,
                                     store_mode=store_mode, offset=offset, interactive=interactive,
                                     limits=limits)
        if mode == "practice" and store_mode is None and code == Exit.OK:
            code = _after_practice(session, store, catalog, seed, feedback, tolerance, interactive)
    finally:
        store.close()
    return int(code)


def _after_practice(session: Any, store: Any, catalog: Sequence[Question], seed: int,
                    feedback: str | None, tolerance: Any, interactive: bool) -> int:
    """Say how to resume a session cut short; offer a round of the questions just missed."""
    from drills.cli.sessions import plural, retry_items

    summary = session.summary()
    if summary.quit_early:
        offset = session.options.offset
        click.echo(f"Stopped before question {offset + summary.asked + 1} of {offset + summary.total}: "
                   "`drills practice --resume` goes on from there.")
        return int(Exit.OK)
    missed = [r.question for r in summary.records if r.verdict != "correct" and not r.self_grade]
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
        from drills.store import StoreError
        from drills.store.review import format_intervals, preview_intervals, question_key

        try:
            return format_intervals(preview_intervals(store, question_key(question)))
        except (StoreError, ValueError):
            return None

    return hint


def _one_session(items: list[Question], *, mode: str, seed: int, store: Any, options: dict[str, Any],
                 transcript: str | None = None, per_question: float | None = None,
                 minutes: float | None = None, feedback: str | None = None, tolerance: Any = None,
                 store_mode: str | None = None, offset: int = 0,
                 interactive: bool = False, limits: tuple[float, ...] | None = None) -> tuple[int, Any]:
    """One session, recorded; the store stays open for what follows."""
    from drills.cli.recorder import Recorder, Signals
    from drills.session import Options, Session
    from drills.store import StoreError
    from drills.tui import Signalled, run

    out = open_transcript(transcript) if transcript is not None else None
    if feedback is None:  # a card that waits on a terminal; everything at once in a log
        feedback = "brief" if interactive else "full"
    session = Session(items, Options(mode="practice" if mode == "retry" else mode,
                                     feedback=FEEDBACK_ALIASES.get(feedback, feedback),
                                     seconds=per_question, minutes=minutes, tolerance=tolerance,
                                     seed=None if store_mode == "review" else seed,  # review: no --seed
                                     pause=interactive, offset=offset, limits=limits))
    recorder = None
    code = Exit.OK
    try:
        with Signals() as signals:
            session_id = store.start_session(store_mode or mode, seed, options)
            recorder = Recorder(store, session_id, out, signals, transcript)
            try:
                run(session, recorder, interactive=interactive,
                    grade_hint=_interval_hint(store) if store_mode == "review" else None)
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


def _common(fn: Any) -> Any:
    fn = click.option("--transcript", metavar="FILE", default=None,
                      help="Write one JSON line per question as it is graded.")(fn)
    fn = click.option("--seed", type=int, default=None,
                      help="Same seed, same questions in the same order (default: random, shown at the end).")(fn)
    fn = click.option("--pack", "packs", multiple=True, metavar="P", shell_complete=complete_packs,
                      help="Use only pack P: a pack name (see `drills packs list`) or a pack file "
                           "or folder (repeatable). Default: every pack.")(fn)
    return fn


@click.command()
@click.option("--count", type=int, default=DEFAULT_COUNT, show_default=True, help="How many questions.")
@click.option("--topic", "topics", multiple=True, metavar="T", help="Only this topic (repeatable).",
              shell_complete=complete_topics)
@click.option("--difficulty", metavar="LEVEL", default=None, help="easy, medium or hard.",
              shell_complete=complete_difficulty)
@click.option("--tolerance", metavar="TOL", default=None,
              help="Accepted error: 0.01 (absolute), 1% (relative) or 0.01,1%.")
@click.option("--adaptive", is_flag=True, help="Ask more from the topics you have been missing lately.")
@click.option("--feedback", type=click.Choice(["brief", "full"]), default=None,
              help="After a miss: a short card, the worked solution on s or :steps (default on a "
                   "terminal), or everything at once (default when input is piped).")
@click.option("--resume", is_flag=True,
              help="Go on with the last practice session you left early (same questions, same seed).")
@_common
def practice(count: int, topics: tuple[str, ...], difficulty: str | None, tolerance: str | None,
             adaptive: bool, feedback: str | None, resume: bool, seed: int | None,
             packs: tuple[str, ...], transcript: str | None) -> None:
    """Practise: questions one at a time, with immediate feedback and worked solutions.

    \b
    In the quiz: :hint  :skip  :steps  :quit  :help; Ctrl-C skips, Ctrl-D quits.
    Examples:
      drills practice --topic hand-computation --count 5
      drills practice --seed 42 --transcript run.jsonl
    """
    if resume:
        raise SystemExit(_resume(transcript, feedback))
    check_count(count)
    check_seed(seed)
    check_difficulty(difficulty)
    tol = tolerance_option(tolerance)
    store = open_store()
    questions = load_questions(packs)
    check_topics(topics, questions)
    from drills.cli.sessions import first_run, ramp, shortfall, welcome_text

    welcome = seed is None and first_run(store) and is_terminal()
    seed = pick_seed(seed)
    if adaptive:
        items = _adaptive(store, questions, seed, count, topics, difficulty)
    else:
        items = _plan(questions, seed, count, topics, difficulty)
    if not items:
        fail("no questions match those options", Exit.FAILED)
    if welcome:  # the very first session: a short welcome, and the easy questions first
        click.echo(welcome_text())
        items = ramp(items)
    short = shortfall(len(items), count, topics, difficulty)
    if short:
        click.echo(short)
    options = {"count": count, "topics": list(topics), "difficulty": difficulty, "packs": list(packs),
               "tolerance": tolerance, "adaptive": adaptive, "feedback": feedback,
               "plan": [q.id for q in items], "ramp": welcome}
    raise SystemExit(run_quiz(items, mode="practice", seed=seed, store=store, options=options,
                              transcript=transcript, tolerance=tol, feedback=feedback,
                              catalog=questions))


def _resume(transcript: str | None, feedback: str | None) -> int:
    """The last practice session left early, from its first unanswered question."""
    from drills.cli.sessions import last_unfinished, plural
    from drills.core.plan import GenerationError, instantiate, item_rng

    store = open_store()
    left = last_unfinished(store)
    if left is None:
        store.close()
        fail("nothing to resume: your last practice session was finished (or there is none yet)",
             Exit.FAILED)
    opts = left.options
    ids = [str(i) for i in opts.get("plan") or []]
    questions = load_questions(tuple(opts.get("packs") or ()))
    by_id: dict[str, Question] = {}
    for q in questions:
        by_id.setdefault(q.id, q)
    missing = [i for i in ids if i not in by_id]
    if not ids or missing:
        store.close()
        what = f"question {missing[0]!r} is no longer in any pack" if missing else "it has no plan saved"
        fail(f"session {left.id} cannot be resumed: {what}", Exit.FAILED)
    try:
        if opts.get("adaptive"):  # its topic weights came from the history of that day
            items = [instantiate(by_id[qid], item_rng(left.seed, i, qid)) for i, qid in enumerate(ids)]
        else:  # the same planner, seed and options: the same questions and numbers
            from drills.cli.sessions import ramp
            from drills.core.plan import plan

            items = plan(questions, seed=left.seed, count=int(opts.get("count") or len(ids)),
                         topics=tuple(opts.get("topics") or ()), difficulty=opts.get("difficulty"))
            items = ramp(items) if opts.get("ramp") else items
    except GenerationError as exc:
        store.close()
        fail(str(exc), Exit.FAILED)
    if [q.id for q in items] != ids:
        store.close()
        fail(f"session {left.id} cannot be resumed: its packs have changed since", Exit.FAILED)
    done = left.answered
    click.echo(f"Resuming session {left.id} (seed {left.seed}) at question {done + 1} of "
               f"{len(items)}; {plural(done, 'question')} answered before.")
    options = {**opts, "resumed_from": left.id}
    return run_quiz(items[done:], mode="practice", seed=left.seed, store=store, options=options,
                    transcript=transcript, tolerance=tolerance_option(opts.get("tolerance")),
                    feedback=feedback or opts.get("feedback"), offset=done, catalog=questions)


@click.command()
@click.option("--minutes", type=float, default=None, help="Time for the whole interview.")
@click.option("--count", type=int, default=8, show_default=True, help="How many questions.")
@click.option("--per-question", "per_question", type=float, default=None, metavar="S",
              help="Seconds for every question (default: by kind, a concept question 3x a choice; "
                   "--minutes shared that way, else 45/90/135 s for choice/numeric/concept).")
@click.option("--feedback", default="end", show_default=True, metavar="end|brief|full",
              help="Explain only in the final report (end), or after each answer: a short card "
                   "(brief; also 'immediate') or the whole worked solution (full).")
@_common
def mock(minutes: float | None, count: int, per_question: float | None, feedback: str,
         seed: int | None, packs: tuple[str, ...], transcript: str | None) -> None:
    """A timed mock interview: hand computation, 'why' questions and conventions, then a report card.

    \b
    Examples:
      drills mock --minutes 15 --count 8
      drills mock --count 5 --per-question 60 --feedback immediate
    """
    check_count(count)
    check_seed(seed)
    check_seconds("--minutes", minutes, MAX_MINUTES)
    check_seconds("--per-question", per_question, MAX_MINUTES * 60)
    if feedback not in ("end", "brief", "full", *FEEDBACK_ALIASES):
        fail(f"unknown --feedback {feedback!r} (choices: end, brief, full)")
    store = open_store()
    questions = load_questions(packs)
    seed = pick_seed(seed)
    items = _mock_mix(questions, seed, count)
    if not items:
        fail("no questions for a mock interview in those packs", Exit.FAILED)
    from drills.core.timing import mock_limits

    limits = None if per_question is not None else mock_limits(items, minutes)
    options = {"count": count, "minutes": minutes, "per_question": per_question or "by kind",
               "feedback": feedback, "packs": list(packs)}
    raise SystemExit(run_quiz(items, mode="mock", seed=seed, store=store, options=options,
                              transcript=transcript, per_question=per_question, minutes=minutes,
                              feedback=feedback, limits=limits))


def run_review(keys: list[str], count: int) -> int:
    """Serve up to ``count`` due items: ``q:<id>`` as is, ``skill:<generator>:<topic>`` as a fresh variant.

    Keys no loaded pack answers are skipped before counting, so stale keys never crowd out
    a due item. They are not forgotten: a pack that is only missing for now (a user pack
    with a syntax error, an unmounted folder) keeps its schedule when it comes back.
    """
    from drills.cli.review import resolve

    store = open_store()
    questions = load_questions(())
    seed = pick_seed(None)
    found = resolve(keys, questions)
    stale = sum(1 for key in keys if key not in found)
    chosen = [key for key in keys if key in found][: max(0, count)]
    items: list[Question] = []
    for key in chosen:
        if key.startswith("skill:"):
            items += _plan(found[key], seed + len(items), 1, (), None)
        else:
            items += _plan(found[key], seed, 1, (), None)
    if not items:
        store.close()
        if stale:
            what = "the 1 due item is" if stale == 1 else f"all {stale} due items are"
            click.echo(f"Nothing to review: {what} no longer in any pack (skipped, not deleted, "
                       "in case the pack comes back; `drills review --list` shows them).")
        else:
            click.echo("Nothing is due.")
        return int(Exit.OK)
    if stale:
        click.echo(f"Skipping {stale} due item{'' if stale == 1 else 's'} no longer in any pack "
                   "(`drills review --list` shows them).", err=True)
    return run_quiz(items, mode="practice", seed=seed, store=store, options={"review": chosen},
                    store_mode="review")
