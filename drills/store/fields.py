"""Fields that damage can spoil while the row itself still reads: JSON lists and objects, dates.

drills writes ``misconceptions`` as a JSON list of ids, ``params`` as a JSON object (or
NULL) and ``due`` as fixed-width UTC text (``utc_text``). A row whose field is anything
else (a flipped byte, a hand edit, a salvaged page) is left out of whatever reads that
field and counted with ``Store.skip``, never a traceback. Light: no fsrs, no sympy.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drills.store.connection import Handle, parse_utc, utc_text
from drills.store.jsonvalues import finite_number, strict_loads

# `due` exactly as utc_text writes it, on a real calendar day (the julianday round trip
# turns 2026-02-30 into 2026-03-01); coalesce: NULL (a damaged value) is not a date either.
DUE_OK = ("coalesce(length(due) = 32 AND due GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"
          "[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]+00:00' "
          "AND substr(due, 12, 2) < '24' "
          "AND date(julianday(substr(due, 1, 10))) = substr(due, 1, 10), 0)")
# A JSON array (json_type would raise on text that is not JSON at all, hence the CASE).
MISCONCEPTIONS_OK = ("(CASE WHEN json_valid(misconceptions) "
                     "THEN json_type(misconceptions) = 'array' ELSE 0 END)")


def count_damaged_cards(store: Handle) -> None:
    """Count the review cards whose ``due`` is not a date (they are never due, never listed)."""
    for (rowid,) in store.conn.execute(f"SELECT rowid FROM review_cards WHERE NOT {DUE_OK}"):
        store.skip("review_cards", rowid)


def parse_due(store: Handle, rowid: int, text: Any) -> datetime | None:
    """``due`` as an aware UTC datetime, or None (counted) when it is not one."""
    try:
        return parse_utc(text)
    except (TypeError, ValueError, OverflowError):
        store.skip("review_cards", rowid)
        return None


def next_due(store: Handle, after: datetime | None) -> datetime | None:
    """The earliest readable ``due`` (after ``after`` when given); damaged ones are counted."""
    sql = f"SELECT rowid, due FROM review_cards WHERE {DUE_OK}"
    args: tuple[Any, ...] = ()
    if after is not None:
        sql += " AND due > ?"
        args = (utc_text(after),)
    for rowid, text in store.conn.execute(sql + " ORDER BY due", args):
        when = parse_due(store, rowid, text)
        if when is not None:
            return when
    return None


def _is_list_of_text(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def decode_attempt(row: dict[str, Any]) -> dict[str, Any] | None:
    """An exported attempt with ``misconceptions`` and ``params`` decoded and ``overridden``
    as a bool; None if damaged.

    Damaged: a JSON field that is not JSON or not the right shape, ``overridden`` other
    than 0 or 1, or any value that is not NULL, a number or text (a blob from a damaged
    page).
    """
    if any(v is not None and not isinstance(v, (int, float, str)) for v in row.values()):
        return None
    if any(isinstance(v, float) and not finite_number(v) for v in row.values()):
        return None  # NaN from an older drills: the export stays standard JSON
    try:
        misconceptions = strict_loads(row["misconceptions"] or "[]")
        params = None if row["params"] is None else strict_loads(row["params"])
    except (TypeError, ValueError, RecursionError):
        return None
    if not _is_list_of_text(misconceptions) or not (params is None or isinstance(params, dict)):
        return None
    if "overridden" in row:  # stored as 0 or 1 (NOT NULL DEFAULT 0); anything else is damage
        if row["overridden"] not in (0, 1) or isinstance(row["overridden"], float):
            return None
        row["overridden"] = bool(row["overridden"])
    row["misconceptions"], row["params"] = misconceptions, params
    return row


def skipped_notice(skipped: dict[str, set[int]]) -> str:
    """'Left out 2 answers and 1 review card with a damaged field (...).'"""
    names = {"attempts": ("answer", "answers"), "review_cards": ("review card", "review cards"),
             "sessions": ("session", "sessions")}
    parts = []
    for table, rowids in sorted(skipped.items()):
        one, many = names.get(table, (f"{table} row", f"{table} rows"))
        parts.append(f"{len(rowids):,} {one if len(rowids) == 1 else many}")
    return (f"Left out {' and '.join(parts)} with a damaged field (misconceptions or params "
            "that are not JSON, a due date that is not a date).")
