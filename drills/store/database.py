"""The Store, the history database: sessions and graded attempts, each committed before
the quiz moves on, and damage repaired where it is met.

An attempt is written (with its review-card update) in one BEGIN IMMEDIATE transaction,
so a crash or ``kill -9`` mid-session loses at most the answer being typed. The Store is
the top of drills.store's own layering: it uses home (the directory), salvage (rebuilding
a damaged file) and cards (the review schedule); those, and the queries that read the
history, take a connection or a ``connection.Handle`` and never import the Store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from drills import paths
from drills.store import home as homes
from drills.store.connection import (
    BUSY_TIMEOUT_MS,
    StoreError,
    check_writable,
    configure,
    connect,
    is_corrupt,
    move_aside,
    utc_text,
    write,
)
from drills.store.migrations import migrate
from drills.store.verdicts import MODES, SELF_GRADES, VERDICTS, new_uid

if TYPE_CHECKING:
    from drills.store.attempt import Attempt

__all__ = ["MODES", "SELF_GRADES", "VERDICTS", "Store"]

T = TypeVar("T")
MAX_RECOVERIES = 2  # repairs per Store; damage that keeps coming back is an error


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def attempt_row(session_id: int, a: Attempt) -> tuple[Any, ...]:
    return values_row(session_id, vars(a))


def values_row(session_id: int, v: Mapping[str, Any]) -> tuple[Any, ...]:
    """INSERT_ATTEMPT's values from an Attempt's fields (``vars(attempt)``, or the checked
    fields of an imported answer: drills.store.attempt.checked_values)."""
    params, expected_value, misconceptions = v["params"], v["expected_value"], v["misconceptions"]
    return (
        session_id, v["question_id"], v["topic"], v["kind"], v["generator"],
        None if params is None else _json(params), v["verdict"], v["given"], v["expected"],
        None if expected_value is None else float(expected_value),
        _json(list(misconceptions)) if misconceptions else "[]",  # most answers: none
        float(v["seconds"]), v["self_grade"], utc_text(v["answered_at"]),
        v["difficulty"], v["scenario"], v["step"], v["uid"] or new_uid(), int(v["overridden"]),
    )


INSERT_ATTEMPT = """INSERT INTO attempts(session_id, question_id, topic, kind, generator, params,
    verdict, given, expected, expected_value, misconceptions, seconds, self_grade, answered_at,
    difficulty, scenario, step, uid, overridden)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""


class Store:
    """The history database under DRILLS_HOME. Every method raises StoreError on failure.

    Damage found mid-command (``database disk image is malformed``) is repaired by
    ``recover`` (with drills.store.salvage), then the read or write that met it runs once
    more: reads through ``reading`` (the ``recovering`` decorator), writes through
    ``_transact``. Notices go to ``notify`` when set, else wait in ``notices``.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, notice: str | None = None, *,
                 readonly: bool = False, memory: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.notice: str | None = notice
        self.readonly = readonly  # opened with mode=ro: nothing is written but repairs
        self.memory = memory  # an in-memory stand-in: no history yet, or one that cannot be repaired
        self.notices: list[str] = [notice] if notice else []
        self.notify: Callable[[str], None] | None = None
        self.skipped: dict[str, set[int]] = {}  # table -> rowids of rows with damaged fields
        self._depth = 0  # >0 inside a transaction or a guarded read: recovery waits for the outermost
        self._recoveries = 0
        # sessions started here, to put back: (id, mode, seed, options, started_at, uid)
        self._sessions: dict[int, tuple[Any, ...]] = {}

    @classmethod
    def open(cls, home: Path | None = None, *, readonly: bool = False,
             waiting: Callable[[], None] | None = None) -> Store:
        """Create the home dir and database, migrate, and prove it is writable now.

        Fails with StoreError before a quiz starts rather than losing its first answer.
        A damaged file is moved aside and its readable rows copied into a fresh one
        (``notice`` says where and how many). ``readonly`` (stats, export, review --list)
        needs no write access and creates nothing. Another drills writing holds the lock:
        the open waits (``home.open_waiting``), calling ``waiting()`` once when it starts to.
        """
        name = homes.label(home)
        home = Path(home) if home is not None else paths.home()
        path = home / "drills.db"
        if readonly:
            if not homes.prepare(home, name, create=False) or not homes.exists(path):
                return cls(homes.empty_history(), path, readonly=True, memory=True)
            conn = homes.read_only(path)
            if conn is not None:
                return cls(conn, path, readonly=True)
        homes.prepare(home, name, create=True)
        notice = None
        try:
            conn = homes.open_waiting(path, cls._open_checked, waiting)
        except _Corrupt as bad:
            try:
                conn = cls._open_checked(path)
            except (sqlite3.DatabaseError, _Corrupt) as exc:
                raise _unwritable(path, exc) from None
            from drills.store import salvage  # deferred: only for a damaged file

            notice = salvage.after_open(bad.moved, bad.error, conn)
        except sqlite3.DatabaseError as exc:
            # an older schema in a read-only place: read a migrated copy in memory
            if readonly and (copy := homes.migrated_copy(path)) is not None:
                return cls(copy, path, readonly=True, memory=True)
            raise _unwritable(path, exc) from None
        return cls(conn, path, notice)

    @staticmethod
    def _open_checked(path: Path, busy_ms: int | None = None) -> sqlite3.Connection:
        """Connect, migrate and prove writable; a damaged file is moved aside (_Corrupt).
        ``busy_ms``: how long to wait for another writer's lock (default the busy timeout)."""
        conn = connect(path)
        try:
            if busy_ms is not None:
                conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            configure(conn)
            migrate(conn)
            check_writable(conn)
            if busy_ms is not None:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                conn.close()
                raise
            # Move while still open: closing the connection deletes the -wal/-shm files,
            # and the -wal may hold the last answers.
            try:
                moved = move_aside(path)
            except OSError:  # e.g. Windows will not rename open files: close, then move
                conn.close()
                try:
                    moved = move_aside(path)
                except OSError as move_exc:
                    raise StoreError(f"the history database {path} is damaged and could not "
                                     f"be moved aside: {move_exc.strerror or move_exc}") from None
            conn.close()
            raise _Corrupt(moved, exc) from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def start_session(self, mode: str, seed: int | None, options: Mapping[str, Any]) -> int:
        """Record a new session and return its id."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        row = (mode, seed, _json(dict(options)), utc_text(), new_uid())

        def insert(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO sessions(mode, seed, options, started_at, uid) VALUES (?, ?, ?, ?, ?)",
                row)
            return int(cur.lastrowid or 0)

        session_id = self._transact(insert)
        self._sessions[session_id] = (session_id, *row)
        return session_id

    def record_attempt(self, session_id: int, attempt: Attempt) -> None:
        """Save one answer and reschedule its review card; committed before returning.

        The answer matters more than its schedule: if the card update fails, the answer
        is still committed and ReviewError (a StoreError) is raised afterwards.
        """
        def insert(conn: sqlite3.Connection) -> StoreError | None:
            conn.execute(INSERT_ATTEMPT, attempt_row(session_id, attempt))
            return self._review(attempt)

        failure = self._transact(insert)
        if failure is not None:
            raise failure

    def record_attempts(self, session_id: int, attempts: Iterable[Attempt],
                        *, review: bool = True) -> int:
        """Bulk insert (imports, benchmarks) in one transaction; returns how many.

        As in ``record_attempt``, failed card updates do not cost answers: all of them
        are committed, then ReviewError says how many cards were not updated.
        """
        batch = list(attempts)

        def insert(conn: sqlite3.Connection) -> list[StoreError]:
            failures: list[StoreError] = []
            for attempt in batch:
                conn.execute(INSERT_ATTEMPT, attempt_row(session_id, attempt))
                if review and (failure := self._review(attempt)) is not None:
                    failures.append(failure)
            return failures

        failures = self._transact(insert)
        if failures:
            from drills.store.cards import ReviewError  # deferred: cards imports fsrs (~50 ms)

            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise ReviewError(f"{failures[0]}{more}")
        return len(batch)

    def _review(self, attempt: Attempt) -> StoreError | None:
        """Update the attempt's card inside a savepoint of the open transaction.

        A failure rolls back only the card update and is returned (as ReviewError) for the
        caller to raise once the answer is committed. If SQLite itself abandoned the
        transaction (a full disk, say), nothing can be kept: the error propagates; so does
        damage, which ``_transact`` repairs before saving the answer again.
        """
        from drills.store.cards import (  # deferred: fsrs (~50 ms) waits for the first answer
            ReviewError,
            item_key,
            update_review,
        )

        conn = self.conn
        conn.execute("SAVEPOINT review_card")
        try:
            update_review(self, attempt)
        except Exception as exc:  # noqa: BLE001 - the answer is kept whatever went wrong
            if not conn.in_transaction or is_corrupt(exc):
                raise
            conn.execute("ROLLBACK TO review_card")
            conn.execute("RELEASE review_card")
            why = " ".join(str(exc).split())  # SQLite says it in words; a bug needs its type
            why = why if isinstance(exc, sqlite3.Error) else f"{type(exc).__name__}: {why}"
            return ReviewError(f"the answer was saved, but the review schedule of "
                               f"{item_key(attempt)} could not be updated: {why}")
        conn.execute("RELEASE review_card")
        return None

    def end_session(self, session_id: int, score: int, total: int,
                    report: Mapping[str, Any]) -> None:
        """Close a session with its final score and report."""
        def update(conn: sqlite3.Connection) -> None:
            cur = conn.execute(
                "UPDATE sessions SET ended_at = ?, score = ?, total = ?, report = ? WHERE id = ?",
                (utc_text(), score, total, _json(dict(report)), session_id))
            if cur.rowcount != 1:
                raise StoreError(f"no session with id {session_id} in {self.path}")

        self._transact(update)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- damage: one mechanism for every read and write ---------------------------------

    def note(self, text: str) -> None:
        """A one-line notice for the user: to ``notify`` if set, else kept in ``notices``."""
        if self.notify is not None:
            self.notify(text)
        else:
            self.notices.append(text)

    def skip(self, table: str, rowid: int) -> None:
        """Count a row left out because a field of it cannot be read (once per row)."""
        self.skipped.setdefault(table, set()).add(int(rowid))

    def reading(self, read: Callable[[], T]) -> T:
        """Run ``read``; on damage, ``recover`` and run it once more on the repaired database.

        Inside a transaction or another guarded read it just runs: the outermost one
        recovers and re-runs as a whole, so no result mixes the damaged and the repaired
        database. Any other SQLite failure is a one-line StoreError.
        """
        if self._depth:
            return read()
        self._depth += 1
        try:
            try:
                return read()
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc):
                    raise StoreError(f"cannot read the history database {self.path}: "
                                     f"{exc}") from None
                self.recover(exc)
            try:
                return read()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read the history database {self.path}: {exc}") from None
        finally:
            self._depth -= 1

    def _transact(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """``body`` in one BEGIN IMMEDIATE transaction; on damage, recover and run it again
        (so the answer being saved is not lost); other failures are one-line StoreErrors."""
        if self._depth:  # inside the caller's transaction or read: it recovers and retries
            with write(self.conn):
                return body(self.conn)
        for retry in (False, True):
            self._depth += 1
            try:
                with write(self.conn):
                    return body(self.conn)
            except sqlite3.DatabaseError as exc:
                if retry or not is_corrupt(exc):
                    raise StoreError(f"could not save to {self.path}: {exc}") from exc
                damage = exc
            except sqlite3.Error as exc:
                raise StoreError(f"could not save to {self.path}: {exc}") from exc
            finally:
                self._depth -= 1
            self.recover(damage)
        raise AssertionError("unreachable")  # pragma: no cover

    def recover(self, exc: BaseException) -> None:
        """Damage met mid-command: rebuild the database from every row still readable.

        The damaged file is repaired in place (``drills.store.salvage.repair``), kept as
        ``drills.db.corrupt-<time>``, and a notice says where and how many rows were kept.
        A read-only store whose file cannot be repaired (a read-only folder or file) goes
        on with an in-memory copy of the readable rows instead. Raises StoreError when
        neither works; the caller re-runs what failed.
        """
        from drills.store import salvage  # deferred: only damage needs it, start-up never does

        if self.memory or self._recoveries >= MAX_RECOVERIES:
            raise StoreError(f"the history database {self.path} is damaged ({exc})") from None
        self._recoveries += 1
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        why = salvage.reason(exc)
        try:
            aside, kept = salvage.repair(self.path, list(self._sessions.values()))
        except salvage.CannotRepair as cannot:
            if not self.readonly:
                raise StoreError(f"the history database {self.path} is damaged ({why}) and "
                                 f"could not be repaired: {cannot}") from None
            try:
                mem, kept = salvage.fresh_copy(self.conn)
            except sqlite3.Error as err:
                raise StoreError(f"the history database {self.path} is damaged ({why}) "
                                 f"and cannot be read: {salvage.reason(err)}") from None
            self.conn.close()
            self.conn, self.memory = mem, True
            self.note(f"The history database {self.path} is damaged ({why}) and could not be "
                      f"repaired ({cannot}); showing the {kept.kept:,} of {kept.total:,} rows "
                      "that can still be read.")
            return
        if self.readonly:  # an immutable read (a read-only folder) would not see the rebuild
            fresh = homes.read_only(self.path)
            if fresh is not None:
                self.conn.close()
                self.conn = fresh
        self.note(f"The history database was damaged ({why}); the damaged file was kept as "
                  f"{aside}. {kept.kept:,} of {kept.total:,} rows were recovered into a fresh "
                  "database.")


class _Corrupt(Exception):
    def __init__(self, moved: Path, error: BaseException) -> None:
        super().__init__(str(error))
        self.moved, self.error = moved, error


def _unwritable(path: Path, exc: BaseException) -> StoreError:
    return StoreError(f"cannot open the history database {path} for writing: {exc} "
                      "(set DRILLS_HOME to a writable directory)")
