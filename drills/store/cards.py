"""Spaced review with FSRS: one card per item, rescheduled on every recorded attempt.

Item keys: a fixed question is ``q:<question id>``; a generated question is
``skill:<generator>:<topic>``, so a due skill is served as a fresh variant rather than
the same numbers again. A scenario (issue 15) is one item, ``q:<scenario id>``, even when a
generator draws it: its steps are recorded as attempts of their own, and only the last
step's attempt (which carries the scenario's overall verdict) reviews the card.

A card is only a schedule; the attempt is the record. A stored card that cannot be read
or used (damaged JSON, fields fsrs rejects) is rebuilt as a new card rather than costing
the answer, and any other failure of the update is a ``ReviewError`` raised by the Store
after the attempt itself is committed (see ``Store.record_attempt``).
"""

from __future__ import annotations

import json
import zlib
from datetime import datetime, timedelta, timezone
from typing import Any

from fsrs import Card, Rating, Scheduler

from drills.store import fields
from drills.store.attempt import Attempt
from drills.store.connection import Handle, StoreError, recovering, utc_text, write
from drills.store.fields import DUE_OK, count_damaged_cards, parse_due
from drills.store.verdicts import RIGHT

# Fuzzing spreads long intervals by a few days so reviews do not bunch up; tests turn it off.
ENABLE_FUZZING = True
# A diagnosed wrong formula (or wrong belief) is worth correcting at once: due no later than
# this; not when the learner overruled the grader to a right verdict.
MISCONCEPTION_DELAY = timedelta(0)

_VERDICT_RATING = {
    "correct": Rating.Good,
    "consistent": Rating.Good,  # right, from the learner's own wrong earlier number
    "close": Rating.Again,
    "partial": Rating.Again,  # a concept answer part right: a miss (a self-grade rates instead)
    "wrong": Rating.Again,
    "timeout": Rating.Again,
    "skipped": Rating.Again,
}
_SELF_GRADE_RATING = {
    "again": Rating.Again,
    "hard": Rating.Hard,
    "good": Rating.Good,
    "easy": Rating.Easy,
}


def key_of(question_id: str, generator: str | None, topic: str) -> str:
    """The review item of a question: ``skill:<generator>:<topic>`` or ``q:<question id>``."""
    return f"skill:{generator}:{topic}" if generator else f"q:{question_id}"


def item_key(attempt: Attempt) -> str:
    """The review item an attempt exercises: its scenario's for a step (see the module
    docstring)."""
    if attempt.scenario:
        return f"q:{attempt.scenario}"
    return key_of(attempt.question_id, attempt.generator, attempt.topic)


def question_key(question: Any) -> str:
    """The review item a question (``drills.model.Question``) is scheduled under:
    a scenario and each of its steps (a question with a ``part``) under the scenario's."""
    part = getattr(question, "part", None)
    if part is not None and getattr(part, "scenario", ""):
        return f"q:{part.scenario}"
    if getattr(question, "kind", None) == "scenario":
        return f"q:{question.id}"
    return key_of(question.id, question.generator, question.topic)


def reviews_card(attempt: Attempt) -> bool:
    """Whether recording the attempt reviews its card: every attempt but a scenario step
    before the last (only the last carries the scenario's verdict)."""
    return attempt.scenario is None or attempt.scenario_verdict is not None


def rating_for(attempt: Attempt) -> Rating:
    """A scenario's last step: its scenario's verdict (right: Good, else Again). Otherwise
    a self-grade maps directly, and anything short of right is Again."""
    if attempt.scenario is not None and attempt.scenario_verdict is not None:
        return _VERDICT_RATING[attempt.scenario_verdict]
    if attempt.self_grade is not None:
        return _SELF_GRADE_RATING[attempt.self_grade]
    return _VERDICT_RATING[attempt.verdict]


def scheduler() -> Scheduler:
    return Scheduler(enable_fuzzing=ENABLE_FUZZING)


def card_id(key: str) -> int:
    """A stable card id from the key: fsrs would otherwise derive one from the clock."""
    return zlib.crc32(key.encode("utf-8")) + 1


# What reading or reviewing a damaged stored card raises: missing keys, wrong types,
# unparsable dates, naive/aware datetimes mixed, overflow from absurd stability values,
# and fsrs's own asserts on a state its fields contradict.
_DAMAGED = (ValueError, TypeError, KeyError, AttributeError, ArithmeticError, AssertionError)


class ReviewError(StoreError):
    """The answer was saved, but its review card could not be updated."""


def _parse_card(text: str) -> Card | None:
    try:
        return Card.from_dict(json.loads(text))
    except _DAMAGED:
        return None


def load_card(store: Handle, key: str) -> Card | None:
    """The stored card for ``key``; None when there is none or it cannot be read."""
    row = store.conn.execute("SELECT card FROM review_cards WHERE item_key = ?", (key,)).fetchone()
    return None if row is None else _parse_card(row[0])


def update_review(store: Handle, attempt: Attempt, *, now: datetime | None = None
                  ) -> Card | None:
    """Review the attempt's card (creating it on first sight) and store the new schedule.

    Joins the caller's transaction when there is one, so an attempt and its card
    update commit together. The review time is the attempt's ``answered_at``.
    A stored card that is damaged (unreadable, or fsrs cannot review it) is replaced
    by a new one, as if the item were seen for the first time. A scenario step before
    the last changes nothing and returns None (see ``reviews_card``).
    """
    if not reviews_card(attempt):
        return None
    when = now or attempt.answered_at or datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    when = when.astimezone(timezone.utc)
    key = item_key(attempt)
    rating = rating_for(attempt)
    with write(store.conn):
        card = None
        stored = load_card(store, key)
        if stored is not None:
            try:
                card, _log = scheduler().review_card(stored, rating, when)
            except _DAMAGED:
                card = None  # parsed, but not a card fsrs can use: start it again
        if card is None:
            card, _log = scheduler().review_card(Card(card_id=card_id(key), due=when), rating, when)
        if (attempt.misconceptions and attempt.self_grade is None
                and not (attempt.overridden and attempt.verdict in RIGHT)):
            card.due = min(card.due, when + MISCONCEPTION_DELAY)
        store.conn.execute(
            """INSERT INTO review_cards(item_key, card, due, reviews, updated_at)
               VALUES (?, ?, ?, 1, ?)
               ON CONFLICT(item_key) DO UPDATE SET card = excluded.card, due = excluded.due,
                   reviews = reviews + 1, updated_at = excluded.updated_at""",
            (key, json.dumps(card.to_dict()), utc_text(card.due), utc_text(when)))
    return card


@recovering
def due_items(store: Handle, now: datetime | None = None, limit: int | None = None) -> list[str]:
    """Keys due at ``now`` (default: now), most overdue first (cards with a damaged due:
    never, and counted)."""
    keys = [key for key, _when in due_cards(store, now)]
    return keys if limit is None else keys[:max(0, int(limit))]


@recovering
def due_cards(store: Handle, now: datetime | None = None) -> list[tuple[str, datetime]]:
    """``(key, due)`` of the cards due at ``now`` (default: now), most overdue first.

    A card whose ``due`` is not a date is left out and counted (``Store.skip``).
    """
    count_damaged_cards(store)
    rows = store.conn.execute(
        f"SELECT rowid, item_key, due FROM review_cards WHERE due <= ? AND {DUE_OK} "
        "ORDER BY due, item_key", (utc_text(now),))
    due = []
    for rowid, key, text in rows:
        when = parse_due(store, rowid, text)
        if when is not None:
            due.append((key, when))
    return due


@recovering
def due_count(store: Handle, now: datetime | None = None) -> int:
    row = store.conn.execute(f"SELECT count(*) FROM review_cards WHERE due <= ? AND {DUE_OK}",
                             (utc_text(now),)).fetchone()
    return int(row[0])


@recovering
def next_due(store: Handle, after: datetime | None = None) -> datetime | None:
    """When the next card falls due (after ``after`` if given; else the earliest at all)."""
    return fields.next_due(store, after)


@recovering
def preview_intervals(store: Handle, key: str, now: datetime | None = None
                      ) -> dict[str, timedelta]:
    """How long until ``key`` would be due again after each self-grade, given at ``now``.

    ``{"again": ..., "hard": ..., "good": ..., "easy": ...}``, from fsrs for the item's
    stored card (a new card when there is none, or it is damaged), as ``update_review``
    would schedule it but without fuzzing (which only spreads long intervals by a few
    days). Pure: reads the card and writes nothing.
    """
    when = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    stored = load_card(store, key)
    plain = Scheduler(enable_fuzzing=False)
    out: dict[str, timedelta] = {}
    for grade, rating in _SELF_GRADE_RATING.items():
        card = None
        if stored is not None:
            try:
                card, _log = plain.review_card(stored, rating, when)
            except _DAMAGED:
                card = None
        if card is None:
            card, _log = plain.review_card(Card(card_id=card_id(key), due=when), rating, when)
        out[grade] = card.due - when
    return out


def interval_text(span: timedelta) -> str:
    """An interval as Anki writes it: ``10m``, ``5h``, ``3d``, ``2.5mo``, ``1.2y`` (at least 1m)."""
    minutes = max(1.0, span.total_seconds() / 60)
    if minutes < 60:
        return f"{round(minutes)}m"
    if minutes < 24 * 60:
        return f"{round(minutes / 60)}h"
    days = minutes / (24 * 60)
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{days / 30:.1f}".removesuffix(".0") + "mo"
    return f"{days / 365:.1f}".removesuffix(".0") + "y"


def format_intervals(intervals: dict[str, timedelta]) -> str:
    """``again 10m · hard 1d · good 3d · easy 8d`` (the grades in their usual order)."""
    return " · ".join(f"{grade} {interval_text(intervals[grade])}"
                      for grade in _SELF_GRADE_RATING if grade in intervals)
