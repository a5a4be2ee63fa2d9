"""Concept answers graded by a rubric, in the history: the verdict ``partial`` (a miss), the
learner's ``overridden`` verdict (migration 006, export, import, merge) and the wrong beliefs
of concept answers counted apart from the slips in ``drills stats``.

Every expected value is counted by hand from the rows each test records, never read back
from drills' own output.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from fsrs import Rating

from drills.store import VERDICTS, Attempt, Store
from drills.store import cards as rv
from drills.store import migrations as mig
from drills.store.attempt import attempt_from_row
from drills.store.history_export import export
from drills.store.history_import import read_export
from drills.store.merge import merge
from drills.store.progress import recent_topics, stats, topic_weights
from drills.store.verdicts import MISSES, RIGHT, is_right

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def no_fuzz(monkeypatch):
    monkeypatch.setattr(rv, "ENABLE_FUZZING", False)


@pytest.fixture
def store(drills_home):
    s = Store.open()
    yield s
    s.close()


def att(n: int = 0, **kw) -> Attempt:
    """An answer ``n`` minutes after T0 (a numeric one unless told)."""
    base = dict(question_id=f"q{n}", topic="normalization", kind="numeric", verdict="correct",
                given="0.8", expected="13/16", expected_value=0.8125, misconceptions=(),
                seconds=4.0, answered_at=T0 + timedelta(minutes=n))
    base.update(kw)
    return Attempt(**base)


def concept(n: int, verdict: str, beliefs: tuple[str, ...] = (), **kw) -> Attempt:
    base = dict(topic="ndcg-vs-mrr", kind="concept", verdict=verdict, given="some words",
                expected="the model answer", expected_value=None, misconceptions=beliefs)
    base.update(kw)
    return att(n, **base)


def due_of(store: Store, key: str) -> datetime:
    (text,) = store.conn.execute("SELECT due FROM review_cards WHERE item_key = ?",
                                 (key,)).fetchone()
    return datetime.fromisoformat(text)


# --- partial: a stored verdict, and a miss ----------------------------------------------------

def test_partial_is_a_verdict_and_a_miss():
    assert "partial" in VERDICTS and "partial" in MISSES
    assert "partial" not in RIGHT and not is_right("partial")
    assert concept(0, "partial").verdict == "partial"


def test_partial_rates_its_card_again_unless_self_graded():
    assert rv.rating_for(concept(0, "partial")) == Rating.Again
    assert rv.rating_for(concept(0, "partial", self_grade="good")) == Rating.Good
    assert rv.rating_for(concept(0, "partial", self_grade="hard")) == Rating.Hard


def test_a_partial_answer_comes_back_sooner_than_a_correct_one(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, concept(0, "partial", question_id="c-partial"))
    store.record_attempt(sid, concept(0, "correct", question_id="c-right"))
    assert due_of(store, "q:c-partial") < due_of(store, "q:c-right")


def test_stats_count_partial_as_a_miss(store):
    sid = store.start_session("practice", 1, {})
    # wrong, correct, partial, correct: 2 of 4 right; 1 right in a row at the end
    for n, verdict in enumerate(("wrong", "correct", "partial", "correct")):
        store.record_attempt(sid, concept(n, verdict))
    data = stats(store, T0 + timedelta(hours=1))
    assert (data["attempts"], data["correct"], data["accuracy"]) == (4, 2, 0.5)
    assert data["verdicts"] == {"correct": 2, "partial": 1, "wrong": 1}
    assert data["streak"]["correct"] == 1
    assert data["by_kind"]["concept"]["correct"] == 2


def test_partial_counts_half_a_miss_for_adaptive_practice(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, concept(0, "partial", topic="t"))
    store.record_attempt(sid, concept(1, "correct", topic="t"))
    assert recent_topics(store)["t"] == {"attempts": 2, "correct": 1, "misses": 0.5}
    # 1 + 3 * (0.5 + 1) / (2 + 2)
    assert topic_weights(store, ["t"])["t"] == pytest.approx(2.125)


# --- overridden: stored, checked, rated -----------------------------------------------------

def test_overridden_is_stored_and_false_unless_said(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, concept(0, "correct"))
    store.record_attempt(sid, concept(1, "correct", overridden=True))
    store.record_attempt(sid, concept(2, "wrong", overridden=True))
    rows = store.conn.execute("SELECT verdict, overridden FROM attempts ORDER BY id").fetchall()
    assert rows == [("correct", 0), ("correct", 1), ("wrong", 1)]


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_overridden_must_be_true_or_false(value):
    with pytest.raises(ValueError, match="overridden"):
        concept(0, "correct", overridden=value)


def test_a_belief_overruled_to_right_does_not_make_the_card_due_at_once(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, concept(0, "wrong", ("b1",), question_id="c-wrong"))
    store.record_attempt(sid, concept(0, "correct", ("b1",), question_id="c-overruled",
                                      overridden=True))
    assert due_of(store, "q:c-wrong") == T0  # a wrong belief: due at once
    assert due_of(store, "q:c-overruled") > T0  # the learner said it was right: rated Good


# --- migration 006 ----------------------------------------------------------------------------

def _history_at_005(home: Path, monkeypatch) -> None:
    """A history written by a drills whose last migration was 005_attempt_uid: one answer."""
    with monkeypatch.context() as m:
        m.setattr(mig, "MIGRATIONS", [s for s in mig.MIGRATIONS if s[0] <= "005_attempt_uid"])
        with Store.open(home) as s:
            sid = s.conn.execute(
                "INSERT INTO sessions(mode, seed, options, started_at, uid) VALUES "
                "('practice', 1, '{}', '2026-12-01T09:59:00.000000+00:00', ?)",
                (uuid.uuid4().hex,)).lastrowid
            s.conn.execute("INSERT INTO attempts(session_id, question_id, topic, kind, verdict, "
                           "answered_at, uid) VALUES (?, 'old', 'ndcg-vs-mrr', 'concept', "
                           "'correct', '2026-12-01T10:00:00.000000+00:00', ?)",
                           (sid, uuid.uuid4().hex))
    with sqlite3.connect(home / "drills.db") as raw:
        columns = {row[1] for row in raw.execute("PRAGMA table_info(attempts)")}
        assert "uid" in columns and "overridden" not in columns
        assert mig.pending(raw) == ["006_attempt_overridden"]


def test_a_history_at_005_gains_overridden_false_for_its_answers(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _history_at_005(home, monkeypatch)
    with Store.open(home) as s:
        assert mig.pending(s.conn) == []
        names = [r[0] for r in s.conn.execute("SELECT name FROM migrations ORDER BY rowid")]
        assert names[-1] == "006_attempt_overridden"
        (column,) = [r for r in s.conn.execute("PRAGMA table_info(attempts)")
                     if r[1] == "overridden"]
        assert (column[2], column[3], column[4]) == ("INTEGER", 1, "0")  # type, NOT NULL, default
        indexes = {r[0] for r in s.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts'")}
        # stats reads the kind of answers with misconceptions from a covering index
        assert "attempts_misconceptions_by_kind" in indexes
        assert "attempts_with_misconceptions" not in indexes
        s.record_attempt(1, concept(0, "correct", question_id="new", overridden=True))
        rows = s.conn.execute("SELECT question_id, overridden FROM attempts ORDER BY id").fetchall()
        buf = io.StringIO()
        export(s, "json", buf)
        text = io.StringIO()
        export(s, "csv", text)
    assert rows == [("old", 0), ("new", 1)]
    assert [a["overridden"] for a in json.loads(buf.getvalue())["attempts"]] == [False, True]
    assert [r["overridden"] for r in csv.DictReader(io.StringIO(text.getvalue()))] == \
        ["false", "true"]


def test_a_history_at_005_read_where_it_cannot_be_migrated(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _history_at_005(home, monkeypatch)

    def read_only_file(path, *_):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Store, "_open_checked", staticmethod(read_only_file))
    with Store.open(home, readonly=True) as s:
        assert s.memory
        buf = io.StringIO()
        export(s, "json", buf)
    (row,) = json.loads(buf.getvalue())["attempts"]
    assert (row["question_id"], row["overridden"]) == ("old", False)


# --- export, import, merge --------------------------------------------------------------------

def _row(**kw) -> dict:
    row = {"uid": uuid.uuid4().hex, "question_id": "c1", "topic": "ndcg-vs-mrr",
           "kind": "concept", "verdict": "correct", "misconceptions": [], "seconds": 3.0}
    row.update(kw)
    return row


def test_an_imported_answer_without_overridden_was_not_overruled():
    assert attempt_from_row(_row(), T0).overridden is False
    assert attempt_from_row(_row(overridden=True), T0).overridden is True
    assert attempt_from_row(_row(overridden=False), T0).overridden is False


@pytest.mark.parametrize("value", [1, 0, "true", None, [], {}])
def test_an_imported_overridden_that_is_not_a_bool_is_refused(value):
    with pytest.raises(ValueError, match="overridden must be true or false"):
        attempt_from_row(_row(overridden=value), T0)


def test_an_imported_partial_verdict_is_read():
    assert attempt_from_row(_row(verdict="partial"), T0).verdict == "partial"


def test_overridden_survives_export_and_import_and_a_bad_one_is_a_damaged_row(tmp_path):
    with Store.open(tmp_path / "a") as a:
        sid = a.start_session("practice", 1, {})
        a.record_attempt(sid, concept(0, "correct", ("b1",), overridden=True))
        a.record_attempt(sid, concept(1, "partial"))
        a.record_attempt(sid, concept(2, "wrong"))
        path = tmp_path / "a.json"
        with path.open("w") as out:
            export(a, "json", out)
    data = json.loads(path.read_text())
    assert [(r["verdict"], r["overridden"]) for r in data["attempts"]] == \
        [("correct", True), ("partial", False), ("wrong", False)]
    data["attempts"][2]["overridden"] = "yes"  # not a bool: that row is damaged
    path.write_text(json.dumps(data))
    with Store.open(tmp_path / "b") as b:
        done = merge(b, read_export(str(path)))
        rows = b.conn.execute("SELECT verdict, misconceptions, overridden FROM attempts "
                              "ORDER BY answered_at").fetchall()
        assert (done.attempts, done.damaged) == (2, 1)
        assert merge(b, read_export(str(path))).present == 2  # again: nothing added
    assert rows == [("correct", '["b1"]', 1), ("partial", "[]", 0)]


def test_an_old_export_without_overridden_imports_as_not_overruled(tmp_path):
    with Store.open(tmp_path / "a") as a:
        sid = a.start_session("practice", 1, {})
        a.record_attempt(sid, concept(0, "correct"))
        path = tmp_path / "old.json"
        with path.open("w") as out:
            export(a, "json", out)
    data = json.loads(path.read_text())
    for row in data["attempts"]:  # as a drills from before 006 wrote it
        del row["overridden"]
    data["attempt_columns"].remove("overridden")
    path.write_text(json.dumps(data))
    with Store.open(tmp_path / "b") as b:
        assert merge(b, read_export(str(path))).attempts == 1
        assert b.conn.execute("SELECT overridden FROM attempts").fetchall() == [(0,)]


def test_a_stored_overridden_other_than_0_or_1_is_left_out_of_the_export(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, concept(0, "correct"))
    store.record_attempt(sid, concept(1, "correct"))
    store.conn.execute("UPDATE attempts SET overridden = 7 WHERE id = 2")  # damage
    buf = io.StringIO()
    assert export(store, "json", buf) == 1
    assert store.skipped == {"attempts": {2}}


# --- wrong beliefs apart from slips in drills stats -------------------------------------------

BELIEFS = {"ndcg_single_equals_rr": 3, "rr_uses_grades": 2, "b3": 1, "b4": 1, "b5": 1, "b6": 1}


def _mixed(store: Store) -> None:
    """Slips on numeric answers (linear_gain 2, log2_rank 1: an answer counts its primary, first,
    slip only) and BELIEFS on concept answers (each belief counts; ndcg_single_equals_rr also
    once beside another belief); one id in both: "shared"."""
    sid = store.start_session("practice", 1, {})
    n = 0
    for slips in (("linear_gain",), ("linear_gain", "log2_rank"), ("log2_rank", "linear_gain"),
                  ("shared",)):
        store.record_attempt(sid, att(n, verdict="wrong", misconceptions=slips))
        n += 1
    store.record_attempt(sid, concept(n, "wrong", ("ndcg_single_equals_rr", "rr_uses_grades")))
    store.record_attempt(sid, concept(n + 1, "wrong", ("ndcg_single_equals_rr",), topic="mrr"))
    store.record_attempt(sid, concept(n + 2, "wrong", ("ndcg_single_equals_rr", "shared")))
    store.record_attempt(sid, concept(n + 3, "wrong", ("rr_uses_grades",)))
    for i, b in enumerate(("b3", "b4", "b5", "b6")):
        store.record_attempt(sid, concept(n + 4 + i, "wrong", (b,)))


def test_stats_count_wrong_beliefs_apart_from_slips(store):
    _mixed(store)
    data = stats(store, T0 + timedelta(hours=1))
    assert data["misconceptions"] == {"linear_gain": 2, "log2_rank": 1, "shared": 1}
    assert list(data["misconceptions"]) == ["linear_gain", "log2_rank", "shared"]
    assert data["wrong_beliefs"] == {**BELIEFS, "shared": 1}
    assert list(data["wrong_beliefs"])[:2] == ["ndcg_single_equals_rr", "rr_uses_grades"]
    nxt = data["practise_next"]
    assert [(m["id"], m["count"]) for m in nxt["misconceptions"]] == \
        [("linear_gain", 2), ("log2_rank", 1), ("shared", 1)]
    assert nxt["misconceptions"][2]["topics"] == ["normalization"]  # the slip's own topic only
    assert [(m["id"], m["count"]) for m in nxt["wrong_beliefs"]] == \
        [("ndcg_single_equals_rr", 3), ("rr_uses_grades", 2), ("b3", 1), ("b4", 1), ("b5", 1)]
    assert sorted(nxt["wrong_beliefs"][0]["topics"]) == ["mrr", "ndcg-vs-mrr"]


def test_stats_without_concept_answers_have_no_wrong_beliefs(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, att(0, verdict="wrong", misconceptions=("linear_gain",)))
    data = stats(store, T0)
    assert data["wrong_beliefs"] == {} and data["practise_next"]["wrong_beliefs"] == []
    assert data["misconceptions"] == {"linear_gain": 1}
