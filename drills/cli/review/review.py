"""``drills review``: ask the items whose spaced-review card is due.

This command finds the due keys (the daily limit applied) and hands them to
``drills.cli.quiz.due.run_review(keys, count)``, which asks up to ``count`` of the ones
still in a pack; ``due.resolve`` maps keys to questions for both. The quiz group's module
(packs, planner, front end) is imported only once something is due.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from types import ModuleType

import click

from drills import config
from drills.cli.errors import fail
from drills.cli.review.forecast import show_forecast
from drills.cli.store_access import history_store
from drills.cli.style import human_when, roughly
from drills.model import Question
from drills.safetext import visible
from drills.store.cards import due_cards, next_due
from drills.store.schedule import hold_back_new, new_reviewed_today, next_due_day, reviewed_keys

PROMPT_WIDTH = 60  # characters of a prompt's first line shown by --list


def daily_limit() -> int | None:
    """``[review] daily_limit`` from config.toml: new items a day (None: no limit)."""
    ctx = click.get_current_context(silent=True)
    settings = ctx.find_root().meta.get("drills.settings") if ctx is not None else None
    if settings is None:
        try:
            settings = config.load()
        except config.ConfigError:
            return None
    value = settings.get("review", "daily_limit")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def describe(key: str, questions: Sequence[Question] | None) -> str:
    """A readable label for a key: the prompt's first line, or the skill's generator and topic."""
    if not questions:
        return "no longer in any pack (skipped when reviewing)"
    if key.startswith("skill:"):
        q = questions[0]
        return f"a fresh {q.generator} question on {q.topic}"
    lines = [line.strip() for line in questions[0].prompt.splitlines() if line.strip()]
    text = lines[0] if lines else "(no prompt)"
    if len(lines) > 1 or len(text) > PROMPT_WIDTH:
        text = text[: PROMPT_WIDTH - 3].rstrip() + "..."
    return text


@click.command()
@click.option("--count", "-n", type=click.IntRange(min=1), default=10, show_default=True,
              help="How many due items to ask.")
@click.option("--list", "list_only", is_flag=True, help="List the due items instead of asking them.")
@click.option("--forecast", is_flag=True,
              help="How many items fall due on each of the next 14 days.")
def review(count: int, list_only: bool, forecast: bool) -> None:
    """Review what is due: questions you missed come back sooner, ones you know later.

    Scheduling uses FSRS; every answer you give (in practice, mock or review) updates it.
    Items whose question is no longer in any pack are skipped but keep their schedule.
    [review] daily_limit in config.toml caps the items new to review asked each day.
    Exit code 0 also when nothing is due.
    """
    if forecast:
        if list_only:
            fail("--forecast and --list cannot be combined; give one of them")
        show_forecast()
        return
    now = datetime.now(timezone.utc)
    limit = daily_limit()
    reviewed: set[str] = set()
    used = 0
    with history_store(readonly=True) as store:
        due = due_cards(store, now)
        upcoming = next_due(store, after=now)
        if due and limit is not None:
            reviewed = reviewed_keys(store, [key for key, _when in due])
            used = new_reviewed_today(store, now)
    if not due:
        if upcoming is None:
            click.echo("Nothing is due. No reviews are scheduled yet: "
                       "answer some questions with `drills` first.")
        else:
            click.echo(f"Nothing is due. Next review: {human_when(upcoming, now)}")
        return
    keys = [key for key, _when in due]
    found = _quiz().resolve(keys, _quiz().loaded_questions(report=list_only))
    held: list[str] = []
    if limit is not None:
        held = hold_back_new(keys, set(found), reviewed, limit - used)
    if list_only:
        _list(due, count, now, found, held)
        return
    _ask(keys, count, found, held, limit)


def _quiz() -> ModuleType:
    """``drills.cli.quiz.due``: resolving keys and asking them loads the packs, the planner and
    the front end, so ``drills review`` with nothing due does not."""
    from drills.cli.quiz import due  # lazy: the packs, planner and front end, once items are due

    return due


def _held_note(held: Sequence[str], limit: int | None) -> str:
    n = len(held)
    return (f"{n} new item{'' if n == 1 else 's'} held back until tomorrow by "
            f"[review] daily_limit = {limit}")


def _ask(keys: list[str], count: int, found: dict[str, list[Question]], held: list[str],
         limit: int | None) -> None:
    """Say what the review holds, run it (``due.run_review``), then say what comes next."""
    asked = [key for key in keys if key in found and key not in held][:count]
    if not asked and held:
        click.echo(f"Nothing more to review today: {_held_note(held, limit)}.")
        return
    if asked:
        head = f"Review: {len(asked)} due item{'' if len(asked) == 1 else 's'}"
        click.echo(head + (f" ({_held_note(held, limit)})" if held else ""))
    # The due keys less those held back, most overdue first: run_review skips the ones no
    # pack answers, then asks up to `count`; the int it returns is the exit code.
    result = _quiz().run_review([key for key in keys if key not in held], count)
    code = result if isinstance(result, int) and not isinstance(result, bool) else 0
    if asked and code < 128:  # after a signal the terminal may be gone
        _what_next(found, held)
    if code:
        sys.exit(code)


def _what_next(found: dict[str, list[Question]], held: Sequence[str]) -> None:
    """After a review: what is still due now, and when the next item falls due."""
    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        still = [key for key, _when in due_cards(store, now) if key in found and key not in held]
        upcoming = next_due_day(store, now)
    if still:
        click.echo(f"Still due: {len(still)} item{'' if len(still) == 1 else 's'}; "
                   "run `drills review` again.")
    if upcoming is not None:
        when, n = upcoming
        soon = "in under a minute" if (when - now).total_seconds() < 60 else roughly(when, now)
        click.echo(f"Next due: {soon} ({n} item{'' if n == 1 else 's'})")
    elif not still:
        click.echo("Nothing more is scheduled.")


def _list(due: Sequence[tuple[str, datetime]], count: int, now: datetime,
          found: dict[str, list[Question]] | None = None, held: Sequence[str] = ()) -> None:
    """One line per due item: its key, what it asks, and when it fell due.

    Items that can be asked come first, most overdue first, so the top ``count`` lines
    are what ``drills review --count`` would ask; new items held back by the daily limit
    follow, then stale items.
    """
    if found is None:
        found = _quiz().resolve([key for key, _when in due], _quiz().loaded_questions(report=True))
    waiting = set(held)
    ordered = ([d for d in due if d[0] in found and d[0] not in waiting]
               + [d for d in due if d[0] in waiting] + [d for d in due if d[0] not in found])
    shown = ordered[:count]
    notes = [f"showing {len(shown)}"] if len(shown) < len(due) else []
    if waiting:
        notes.append(f"{len(waiting)} new held back until tomorrow by [review] daily_limit")
    stale = len(due) - len(found)
    if stale:
        notes.append(f"{stale} no longer in any pack")
    more = f" ({'; '.join(notes)})" if notes else ""
    click.echo(f"{len(due)} item{'' if len(due) == 1 else 's'} due for review{more}:")
    for key, when in shown:
        what = "new, held back until tomorrow" if key in waiting else describe(key, found.get(key))
        click.echo(f"  {visible(key)}: {visible(what)} - due {human_when(when, now)}")
