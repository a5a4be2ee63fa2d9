"""The history store: schema and migrations, recording, recovery, stats, export, weights."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from drills.store import Attempt, Store, StoreError
from drills.store import migrations as mig
from drills.store.connection import connect, set_wal
from drills.store.history_export import COLUMNS, export
from drills.store.progress import stats, topic_weights

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)


def att(**kw) -> Attempt:
    base = dict(question_id="q1", topic="normalization", kind="numeric", verdict="correct",
                given="0.8", expected="13/16", expected_value=0.8125, misconceptions=(),
                seconds=4.5)
    base.update(kw)
    return Attempt(**base)


@pytest.fixture
def store(drills_home):
    s = Store.open()
    yield s
    s.close()


# --- open, schema, migrations ---------------------------------------------------------

def test_open_creates_nested_home_and_records_migrations(tmp_path):
    home = tmp_path / "a" / "b" / "c"
    with Store.open(home) as s:
        assert (home / "drills.db").is_file()
        names = [r[0] for r in s.conn.execute("SELECT name FROM migrations ORDER BY rowid")]
        assert names == [name for name, _ in mig.MIGRATIONS]
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
        assert s.notice is None


def test_open_uses_drills_home(drills_home):
    with Store.open() as s:
        assert s.path == drills_home / "drills.db"


def test_reopen_applies_nothing_twice(store):
    assert mig.migrate(store.conn) == []
    assert mig.pending(store.conn) == []


def test_new_migration_runs_once_in_order(store, monkeypatch):
    calls = []
    extra = list(mig.MIGRATIONS) + [
        ("900_test_sql", "CREATE TABLE t1 (x INTEGER);\nINSERT INTO t1 VALUES (1);"),
        ("901_test_callable", lambda conn: calls.append(conn.execute("SELECT x FROM t1").fetchone())),
    ]
    monkeypatch.setattr(mig, "MIGRATIONS", extra)
    assert mig.migrate(store.conn) == ["900_test_sql", "901_test_callable"]
    assert calls == [(1,)]
    assert mig.migrate(store.conn) == []
    assert not store.conn.in_transaction


def test_failing_migration_rolls_back_everything(store, monkeypatch):
    def boom(conn):
        raise RuntimeError("boom")

    monkeypatch.setattr(mig, "MIGRATIONS", list(mig.MIGRATIONS) + [
        ("900_ok", "CREATE TABLE t2 (x INTEGER);"), ("901_boom", boom)])
    with pytest.raises(RuntimeError):
        mig.migrate(store.conn)
    assert mig.pending(store.conn) == ["900_ok", "901_boom"]
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert "t2" not in tables


def test_duplicate_migration_name_is_refused():
    with pytest.raises(ValueError, match="duplicate"):
        mig.migration(mig.MIGRATIONS[0][0], "SELECT 1;")


def test_indexes_exist_for_stats(store):
    names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"attempts_summary", "attempts_session", "attempts_answered_at",
            "attempts_verdict", "attempts_misconceptions_by_kind", "review_cards_due"} <= names
    assert "attempts_with_misconceptions" not in names  # 006 replaced it


# --- unwritable and corrupt -----------------------------------------------------------

def _locked_rollback_db(path: Path) -> sqlite3.Connection:
    holder = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def test_switch_to_wal_waits_for_a_lock_the_busy_handler_skips(tmp_path):
    # Two processes creating the db at once: PRAGMA journal_mode = WAL fails with
    # SQLITE_BUSY at once. With busy_timeout 0 only set_wal's own retry does the waiting.
    path = tmp_path / "x.db"
    holder = _locked_rollback_db(path)
    conn = connect(path)
    conn.execute("PRAGMA busy_timeout = 0")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        assert set_wal(conn, timeout_s=30) == "wal"
    finally:
        release.join()
        holder.close()
        conn.close()


def test_switch_to_wal_gives_up_after_its_timeout(tmp_path):
    path = tmp_path / "x.db"
    holder = _locked_rollback_db(path)
    conn = connect(path)
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            set_wal(conn, timeout_s=0.2)
    finally:
        holder.close()
        conn.close()


def test_home_under_a_regular_file_is_a_clear_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    with pytest.raises(StoreError) as err:
        Store.open(blocker / "home")
    message = str(err.value)
    assert "\n" not in message
    assert str(blocker / "home") in message
    assert "cannot create" in message and "DRILLS_HOME" in message


def test_db_path_that_is_a_directory_is_a_store_error(tmp_path):
    (tmp_path / "h" / "drills.db").mkdir(parents=True)
    with pytest.raises(StoreError) as err:
        Store.open(tmp_path / "h")
    assert "\n" not in str(err.value) and "drills.db" in str(err.value)


def test_corrupt_db_is_moved_aside_with_wal_and_shm(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    (home / "drills.db").write_bytes(b"this is not sqlite at all " * 200)
    (home / "drills.db-wal").write_bytes(b"junk wal")
    (home / "drills.db-shm").write_bytes(b"junk shm")
    with Store.open(home) as s:
        assert s.notice is not None and "\n" not in s.notice
        moved = [p for p in home.iterdir() if ".corrupt-" in p.name]
        main = [p for p in moved if not p.name.endswith(("-wal", "-shm"))]
        assert len(main) == 1 and str(main[0]) in s.notice
        assert main[0].read_bytes().startswith(b"this is not sqlite")
        assert Path(str(main[0]) + "-wal").read_bytes() == b"junk wal"
        assert Path(str(main[0]) + "-shm").exists()  # its content is a rebuilt index anyway
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, att())
        assert stats(s)["attempts"] == 1
    with Store.open(home) as s:  # the fresh one opens cleanly next time
        assert s.notice is None


def test_two_corruptions_get_distinct_names(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    for _ in range(2):
        (home / "drills.db").write_bytes(b"\x00garbage" * 100)
        for name in ("drills.db-wal", "drills.db-shm"):
            (home / name).unlink(missing_ok=True)
        Store.open(home).close()
    assert len([p for p in home.iterdir() if ".corrupt-" in p.name]) == 2


# --- recording ------------------------------------------------------------------------

def test_session_and_attempt_round_trip(store):
    sid = store.start_session("mock", 42, {"count": 5, "packs": ["core"]})
    store.record_attempt(sid, att(
        question_id="g1", kind="generated", verdict="wrong", misconceptions=["log2_rank"],
        generator="ndcg_at_k", params={"rel": [3, 2, 0], "k": 3}, answered_at=NOW))
    store.record_attempt(sid, att(question_id="c1", kind="concept", verdict="correct",
                                  given=None, expected=None, expected_value=None,
                                  self_grade="good",
                                  answered_at=datetime(2026, 12, 2, 12, 1)))  # naive = UTC
    store.end_session(sid, 1, 2, {"counts": {"correct": 1}})
    row = store.conn.execute("SELECT mode, seed, options, ended_at, score, total, report "
                             "FROM sessions").fetchone()
    assert row[:2] == ("mock", 42)
    assert json.loads(row[2]) == {"count": 5, "packs": ["core"]}
    assert row[3] is not None and row[4:6] == (1, 2)
    assert json.loads(row[6]) == {"counts": {"correct": 1}}
    rows = store.conn.execute("SELECT question_id, generator, params, misconceptions, "
                              "self_grade, answered_at FROM attempts ORDER BY id").fetchall()
    assert rows[0][:2] == ("g1", "ndcg_at_k")
    assert json.loads(rows[0][2]) == {"k": 3, "rel": [3, 2, 0]}
    assert json.loads(rows[0][3]) == ["log2_rank"]
    assert rows[0][5] == "2026-12-02T12:00:00.000000+00:00"
    assert rows[1][2] is None and rows[1][4] == "good"
    assert rows[1][5] == "2026-12-02T12:01:00.000000+00:00"


def test_attempt_defaults_to_now_and_is_committed_at_once(store, drills_home):
    sid = store.start_session("practice", None, {})
    before = datetime.now(timezone.utc)
    store.record_attempt(sid, att())
    other = sqlite3.connect(drills_home / "drills.db")  # a second reader sees it committed
    (when,) = other.execute("SELECT answered_at FROM attempts").fetchone()
    other.close()
    assert datetime.fromisoformat(when) >= before - timedelta(seconds=1)
    assert not store.conn.in_transaction


def test_attempt_validates_verdict_and_self_grade():
    with pytest.raises(ValueError, match="verdict"):
        att(verdict="invalid")
    with pytest.raises(ValueError, match="self_grade"):
        att(self_grade="meh")
    assert att(misconceptions=["a", "b"]).misconceptions == ("a", "b")


def test_retry_rounds_are_a_session_mode(store):
    sid = store.start_session("retry", 7, {"of": 1})
    assert store.conn.execute("SELECT mode FROM sessions WHERE id = ?", (sid,)).fetchone() == ("retry",)


def test_bad_mode_and_unknown_session(store):
    with pytest.raises(ValueError):
        store.start_session("exam", None, {})
    with pytest.raises(StoreError, match="no session"):
        store.end_session(999, 0, 0, {})


def test_write_failure_is_a_store_error_and_leaves_no_transaction(store):
    with pytest.raises(StoreError, match="could not save"):
        store.record_attempt(12345, att())  # no such session: foreign key fails
    assert not store.conn.in_transaction
    assert store.conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM review_cards").fetchone()[0] == 0


def test_bulk_record(store):
    sid = store.start_session("practice", 1, {})
    assert store.record_attempts(sid, [att(question_id=f"q{i}") for i in range(50)]) == 50
    assert stats(store)["attempts"] == 50


# --- stats ----------------------------------------------------------------------------

def _fill(store: Store) -> None:
    s1 = store.start_session("practice", 1, {})
    for v, t, k, m in [("correct", "normalization", "numeric", ()),
                       ("wrong", "normalization", "numeric", ("log2_rank",)),
                       ("wrong", "hand-computation", "generated", ("log2_rank", "linear_gain")),
                       ("close", "hand-computation", "numeric", ())]:
        store.record_attempt(s1, att(verdict=v, topic=t, kind=k, misconceptions=m,
                                     answered_at=NOW - timedelta(days=1), seconds=2))
    s2 = store.start_session("practice", 2, {})
    store.start_session("practice", 3, {})  # an empty session is not counted
    for _ in range(3):
        store.record_attempt(s2, att(topic="conventions", kind="choice", answered_at=NOW,
                                     seconds=6))


def test_stats_aggregates(store):
    _fill(store)
    data = stats(store, NOW)
    assert data["attempts"] == 7 and data["correct"] == 4 and data["sessions"] == 2
    assert data["by_topic"]["normalization"] == {"attempts": 2, "correct": 1, "accuracy": 0.5,
                                                 "mean_seconds": 2.0}
    assert data["by_kind"]["choice"]["correct"] == 3
    # one answer, one slip: the answer naming log2_rank and linear_gain counts its first only
    assert data["misconceptions"] == {"log2_rank": 2}
    assert data["verdicts"] == {"close": 1, "correct": 4, "wrong": 2}
    assert data["mean_seconds"] == round((4 * 2 + 3 * 6) / 7, 2)
    assert [t["accuracy"] for t in data["trend"]] == [0.25, 1.0]
    assert data["streak"]["correct"] == 3
    slips = data["practise_next"]["misconceptions"]
    assert slips[0]["id"] == "log2_rank"
    assert set(slips[0]["topics"]) == {"normalization", "hand-computation"}
    weak = [t["topic"] for t in data["practise_next"]["topics"]]
    assert weak == []  # each weak topic has only 2 answers (< MIN_ATTEMPTS)


def test_stats_empty(store):
    data = stats(store)
    assert data["attempts"] == 0 and data["sessions"] == 0 and data["mean_seconds"] is None
    assert data["by_topic"] == {} and data["misconceptions"] == {} and data["trend"] == []
    assert data["streak"] == {"days": 0, "correct": 0}


def test_day_streak_counts_consecutive_local_days(store):
    sid = store.start_session("practice", 1, {})
    now = datetime.now().astimezone().replace(hour=12, minute=0)  # local noon: DST-proof
    for days_ago in (0, 1, 2, 4):
        store.record_attempt(sid, att(answered_at=now - timedelta(days=days_ago)))
    assert stats(store, now)["streak"]["days"] == 3
    assert stats(store, now + timedelta(days=1))["streak"]["days"] == 3  # alive until tomorrow
    assert stats(store, now + timedelta(days=2))["streak"]["days"] == 0


def test_practise_next_names_weak_topics(store):
    sid = store.start_session("practice", 1, {})
    for i in range(5):
        store.record_attempt(sid, att(topic="lambdarank", verdict="wrong" if i else "correct"))
        store.record_attempt(sid, att(topic="conventions"))
    weak = stats(store)["practise_next"]["topics"]
    assert weak == [{"topic": "lambdarank", "accuracy": 0.2, "attempts": 5}]


# --- adaptive weights -----------------------------------------------------------------

def test_topic_weights_follow_recent_misses(store):
    sid = store.start_session("practice", 1, {})
    for _ in range(8):
        store.record_attempt(sid, att(topic="weak", verdict="wrong"))
        store.record_attempt(sid, att(topic="strong", verdict="correct"))
    w = topic_weights(store, ["weak", "strong", "unseen"])
    assert w["weak"] == pytest.approx(1 + 3 * 9 / 10)
    assert w["strong"] == pytest.approx(1 + 3 * 1 / 10)
    assert w["unseen"] == pytest.approx(2.5)
    assert w["weak"] > w["unseen"] > w["strong"]


def test_topic_weights_only_look_at_recent_attempts(store):
    sid = store.start_session("practice", 1, {})
    for _ in range(10):
        store.record_attempt(sid, att(topic="t", verdict="wrong"))
    for _ in range(10):
        store.record_attempt(sid, att(topic="t", verdict="correct"))
    assert topic_weights(store, ["t"], recent=10)["t"] == pytest.approx(1 + 3 / 12)


# --- export ---------------------------------------------------------------------------

def test_export_csv_and_json_columns(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, att(verdict="wrong", misconceptions=("log2_rank", "linear_gain"),
                                  generator="ndcg_at_k", params={"k": 3}, answered_at=NOW))
    store.record_attempt(sid, att(given=None, expected_value=None))
    buf = io.StringIO()
    assert export(store, "csv", buf) == 2
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert tuple(rows[0]) == COLUMNS
    assert rows[0]["misconceptions"] == "log2_rank;linear_gain"
    assert json.loads(rows[0]["params"]) == {"k": 3}
    assert rows[0]["answered_at"] == "2026-12-02T12:00:00.000000+00:00"
    assert rows[1]["given"] == "" and rows[1]["expected_value"] == "" and rows[1]["params"] == ""
    buf = io.StringIO()
    export(store, "json", buf)
    data = json.loads(buf.getvalue())["attempts"]
    assert [tuple(d) for d in data] == [COLUMNS, COLUMNS]
    assert data[0]["misconceptions"] == ["log2_rank", "linear_gain"]
    assert data[0]["params"] == {"k": 3} and data[1]["params"] is None
    assert data[0]["attempt_id"] == 1 and data[0]["session_id"] == sid


def test_export_empty_json_has_empty_lists(store):
    buf = io.StringIO()
    assert export(store, "json", buf) == 0
    data = json.loads(buf.getvalue())
    assert data["drills_export"] == 1 and data["learner"] is None
    assert data["attempts"] == data["sessions"] == data["review_cards"] == []
    with pytest.raises(ValueError):
        export(store, "xml", buf)


def test_malformed_schema_page_is_moved_aside(tmp_path):
    home = tmp_path / "h"
    with Store.open(home) as s:
        s.start_session("practice", 1, {})
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray((home / "drills.db").read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # page 1 past the header: the schema b-tree
    (home / "drills.db").write_bytes(bytes(raw))
    with Store.open(home) as s:
        assert s.notice is not None and ".corrupt-" in s.notice
        assert s.start_session("practice", 1, {}) == 1


def test_a_schedule_failure_from_sqlite_is_said_in_words(store, monkeypatch):
    from drills.store import cards as review

    def locked(store, attempt, **kw):
        raise sqlite3.OperationalError("database table is locked")

    monkeypatch.setattr(review, "update_review", locked)
    sid = store.start_session("practice", 1, {})
    with pytest.raises(StoreError) as err:
        store.record_attempt(sid, att())
    assert str(err.value) == ("the answer was saved, but the review schedule of q:q1 could not "
                              "be updated: database table is locked")
    assert store.conn.execute("SELECT count(*) FROM attempts").fetchone() == (1,)


# --- difficulty: a nullable column added by migration 003 ----------------------------------

def _old_history(home: Path, monkeypatch) -> None:
    """A history written by a drills from before 003_attempt_difficulty: one answer."""
    with monkeypatch.context() as m:
        m.setattr(mig, "MIGRATIONS", [step for step in mig.MIGRATIONS
                                      if step[0] < "003_attempt_difficulty"])
        with Store.open(home) as s:
            sid = s.conn.execute(  # as that drills wrote it: no uid column yet
                "INSERT INTO sessions(mode, seed, options, started_at) VALUES "
                "('practice', 1, '{}', '2026-12-01T09:59:00.000000+00:00')").lastrowid
            s.conn.execute("INSERT INTO attempts(session_id, question_id, topic, kind, verdict, "
                           "answered_at) VALUES (?, 'old', 'normalization', 'numeric', "
                           "'correct', '2026-12-01T10:00:00.000000+00:00')", (sid,))


def test_an_old_history_gains_a_nullable_difficulty(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _old_history(home, monkeypatch)
    with Store.open(home) as s:
        assert mig.pending(s.conn) == []
        s.record_attempt(1, att(question_id="new", difficulty="hard"))
        rows = s.conn.execute("SELECT question_id, difficulty FROM attempts ORDER BY id").fetchall()
        assert rows == [("old", None), ("new", "hard")]
        buf = io.StringIO()
        export(s, "json", buf)
    assert COLUMNS[15:18] == ("difficulty", "scenario", "step")  # new columns go at the end
    assert COLUMNS[18:20] == ("uid", "session_uid")
    assert COLUMNS[20:] == ("overridden",)
    assert [d["difficulty"] for d in json.loads(buf.getvalue())["attempts"]] == [None, "hard"]


def test_an_old_history_that_cannot_be_migrated_is_read_from_a_copy(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _old_history(home, monkeypatch)

    def read_only_file(path, *_):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Store, "_open_checked", staticmethod(read_only_file))
    with Store.open(home, readonly=True) as s:
        assert s.memory and s.readonly
        data = stats(s, NOW)
        assert data["attempts"] == 1 and data["no_difficulty"] == 1
    with sqlite3.connect(home / "drills.db") as raw:  # the file itself is as it was
        assert mig.pending(raw) == ["003_attempt_difficulty", "004_attempt_scenario",
                                    "005_attempt_uid", "006_attempt_overridden"]


def test_the_queries_take_a_handle_not_the_store():
    # fields, cards, progress, schedule and sessions need only conn, reading and skip
    # (drills.store.connection.Handle): the Store that calls them is above them.
    from drills.store import cards, fields, progress, schedule, sessions
    from drills.store.home import empty_history

    class Bare:
        def __init__(self) -> None:
            self.conn = empty_history()
            self.skipped: list[tuple[str, int]] = []

        def reading(self, read):
            return read()

        def skip(self, table: str, rowid: int) -> None:
            self.skipped.append((table, rowid))

    bare = Bare()
    bare.conn.execute("INSERT INTO review_cards(item_key, card, due, reviews, updated_at) "
                      "VALUES ('q:x', '{}', 'not a date', 1, '2026-01-01')")
    assert cards.due_count(bare) == 0 and cards.due_items(bare) == []
    fields.count_damaged_cards(bare)
    assert set(bare.skipped) == {("review_cards", 1)}
    assert progress.stats(bare)["attempts"] == 0
    assert schedule.next_due_day(bare) is None
    assert sessions.list_sessions(bare) == ([], 0)
