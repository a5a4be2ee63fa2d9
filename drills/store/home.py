"""The drills directory, and opening the history in it for a command that only reads.

What is wrong with the directory is said in words: ``mkdir`` on a symbolic link loop or
a dangling link fails with "File exists", and on a path under a regular file with "Not a
directory"; neither says what to fix. A read-only command needs no write access and
creates nothing (``read_only``, ``exists``, ``empty_history``).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path

from drills import paths
from drills.store.connection import StoreError, configure, connect, is_busy, is_corrupt
from drills.store.migrations import migrate, pending

_FIX = "(set DRILLS_HOME to a writable directory)"
WAIT_LIMIT_S = 120.0  # a command opening the history waits this long for another writer
QUICK_BUSY_MS = 300  # the first try's wait: then "waiting for the history" is said


def open_waiting(path: Path, opener: Callable[[Path, int | None], sqlite3.Connection],
                 waiting: Callable[[], None] | None) -> sqlite3.Connection:
    """``opener(path, busy_ms)``, waiting while another drills (an import, a quiz saving)
    holds the write lock: the first try gives up after QUICK_BUSY_MS so that ``waiting()``
    is said at once, then each try waits the busy timeout, until WAIT_LIMIT_S; then a
    StoreError that says so (never "set DRILLS_HOME": the folder is fine)."""
    deadline = time.monotonic() + WAIT_LIMIT_S
    busy_ms: int | None = QUICK_BUSY_MS
    while True:
        try:
            return opener(path, busy_ms)
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"the history database {path} stayed locked for {WAIT_LIMIT_S:.0f} s: "
                    "another drills (an import, a quiz) is writing to it; try again when it "
                    "is done") from None
            if busy_ms is not None and waiting is not None:
                waiting()
            busy_ms = None


def label(home: Path | None) -> str:
    """How to name the directory: "DRILLS_HOME" when that variable chose it."""
    return "DRILLS_HOME" if home is None and os.environ.get(paths.HOME_ENV, "").strip() \
        else "the drills directory"


def _file_above(home: Path) -> Path | None:
    """The nearest ancestor of ``home`` that exists and is not a directory."""
    for parent in home.parents:
        try:
            st = os.stat(parent)
        except OSError:
            continue
        return None if stat.S_ISDIR(st.st_mode) else parent
    return None


def problem(home: Path, name: str) -> str | None:
    """Why ``home`` cannot be the drills directory, or None when it is one or can be made."""
    try:
        st = os.stat(home)
    except FileNotFoundError:
        if os.path.islink(home):
            return f"{name} {home} is a symbolic link to {os.readlink(home)}, which does not exist"
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{name} {home} is a symbolic link loop"
        if exc.errno == errno.ENOTDIR and (above := _file_above(home)) is not None:
            return f"cannot create the drills directory {home}: {above} is a file, not a directory"
        return None  # mkdir or the open says what it is
    if not stat.S_ISDIR(st.st_mode):
        return f"{name} {home} is a file, not a directory"
    return None


def prepare(home: Path, name: str, *, create: bool) -> bool:
    """Check ``home`` (and create it when ``create``); whether it exists now.

    Raises StoreError with one line naming the problem.
    """
    text = problem(home, name)
    if text is not None:
        raise StoreError(f"{text} {_FIX}")
    if not create:
        return exists(home, f"{name} {home}", _FIX)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StoreError(f"cannot create the drills directory {home}: {reason} {_FIX}") from None
    return True


def exists(path: Path, what: str | None = None, fix: str = "") -> bool:
    """Whether ``path`` is there (a read-only command then opens it, else makes nothing);
    any other failure to look is a StoreError naming ``what``."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        what = what or f"the history database {path}"
        raise StoreError(f"cannot read {what}: {exc.strerror or exc}{' ' + fix if fix else ''}") from None
    return True


def empty_history() -> sqlite3.Connection:
    """An empty, migrated in-memory history: what a read-only command shows before the first answer."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    migrate(conn)
    return conn


def read_only(path: Path) -> sqlite3.Connection | None:
    """``path`` opened with ``mode=ro``; None when only the writable open can help (damage
    found at open, an older schema to migrate). Raises StoreError when it cannot be read.

    A WAL database needs its -shm file even to be read; in a read-only folder without
    one, a database whose -wal is empty (all of it in the main file) is read immutable.
    """
    try:
        conn = _read_only_conn(path, immutable=False)
    except sqlite3.DatabaseError as exc:
        if is_corrupt(exc):
            return None
        if _wal_has_frames(path):
            raise StoreError(f"cannot read the history database {path}: {exc}") from None
        try:
            conn = _read_only_conn(path, immutable=True)
        except sqlite3.DatabaseError as again:
            if is_corrupt(again):
                return None
            raise StoreError(f"cannot read the history database {path}: {exc}") from None
    try:
        if not pending(conn):
            return conn
    except sqlite3.DatabaseError as exc:
        if not is_corrupt(exc):
            conn.close()
            raise StoreError(f"cannot read the history database {path}: {exc}") from None
    conn.close()
    return None


def migrated_copy(path: Path) -> sqlite3.Connection | None:
    """An older-schema history that cannot be migrated where it is (a read-only folder or
    file), copied row by row into a migrated in-memory database; None when the schema is
    current (the trouble is elsewhere) or the file cannot be read."""
    from drills.store.salvage import fresh_copy  # deferred: only an old schema read-only needs it

    for immutable in (False, True):
        if immutable and _wal_has_frames(path):  # an immutable read would miss those answers
            break
        try:
            conn = _read_only_conn(path, immutable=immutable)
        except sqlite3.DatabaseError:
            continue
        try:
            if not pending(conn):
                return None
            return fresh_copy(conn)[0]
        except sqlite3.DatabaseError:
            continue
        finally:
            conn.close()
    return None


def _read_only_conn(path: Path, *, immutable: bool) -> sqlite3.Connection:
    conn = connect(path, readonly=True, immutable=immutable)
    try:
        configure(conn, readonly=True)
    except BaseException:
        conn.close()
        raise
    return conn


def _wal_has_frames(path: Path) -> bool:
    """Whether the -wal may hold answers not yet in the main file (an immutable read misses them)."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False
