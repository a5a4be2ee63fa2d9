"""``drills review``: ask the items whose spaced-review card is due.

What is due comes from ``drills.cli.due_now`` (the one definition, shared with ``drills
stats``): the due cards a loaded pack asks, the others counted apart. This command applies
the daily limit and hands the due keys to ``drills.cli.quiz.due.run_review(keys, count)``,
which asks up to ``count`` of them. The quiz group's module (planner, front end) is imported
only once something is asked.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from types import ModuleType

import click

from drills import config
from drills.cli.due_now import catalog, elsewhere_notes, has_cards, resolve
from drills.cli.due_now import due as due_items
from drills.cli.errors import fail
from drills.cli.review.forecast import show_forecast
from drills.cli.store_access import history_store
from drills.cli.style import echo_paged, echo_prose, human_when, roughly, wrap_width
from drills.display import Style
from drills.model import Question
from drills.safetext import plural, visible
from drills.store.schedule import DueNow, hold_back_new, new_reviewed_today, reviewed_keys

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
        questions = catalog(report=list_only) if has_cards(store) else []
        due = due_items(store, now, questions)  # the one definition, shared with stats
        keys = [key for key, _when in due.askable]
        if keys and limit is not None:
            reviewed = reviewed_keys(store, keys)
            used = new_reviewed_today(store, now)
    held = hold_back_new(keys, set(keys), reviewed, limit - used) if limit is not None else []
    if not (due.askable or due.gone or due.foreign):
        if due.next_due is None:
            click.echo("Nothing is due. No reviews are scheduled yet: "
                       "answer some questions with `drills` first." if not questions else
                       "Nothing is due, and nothing in your packs is scheduled.")
        else:
            click.echo(f"Nothing is due. Next review: {human_when(due.next_due, now)}")
        return
    if list_only:
        _list(due, count, now, questions, held)
        return
    if not keys:
        _nothing_askable(due, now)
        return
    _ask(due, count, questions, held, limit)


def _quiz() -> ModuleType:
    """``drills.cli.quiz.due``: asking the items loads the planner and the front end, so
    ``drills review --list`` and a review with nothing due do not."""
    from drills.cli.quiz import due  # lazy: the planner and front end, once items are asked

    return due


def _held_note(held: Sequence[str], limit: int | None) -> str:
    n = len(held)
    return (f"{n} new item{'' if n == 1 else 's'} held back until tomorrow by "
            f"[review] daily_limit = {limit}")


def _nothing_askable(due: DueNow, now: datetime) -> None:
    """Every due card is of an item no loaded pack asks: say so (they keep their schedule)."""
    if not due.foreign:
        n = len(due.gone)
        what = "the 1 due item is" if n == 1 else f"all {n} due items are"
        click.echo(f"Nothing to review: {what} no longer in any pack (skipped, not deleted, "
                   "in case the pack comes back; `drills review --list` shows them).")
    else:
        echo_prose(f"Nothing to review: {' and '.join(elsewhere_notes(due))} (skipped, not "
                   "deleted; `drills review --list` shows them).")
    if due.next_due is not None:
        click.echo(f"Next review: {human_when(due.next_due, now)}")


def _ask(due: DueNow, count: int, questions: Sequence[Question], held: list[str],
         limit: int | None) -> None:
    """Say what the review holds, run it (``due.run_review``), then say what comes next."""
    keys = [key for key, _when in due.askable]
    asked = [key for key in keys if key not in held][:count]
    if not asked:
        click.echo(f"Nothing more to review today: {_held_note(held, limit)}.")
        return
    total = plural(len(keys), "due item")
    head = f"Review: {len(asked)} of {total}" if len(asked) < len(keys) else f"Review: {total}"
    echo_prose(head + (f" ({_held_note(held, limit)})" if held else ""))
    if due.gone or due.foreign:
        echo_prose(f"Skipping {' and '.join(elsewhere_notes(due))} "
                   "(`drills review --list` shows them).", err=True)
    # The due keys less those held back, most overdue first: run_review asks up to `count`;
    # the int it returns is the exit code.
    result = _quiz().run_review([key for key in keys if key not in held], count)
    code = result if isinstance(result, int) and not isinstance(result, bool) else 0
    if code < 128:  # after a signal the terminal may be gone
        _what_next(questions, held)
    if code:
        sys.exit(code)


def next_due_line(due: DueNow, now: datetime) -> str | None:
    """``Next due: in 3 hours (5 items later today)``: the next askable item after now and how
    many fall due from then to the end of that day; None when nothing is scheduled."""
    if due.next_due is None:
        return None
    when = due.next_due
    soon = "in under a minute" if (when - now).total_seconds() < 60 else roughly(when, now)
    day = "later today" if when.astimezone().date() == now.astimezone().date() else "that day"
    return f"Next due: {soon} ({plural(due.next_count, 'item')} {day})"


def _what_next(questions: Sequence[Question], held: Sequence[str]) -> None:
    """After a review: what is still due now (as ``drills stats`` counts it), and when the
    next item falls due."""
    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        due = due_items(store, now, questions)
    still = len(due.askable)
    waiting = sum(1 for key, _when in due.askable if key in set(held))
    if still and waiting == still:
        echo_prose(f"Still due: {plural(still, 'item')}, new ones held back until tomorrow by "
                   "[review] daily_limit.")
    elif still:
        later = f" ({waiting} held back until tomorrow)" if waiting else ""
        echo_prose(f"Still due: {plural(still, 'item')}{later}; run `drills review` again.")
    line = next_due_line(due, now)
    if line is not None:
        click.echo(line)
    elif not still:
        click.echo("Nothing more is scheduled.")


def _list(due: DueNow, count: int, now: datetime, questions: Sequence[Question] | None = None,
          held: Sequence[str] = ()) -> None:
    """One line per due item: its key, what it asks, and when it fell due; wrapped to the
    terminal and paged when taller than it, so the heading with the counts stays in reach.

    Items that can be asked come first, most overdue first, so the top ``count`` lines
    are what ``drills review --count`` would ask; new items held back by the daily limit
    follow, then the items no loaded pack asks (not counted as due).
    """
    if questions is None:
        questions = catalog(report=True)
    found = resolve([key for key, _when in due.askable], questions)
    waiting = set(held)
    ordered = ([d for d in due.askable if d[0] not in waiting]
               + [d for d in due.askable if d[0] in waiting] + due.gone + due.foreign)
    shown = ordered[:count]
    few = len(shown) < len(due.askable)  # the not counted ones cut off are named below anyway
    notes = [f"showing {len(shown)} of {len(due.askable)}"] if few else []
    if waiting:
        notes.append(f"{len(waiting)} new held back until tomorrow by [review] daily_limit")
    if due.gone:
        notes.append(f"{len(due.gone)} more no longer in any pack, skipped")
    if due.foreign:
        notes.append(f"{len(due.foreign)} more from imported history, in no pack here, skipped")
    more = f" ({'; '.join(notes)})" if notes else ""
    if due.askable:
        lines = [f"{plural(len(due.askable), 'item')} due for review{more}:"]
    else:  # due cards, none of them asked: no pack here has their questions
        lines = [f"Nothing due for review in your packs; {' and '.join(elsewhere_notes(due))} "
                 "(skipped when reviewing):"]
    gone = {key for key, _when in due.gone}
    for key, when in shown:
        if key in waiting:
            what = "new, held back until tomorrow"
        elif key in found:
            what = describe(key, found[key])
        elif key in gone:
            what = describe(key, None)
        else:
            what = "from imported history, in no pack here (skipped when reviewing)"
        lines.append(f"  {visible(key)}: {visible(what)} - due {human_when(when, now)}")
    style = Style(width=wrap_width())
    echo_paged("\n".join(style.wrap(line) for line in lines))
