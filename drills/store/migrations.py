"""Schema migrations: an append-only list, applied names recorded in the ``migrations`` table.

Never edit or reorder a released migration; add a new one at the end. A migration is
SQL text (one or more statements) or a callable taking the connection. All pending
migrations run in one BEGIN IMMEDIATE transaction, so two processes opening a fresh
database at once do not both apply them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from drills.store.connection import utc_text, write

Step = str | Callable[[sqlite3.Connection], None]

MIGRATIONS: list[tuple[str, Step]] = []


def migration(name: str, step: Step) -> None:
    """Register ``step`` under ``name``; names are permanent ids."""
    if any(existing == name for existing, _ in MIGRATIONS):
        raise ValueError(f"duplicate migration name {name!r}")
    MIGRATIONS.append((name, step))


migration("001_sessions_attempts", """
CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    mode        TEXT NOT NULL,
    seed        INTEGER,
    options     TEXT NOT NULL DEFAULT '{}',
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    score       INTEGER,
    total       INTEGER,
    report      TEXT
);
CREATE TABLE attempts (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    question_id     TEXT NOT NULL,
    topic           TEXT NOT NULL,
    kind            TEXT NOT NULL,
    generator       TEXT,
    params          TEXT,
    verdict         TEXT NOT NULL,
    given           TEXT,
    expected        TEXT,
    expected_value  REAL,
    misconceptions  TEXT NOT NULL DEFAULT '[]',
    seconds         REAL NOT NULL DEFAULT 0,
    self_grade      TEXT,
    answered_at     TEXT NOT NULL
);
CREATE INDEX attempts_session ON attempts(session_id);
-- Covering index for the one summary scan of `drills stats` (by topic, kind, verdict, time).
CREATE INDEX attempts_summary ON attempts(topic, kind, verdict, seconds);
CREATE INDEX attempts_verdict ON attempts(verdict);
CREATE INDEX attempts_answered_at ON attempts(answered_at);
CREATE INDEX attempts_with_misconceptions ON attempts(topic, misconceptions)
    WHERE misconceptions != '[]';
""")

migration("002_review_cards", """
CREATE TABLE review_cards (
    item_key    TEXT PRIMARY KEY,
    card        TEXT NOT NULL,
    due         TEXT NOT NULL,
    reviews     INTEGER NOT NULL DEFAULT 0,
    updated_at  TEXT NOT NULL
);
CREATE INDEX review_cards_due ON review_cards(due);
""")

# The question's difficulty (easy, medium, hard) when the answer was recorded; NULL for
# answers recorded before this migration. The partial index covers `drills stats`'s split.
migration("003_attempt_difficulty", """
ALTER TABLE attempts ADD COLUMN difficulty TEXT;
CREATE INDEX attempts_difficulty ON attempts(difficulty, verdict, seconds)
    WHERE difficulty IS NOT NULL;
""")

# A scenario's step (issue 15): the scenario's question id and the step's number (1-based),
# NULL for every other answer and for answers recorded before this migration. A scenario is
# one review item, so the review schedule's SQL keys step answers by ``scenario``.
migration("004_attempt_scenario", """
ALTER TABLE attempts ADD COLUMN scenario TEXT;
ALTER TABLE attempts ADD COLUMN step INTEGER;
CREATE INDEX attempts_scenario ON attempts(scenario, step) WHERE scenario IS NOT NULL;
""")

# A random UUID4 as 32 lowercase hex digits, computed by SQLite once per row (randomblob and
# random are evaluated per row): the same form as ``drills.store.attempt.new_uid``.
UID_SQL = ("lower(hex(randomblob(4)) || hex(randomblob(2)) || '4' || substr(hex(randomblob(2)), 2)"
           " || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2)"
           " || hex(randomblob(6)))")


def fill_uids(conn: sqlite3.Connection) -> None:
    """Give every attempt and session without a ``uid`` a fresh one."""
    for table in ("attempts", "sessions"):
        conn.execute(f"UPDATE {table} SET uid = {UID_SQL} WHERE uid IS NULL")


def _attempt_uid(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE attempts ADD COLUMN uid TEXT")
    conn.execute("ALTER TABLE sessions ADD COLUMN uid TEXT")
    fill_uids(conn)
    conn.execute("CREATE UNIQUE INDEX attempts_uid ON attempts(uid)")
    conn.execute("CREATE UNIQUE INDEX sessions_uid ON sessions(uid)")


# Stable ids across machines (issue 16): ``drills history import`` merges another machine's
# export by them, so an answer or a session is never stored twice. Existing rows get fresh
# ones here; new rows get theirs from the Store. NULL is allowed (UNIQUE ignores it) only
# so that a row salvaged from damage can be stored before ``fill_uids`` gives it one.
migration("005_attempt_uid", _attempt_uid)

# The learner overruled the grader's verdict (the quiz's ``:override``): 1, and ``verdict``
# is the learner's; 0 for every other answer and for answers recorded before this migration.
# `drills stats` counts a concept answer's misconception ids as wrong beliefs, the others as
# slips: the partial index of answers with misconceptions gains ``kind`` to stay covering.
migration("006_attempt_overridden", """
ALTER TABLE attempts ADD COLUMN overridden INTEGER NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS attempts_with_misconceptions;
CREATE INDEX attempts_misconceptions_by_kind ON attempts(topic, kind, misconceptions)
    WHERE misconceptions != '[]';
""")


def _statements(sql: str) -> list[str]:
    """Split SQL text into complete statements (executescript would COMMIT our transaction)."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buf.strip()[:60]!r}")
    return out


def _applied(conn: sqlite3.Connection) -> set[str]:
    try:
        return {row[0] for row in conn.execute("SELECT name FROM migrations")}
    except sqlite3.OperationalError as exc:  # no migrations table yet
        if "no such table" in str(exc):
            return set()
        raise


def pending(conn: sqlite3.Connection) -> list[str]:
    """Names of migrations not yet applied to ``conn``'s database."""
    done = _applied(conn)
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order; returns the names applied (usually none)."""
    if not pending(conn):  # the common case: a read, no write lock
        return []
    applied: list[str] = []
    with write(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS migrations "
                     "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = _applied(conn)  # re-read under the lock: another process may have won
        for name, step in MIGRATIONS:
            if name in done:
                continue
            if callable(step):
                step(conn)
            else:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)",
                         (name, utc_text()))
            applied.append(name)
    _checkpoint(conn)
    return applied


def _checkpoint(conn: sqlite3.Connection) -> None:
    """Fold the migrations' pages into the database file and empty the -wal (a fresh
    history's schema is most of its first -wal). Best effort: a reader may prevent it."""
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error:
        pass
