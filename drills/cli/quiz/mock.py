"""``drills mock``: a timed mock interview (hand computation, 'why' questions, conventions),
then a report card; feedback only at the end unless asked for after each answer.

The mix comes from ``drills.quiz.plan.mock_plan``, each question's time from
``drills.quiz.timing``; the quiz runs in ``drills.cli.quiz.run.run_quiz``.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from drills.cli.catalog import load_questions
from drills.cli.errors import Exit, fail
from drills.cli.options import MAX_MINUTES, check_count, check_seconds, check_seed, pick_seed
from drills.cli.quiz.flow import planning_history, quiz_options, repeat_note
from drills.cli.quiz.run import FEEDBACK_ALIASES, run_quiz
from drills.cli.store_access import open_store
from drills.generators.instantiate import GenerationError
from drills.model import Question
from drills.quiz.plan import mock_plan
from drills.quiz.timing import mock_limits


def mock_items(questions: Sequence[Question], seed: int, count: int,
               recent: Sequence[str] = ()) -> list[Question]:
    try:
        return mock_plan(questions, seed, count, frozenset(recent))
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


@click.command()
@click.option("--minutes", type=float, default=None, help="Time for the whole interview.")
@click.option("--count", type=int, default=8, show_default=True, help="How many questions.")
@click.option("--per-question", "per_question", type=float, default=None, metavar="S",
              help="Seconds for every question (default: by kind, a concept question 3x a choice; "
                   "--minutes shared that way, else 45/90/135 s for choice/numeric/concept).")
@click.option("--feedback", default="end", show_default=True, metavar="end|brief|full",
              help="Explain only in the final report (end), or after each answer: a short card "
                   "(brief; also 'immediate') or the whole worked solution (full).")
@quiz_options
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
    # the questions of the last sessions left for later (for a --seed used before: its own)
    recent = planning_history(store, "mock", seed, False).recent
    seed = pick_seed(seed)
    items = mock_items(questions, seed, count, recent)
    if not items:
        fail("no questions for a mock interview in those packs", Exit.FAILED)
    limits = None if per_question is not None else mock_limits(items, minutes)
    options = {"count": count, "minutes": minutes, "per_question": per_question or "by kind",
               "feedback": feedback, "packs": list(packs), "recent": recent}
    raise SystemExit(run_quiz(items, mode="mock", seed=seed, store=store, options=options,
                              transcript=transcript, per_question=per_question, minutes=minutes,
                              feedback=feedback, limits=limits,
                              after_summary=repeat_note(items, recent)))
