"""``drills review``: ask the items whose spaced-review card is due.

The quiz itself lives in the practice module: this command finds the due keys and
hands them to ``drills.cli.practice.run_review(keys, count)``, which asks up to
``count`` of the ones still in a pack. ``resolve`` maps keys to questions for both.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import click

from drills.cli.common import history_store

if TYPE_CHECKING:
    from drills.core.questions import Question

PROMPT_WIDTH = 60  # characters of a prompt's first line shown by --list


def human_when(when: datetime, now: datetime | None = None) -> str:
    """'in 2 days (2026-12-04 17:00 UTC)' or '3 hours ago (...)': the rough distance, then the time."""
    now = now or datetime.now(timezone.utc)
    seconds = (when - now).total_seconds()
    exact = when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if abs(seconds) < 60:
        return f"now ({exact})"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if abs(seconds) >= size:
            n = round(abs(seconds) / size)
            span = f"{n} {unit}{'' if n == 1 else 's'}"
            return f"in {span} ({exact})" if seconds > 0 else f"{span} ago ({exact})"
    return f"now ({exact})"  # pragma: no cover - unreachable


def resolve(keys: Sequence[str], questions: Sequence[Question]) -> dict[str, list[Question]]:
    """What each key asks among ``questions``: ``q:<id>`` its question, ``skill:<generator>:<topic>``
    the generated templates of that generator and topic (one is drawn as a fresh variant).

    Keys that no loaded question answers (a question or pack removed, or a pack that is
    broken for now) are left out: the caller skips them.
    """
    by_id: dict[str, Question] = {}
    skills: dict[tuple[str, str], list[Question]] = {}
    for q in questions:
        by_id.setdefault(q.id, q)
        if q.kind == "generated" and q.generator:
            skills.setdefault((q.generator, q.topic), []).append(q)
    found: dict[str, list[Question]] = {}
    for key in keys:
        kind, _, rest = key.partition(":")
        if kind == "q" and rest in by_id:
            found[key] = [by_id[rest]]
        elif kind == "skill":
            generator, _, topic = rest.partition(":")
            if (generator, topic) in skills:
                found[key] = skills[(generator, topic)]
    return found


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
def review(count: int, list_only: bool) -> None:
    """Review what is due: questions you missed come back sooner, ones you know later.

    Scheduling uses FSRS; every answer you give (in practice, mock or review) updates it.
    Items whose question is no longer in any pack are skipped but keep their schedule.
    Exit code 0 also when nothing is due.
    """
    from drills.store.review import due_cards, next_due

    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        due = due_cards(store, now)
        upcoming = next_due(store, after=now)
    if not due:
        if upcoming is None:
            click.echo("Nothing is due. No reviews are scheduled yet: "
                       "answer some questions with `drills` first.")
        else:
            click.echo(f"Nothing is due. Next review: {human_when(upcoming, now)}")
        return
    keys = [key for key, _when in due]
    if list_only:
        _list(due, count, now)
        return
    from drills.cli import practice

    # All due keys, most overdue first: run_review skips the ones no pack answers, then
    # asks up to `count`; the int it returns is the exit code.
    result = practice.run_review(keys, count)
    if isinstance(result, int) and not isinstance(result, bool) and result:
        sys.exit(result)


def _list(due: Sequence[tuple[str, datetime]], count: int, now: datetime) -> None:
    """One line per due item: its key, what it asks, and when it fell due.

    Items that can be asked come first, most overdue first, so the top ``count`` lines
    are what ``drills review --count`` would ask; stale items follow.
    """
    from drills.cli.catalog import load_questions
    from drills.core.safetext import visible

    found = resolve([key for key, _when in due], load_questions(()))
    ordered = [d for d in due if d[0] in found] + [d for d in due if d[0] not in found]
    shown = ordered[:count]
    notes = [f"showing {len(shown)}"] if len(shown) < len(due) else []
    stale = len(due) - len(found)
    if stale:
        notes.append(f"{stale} no longer in any pack")
    more = f" ({'; '.join(notes)})" if notes else ""
    click.echo(f"{len(due)} item{'' if len(due) == 1 else 's'} due for review{more}:")
    for key, when in shown:
        click.echo(f"  {visible(key)}: {visible(describe(key, found.get(key)))} - due "
                   f"{human_when(when, now)}")
