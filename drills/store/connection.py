"""SQLite connection handling: WAL, a busy timeout, BEGIN IMMEDIATE writes, corrupt-file recovery.

Two drills processes may write at once (a quiz in one terminal, ``drills review`` in
another). A deferred BEGIN that reads and then writes can fail with SQLITE_BUSY that the
busy timeout cannot fix, so every write takes the write lock up front (``write``).
``Handle`` is what the queries need of the Store, so they never import it.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000

# SQLITE_CORRUPT and SQLITE_NOTADB: the file itself is bad, not merely locked or unwritable.
_CORRUPT_CODES = {11, 26}
_CORRUPT_TEXT = ("file is not a database", "malformed", "file is encrypted")


class StoreError(Exception):
    """A one-line, user-facing problem with the history database or its directory."""


class Handle(Protocol):
    """What a query needs of the Store (drills.store.database): its connection, a read
    that survives damage (``reading``), and a count of the rows it left out (``skip``).

    The queries below the Store (fields, cards, progress, schedule, sessions) take a
    Handle, so none of them imports the Store that calls them.
    """

    conn: sqlite3.Connection

    def reading(self, read: Callable[[], T]) -> T: ...

    def skip(self, table: str, rowid: int) -> None: ...


def recovering(read: Callable[..., T]) -> Callable[..., T]:
    """Make ``read(store, ...)`` survive damage: ``store.reading`` repairs the database
    and runs the whole read again (see ``Store.reading``)."""
    @functools.wraps(read)
    def guarded(store: Handle, *args: Any, **kwargs: Any) -> T:
        return store.reading(lambda: read(store, *args, **kwargs))

    return guarded


def utc_text(when: datetime | None = None) -> str:
    """A UTC timestamp as fixed-width ISO text, so text order is time order in SQL."""
    when = datetime.now(timezone.utc) if when is None else when
    if when.tzinfo is timezone.utc:  # already UTC (parse_utc's, now's): 100,000 per import
        return when.isoformat(timespec="microseconds")
    if when.tzinfo is None:  # naive datetimes are taken to be UTC already
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_utc(text: str) -> datetime:
    """The inverse of ``utc_text``: an aware UTC datetime."""
    when = datetime.fromisoformat(text)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def is_corrupt(exc: BaseException) -> bool:
    """True when an error means the database file is damaged (move it aside), not busy/unwritable."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in _CORRUPT_CODES
    if isinstance(exc, sqlite3.OperationalError):
        return False
    return any(text in str(exc).lower() for text in _CORRUPT_TEXT)


def connect(path: Path | str, *, readonly: bool = False,
            immutable: bool = False) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode (we BEGIN ourselves) with a busy timeout.

    ``readonly`` opens with ``mode=ro``: no write access to the file is needed, and
    SQLite refuses any write. ``immutable`` too reads without the -wal and -shm files
    (which a read-only folder cannot hold): only for a database whose -wal is empty.
    Nothing is read yet: ``configure`` makes the first query, which is what reveals a
    file that is not a database.
    """
    target, uri = str(path), False
    if readonly or immutable:
        from urllib.parse import quote

        target = f"file:{quote(os.path.abspath(target))}?mode=ro"
        target, uri = target + ("&immutable=1" if immutable else ""), True
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False, uri=uri)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except BaseException:
        conn.close()
        raise
    return conn


def is_busy(exc: BaseException) -> bool:
    """True for SQLITE_BUSY / SQLITE_LOCKED: another connection holds a lock we need."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in (5, 6)
    return "locked" in str(exc).lower() or "busy" in str(exc).lower()


def set_wal(conn: sqlite3.Connection, timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> str:
    """Switch to WAL, retrying while another process holds the lock the switch needs.

    SQLite returns SQLITE_BUSY from ``PRAGMA journal_mode = WAL`` without calling the
    busy handler when two processes create the database at the same moment, so the busy
    timeout alone does not cover it. Returns the journal mode in force.
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.002
    while True:
        try:
            row = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return str(row[0]) if row else ""
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def configure(conn: sqlite3.Connection, *, readonly: bool = False) -> None:
    """WAL, durable commits, foreign keys, and a first read of the schema (only the read
    when ``readonly``: switching the journal mode would be a write)."""
    if not readonly:
        set_wal(conn)
        # FULL: a recorded answer survives a power cut too; one fsync per answer is nothing.
        conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


@contextmanager
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error); joins an open transaction instead."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def copy_aside(path: Path) -> Path:
    """Copy a damaged db and its -wal byte for byte to ``<name>.corrupt-<UTC timestamp>``.

    The caller holds the write lock, so no commit lands between the two copies. The -shm
    is only an index of the -wal that SQLite rebuilds, so it is not copied.
    """
    import shutil

    target = aside_name(path)
    copied: list[Path] = []
    try:
        for suffix in ("", "-wal"):
            source = Path(f"{path}{suffix}")
            if suffix and not source.exists():
                continue
            shutil.copyfile(source, f"{target}{suffix}")
            copied.append(Path(f"{target}{suffix}"))
    except BaseException:
        for done in copied:
            done.unlink(missing_ok=True)
        raise
    return target


def check_writable(conn: sqlite3.Connection) -> None:
    """Take and release the write lock: fails now on a read-only file, not mid-quiz."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ROLLBACK")


def aside_name(path: Path) -> Path:
    """A free ``<name>.corrupt-<UTC timestamp>[-n]`` beside ``path`` for a damaged copy."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while any(os.path.lexists(f"{target}{suffix}") for suffix in ("", "-wal", "-shm")):
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    return target


def move_aside(path: Path) -> Path:
    """Rename a damaged db (and its -wal/-shm) to ``<name>.corrupt-<UTC timestamp>``."""
    target = aside_name(path)
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    return target
