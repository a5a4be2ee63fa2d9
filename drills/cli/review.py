"""``drills review``: ask the items whose spaced-review card is due.

The quiz itself lives in the practice module: this command finds the due keys and
hands them to the hook ``drills.cli.practice:run_review(keys, count)``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from datetime import datetime, timezone

import click

from drills.cli.common import history_store


def human_when(when: datetime, now: datetime | None = None) -> str:
    """'in 2 days (2026-12-04 17:00 UTC)': the rough distance first, then the exact time."""
    now = now or datetime.now(timezone.utc)
    seconds = (when - now).total_seconds()
    exact = when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if seconds < 60:
        return f"now ({exact})"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"in {n} {unit}{'' if n == 1 else 's'} ({exact})"
    return f"now ({exact})"  # pragma: no cover - unreachable


def _hook() -> Callable[[list[str], int], object] | None:
    """The practice module's review runner, or None while it is not part of this build."""
    try:
        module = importlib.import_module("drills.cli.practice")
    except ModuleNotFoundError as exc:
        if exc.name in ("drills.cli.practice",):
            return None
        raise
    return getattr(module, "run_review", None)


@click.command()
@click.option("--count", "-n", type=click.IntRange(min=1), default=10, show_default=True,
              help="How many due items to ask.")
@click.option("--list", "list_only", is_flag=True, help="List the due items instead of asking them.")
def review(count: int, list_only: bool) -> None:
    """Review what is due: questions you missed come back sooner, ones you know later.

    Scheduling uses FSRS; every answer you give (in practice, mock or review) updates it.
    Exit code 0 also when nothing is due.
    """
    from drills.store.review import due_items, next_due

    now = datetime.now(timezone.utc)
    with history_store() as store:
        keys = due_items(store, now)
        upcoming = next_due(store, after=now)
    if not keys:
        if upcoming is None:
            click.echo("Nothing is due. No reviews are scheduled yet: "
                       "answer some questions with `drills` first.")
        else:
            click.echo(f"Nothing is due. Next review: {human_when(upcoming, now)}")
        return
    run_review = None if list_only else _hook()
    if run_review is None:
        shown = keys[:count]
        more = f" (showing {len(shown)})" if len(shown) < len(keys) else ""
        click.echo(f"{len(keys)} item{'' if len(keys) == 1 else 's'} due for review{more}:")
        for key in shown:
            click.echo(f"  {key}")
        return
    # The hook gets all due keys, most overdue first, and asks up to `count`, skipping
    # keys it cannot resolve (a question removed from the packs); an int it returns is
    # the exit code.
    result = run_review(keys, count)
    if isinstance(result, int) and not isinstance(result, bool) and result:
        sys.exit(result)
