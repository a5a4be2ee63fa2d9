"""Export every attempt as CSV or JSON with stable, documented columns (docs/history.md).

Columns are part of the public interface: add new ones at the end, never rename or drop.
Rows are streamed from the cursor, so a large history does not sit in memory.

The JSON export is self-describing (``drills_export``: its format version) and carries
what another machine needs to merge it (``drills history import``, drills.store.merge):
the learner's name, every answer with its stable ``uid``, the sessions by theirs, and the
review cards as fsrs wrote them.
"""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Iterator
from typing import Any, TextIO

from drills import __version__
from drills.safetext import json_text
from drills.store.connection import StoreError, is_corrupt, parse_utc, utc_text
from drills.store.database import Store
from drills.store.fields import decode_attempt
from drills.store.jsonvalues import strict_loads

COLUMNS: tuple[str, ...] = (
    "attempt_id", "session_id", "answered_at", "question_id", "topic", "kind", "generator",
    "verdict", "given", "expected", "expected_value", "misconceptions", "seconds",
    "self_grade", "params", "difficulty", "scenario", "step", "uid", "session_uid", "overridden",
)
FORMATS: tuple[str, ...] = ("csv", "json")
EXPORT_VERSION = 1  # the JSON export's "drills_export": raised only for a change import must know
SESSION_KEYS: tuple[str, ...] = ("uid", "id", "mode", "seed", "options", "started_at", "ended_at",
                                 "score", "total", "report")
CARD_KEYS: tuple[str, ...] = ("item_key", "card", "due", "reviews", "updated_at")

_SELECT = """SELECT id, session_id, answered_at, question_id, topic, kind, generator, verdict,
    given, expected, expected_value, misconceptions, seconds, self_grade, params, difficulty,
    scenario, step, uid, (SELECT uid FROM sessions WHERE sessions.id = attempts.session_id),
    overridden FROM attempts WHERE id > ? ORDER BY id"""


def rows(store: Store) -> Iterator[dict[str, Any]]:
    """Attempts in recording order as dicts keyed by COLUMNS (JSON fields decoded).

    Rows with a damaged field are left out and counted (``Store.skip``). Damage met part
    way is repaired (``Store.recover``) and the export goes on after the last row written
    (salvaged rows keep their ids), so nothing is written twice.
    """
    last = 0
    while True:
        try:
            for values in store.conn.execute(_SELECT, (last,)):
                last = values[0]
                row = decode_attempt(dict(zip(COLUMNS, values, strict=True)))
                if row is None:
                    store.skip("attempts", last)
                    continue
                yield row
            return
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise StoreError(f"cannot read the history database {store.path}: {exc}") from None
            store.recover(exc)


def write_csv(store: Store, out: TextIO) -> int:
    """CSV with a header; misconceptions ';'-joined, params as a JSON string, overridden
    as true or false, None empty."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    n = 0
    for row in rows(store):
        row["misconceptions"] = ";".join(row["misconceptions"])
        if row["params"] is not None:
            row["params"] = json_text(row["params"], sort_keys=True, ensure_ascii=False)
        row["overridden"] = "true" if row["overridden"] else "false"
        writer.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
        n += 1
    return n


def _object(text: Any) -> dict[str, Any] | None:
    """A JSON object column (options, report, card); None when missing or damaged."""
    try:  # NaN stored by an older drills reads as damaged: the export stays standard JSON
        value = strict_loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _time(text: Any) -> str | None:
    """A stored timestamp exactly as ``utc_text`` writes it, else None."""
    try:
        return text if isinstance(text, str) and utc_text(parse_utc(text)) == text else None
    except (ValueError, OverflowError):
        return None


def sessions(store: Store) -> list[dict[str, Any]]:
    """Every session keyed by SESSION_KEYS (options and report decoded; a damaged options
    is ``{}``, a damaged report null); a row without a usable uid or start is counted."""
    out = []
    for row in store.conn.execute(f"SELECT {', '.join(SESSION_KEYS)} FROM sessions ORDER BY id"):
        item = dict(zip(SESSION_KEYS, row, strict=True))
        if (not isinstance(item["uid"], str) or _time(item["started_at"]) is None
                or any(isinstance(v, bytes) for v in row)):
            store.skip("sessions", item["id"])
            continue
        item["options"] = _object(item["options"]) or {}
        item["report"] = _object(item["report"])
        if item["ended_at"] is not None and _time(item["ended_at"]) is None:
            item["ended_at"] = None
        out.append(item)
    return out


def review_cards(store: Store) -> list[dict[str, Any]]:
    """Every review card keyed by CARD_KEYS, the card as the object fsrs wrote; a card that
    is not JSON, or whose due or updated_at is not a date, is left out and counted."""
    out = []
    for rowid, *row in store.conn.execute(
            f"SELECT rowid, {', '.join(CARD_KEYS)} FROM review_cards ORDER BY item_key"):
        item = dict(zip(CARD_KEYS, row, strict=True))
        item["card"] = _object(item["card"])
        if (not isinstance(item["item_key"], str) or item["card"] is None
                or _time(item["due"]) is None or _time(item["updated_at"]) is None
                or isinstance(item["reviews"], bool) or not isinstance(item["reviews"], int)):
            store.skip("review_cards", rowid)
            continue
        out.append(item)
    return out


def write_json(store: Store, out: TextIO, learner: str | None = None) -> int:
    """The self-describing export (docs/history.md), answers written incrementally:
    ``{"drills_export": 1, "drills_version", "learner", "exported_at", "attempt_columns",
    "attempts": [...], "sessions": [...], "review_cards": [...]}``."""
    head = {"drills_export": EXPORT_VERSION, "drills_version": __version__,
            "learner": learner, "exported_at": utc_text(), "attempt_columns": list(COLUMNS)}
    out.write("{\n")
    for key, value in head.items():
        out.write(f"  {json_text(key)}: {json_text(value, ensure_ascii=False)},\n")
    n = 0
    out.write('  "attempts": [')
    for row in rows(store):
        out.write(",\n    " if n else "\n    ")
        out.write(json_text(row, ensure_ascii=False, allow_nan=False))
        n += 1
    out.write("\n  ],\n" if n else "],\n")
    for key, items in (("sessions", store.reading(lambda: sessions(store))),
                       ("review_cards", store.reading(lambda: review_cards(store)))):
        out.write(f'  "{key}": [')
        out.write(",".join(f"\n    {json_text(item, ensure_ascii=False, allow_nan=False)}" for item in items))
        out.write("\n  ]" if items else "]")
        out.write(",\n" if key == "sessions" else "\n")
    out.write("}\n")
    return n


def export(store: Store, fmt: str, out: TextIO, learner: str | None = None) -> int:
    """Write all attempts to ``out`` in ``fmt`` (JSON: with the sessions, the review cards
    and ``learner``, the name from the config file); returns the number of answers."""
    if fmt == "csv":
        return write_csv(store, out)
    if fmt == "json":
        return write_json(store, out, learner)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
