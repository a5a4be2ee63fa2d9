"""Spaced review: item keys, ratings, FSRS schedules, and the ``drills review`` command."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from fsrs import Rating, State

from drills.cli import cli
from drills.cli.review import human_when
from drills.store import Attempt, Store
from drills.store import review as rv

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def no_fuzz(monkeypatch):
    monkeypatch.setattr(rv, "ENABLE_FUZZING", False)


@pytest.fixture
def store(drills_home):
    s = Store.open()
    yield s
    s.close()


def att(**kw) -> Attempt:
    base = dict(question_id="q1", topic="normalization", kind="numeric", verdict="correct",
                given="1", expected="1", expected_value=1.0, misconceptions=(), seconds=3.0,
                answered_at=T0)
    base.update(kw)
    return Attempt(**base)


def record(store: Store, *attempts: Attempt) -> None:
    sid = store.start_session("practice", 1, {})
    for a in attempts:
        store.record_attempt(sid, a)


def due_of(store: Store, key: str) -> datetime:
    (text,) = store.conn.execute("SELECT due FROM review_cards WHERE item_key = ?",
                                 (key,)).fetchone()
    return datetime.fromisoformat(text)


def test_item_keys():
    assert rv.item_key(att(question_id="ndcg-basics-1")) == "q:ndcg-basics-1"
    generated = att(question_id="gen-7", kind="generated", generator="ndcg_at_k",
                    topic="hand-computation")
    assert rv.item_key(generated) == "skill:ndcg_at_k:hand-computation"


@pytest.mark.parametrize("verdict, grade, rating", [
    ("correct", None, Rating.Good), ("close", None, Rating.Again), ("wrong", None, Rating.Again),
    ("timeout", None, Rating.Again), ("skipped", None, Rating.Again),
    ("wrong", "again", Rating.Again), ("wrong", "hard", Rating.Hard),
    ("correct", "good", Rating.Good), ("correct", "easy", Rating.Easy),
])
def test_ratings(verdict, grade, rating):
    assert rv.rating_for(att(verdict=verdict, self_grade=grade)) == rating


def test_wrong_answer_comes_back_sooner_than_correct(store):
    record(store, att(question_id="right"), att(question_id="miss", verdict="wrong"))
    assert due_of(store, "q:miss") < due_of(store, "q:right")
    assert rv.due_items(store, T0 + timedelta(minutes=2)) == ["q:miss"]
    assert rv.due_items(store, T0 + timedelta(minutes=11)) == ["q:miss", "q:right"]


def test_diagnosed_misconception_is_due_at_once(store):
    record(store, att(question_id="plain", verdict="wrong"),
           att(question_id="slip", verdict="wrong", misconceptions=("log2_rank",)))
    assert due_of(store, "q:slip") == T0
    assert due_of(store, "q:slip") < due_of(store, "q:plain")
    assert rv.due_items(store, T0) == ["q:slip"]


def test_repeated_success_spaces_reviews_out(store):
    when = T0
    intervals = []
    for _ in range(5):
        record(store, att(answered_at=when))
        nxt = due_of(store, "q:q1")
        intervals.append(nxt - when)
        when = nxt
    assert intervals == sorted(intervals) and intervals[-1] > timedelta(days=7)
    card = rv.load_card(store, "q:q1")
    assert card is not None and card.state == State.Review
    assert store.conn.execute("SELECT reviews FROM review_cards").fetchone()[0] == 5


def test_a_lapse_after_learning_brings_it_back_within_the_day(store):
    record(store, att(answered_at=T0), att(answered_at=T0 + timedelta(minutes=10)))
    learned = due_of(store, "q:q1")
    assert learned - T0 > timedelta(days=1)
    record(store, att(verdict="wrong", answered_at=learned))
    assert due_of(store, "q:q1") - learned <= timedelta(hours=1)


def test_generated_variants_share_one_skill_card(store):
    record(store, *(att(question_id=f"gen-{i}", kind="generated", generator="dcg_at_k",
                        topic="hand-computation", verdict="wrong") for i in range(3)))
    assert rv.due_items(store, T0 + timedelta(hours=1)) == ["skill:dcg_at_k:hand-computation"]
    assert store.conn.execute("SELECT reviews FROM review_cards").fetchone()[0] == 3


def test_self_grades_drive_the_schedule(store):
    record(store, att(question_id="a", kind="concept", verdict="wrong", self_grade="again"),
           att(question_id="e", kind="concept", verdict="correct", self_grade="easy"))
    assert due_of(store, "q:a") - T0 == timedelta(minutes=1)
    assert due_of(store, "q:e") - T0 >= timedelta(days=1)


def test_due_items_order_limit_and_next_due(store):
    record(store, att(question_id="a", verdict="wrong"),                       # +1 min
           att(question_id="b", verdict="correct"),                            # +10 min
           att(question_id="c", verdict="wrong", answered_at=T0 - timedelta(hours=1)))
    later = T0 + timedelta(hours=1)
    assert rv.due_items(store, later) == ["q:c", "q:a", "q:b"]
    assert rv.due_items(store, later, limit=2) == ["q:c", "q:a"]
    assert rv.due_count(store, T0 + timedelta(minutes=5)) == 2
    assert rv.next_due(store) == T0 - timedelta(hours=1) + timedelta(minutes=1)
    assert rv.next_due(store, after=T0 + timedelta(minutes=5)) == T0 + timedelta(minutes=10)
    assert rv.next_due(store, after=later) is None
    assert rv.forget(store, "q:c") and not rv.forget(store, "q:c")


def test_card_update_is_in_the_attempt_transaction(store, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("scheduler failed")

    monkeypatch.setattr(rv, "rating_for", broken)
    sid = store.start_session("practice", 1, {})
    with pytest.raises(RuntimeError):
        store.record_attempt(sid, att())
    assert store.conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 0


# --- the command ------------------------------------------------------------------------

def test_human_when():
    now = T0
    assert human_when(now + timedelta(days=2), now) == "in 2 days (2026-12-04 09:00 UTC)"
    assert human_when(now + timedelta(hours=1), now) == "in 1 hour (2026-12-02 10:00 UTC)"
    assert human_when(now + timedelta(minutes=10), now) == "in 10 minutes (2026-12-02 09:10 UTC)"
    assert human_when(now + timedelta(seconds=5), now).startswith("now (")


def test_review_with_no_history():
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0
    assert result.output.startswith("Nothing is due. No reviews are scheduled yet")


def test_review_nothing_due_says_when(store):
    now = datetime.now(timezone.utc)
    record(store, att(answered_at=now), att(answered_at=now + timedelta(seconds=1)))
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Nothing is due. Next review: in ")
    assert "days (" in result.output and "UTC)" in result.output


def test_review_calls_the_practice_hook_with_due_keys(store, monkeypatch):
    import drills.cli.practice as practice

    record(store, att(question_id="a", verdict="wrong", answered_at=T0),
           att(question_id="b", verdict="wrong", answered_at=T0 + timedelta(seconds=1)),
           att(question_id="ok", answered_at=datetime.now(timezone.utc)))
    calls = []
    monkeypatch.setattr(practice, "run_review", lambda keys, count: calls.append((keys, count)),
                        raising=False)
    result = CliRunner().invoke(cli, ["review", "--count", "5"])
    assert result.exit_code == 0, result.output
    assert calls == [(["q:a", "q:b"], 5)]


def test_review_hook_exit_code_is_passed_on(store, monkeypatch):
    import drills.cli.practice as practice

    record(store, att(verdict="wrong"))
    monkeypatch.setattr(practice, "run_review", lambda keys, count: 3, raising=False)
    assert CliRunner().invoke(cli, ["review"]).exit_code == 3


def test_review_list_shows_due_keys_without_asking(store, monkeypatch):
    import drills.cli.practice as practice

    record(store, *(att(question_id=f"q{i}", verdict="wrong") for i in range(4)))
    monkeypatch.setattr(practice, "run_review", lambda *a: pytest.fail("asked"), raising=False)
    result = CliRunner().invoke(cli, ["review", "--list", "--count", "2"])
    assert result.exit_code == 0
    assert result.output.splitlines() == ["4 items due for review (showing 2):", "  q:q0", "  q:q1"]


def test_review_lists_when_the_hook_is_missing(store, monkeypatch):
    import drills.cli.review as cmd

    record(store, att(verdict="wrong"))
    monkeypatch.setattr(cmd, "_hook", lambda: None)
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0
    assert "q:q1" in result.output
