"""``drills practice``: questions one at a time with immediate feedback; ``--resume`` goes on
with the last session left early, ``--adaptive`` asks more of the topics being missed.

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
from drills.cli.completion import complete_difficulty, complete_topics
from drills.cli.errors import Exit, fail
from drills.cli.options import (
    check_count,
    check_difficulty,
    check_seed,
    pick_seed,
    tolerance_option,
)
from drills.cli.quiz.flow import (
    EASY_FIRST,
    first_run,
    last_unfinished,
    plan_items,
    planning_history,
    quiz_options,
    repeat_note,
    shortfall,
    welcome_text,
)
from drills.cli.quiz.run import run_quiz
from drills.cli.store_access import open_store
from drills.cli.style import echo_prose
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.model import Question
from drills.quiz.plan import plan, ramp, weighted_plan
from drills.safetext import plural
from drills.tui.terminal import is_terminal

DEFAULT_COUNT = 10


def _adaptive(store: Any, questions: Sequence[Question], seed: int, count: int,
              topics: Sequence[str], difficulty: str | None, recent: Sequence[str]) -> list[Question]:
    """Weight topics by recent misses (from the history), then plan each topic's share."""
    from drills.store.progress import topic_weights  # lazy: only for --adaptive

    available = sorted({q.topic for q in questions if not topics or q.topic in topics})
    try:
        return weighted_plan(questions, seed, count, topic_weights(store, available), difficulty,
                             frozenset(recent))
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


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
@click.option("--question", "question_ids", multiple=True, metavar="ID",
              help="Ask this question, by id (repeatable; asked in the order given).")
@click.option("--resume", is_flag=True,
              help="Go on with the last practice session you left early (same questions, same seed).")
@quiz_options
def practice(count: int, topics: tuple[str, ...], difficulty: str | None, tolerance: str | None,
             adaptive: bool, feedback: str | None, question_ids: tuple[str, ...], resume: bool,
             seed: int | None,
             packs: tuple[str, ...], transcript: str | None) -> None:
    """Practise: questions one at a time, with immediate feedback and worked solutions.

    \b
    In the quiz: :hint  :skip  :steps  :quit  :help; Ctrl-C skips, Ctrl-D quits.
    Examples:
      drills practice --topic hand-computation --count 5
      drills practice --seed 42 --transcript run.jsonl
      drills practice --question mrr-single-relevant-identity
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
    welcome = seed is None and first_run(store) and is_terminal()
    # the recent questions left for later (or, for a --seed used before, that session's)
    past = planning_history(store, "practice", seed, welcome)
    seed = pick_seed(seed)
    recent = [] if question_ids else past.recent
    if question_ids:
        items = _chosen(questions, question_ids, seed)
    elif adaptive:
        items = _adaptive(store, questions, seed, count, topics, difficulty, recent)
        items = ramp(items) if past.easy_first else items
    else:  # a first session: half of it from the easy questions, easy ones first
        items = plan_items(questions, seed, count, topics, difficulty, recent, past.easy_first)
    if not items:
        fail("no questions match those options", Exit.FAILED)
    if welcome:  # the very first session: a short welcome
        click.echo(welcome_text())
    short = None if question_ids else shortfall(len(items), count, topics, difficulty)
    if short:
        click.echo(short)
    options = {"count": count, "topics": list(topics), "difficulty": difficulty, "packs": list(packs),
               "tolerance": tolerance, "adaptive": adaptive, "feedback": feedback,
               "questions": list(question_ids),
               "plan": [q.id for q in items], "ramp": EASY_FIRST if past.easy_first else False,
               "recent": recent,  # a resume, or a run with this seed, plans with these again
               "plan_steps": [len(q.steps) or 1 for q in items]}  # answers each item takes
    raise SystemExit(run_quiz(items, mode="practice", seed=seed, store=store, options=options,
                              transcript=transcript, tolerance=tol, feedback=feedback,
                              catalog=questions, after_summary=repeat_note(items, recent)))


def _chosen(questions: Sequence[Question], ids: Sequence[str], seed: int) -> list[Question]:
    """``--question``: those questions, in the order given (a generated one drawn with the seed)."""
    from drills.cli.grade import find_question  # deferred: only for --question

    by_id = {q.id: q for q in reversed(questions)}
    items = []
    for i, ident in enumerate(ids):
        if "#" in ident:
            fail(f"{ident}: practise a scenario whole, by its id ({ident.partition('#')[0]})")
        find_question(ident, list(questions)) if ident not in by_id else None  # fails, naming a near id
        try:
            items.append(instantiate(by_id[ident], item_rng(seed, i, ident)))
        except GenerationError as exc:
            fail(str(exc), Exit.FAILED)
    return items


def _resume(transcript: str | None, feedback: str | None) -> int:
    """The last practice session left early, from its first unanswered question."""
    store = open_store()
    left = last_unfinished(store)
    if left is None:
        store.close()
        fail("nothing to resume: your last practice session was finished (or there is none yet)",
             Exit.FAILED)
    opts = left.options
    ids = [str(i) for i in opts.get("plan") or []]
    recent = [str(i) for i in opts.get("recent") or []] if isinstance(opts.get("recent"), list) else []
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
        if opts.get("adaptive") or opts.get("questions"):  # not planned: chosen by weight or by id
            items = [instantiate(by_id[qid], item_rng(left.seed, i, qid)) for i, qid in enumerate(ids)]
        else:  # the same planner, seed, options and recent questions: the same questions
            items = plan(questions, seed=left.seed, count=int(opts.get("count") or len(ids)),
                         topics=tuple(opts.get("topics") or ()), difficulty=opts.get("difficulty"),
                         recent=frozenset(recent), easy_first=opts.get("ramp") == EASY_FIRST)
            items = ramp(items) if opts.get("ramp") is True else items  # planned before easy-first
    except GenerationError as exc:
        store.close()
        fail(str(exc), Exit.FAILED)
    if [q.id for q in items] != ids:
        store.close()
        fail(f"session {left.id} cannot be resumed: its packs have changed since", Exit.FAILED)
    from drills.cli.quiz.resume import earlier_records  # lazy: only for --resume

    earlier = earlier_records(store, left.id, items)
    done = len({r.item for r in earlier})
    echo_prose(f"Resuming session {left.id} (seed {left.seed}) at question {done + 1} of "
               f"{len(items)}; {plural(done, 'question')} answered before.")
    return run_quiz(items, mode="practice", seed=left.seed, store=store, options=opts,
                    transcript=transcript, tolerance=tolerance_option(opts.get("tolerance")),
                    feedback=feedback or opts.get("feedback"), catalog=questions,
                    resume=(left.id, earlier), after_summary=repeat_note(items, recent))
