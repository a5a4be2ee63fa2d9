"""The review schedule seen from outside a card: the forecast of due counts per day, the
next due day, and the daily limit on items new to review.

Days are local calendar days (the learner's), bounded by local midnights written as UTC
text, so they compare with the stored ``due`` in SQL. Light: no fsrs, no sympy.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from drills.store.connection import Handle, recovering, utc_text
from drills.store.fields import DUE_OK, count_damaged_cards, next_due, parse_due

FORECAST_DAYS = 14
# The item key of an attempt in SQL, as drills.store.cards.item_key builds it: a
# scenario's step is its scenario's item (even when a generator drew it).
_ITEM_KEY = ("CASE WHEN coalesce(a.scenario, '') != '' THEN 'q:' || a.scenario "
             "WHEN coalesce(a.generator, '') != '' "
             "THEN 'skill:' || a.generator || ':' || a.topic ELSE 'q:' || a.question_id END")


def local_midnight(day: date) -> datetime:
    """The start of a local calendar day, as an aware datetime."""
    return datetime.combine(day, time()).astimezone()


def _count(store: Handle, lo: datetime | None, hi: datetime | None) -> int:
    sql = f"SELECT count(*) FROM review_cards WHERE {DUE_OK}"
    args: list[str] = []
    if lo is not None:
        sql += " AND due >= ?"
        args.append(utc_text(lo))
    if hi is not None:
        sql += " AND due < ?"
        args.append(utc_text(hi))
    return int(store.conn.execute(sql, args).fetchone()[0])


@dataclass(frozen=True)
class Forecast:
    """Due counts: ``days[0]`` is today (what is overdue included), then one per day."""

    days: list[tuple[date, int]]
    overdue: int  # due now or earlier (part of today's count)
    later: int  # due after the last day shown
    cards: int  # every card with a readable due date (that a loaded pack asks, when told which)
    elsewhere: int = 0  # cards of items no loaded pack asks: not counted above


@recovering
def forecast(store: Handle, now: datetime | None = None, days: int = FORECAST_DAYS,
             askable: Container[str] | None = None) -> Forecast:
    """How many cards fall due on each of the next ``days`` local days, today first; with
    ``askable`` (the item keys a loaded pack asks) only those, the rest in ``elsewhere``.

    Today counts every card due before tomorrow, overdue ones too. Cards whose due is
    not a date are left out and counted (``Store.skip``). The cards are read once, each put
    in its day by its due text (fixed-width UTC: text order is time order).
    """
    now = now or datetime.now(timezone.utc)
    count_damaged_cards(store)
    today = now.astimezone().date()
    ends = [utc_text(local_midnight(today + timedelta(days=i + 1))) for i in range(days)]
    counts, overdue, later, cards, elsewhere = [0] * days, 0, 0, 0, 0
    now_text = utc_text(now)
    for key, due in store.conn.execute(f"SELECT item_key, due FROM review_cards WHERE {DUE_OK}"):
        if askable is not None and key not in askable:
            elsewhere += 1
            continue
        cards += 1
        overdue += due <= now_text
        i = bisect_right(ends, due)  # the first day whose end is after it
        if i < days:
            counts[i] += 1
        else:
            later += 1
    return Forecast([(today + timedelta(days=i), n) for i, n in enumerate(counts)], overdue, later,
                    cards, elsewhere)


@recovering
def next_due_day(store: Handle, now: datetime | None = None) -> tuple[datetime, int] | None:
    """When the next card falls due after ``now``, and how many fall due that local day
    (from then to its midnight); None when nothing is scheduled after ``now``."""
    now = now or datetime.now(timezone.utc)
    when = next_due(store, now)
    if when is None:
        return None
    end = local_midnight(when.astimezone().date() + timedelta(days=1))
    return when, _count(store, when, end)


@recovering
def reviewed_keys(store: Handle, keys: Sequence[str]) -> set[str]:
    """Those of ``keys`` already answered in a review session (not new to review)."""
    wanted = set(keys)
    if not wanted:
        return set()
    rows = store.conn.execute(
        f"SELECT DISTINCT {_ITEM_KEY} FROM attempts AS a "
        "JOIN sessions AS s ON s.id = a.session_id WHERE s.mode = 'review'")
    return {key for (key,) in rows if key in wanted}


@recovering
def new_reviewed_today(store: Handle, now: datetime | None = None) -> int:
    """Items answered in a review session for the first time today (local day)."""
    now = now or datetime.now(timezone.utc)
    start = utc_text(local_midnight(now.astimezone().date()))
    row = store.conn.execute(
        f"SELECT count(*) FROM (SELECT {_ITEM_KEY} AS k, min(a.answered_at) AS first "
        "FROM attempts AS a JOIN sessions AS s ON s.id = a.session_id "
        "WHERE s.mode = 'review' GROUP BY k) WHERE first >= ?", (start,)).fetchone()
    return int(row[0])


# A session merged from another machine's export (drills.store.merge marks its options).
_IMPORTED = ("(CASE WHEN json_valid(s.options) THEN json_extract(s.options, '$.imported') END) "
             "IS NOT NULL")
_HERE_CHUNK = 20_000  # answers read per query by answered_here, newest first


@dataclass(frozen=True)
class DueNow:
    """The review cards due now, split by what can be asked (``drills.cli.due_now`` builds it
    from the loaded packs): each list is ``(key, due)``, most overdue first.

    ``askable``: due, and a loaded pack (or the built-in bank) asks it: what is "due".
    ``gone``: due, answered here once, but no loaded pack asks it now (a pack removed or
    broken for now); ``foreign``: due, known only from history imported from another
    machine (or a card with no answer behind it), in no pack here. Neither is counted as
    due; both keep their schedule. ``next_due``: the first askable card due after now;
    ``next_count``: askable cards due from then to the end of that local day.
    """

    askable: list[tuple[str, datetime]]
    gone: list[tuple[str, datetime]]
    foreign: list[tuple[str, datetime]]
    next_due: datetime | None
    next_count: int


@recovering
def due_now(store: Handle, askable: Container[str], now: datetime | None = None) -> DueNow:
    """The cards due at ``now``, split by ``askable`` (the item keys a loaded pack asks), and
    the next askable one due after ``now``. A card whose due is not a date is left out and
    counted (``Store.skip``)."""
    now = now or datetime.now(timezone.utc)
    count_damaged_cards(store)
    due: list[tuple[str, datetime]] = []
    for rowid, key, text in store.conn.execute(
            f"SELECT rowid, item_key, due FROM review_cards WHERE due <= ? AND {DUE_OK} "
            "ORDER BY due, item_key", (utc_text(now),)):
        when = parse_due(store, rowid, text)
        if when is not None:
            due.append((key, when))
    ready = [d for d in due if d[0] in askable]
    elsewhere = [d for d in due if d[0] not in askable]
    here = answered_here(store, [key for key, _when in elsewhere]) if elsewhere else set()
    nxt: datetime | None = None
    n, end = 0, ""
    for rowid, key, text in store.conn.execute(
            f"SELECT rowid, item_key, due FROM review_cards WHERE due > ? AND {DUE_OK} "
            "ORDER BY due, item_key", (utc_text(now),)):
        if nxt is None:
            if key not in askable or (when := parse_due(store, rowid, text)) is None:
                continue
            nxt, n = when, 1
            end = utc_text(local_midnight(when.astimezone().date() + timedelta(days=1)))
        elif text >= end:
            break
        elif key in askable:
            n += 1
    return DueNow(ready, [d for d in elsewhere if d[0] in here],
                  [d for d in elsewhere if d[0] not in here], nxt, n)


@recovering
def answered_here(store: Handle, keys: Sequence[str]) -> set[str]:
    """Those of ``keys`` answered on this machine at least once (in a session not imported
    from another machine's export): their question was in a pack loaded here."""
    wanted = set(keys)
    if not wanted:
        return set()
    # Newest answers first, _HERE_CHUNK at a time (a rowid range), until every key is
    # found: a card's item was usually answered lately, so a long history is rarely read
    # to its start. The imported sessions are listed once (a few thousand JSON checks),
    # not once per answer.
    conn = store.conn
    imported = json.dumps([sid for (sid,) in conn.execute(f"SELECT id FROM sessions AS s WHERE {_IMPORTED}")])
    found: set[str] = set()
    (top,) = conn.execute("SELECT max(id) FROM attempts").fetchone()
    while top is not None and len(found) < len(wanted):
        row = conn.execute("SELECT id FROM attempts WHERE id <= ? ORDER BY id DESC LIMIT 1 OFFSET ?",
                           (top, _HERE_CHUNK)).fetchone()
        bottom = row[0] if row else None  # the chunk is (bottom, top]; None: to the start
        rows = conn.execute(
            f"SELECT DISTINCT {_ITEM_KEY} FROM attempts AS a WHERE a.id <= ? AND a.id > coalesce(?, -1e300) "
            "AND a.session_id NOT IN (SELECT value FROM json_each(?))", (top, bottom, imported))
        found.update(key for (key,) in rows if key in wanted)
        top = bottom
    return found


def hold_back_new(keys: Sequence[str], askable: set[str], reviewed: set[str],
                  allowance: int) -> list[str]:
    """The askable keys new to review past the first ``allowance`` of them (in order):
    what today's daily limit holds back until tomorrow."""
    new = [key for key in keys if key in askable and key not in reviewed]
    return new[max(0, allowance):]
