"""``drills review --forecast``: how many items fall due on each of the next 14 days."""

from __future__ import annotations

from datetime import date, datetime, timezone

import click

from drills.cli.due_now import askable_keys, catalog, has_cards
from drills.cli.store_access import history_store
from drills.cli.style import echo_prose, unicode_ok
from drills.safetext import plural
from drills.store.schedule import forecast

BAR_WIDTH = 24


def forecast_lines(days: list[tuple[date, int]], overdue: int, later: int, cards: int,
                   unicode: bool = True) -> list[str]:
    """A heading, one row per day (weekday, date, count, a bar scaled to the busiest day),
    then what falls due later. Under 60 columns."""
    top = max((n for _day, n in days), default=0)
    block = "█" if unicode else "#"
    heading = f"Due for review, next {len(days)} days ({cards:,} card{'' if cards == 1 else 's'}"
    lines = [heading + (f"; {overdue:,} overdue now):" if overdue else "):")]
    for i, (day, n) in enumerate(days):
        label = "today" if i == 0 else "tomorrow" if i == 1 else ""
        width = max(1, round(BAR_WIDTH * n / top)) if n and top else 0
        when = day.strftime("%a %Y-%m-%d")
        lines.append(f"  {label:<8} {when} {n:>5}  {block * width}".rstrip())
    lines.append(f"  {'later':<8} {'':<14} {later:>5}")
    return lines


def show_forecast() -> None:
    """The forecast of the cards ``drills review`` would ask (drills.cli.due_now: those of an
    item a loaded pack asks); the others are named in one line, never counted as due."""
    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        askable = askable_keys(catalog()) if has_cards(store) else set()
        data = forecast(store, now, askable=askable)
    if not data.cards and not data.elsewhere:
        click.echo("No reviews are scheduled yet: answer some questions with `drills` first.")
        return
    for line in forecast_lines(data.days, data.overdue, data.later, data.cards, unicode_ok()):
        click.echo(line)
    if data.elsewhere:
        echo_prose(f"Not counted: {plural(data.elsewhere, 'card')} of items no loaded pack asks "
                   "(a pack removed, or history imported from another machine).")

