"""Salvage and repair: a database damaged in the middle is rebuilt from the rows still readable.

A bad page in a b-tree makes every query that touches it fail with "database disk image
is malformed", while the rows on other pages are intact. ``salvage`` walks each table by
rowid: a range scan runs until it hits damage, then probes forward (doubling steps, then
a binary search) for the first rowid it can read again and goes on from there, so one
bad page costs the rows on that page, not the rest of the table. Rows keep their ids, so
attempts still point at their sessions.

``repair`` does it in place, under the write lock: the damaged file (and its -wal) is
copied aside byte for byte, the readable rows go into a new in-memory database, and
that is written over the damaged one with SQLite's backup API. The file keeps its inode,
so another drills process that has it open sees the fresh database through the normal
locking instead of writing to a file that was moved away.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drills.store.attempt import new_uid
from drills.store.connection import connect, copy_aside, utc_text, write
from drills.store.migrations import fill_uids, migrate

TABLES: tuple[str, ...] = ("sessions", "attempts", "review_cards")
MAX_STEP = 1024  # the largest jump when probing past damage (a bigger one may skip good rows)


class CannotRepair(Exception):
    """The damaged file cannot be rebuilt in place (read-only, locked, no room for the copy)."""


@dataclass
class Salvaged:
    """What a recovery of a damaged history kept, of how many rows."""

    kept: int = 0  # rows copied into the fresh database
    total: int = 0  # rows the damaged one held, as far as it can tell


def reason(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _one(conn: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...] | None:
    try:
        return conn.execute(sql, args).fetchone()
    except sqlite3.Error:
        return None


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """Column names, less an INTEGER PRIMARY KEY (copied as the rowid)."""
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")
            if not (row[5] == 1 and str(row[2]).upper() == "INTEGER")]


def _paths(src: sqlite3.Connection, table: str) -> list[str]:
    """Ways to read the table's rowids: the table itself, then each full (not partial) index."""
    try:
        indexes = [name for name, sql in src.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,))
            if sql is None or " WHERE " not in str(sql).upper()]
    except sqlite3.Error:
        indexes = []
    return [" NOT INDEXED"] + [f' INDEXED BY "{name}"' for name in indexes]


def _census(src: sqlite3.Connection, table: str) -> tuple[int | None, int | None, int | None]:
    """Lowest and highest rowid and the row count, from whichever b-tree can still be read."""
    lows, highs, counts = [], [], []
    for how in _paths(src, table):
        for sql, into in ((f"SELECT min(rowid) FROM {table}{how}", lows),
                          (f"SELECT max(rowid) FROM {table}{how}", highs),
                          (f"SELECT count(*) FROM {table}{how}", counts)):
            row = _one(src, sql)
            if row is not None and row[0] is not None:
                into.append(int(row[0]))
    return (min(lows) if lows else None, max(highs) if highs else None,
            max(counts) if counts else None)


class _Walk:
    """Rows of one table in rowid order, stepping over what cannot be read.

    A cursor reads one row ahead: when that read fails, the row already fetched is lost
    with it. So after a failure the walk reads one row at a time (``LIMIT 1``) before
    scanning on, and probes past rowids that cannot be read at all.
    """

    def __init__(self, src: sqlite3.Connection, table: str, columns: Sequence[str]) -> None:
        self.src = src
        self.select = (f"SELECT rowid, {', '.join(columns)} FROM {table} "
                       "WHERE rowid >= ? AND rowid <= ? ORDER BY rowid")
        self.skipped = 0  # rowids stepped over: the rows lost, when ids are dense

    def rows(self, low: int, high: int) -> Iterator[tuple[Any, ...]]:
        pos = low
        while pos <= high:
            try:
                for row in self.src.execute(self.select, (pos, high)):
                    pos = int(row[0]) + 1
                    yield row
                return
            except sqlite3.DatabaseError:
                pass
            first = self._first(pos, high)
            if first is None:
                return
            if first is _UNREADABLE:
                resume = self._resume(pos, high)
                self.skipped += resume - pos
                pos = resume
                continue
            pos = int(first[0]) + 1
            yield first

    def _first(self, pos: int, high: int) -> Any:
        """The first row at or after ``pos``; None when there is none; _UNREADABLE."""
        try:
            return self.src.execute(self.select + " LIMIT 1", (pos, high)).fetchone()
        except sqlite3.DatabaseError:
            return _UNREADABLE

    def _readable(self, pos: int, high: int) -> bool:
        return self._first(pos, high) is not _UNREADABLE

    def _resume(self, bad: int, high: int) -> int:
        """The first rowid after ``bad`` (which cannot be read) from which reading works
        again (``high + 1``: none)."""
        step = 1
        while True:
            probe = bad + step
            if probe > high:
                good = high + 1
                break
            if self._readable(probe, high):
                good = probe
                break
            bad, step = probe, min(step * 2, MAX_STEP)
        while good - bad > 1:  # the first readable rowid in (bad, good]
            mid = (bad + good) // 2
            if self._readable(mid, high):
                good = mid
            else:
                bad = mid
        return good


_UNREADABLE = object()


def _copy(src: sqlite3.Connection, dst: sqlite3.Connection, table: str) -> Salvaged:
    wanted = _columns(dst, table)
    try:
        present = set(_columns(src, table))
        columns = [c for c in wanted if c in present] or wanted
    except sqlite3.Error:
        columns = wanted
    low, high, count = _census(src, table)
    walk = _Walk(src, table, columns)
    insert = (f"INSERT INTO {table}(rowid, {', '.join(columns)}) "
              f"VALUES ({', '.join('?' * (len(columns) + 1))})")
    kept = 0
    if low is not None and high is not None:
        for row in walk.rows(low, high):
            try:
                dst.execute(insert, row)
            except sqlite3.Error:  # a value too damaged to store (NULL where one is required)
                continue
            kept += 1
    total = count if count is not None else kept + walk.skipped
    return Salvaged(kept, max(kept, total))


def salvage(src: sqlite3.Connection, dst: sqlite3.Connection,
            sessions: Iterable[Sequence[Any]] = ()) -> Salvaged:
    """Copy every readable row of TABLES from ``src`` into the empty, migrated ``dst``.

    ``sessions`` are rows ``(id, mode, seed, options, started_at, uid)`` the caller knows
    it wrote (a session in progress): put back if their own row was lost. An attempt whose
    session row was lost gets a stand-in session (options ``{"recovered": true}``) so it
    keeps its foreign key.
    """
    result = Salvaged()
    dst.execute("PRAGMA foreign_keys = OFF")
    try:
        with write(dst):
            for table in TABLES:
                part = _copy(src, dst, table)
                result.kept += part.kept
                result.total += part.total
                if table == "sessions":
                    dst.executemany("INSERT OR IGNORE INTO sessions(id, mode, seed, options, "
                                    "started_at, uid) VALUES (?, ?, ?, ?, ?, ?)",
                                    [_with_uid(row) for row in sessions])
            dst.execute("""INSERT INTO sessions(id, mode, options, started_at)
                SELECT session_id, 'practice', '{"recovered": true}', coalesce(min(answered_at), ?)
                FROM attempts WHERE session_id NOT IN (SELECT id FROM sessions)
                GROUP BY session_id""", (utc_text(),))
            fill_uids(dst)  # stand-ins, and rows from a history older than 005_attempt_uid
    finally:
        dst.execute("PRAGMA foreign_keys = ON")
    return result


def _with_uid(row: Sequence[Any]) -> tuple[Any, ...]:
    """A session the Store started: ``(id, mode, seed, options, started_at, uid)``."""
    values = tuple(row)[:6]
    return values if len(values) == 6 else (*values[:5], new_uid())


def fresh_copy(src: sqlite3.Connection, sessions: Iterable[Sequence[Any]] = ()
               ) -> tuple[sqlite3.Connection, Salvaged]:
    """A new in-memory database, same page size as ``src``, holding its readable rows."""
    size = _one(src, "PRAGMA page_size")
    mem = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        mem.execute(f"PRAGMA page_size = {int(size[0]) if size else 4096}")
        migrate(mem)
        return mem, salvage(src, mem, sessions)
    except BaseException:
        mem.close()
        raise


def from_file(path: Path, dst: sqlite3.Connection) -> Salvaged | None:
    """Copy every readable row of the damaged database file ``path`` (moved aside, its -wal
    beside it) into the fresh, empty, migrated ``dst``; None when it cannot be opened at all."""
    try:
        src = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        return salvage(src, dst)
    except sqlite3.Error:
        return None
    finally:
        src.close()


def after_open(moved: Path, error: BaseException, dst: sqlite3.Connection) -> str:
    """A database found damaged at open was moved to ``moved``: copy its readable rows into
    the fresh ``dst``; the notice that says so."""
    why = reason(error)
    kept = from_file(moved, dst)
    if kept is None or kept.kept == 0:
        return (f"The history database was damaged ({why}); the damaged file was kept as "
                f"{moved}. Nothing in it could be read, so a fresh one was started.")
    return (f"The history database was damaged ({why}); the damaged file was kept as "
            f"{moved}. {kept.kept:,} of {kept.total:,} rows were recovered into a fresh "
            "database.")


def repair(path: Path, sessions: Iterable[Sequence[Any]] = ()) -> tuple[Path, Salvaged]:
    """Copy the damaged ``path`` aside, then rebuild it in place from its readable rows.

    Returns where the copy went and what was kept. Raises CannotRepair, leaving the file
    as it was, when the file cannot be written (read-only, locked past the busy timeout)
    or the copy cannot be made (a read-only folder, a full disk).
    """
    try:
        fix = connect(path)
    except sqlite3.Error as exc:
        raise CannotRepair(reason(exc)) from None
    try:
        try:  # the write lock: no other process commits between the copy and the rebuild
            fix.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise CannotRepair(reason(exc)) from None
        try:
            aside = copy_aside(path)
        except OSError as exc:
            raise CannotRepair(f"cannot keep a copy: {exc.strerror or exc}") from None
        try:
            mem, result = fresh_copy(fix, sessions)
        except sqlite3.Error as exc:
            raise CannotRepair(reason(exc)) from None
        try:
            fix.execute("ROLLBACK")  # the backup takes the lock again, for its one step
            mem.backup(fix)
        except sqlite3.Error as exc:
            raise CannotRepair(reason(exc)) from None
        finally:
            mem.close()
        try:  # fold the rebuilt pages back into the file; someone reading may prevent it
            fix.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        return aside, result
    finally:
        fix.close()
