"""Merging another machine's export into the history: ``drills history import``.

One BEGIN IMMEDIATE transaction per file (``Store._transact``), so a file is merged whole
or not at all, and a quiz running in another terminal only waits. The rules:

- an answer is identified by its ``uid``: one already here is skipped, never changed; a new
  one is stored as exported (its ``overridden`` too; an older export's answers have none:
  not overruled);
- a session by its ``uid``: one not here is created (marked ``"imported": true`` in its
  options, so ``drills practice --resume`` never offers another machine's session) and its
  answers are attached to its local id; one here that never ended takes the end, score
  and report the file has for it;
- a review card by its ``item_key``: the later review state wins (``updated_at``, the time
  of its last review; then more reviews; then the card text, so both sides of a two-way
  merge agree), stored as the JSON fsrs wrote. Imported answers do not review cards.

A damaged row (see drills.store.history_import) is skipped and counted; an answer whose session
is neither in the file nor here counts as damaged too. Importing the same file again adds
nothing, and A's export into B plus B's into A leaves both with the same answers.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from operator import itemgetter
from typing import Any

from drills.store.attempt import (
    DIFFICULTIES,
    MAX_PARAMS,
    MAX_SLIP_ID,
    MAX_SLIPS,
    MAX_STEP,
    MAX_TEXT,
    SELF_GRADES,
    checked_values,
)
from drills.store.connection import utc_text
from drills.store.database import INSERT_ATTEMPT, Store, values_row
from drills.store.history_import import Export, check_card, check_session, timestamp
from drills.store.jsonvalues import plain, size
from drills.store.verdicts import VERDICTS

MAX_SECONDS = 24 * 3600  # an answer's time: the longest session drills runs is a day

# An answer's row, checked in one pass (answer_row): 100,000 per import (issue 25).
_HEX = "0123456789abcdef"
_INF = float("inf")
_VERDICTS = frozenset(VERDICTS)
_SELF_GRADES = frozenset(SELF_GRADES)
_DIFFICULTIES = frozenset(DIFFICULTIES)
# Every field an export of this drills writes but ``overridden`` (older exports have none).
_FIELDS = itemgetter("uid", "seconds", "misconceptions", "params", "step", "scenario",
                     "question_id", "topic", "kind", "verdict", "given", "expected",
                     "expected_value", "generator", "self_grade", "difficulty")

# A time exactly as utc_text writes it (ASCII digits): one that parses is its own utc_text.
_UTC_TEXT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", re.ASCII).fullmatch
# Where answer_row puts what the merge needs to know of an answer.
QUESTION_ID, VERDICT, SECONDS, ANSWERED_AT, UID = 0, 5, 10, 12, 16


def answer_row(row: Any, answered_at: datetime, stamp: str | None = None) -> tuple[Any, ...]:
    """The ``attempts`` row of the exported answer ``row``: ``values_row(session_id,
    checked_values(row, answered_at))`` without its session id, every check made;
    ValueError says what is wrong. ``stamp``: ``utc_text(answered_at)``, when the caller
    has it already (saves formatting it again).

    A plainly sound row (the types an export writes, every bound met: attempt's MAX_*) is
    laid out here with no dict in between; any other goes through ``checked_values``, so a
    damaged row fails with its very message (tests/test_history_import_rows.py)."""
    if type(row) is dict:
        try:
            (uid, seconds, misconceptions, params, step, scenario, question_id, topic, kind,
             verdict, given, expected, expected_value, generator, self_grade,
             difficulty) = _FIELDS(row)
        except KeyError:  # a field left out: checked_values says whether that is allowed
            pass
        else:
            overridden = row.get("overridden", False)
            if (type(uid) is str and len(uid) == 32 and not uid.strip(_HEX)
                    and type(seconds) is float and 0.0 <= seconds < _INF
                    and type(misconceptions) is list
                    and (not misconceptions or _ids(misconceptions))
                    and (params is None or type(params) is dict and plain(params)
                         and size(params) <= MAX_PARAMS)
                    and (scenario is None and step is None
                         or type(step) is int and 1 <= step <= MAX_STEP
                         and type(scenario) is str and 0 < len(scenario) <= MAX_TEXT)
                    and (overridden is False or overridden is True)
                    and type(question_id) is str and 0 < len(question_id) <= MAX_TEXT
                    and type(topic) is str and 0 < len(topic) <= MAX_TEXT
                    and type(kind) is str and 0 < len(kind) <= MAX_TEXT
                    and type(verdict) is str and verdict in _VERDICTS
                    and (given is None or type(given) is str and len(given) <= MAX_TEXT)
                    and (expected is None or type(expected) is str and len(expected) <= MAX_TEXT)
                    and (expected_value is None
                         or type(expected_value) is float and -_INF < expected_value < _INF)
                    and (generator is None
                         or type(generator) is str and len(generator) <= MAX_TEXT)
                    and (self_grade is None or type(self_grade) is str
                         and self_grade in _SELF_GRADES)
                    and (difficulty is None or type(difficulty) is str
                         and difficulty in _DIFFICULTIES)):
                return (question_id, topic, kind, generator,
                        None if params is None else _json(params), verdict, given, expected,
                        expected_value, _json(misconceptions) if misconceptions else "[]",
                        seconds, self_grade, stamp or utc_text(answered_at), difficulty, scenario, step,
                        uid, int(overridden))
    return values_row(0, checked_values(row, answered_at))[1:]


def _ids(misconceptions: list[Any]) -> bool:
    return len(misconceptions) <= MAX_SLIPS and all(
        type(m) is str and 0 < len(m) <= MAX_SLIP_ID for m in misconceptions)


@dataclass
class Merged:
    """What merging one file did."""

    attempts: int = 0  # answers added
    present: int = 0  # answers already in the history (same uid)
    sessions: int = 0  # sessions created
    sessions_updated: int = 0  # sessions here that took the file's end
    cards: int = 0  # review cards added or replaced by a later state
    damaged: int = 0  # rows skipped: damaged, or an answer without its session


@dataclass
class _Checked:
    """An import file checked: its answers as rows, its sessions and cards, how many rows were damaged."""

    attempts: list[tuple[str, tuple[Any, ...]]]  # (session uid, an answer's row: answer_row), oldest first
    sessions: dict[str, dict[str, Any]]
    cards: list[dict[str, Any]]
    damaged: int


def check(export: Export) -> _Checked:
    """Every row of ``export`` checked; the damaged ones only counted."""
    damaged = 0
    sessions: dict[str, dict[str, Any]] = {}
    for row in export.sessions:
        try:
            session = check_session(row)
        except (ValueError, TypeError, OverflowError):
            damaged += 1
            continue
        sessions.setdefault(session["uid"], session)
    attempts: list[tuple[str, tuple[Any, ...]]] = []
    seen: set[str] = set()
    latest = datetime.now(timezone.utc) + timedelta(days=1)  # clocks differ, but not by more
    for row in export.attempts:
        try:
            at = row.get("answered_at") if isinstance(row, dict) else None
            when = timestamp(at, "answered_at")
            # checked and laid out as stored: 100,000 of them; a time already as utc_text
            # writes it (as an export's are) is stored as it is, not formatted again
            values = answer_row(row, when, at if _UTC_TEXT(at) else None)
            session_uid = row.get("session_uid")
            if not isinstance(session_uid, str):
                raise ValueError("session_uid must be text")
            if values[SECONDS] > MAX_SECONDS or when > latest:
                raise ValueError("an answer over a day long, or from the future")
            if values[UID] in seen:  # two rows of one file claiming one answer: neither is trusted twice
                raise ValueError("a uid given twice in one file")
        except (ValueError, TypeError, OverflowError):  # damaged: any out-of-range value
            damaged += 1
            continue
        seen.add(values[UID])
        attempts.append((session_uid, values))
    # by time: the stored time is fixed-width UTC text (utc_text), so text order is time order
    attempts.sort(key=_answered_at)
    cards: list[dict[str, Any]] = []
    for row in export.review_cards:
        try:
            cards.append(check_card(row))
        except (ValueError, TypeError, OverflowError):
            damaged += 1
    return _Checked(attempts, sessions, cards, damaged)


def _answered_at(pair: tuple[str, tuple[Any, ...]]) -> str:
    return pair[1][ANSWERED_AT]


def merge(store: Store, export: Export) -> Merged:
    """Merge ``export`` into ``store`` in one transaction; returns what it added."""
    checked = check(export)

    def body(conn: sqlite3.Connection) -> Merged:
        done = Merged(damaged=checked.damaged)
        local: dict[str, int] = {}
        for uid in sorted(checked.sessions, key=lambda u: checked.sessions[u]["started_at"]):
            local[uid] = _session(conn, checked.sessions[uid], done)
        if not export.legacy and not _legacy_here(conn):
            _insert_batched(conn, checked.attempts, local, done)
        else:  # answer by answer: a legacy answer may match one inserted just before
            _insert_one_by_one(conn, checked.attempts, local, done, export.legacy)
        for card in checked.cards:
            done.cards += _card(conn, card)
        return done

    # 64 MiB of page cache while the file is merged (SQLite's default is 2 MiB): 100,000
    # answers go into nine indexes, the uid one in random order; pages stay in memory
    # instead of being spilled and read back. Put back afterwards.
    (cache,) = store.conn.execute("PRAGMA cache_size").fetchone()
    store.conn.execute("PRAGMA cache_size = -65536")
    try:
        return store._transact(body)
    finally:
        store.conn.execute(f"PRAGMA cache_size = {int(cache)}")


CHUNK = 500  # uids per IN (...) query: under SQLite's 999 bound parameters of old builds


def _legacy_here(conn: sqlite3.Connection) -> bool:
    """The history holds answers a legacy (uid-less) export brought."""
    return conn.execute("SELECT 1 FROM sessions WHERE options LIKE '%\"legacy_export\": true%' "
                        "LIMIT 1").fetchone() is not None


def _found(conn: sqlite3.Connection, sql: str, keys: list[str]) -> dict[str, Any]:
    """``sql`` (``... IN ({})``) run over ``keys`` CHUNK at a time: key -> the second column."""
    out: dict[str, Any] = {}
    for i in range(0, len(keys), CHUNK):
        part = keys[i:i + CHUNK]
        out.update(conn.execute(sql.format(", ".join("?" * len(part))), part).fetchall())
    return out


def _insert_batched(conn: sqlite3.Connection, attempts: list[tuple[str, tuple[Any, ...]]],
                    local: dict[str, int], done: Merged) -> None:
    """The answers not here yet, one INSERT statement for all (one lookup per CHUNK uids)."""
    here = conn.execute("SELECT EXISTS (SELECT 1 FROM attempts)").fetchone()[0]
    present = _found(conn, "SELECT uid, 1 FROM attempts WHERE uid IN ({})",
                     [values[UID] for _, values in attempts]) if here else {}
    missing = sorted({s for s, _ in attempts if s not in local})
    found = _found(conn, "SELECT uid, id FROM sessions WHERE uid IN ({})", missing)
    local = {uid: int(sid) for uid, sid in {**local, **found}.items()}
    rows = []
    for session_uid, values in attempts:
        if values[UID] in present:
            done.present += 1
        elif (sid := local.get(session_uid)) is None:
            done.damaged += 1  # its session is in neither the file nor the history
        else:
            rows.append((sid, *values))
    _insert_rows(conn, rows)
    done.attempts += len(rows)


REBUILD_AT = 10_000  # new answers from which the indexes are built again rather than updated


def _insert_rows(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """INSERT every row. A batch of at least REBUILD_AT answers into a history holding fewer
    drops the attempts' indexes first and creates them again afterwards, from the very SQL
    they were made with, in the same transaction: building an index sorts its keys once,
    where 100,000 inserts walk nine B-trees each, the uid one in random order."""
    saved: list[str] = []
    if len(rows) >= REBUILD_AT and conn.execute("SELECT count(*) FROM attempts").fetchone()[0] < len(rows):
        found = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                             "AND tbl_name = 'attempts' AND sql IS NOT NULL").fetchall()
        for name, sql in found:
            conn.execute('DROP INDEX "{}"'.format(name.replace('"', '""')))
            saved.append(sql)
    _write(conn, rows)
    for sql in saved:
        conn.execute(sql)


# Most answers have no generator, params, misconceptions, self-grade, difficulty or scenario
# and were not overruled: a run of them is written with those columns as literals, binding 11
# values a row instead of 19 (binding the values is most of executemany's time).
INSERT_PLAIN = """INSERT INTO attempts(session_id, question_id, topic, kind, generator, params,
    verdict, given, expected, expected_value, misconceptions, seconds, self_grade, answered_at,
    difficulty, scenario, step, uid, overridden)
    VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, '[]', ?, NULL, ?, NULL, NULL, NULL, ?, 0)"""
_LITERALS = itemgetter(4, 5, 10, 12, 14, 15, 16, 18)  # in an INSERT_ATTEMPT row
_PLAIN = (None, None, "[]", None, None, None, None, 0)
_BOUND = itemgetter(0, 1, 2, 3, 6, 7, 8, 9, 11, 13, 17)
RUN = 32  # plain rows in a row from which INSERT_PLAIN takes them


def _write(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """``executemany(INSERT_ATTEMPT, rows)``, the same rows in the same order, each run of
    at least RUN plain rows written with INSERT_PLAIN."""
    plain = [_LITERALS(row) == _PLAIN for row in rows]
    start = i = 0
    while True:
        try:
            i = plain.index(True, i)
        except ValueError:
            break
        try:
            end = plain.index(False, i)
        except ValueError:
            end = len(rows)
        if end - i >= RUN:
            if start < i:
                conn.executemany(INSERT_ATTEMPT, rows[start:i])
            conn.executemany(INSERT_PLAIN, map(_BOUND, rows[i:end]))
            start = end
        i = end
    if start < len(rows):
        conn.executemany(INSERT_ATTEMPT, rows[start:])


def _insert_one_by_one(conn: sqlite3.Connection, attempts: list[tuple[str, tuple[Any, ...]]],
                       local: dict[str, int], done: Merged, legacy: bool) -> None:
    """As ``_insert_batched``, looking for the same answer under another uid as it goes."""
    for session_uid, values in attempts:
        if conn.execute("SELECT 1 FROM attempts WHERE uid = ?", (values[UID],)).fetchone():
            done.present += 1
            continue
        sid = local.get(session_uid)
        if sid is None:
            row = conn.execute("SELECT id FROM sessions WHERE uid = ?",
                               (session_uid,)).fetchone()
            if row is None:
                done.damaged += 1
                continue
            sid = local[session_uid] = int(row[0])
        if _same_answer(conn, values, legacy):
            done.present += 1
            continue
        conn.execute(INSERT_ATTEMPT, (int(sid), *values))
        done.attempts += 1


def _same_answer(conn: sqlite3.Connection, values: tuple[Any, ...], legacy: bool) -> bool:
    """The same answer under another uid, where one side is an export from before uids
    existed (its uids come from the rows' content; the migration gave the same rows random
    ones): importing such a file (``legacy``), or a new export against answers a legacy file
    brought. Same question, verdict, seconds and time to the microsecond: the same answer.
    (Never between two new exports: a class report merges different people's files.)
    ``values``: the answer's row (drills.store.answer_rows.answer_row)."""
    return conn.execute(
        "SELECT 1 FROM attempts a JOIN sessions s ON s.id = a.session_id "
        "WHERE a.answered_at = ? AND a.question_id = ? AND a.verdict = ? AND a.seconds = ? "
        "AND (? OR s.options LIKE '%\"legacy_export\": true%')",
        (values[ANSWERED_AT], values[QUESTION_ID], values[VERDICT], values[SECONDS], legacy)
    ).fetchone() is not None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _session(conn: sqlite3.Connection, s: dict[str, Any], done: Merged) -> int:
    """The local id of session ``s``: created when it is not here; one here that never
    ended takes the file's end."""
    row = conn.execute("SELECT id, ended_at FROM sessions WHERE uid = ?", (s["uid"],)).fetchone()
    report = None if s["report"] is None else _json(s["report"])
    if row is not None:
        if row[1] is None and s["ended_at"] is not None:
            conn.execute("UPDATE sessions SET ended_at = ?, score = ?, total = ?, report = ? "
                         "WHERE id = ?", (s["ended_at"], s["score"], s["total"], report, row[0]))
            done.sessions_updated += 1
        return int(row[0])
    options = {**s["options"], "imported": True}
    cur = conn.execute(
        "INSERT INTO sessions(mode, seed, options, started_at, ended_at, score, total, report, "
        "uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (s["mode"], s["seed"], _json(options), s["started_at"], s["ended_at"], s["score"],
         s["total"], report, s["uid"]))
    done.sessions += 1
    return int(cur.lastrowid or 0)


def _card(conn: sqlite3.Connection, card: dict[str, Any]) -> int:
    """Store ``card`` when it is new here or its review state is later; 1 if it was."""
    row = conn.execute("SELECT updated_at, reviews, card FROM review_cards WHERE item_key = ?",
                       (card["item_key"],)).fetchone()
    theirs = (card["updated_at"], card["reviews"], card["card"])
    if row is not None and not theirs > _comparable(row):
        return 0
    conn.execute(
        """INSERT INTO review_cards(item_key, card, due, reviews, updated_at)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(item_key) DO UPDATE SET card = excluded.card, due = excluded.due,
               reviews = excluded.reviews, updated_at = excluded.updated_at""",
        (card["item_key"], card["card"], card["due"], card["reviews"], card["updated_at"]))
    return 1


def _comparable(row: tuple[Any, ...]) -> tuple[str, int, str]:
    """A stored card's (updated_at, reviews, card) with damaged values lowest, so any
    sound incoming state replaces a damaged one."""
    updated, reviews, text = row
    return (updated if isinstance(updated, str) else "",
            reviews if isinstance(reviews, int) and not isinstance(reviews, bool) else -1,
            text if isinstance(text, str) else "")
