"""Asking the items of spaced review that are due: ``loaded_questions`` loads what the keys
can ask, ``resolve`` (from ``drills.cli.due_now``, the one definition of due) maps the review
keys to questions (``q:<id>`` its question, ``skill:<generator>:<topic>`` a fresh variant),
and ``run_review`` asks up to ``count`` of them as one quiz. ``drills review`` decides which
keys are due and calls these; this module knows nothing of that command.
"""

from __future__ import annotations

import click

from drills.cli.catalog import load_questions
from drills.cli.due_now import catalog, resolve
from drills.cli.errors import Exit
from drills.cli.options import pick_seed
from drills.cli.quiz.flow import plan_items
from drills.cli.quiz.run import run_quiz
from drills.cli.store_access import open_store
from drills.model import Question
from drills.packs.leaks import Guard


def loaded_questions(report: bool) -> list[Question]:
    """Every loaded question; ``report``: say which packs are broken (the quiz says it otherwise)."""
    return catalog(report)


def run_review(keys: list[str], count: int) -> int:
    """Serve up to ``count`` due items: ``q:<id>`` as is, ``skill:<generator>:<topic>`` as a fresh variant.

    Keys no loaded pack answers are skipped before counting, so stale keys never crowd out
    a due item. They are not forgotten: a pack that is only missing for now (a user pack
    with a syntax error, an unmounted folder) keeps its schedule when it comes back.
    """
    store = open_store()
    questions = load_questions(())
    seed = pick_seed(None)
    found = resolve(keys, questions)
    stale = sum(1 for key in keys if key not in found)
    chosen = [key for key in keys if key in found][: max(0, count)]
    guard = Guard()  # two due items whose texts give each other's answers: the later waits
    items: list[Question] = []
    for key in chosen:
        if key.startswith("skill:"):
            planned = plan_items(found[key], seed + len(items), 1, (), None)
        else:
            planned = plan_items(found[key], seed, 1, (), None)
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
