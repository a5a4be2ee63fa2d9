"""Export every attempt as CSV or JSON with stable, documented columns (docs/history.md).

Columns are part of the public interface: add new ones at the end, never rename or drop.
Rows are streamed from the cursor, so a large history does not sit in memory.
"""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from drills.core.safetext import json_text
from drills.store.db import StoreError, is_corrupt
from drills.store.fields import decode_attempt

if TYPE_CHECKING:
    from drills.store.history import Store

COLUMNS: tuple[str, ...] = (
    "attempt_id", "session_id", "answered_at", "question_id", "topic", "kind", "generator",
    "verdict", "given", "expected", "expected_value", "misconceptions", "seconds",
    "self_grade", "params", "difficulty", "scenario", "step",
)
FORMATS: tuple[str, ...] = ("csv", "json")

_SELECT = """SELECT id, session_id, answered_at, question_id, topic, kind, generator, verdict,
    given, expected, expected_value, misconceptions, seconds, self_grade, params, difficulty,
    scenario, step FROM attempts WHERE id > ? ORDER BY id"""


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
    """CSV with a header; misconceptions ';'-joined, params as a JSON string, None empty."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    n = 0
    for row in rows(store):
        row["misconceptions"] = ";".join(row["misconceptions"])
        if row["params"] is not None:
            row["params"] = json_text(row["params"], sort_keys=True, ensure_ascii=False)
        writer.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
        n += 1
    return n


def write_json(store: Store, out: TextIO) -> int:
    """A JSON array of objects, one per attempt, written incrementally."""
    n = 0
    out.write("[")
    for row in rows(store):
        out.write(",\n  " if n else "\n  ")
        out.write(json_text(row, ensure_ascii=False))
        n += 1
    out.write("\n]\n" if n else "]\n")
    return n


def export(store: Store, fmt: str, out: TextIO) -> int:
    """Write all attempts to ``out`` in ``fmt``; returns the number written."""
    if fmt == "csv":
        return write_csv(store, out)
    if fmt == "json":
        return write_json(store, out)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
