"""``drills practice`` and ``drills mock``: the quiz loop, plus the hook ``drills review`` calls.

Start-up order matters: options are checked, the Store is opened (a bad DRILLS_HOME
fails here, before any question), packs are loaded and planned, and the first question
is drawn before the grader or sympy is imported. Every graded answer is committed to
the Store and appended to the transcript before the next question is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
    plural,
    tolerance_option,
)
from drills.cli.completion import complete_difficulty, complete_packs, complete_topics
from drills.cli.quiz.run import FEEDBACK_ALIASES, run_quiz
from drills.model import Question
from drills.tui.terminal import is_terminal

DEFAULT_COUNT = 10


def _plan(questions: Sequence[Question], seed: int, count: int, topics: Sequence[str],
          difficulty: str | None) -> list[Question]:
    from drills.quiz.plan import GenerationError, plan

    try:
        return plan(questions, seed=seed, count=count, topics=tuple(topics), difficulty=difficulty)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


def _adaptive(store: Any, questions: Sequence[Question], seed: int, count: int,
              topics: Sequence[str], difficulty: str | None) -> list[Question]:
    """Weight topics by recent misses (from the history), then plan each topic's share."""
    from drills.quiz.plan import GenerationError, weighted_plan
    from drills.store.progress import topic_weights

    available = sorted({q.topic for q in questions if not topics or q.topic in topics})
    try:
        return weighted_plan(questions, seed, count, topic_weights(store, available), difficulty)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


def _mock_mix(questions: Sequence[Question], seed: int, count: int) -> list[Question]:
    from drills.quiz.plan import GenerationError, mock_plan

    try:
        return mock_plan(questions, seed, count)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


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
    questions = load_questions(packs, topics)
    check_topics(topics, questions)
    from drills.cli.quiz.flow import first_run, ramp, shortfall, welcome_text

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
               "plan": [q.id for q in items], "ramp": welcome,
               "plan_steps": [len(q.steps) or 1 for q in items]}  # answers each item takes
    raise SystemExit(run_quiz(items, mode="practice", seed=seed, store=store, options=options,
                              transcript=transcript, tolerance=tol, feedback=feedback,
                              catalog=questions))


def _resume(transcript: str | None, feedback: str | None) -> int:
    """The last practice session left early, from its first unanswered question."""
    from drills.cli.quiz.flow import last_unfinished
    from drills.quiz.plan import GenerationError, instantiate, item_rng

    store = open_store()
    left = last_unfinished(store)
    if left is None:
        store.close()
        fail("nothing to resume: your last practice session was finished (or there is none yet)",
             Exit.FAILED)
    opts = left.options
    ids = [str(i) for i in opts.get("plan") or []]
    questions = load_questions(tuple(opts.get("packs") or ()), tuple(opts.get("topics") or ()))
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
            from drills.cli.quiz.flow import ramp
            from drills.quiz.plan import plan

            items = plan(questions, seed=left.seed, count=int(opts.get("count") or len(ids)),
                         topics=tuple(opts.get("topics") or ()), difficulty=opts.get("difficulty"))
            items = ramp(items) if opts.get("ramp") else items
    except GenerationError as exc:
        store.close()
        fail(str(exc), Exit.FAILED)
    if [q.id for q in items] != ids:
        store.close()
        fail(f"session {left.id} cannot be resumed: its packs have changed since", Exit.FAILED)
    done, answers = 0, left.answered  # answers are steps: a scenario cut short is asked again whole
    while done < len(items) and answers >= (steps := len(items[done].steps) or 1):
        answers -= steps
        done += 1
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
    questions = load_questions(packs, ())
    seed = pick_seed(seed)
    items = _mock_mix(questions, seed, count)
    if not items:
        fail("no questions for a mock interview in those packs", Exit.FAILED)
    from drills.quiz.timing import mock_limits

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
    from drills.cli.review.review import resolve

    store = open_store()
    questions = load_questions(())
    seed = pick_seed(None)
    found = resolve(keys, questions)
    stale = sum(1 for key in keys if key not in found)
    chosen = [key for key in keys if key in found][: max(0, count)]
    from drills.grading.leaks import Guard

    guard = Guard()  # two due items whose texts give each other's answers: the later waits
    items: list[Question] = []
    for key in chosen:
        if key.startswith("skill:"):
            planned = _plan(found[key], seed + len(items), 1, (), None)
        else:
            planned = _plan(found[key], seed, 1, (), None)
        for q in planned:
            if not guard.clash(q):
                guard.take(q)
                items.append(q)
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
