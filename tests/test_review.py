"""Spaced review: item keys, ratings, FSRS schedules, and the ``drills review`` command."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from fsrs import Rating, State

from drills.cli import cli
from drills.cli.quiz.due import resolve
from drills.cli.review.review import PROMPT_WIDTH
from drills.cli.style import human_when
from drills.store import Attempt, Store, StoreError
from drills.store import cards as rv

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
    assert rv.due_cards(store, later) == [("q:c", T0 - timedelta(hours=1) + timedelta(minutes=1)),
                                          ("q:a", T0 + timedelta(minutes=1)),
                                          ("q:b", T0 + timedelta(minutes=10))]


def test_card_update_commits_with_the_attempt(store):
    sid = store.start_session("practice", 1, {})
    store.conn.execute("BEGIN IMMEDIATE")
    store.record_attempt(sid, att())  # joins the open transaction
    store.conn.execute("ROLLBACK")
    assert store.conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM review_cards").fetchone()[0] == 0


# --- a card that cannot be read or updated never costs the answer -----------------------

def set_card(store: Store, key: str, text: str) -> None:
    store.conn.execute("UPDATE review_cards SET card = ? WHERE item_key = ?", (text, key))


def count(store: Store, table: str) -> int:
    return store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


GOOD_CARD = {"card_id": 1, "state": 2, "step": None, "stability": 30.0, "difficulty": 5.0,
             "due": "2026-12-02T09:00:00+00:00", "last_review": "2026-11-02T09:00:00+00:00"}


@pytest.mark.parametrize("damage", [
    "{bad", "", "null", "[]", "{}", '"text"', "42",
    json.dumps(dict(GOOD_CARD, state=7)),                       # no such State
    json.dumps(dict(GOOD_CARD, due="yesterday")),                # unparsable date
    json.dumps(dict(GOOD_CARD, stability=None)),                 # fsrs asserts: Review, no stability
    json.dumps(dict(GOOD_CARD, last_review="2026-11-02T09:00:00")),  # naive vs aware
    json.dumps(dict(GOOD_CARD, state=1, step="one")),            # a Learning step that is no number
], ids=lambda d: d[:40] or "empty")
def test_a_damaged_card_is_rebuilt_as_new(store, damage):
    record(store, att(answered_at=T0 - timedelta(days=3)))
    set_card(store, "q:q1", damage)
    assert rv.load_card(store, "q:q1") is None or damage.startswith("{\"card_id\"")
    record(store, att(verdict="wrong"))                          # no exception
    assert count(store, "attempts") == 2
    card = rv.load_card(store, "q:q1")
    assert card is not None and card.state == State.Learning and card.card_id == rv.card_id("q:q1")
    assert due_of(store, "q:q1") == T0 + timedelta(minutes=1)    # a new card missed once
    assert store.conn.execute("SELECT reviews FROM review_cards").fetchone()[0] == 2


def test_a_good_stored_card_is_still_used(store):
    record(store, att(answered_at=T0 - timedelta(days=30)))
    set_card(store, "q:q1", json.dumps(GOOD_CARD))
    record(store, att())
    card = rv.load_card(store, "q:q1")
    assert card is not None and card.state == State.Review and due_of(store, "q:q1") - T0 > timedelta(days=30)


def test_a_failed_card_update_keeps_the_attempt(store, monkeypatch):
    record(store, att(answered_at=T0 - timedelta(days=1)))
    before = store.conn.execute("SELECT card, due, reviews FROM review_cards").fetchall()

    def broken(*args, **kwargs):
        raise RuntimeError("scheduler failed\nsecond line")

    monkeypatch.setattr(rv, "rating_for", broken)
    sid = store.start_session("practice", 1, {})
    with pytest.raises(StoreError) as info:
        store.record_attempt(sid, att())
    assert isinstance(info.value, rv.ReviewError)
    assert str(info.value) == ("the answer was saved, but the review schedule of q:q1 could not "
                               "be updated: RuntimeError: scheduler failed second line")
    assert count(store, "attempts") == 2 and not store.conn.in_transaction
    assert store.conn.execute("SELECT card, due, reviews FROM review_cards").fetchall() == before
    monkeypatch.undo()
    monkeypatch.setattr(rv, "ENABLE_FUZZING", False)
    store.record_attempt(sid, att(question_id="next"))  # the store carries on
    assert count(store, "attempts") == 3 and count(store, "review_cards") == 2


def test_a_sqlite_error_in_the_card_update_keeps_the_attempt(store):
    sid = store.start_session("practice", 1, {})
    store.conn.execute("DROP TABLE review_cards")
    with pytest.raises(rv.ReviewError, match="no such table: review_cards"):
        store.record_attempt(sid, att())
    assert count(store, "attempts") == 1


def test_bulk_insert_keeps_every_answer_when_cards_fail(store, monkeypatch):
    real = rv.rating_for
    monkeypatch.setattr(rv, "rating_for",
                        lambda a: (_ for _ in ()).throw(RuntimeError("boom")) if a.question_id != "ok"
                        else real(a))
    sid = store.start_session("practice", 1, {})
    with pytest.raises(rv.ReviewError, match=r"q:a could not be updated: RuntimeError: boom \(and 1 more\)"):
        store.record_attempts(sid, [att(question_id="a"), att(question_id="ok"), att(question_id="b")])
    assert count(store, "attempts") == 3
    assert rv.due_items(store, T0 + timedelta(days=1)) == ["q:ok"]


def test_practice_with_a_damaged_card_goes_on(store):
    qid = "norm-idcg-at-2"
    record(store, att(question_id=qid, topic="normalization", answered_at=T0 - timedelta(days=1)))
    set_card(store, f"q:{qid}", "{not json")
    result = CliRunner().invoke(cli, ["review"], input=":skip\n")
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output and "Session over." in result.output
    assert count(store, "attempts") == 2
    assert rv.load_card(store, f"q:{qid}") is not None


def test_practice_with_a_failing_card_update_saves_the_answer(store, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("scheduler failed")

    monkeypatch.setattr(rv, "rating_for", broken)
    # the normalization pack alone: two ordinary questions, each reviewing its card (a
    # scenario's steps before its last review nothing)
    result = CliRunner().invoke(cli, ["practice", "--count", "2", "--seed", "1",
                                      "--pack", "ndcg-normalization"], input=":skip\n:skip\n")
    assert "Traceback" not in result.output and "JSONDecodeError" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "the answer was saved" in errors[0], result.output
    assert "Session over." in result.output  # not aborted at the first answer
    assert count(store, "attempts") == 2


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
    record(store, att(question_id="norm-idcg-at-2", answered_at=now),
           att(question_id="norm-idcg-at-2", answered_at=now + timedelta(seconds=1)))
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Nothing is due. Next review: in ")
    assert "days (" in result.output and "UTC)" in result.output


def test_review_calls_the_practice_hook_with_due_keys(store, monkeypatch):
    import drills.cli.quiz.due as due

    a, b, ok = "norm-idcg-at-2", "norm-why-normalize", "norm-query-b-ndcg"  # built-in questions
    record(store, att(question_id=a, verdict="wrong", answered_at=T0),
           att(question_id=b, verdict="wrong", answered_at=T0 + timedelta(seconds=1)),
           att(question_id=ok, answered_at=datetime.now(timezone.utc)),
           att(question_id="not-in-a-pack", verdict="wrong", answered_at=T0))
    calls = []
    monkeypatch.setattr(due, "run_review", lambda keys, count: calls.append((keys, count)),
                        raising=False)
    result = CliRunner().invoke(cli, ["review", "--count", "5"])
    assert result.exit_code == 0, result.output
    assert calls == [([f"q:{a}", f"q:{b}"], 5)]  # the one no pack asks is not passed on


def test_review_hook_exit_code_is_passed_on(store, monkeypatch):
    import drills.cli.quiz.due as due

    record(store, att(question_id="norm-idcg-at-2", verdict="wrong"))
    monkeypatch.setattr(due, "run_review", lambda keys, count: 3, raising=False)
    assert CliRunner().invoke(cli, ["review"]).exit_code == 3


def test_human_when_in_the_past():
    assert human_when(T0 - timedelta(hours=3), T0) == "3 hours ago (2026-12-02 06:00 UTC)"
    assert human_when(T0 - timedelta(days=1), T0) == "1 day ago (2026-12-01 09:00 UTC)"
    assert human_when(T0 - timedelta(seconds=30), T0).startswith("now (")


# --- stale keys: items whose question left the packs -------------------------------------

FIXED = "norm-idcg-at-2"  # a built-in numeric question
SKILL = "skill:edge-case:conventions"  # built-in generated templates


def due_now(store: Store, keys_and_ages: list[tuple[str, timedelta]]) -> None:
    """Cards due ``age`` ago, written directly (item keys need not be in any pack)."""
    now = datetime.now(timezone.utc)
    for key, age in keys_and_ages:
        due = now - age
        card = rv.Card(card_id=rv.card_id(key), due=due)
        store.conn.execute("INSERT INTO review_cards(item_key, card, due, reviews, updated_at) "
                           "VALUES (?, ?, ?, 1, ?)",
                           (key, json.dumps(card.to_dict()), rv.utc_text(due), rv.utc_text(due)))


def answered_here(store: Store, keys: list[str]) -> None:
    """An answer on this machine for each key (its card untouched): its pack was loaded here."""
    attempts = []
    for key in keys:
        kind, _, rest = key.partition(":")
        if kind == "skill":
            generator, _, topic = rest.partition(":")
            attempts.append(att(question_id=f"{generator}-x", generator=generator, topic=topic))
        else:
            attempts.append(att(question_id=rest))
    store.record_attempts(store.start_session("practice", 1, {}), attempts, review=False)


def review_rows(store: Store, sql: str) -> list:
    return store.conn.execute(sql.replace("FROM attempts", "FROM attempts JOIN sessions AS s ON "
                                          "s.id = session_id AND s.mode = 'review'")).fetchall()


def test_resolve_skips_keys_no_pack_answers():
    from drills.packs import discover

    found = resolve([f"q:{FIXED}", SKILL, "q:gone", "skill:edge-case:nowhere", "skill:nope:conventions",
                     "odd-key"], discover().questions)
    assert list(found) == [f"q:{FIXED}", SKILL]
    assert [q.id for q in found[f"q:{FIXED}"]] == [FIXED]
    assert found[SKILL] and all(q.generator == "edge-case" and q.topic == "conventions"
                                for q in found[SKILL])


def test_stale_keys_do_not_crowd_out_a_due_item(store):
    due_now(store, [(f"q:gone-{i}", timedelta(days=10, minutes=i)) for i in range(10)])
    answered_here(store, [f"q:gone-{i}" for i in range(10)])
    due_now(store, [(f"q:{FIXED}", timedelta(hours=1))])       # the least overdue of 11
    result = CliRunner().invoke(cli, ["review"], input=":skip\n")
    assert result.exit_code == 0, result.output
    assert "Nothing to review" not in result.output
    assert "Question 1/1" in result.output and "Session over." in result.output
    assert "Skipping 10 due items no longer in any pack" in result.stderr
    asked = review_rows(store, "SELECT question_id FROM attempts")
    assert asked == [(FIXED,)]
    (options,) = store.conn.execute("SELECT options FROM sessions WHERE mode = 'review'").fetchone()
    assert json.loads(options) == {"review": [f"q:{FIXED}"]}
    assert count(store, "review_cards") == 11  # stale cards are kept, not forgotten


def test_count_applies_after_skipping_stale_keys(store, monkeypatch):
    import drills.cli.quiz.due as due

    due_now(store, [("q:gone", timedelta(days=2)), (f"q:{FIXED}", timedelta(days=1)),
                    (SKILL, timedelta(hours=2)), ("q:norm-query-b-ndcg", timedelta(hours=1))])
    served = []
    monkeypatch.setattr(due, "run_quiz", lambda items, **kw: served.append(
        (items, kw["options"])) or 0)
    result = CliRunner().invoke(cli, ["review", "--count", "2"])
    assert result.exit_code == 0, result.output
    ((items, options),) = served
    assert options == {"review": [f"q:{FIXED}", SKILL]}
    assert items[0].id == FIXED and items[1].topic == "conventions" and len(items) == 2


def test_everything_due_is_stale(store):
    due_now(store, [(f"q:gone-{i}", timedelta(hours=i + 1)) for i in range(3)])
    answered_here(store, [f"q:gone-{i}" for i in range(3)])
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Nothing to review: all 3 due items are no longer in any pack (skipped, not deleted, "
        "in case the pack comes back; `drills review --list` shows them)."]
    assert count(store, "review_cards") == 3 and count(store, "sessions") == 1  # no review session


def test_one_stale_item_due(store):
    due_now(store, [("skill:retired:conventions", timedelta(hours=1))])
    answered_here(store, ["skill:retired:conventions"])
    result = CliRunner().invoke(cli, ["review"])
    assert result.stdout.startswith("Nothing to review: the 1 due item is no longer in any pack")


def test_dead_code_is_gone():
    import drills.cli.review.review as cmd

    assert not hasattr(cmd, "_hook") and not hasattr(rv, "forget")


# --- drills review --list -------------------------------------------------------------------

def test_review_list_is_readable(store, monkeypatch):
    import drills.cli.quiz.due as due

    due_now(store, [("q:gone", timedelta(days=3)), (f"q:{FIXED}", timedelta(days=2, minutes=1)),
                    (SKILL, timedelta(hours=3)), ("q:norm-why-normalize", timedelta(minutes=5))])
    answered_here(store, ["q:gone"])
    monkeypatch.setattr(due, "run_review", lambda *a: pytest.fail("asked"))
    result = CliRunner().invoke(cli, ["review", "--list"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "3 items due for review (1 more no longer in any pack, skipped):"
    assert len(lines) == 5
    assert re.fullmatch(r"  q:norm-idcg-at-2: A query's judged documents have grades \[3, 2, 1, 0\];"
                        r".*\.\.\. - due 2 days ago \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)", lines[1]), lines[1]
    assert len(lines[1].split(": ", 1)[1].split(" - due ")[0]) <= PROMPT_WIDTH
    assert re.fullmatch(r"  skill:edge-case:conventions: a fresh edge-case question on conventions"
                        r" - due 3 hours ago \(.* UTC\)", lines[2]), lines[2]
    assert lines[3].startswith("  q:norm-why-normalize: Why do we divide DCG by IDCG?")
    assert " - due 5 minutes ago (" in lines[3]
    # the most overdue, but stale: listed last, as review skips it
    assert re.fullmatch(r"  q:gone: no longer in any pack \(skipped when reviewing\)"
                        r" - due 3 days ago \(.* UTC\)", lines[4]), lines[4]


def test_review_list_count_shows_what_review_would_ask(store):
    due_now(store, [("q:gone", timedelta(days=3)), (f"q:{FIXED}", timedelta(days=2)),
                    (SKILL, timedelta(hours=3))])
    answered_here(store, ["q:gone"])
    lines = CliRunner().invoke(cli, ["review", "--list", "--count", "2"]).stdout.splitlines()
    assert lines[0] == "2 items due for review (1 more no longer in any pack, skipped):"
    assert len(lines) == 3  # --count 2: the two due, not the one no pack asks
    assert [line.split(": ")[0] for line in lines[1:]] == [f"  q:{FIXED}", f"  {SKILL}"]


def test_review_list_single_item_no_notes(store):
    due_now(store, [("q:norm-why-normalize", timedelta(minutes=20))])
    lines = CliRunner().invoke(cli, ["review", "--list"]).stdout.splitlines()
    assert lines[0] == "1 item due for review:"
    assert lines[1].startswith("  q:norm-why-normalize: Why do we divide DCG by IDCG?")
    assert " - due 20 minutes ago (" in lines[1]


# --- interval previews: fsrs for the item's card, nothing committed -----------------------

GRADE_RATINGS = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}


def card_row(store: Store, key: str):
    return store.conn.execute("SELECT card, due, reviews, updated_at FROM review_cards "
                              "WHERE item_key = ?", (key,)).fetchone()


def test_preview_intervals_come_from_fsrs_and_commit_nothing(store):
    from fsrs import Scheduler

    record(store, att(question_id="c", kind="concept", verdict="correct", self_grade="good"),
           att(question_id="c", kind="concept", verdict="correct", self_grade="good",
               answered_at=T0 + timedelta(minutes=10)))
    now = T0 + timedelta(days=3)
    before, changes = card_row(store, "q:c"), store.conn.total_changes
    stored = rv.load_card(store, "q:c")
    preview = rv.preview_intervals(store, "q:c", now)
    assert card_row(store, "q:c") == before and store.conn.total_changes == changes
    assert not store.conn.in_transaction
    plain = Scheduler(enable_fuzzing=False)
    assert preview == {grade: plain.review_card(stored, rating, now)[0].due - now
                       for grade, rating in GRADE_RATINGS.items()}
    assert preview["again"] < preview["hard"] < preview["good"] < preview["easy"]
    # ...and it is what answering with that grade then does
    record(store, att(question_id="c", kind="concept", verdict="correct", self_grade="easy",
                      answered_at=now))
    assert due_of(store, "q:c") - now == preview["easy"]


def test_preview_of_an_item_never_seen_is_a_new_card_and_creates_none(store):
    preview = rv.preview_intervals(store, "q:new", T0)
    assert count(store, "review_cards") == 0
    assert preview["again"] == timedelta(minutes=1) and preview["good"] == timedelta(minutes=10)
    assert preview["easy"] >= timedelta(days=1)
    record(store, att(question_id="new", kind="concept", verdict="wrong", self_grade="again"))
    assert due_of(store, "q:new") - T0 == preview["again"]


def test_interval_texts():
    assert rv.format_intervals({"again": timedelta(minutes=10), "hard": timedelta(days=1),
                                "good": timedelta(days=3), "easy": timedelta(days=8)}
                               ) == "again 10m · hard 1d · good 3d · easy 8d"
    assert [rv.interval_text(t) for t in (timedelta(seconds=5), timedelta(hours=5),
                                          timedelta(days=45), timedelta(days=60),
                                          timedelta(days=400))] == ["1m", "5h", "1.5mo", "2mo", "1.1y"]
    assert rv.question_key(type("Q", (), {"id": "x", "generator": None, "topic": "t"})) == "q:x"
    assert rv.question_key(type("Q", (), {"id": "x", "generator": "g", "topic": "t"})) == "skill:g:t"


# --- daily limit on items new to review ---------------------------------------------------------

ASKABLE = [f"q:{FIXED}", "q:norm-why-normalize", "q:norm-query-b-ndcg", "q:binary-ndcg-at-3"]


def set_limit(drills_home, n: int) -> None:
    drills_home.mkdir(parents=True, exist_ok=True)
    (drills_home / "config.toml").write_text(f"[review]\ndaily_limit = {n}\n")


def reviewed_in_a_review(store: Store, question_ids, when: datetime) -> None:
    sid = store.start_session("review", 1, {})
    store.record_attempts(sid, [att(question_id=q, answered_at=when) for q in question_ids],
                          review=False)


def capture_quiz(monkeypatch):
    import drills.cli.quiz.due as due

    served = []
    monkeypatch.setattr(due, "run_quiz", lambda items, **kw: served.append(
        kw["options"]["review"]) or 0)
    return served


def test_daily_limit_caps_new_items(store, drills_home, monkeypatch):
    due_now(store, [(key, timedelta(hours=10 - i)) for i, key in enumerate(ASKABLE)])
    served = capture_quiz(monkeypatch)
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert served == [ASKABLE]  # no limit set: everything due
    set_limit(drills_home, 2)
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert served[-1] == ASKABLE[:2]  # the two most overdue new items
    assert result.stdout.splitlines()[0] == (
        "Review: 2 of 4 due items (2 new items held back until tomorrow by [review] daily_limit = 2)")
    lines = CliRunner().invoke(cli, ["review", "--list"]).stdout.splitlines()
    assert lines[0] == ("4 items due for review (2 new held back until tomorrow by "
                        "[review] daily_limit):")
    assert [line.split(": ")[0].strip() for line in lines[1:]] == ASKABLE
    assert all("held back" in line for line in lines[3:]) and "held back" not in lines[1]


def test_new_items_reviewed_today_use_up_the_limit(store, drills_home, monkeypatch):
    now = datetime.now(timezone.utc)
    due_now(store, [(key, timedelta(hours=10 - i)) for i, key in enumerate(ASKABLE)])
    reviewed_in_a_review(store, ["other-1", "other-2"], now)  # 2 new items reviewed today
    reviewed_in_a_review(store, [ASKABLE[3].removeprefix("q:")], now - timedelta(days=3))
    set_limit(drills_home, 2)
    served = capture_quiz(monkeypatch)
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0, result.output
    assert served == [[ASKABLE[3]]]  # reviewed before: not new, never held back
    set_limit(drills_home, 3)
    CliRunner().invoke(cli, ["review"])
    assert served[-1] == [ASKABLE[0], ASKABLE[3]]  # one new item left for today


def test_nothing_to_review_when_only_held_back_new_items_are_due(store, drills_home, monkeypatch):
    due_now(store, [(ASKABLE[0], timedelta(hours=1))])
    reviewed_in_a_review(store, ["other"], datetime.now(timezone.utc))
    set_limit(drills_home, 1)
    served = capture_quiz(monkeypatch)
    result = CliRunner().invoke(cli, ["review"])
    assert result.exit_code == 0 and served == []
    assert result.stdout == ("Nothing more to review today: 1 new item held back until "
                             "tomorrow by [review] daily_limit = 1.\n")


# --- a review session says what it is and what comes next --------------------------------------

def test_review_says_how_many_at_its_start_and_what_is_next_at_its_end(store, monkeypatch):
    now = datetime.now(timezone.utc)
    due_now(store, [(ASKABLE[0], timedelta(hours=2)), (ASKABLE[1], timedelta(hours=1)),
                    ("q:gone", timedelta(days=1))])
    later = [now + timedelta(days=2, minutes=m) for m in (0, 1, 2)] + [now + timedelta(days=5)]
    for key, when in zip(ASKABLE[2:] + [SKILL, "q:norm-almost-perfect"], later, strict=True):
        due_now(store, [(key, now - when)])  # a negative age: due in the future
    due_now(store, [("q:later-gone", now - (later[0] - timedelta(hours=1)))])  # earlier, no pack
    served = capture_quiz(monkeypatch)  # a session that answers nothing
    result = CliRunner().invoke(cli, ["review", "--count", "1"])
    assert result.exit_code == 0, result.output
    assert served == [[ASKABLE[0]]]
    lines = result.stdout.splitlines()
    assert lines[0] == "Review: 1 of 2 due items"
    assert lines[-2] == "Still due: 2 items; run `drills review` again."
    # the next item a pack asks (not q:later-gone), and those of its local day from then on
    same_day = sum(w.astimezone().date() == later[0].astimezone().date() for w in later[:3])
    assert lines[-1] == f"Next due: in 2 days ({same_day} items that day)"


def test_a_real_review_session_ends_with_the_next_due(store):
    due_now(store, [(ASKABLE[0], timedelta(hours=1))])
    result = CliRunner().invoke(cli, ["review"], input=":skip\n")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Review: 1 due item"
    assert "Session over." in result.stdout
    assert re.fullmatch(r"Next due: in (under a minute|1 minute) \(1 item (later today|that day)\)",
                        lines[-1]), lines[-1]


# --- drills review --forecast ------------------------------------------------------------------

def test_forecast_counts_match_the_due_dates(store):
    from collections import Counter

    from drills.store.schedule import forecast

    now = datetime.now(timezone.utc)
    offsets = [timedelta(hours=-30), timedelta(minutes=-5), timedelta(hours=1), timedelta(days=1),
               timedelta(days=3), timedelta(days=3, minutes=5), timedelta(days=3, minutes=9),
               timedelta(days=13), timedelta(days=20)]
    from drills.packs import discover

    keys = [f"q:{q.id}" for q in discover().questions if q.kind != "generated"][:len(offsets)]
    for key, off in zip(keys, offsets, strict=True):
        due_now(store, [(key, -off)])
    # two cards of items no pack asks (a pack removed): due today and tomorrow, never counted
    due_now(store, [("q:gone-a", timedelta(hours=1)), ("q:gone-b", -timedelta(days=1))])
    today = now.astimezone().date()
    expected = Counter(max(today, (now + off).astimezone().date()) for off in offsets)
    assert forecast(store, now).cards == len(offsets) + 2  # the store's own count: every card
    data = forecast(store, now, askable=set(keys))
    assert data.elsewhere == 2
    assert [day for day, _n in data.days] == [today + timedelta(days=i) for i in range(14)]
    assert dict((day, n) for day, n in data.days if n) == {
        day: n for day, n in expected.items() if day < today + timedelta(days=14)}
    assert data.overdue == 2 and data.cards == len(offsets)
    assert data.later == sum(n for day, n in expected.items() if day >= today + timedelta(days=14))
    result = CliRunner().invoke(cli, ["review", "--forecast"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Due for review, next 14 days (9 cards; 2 overdue now):"
    assert lines[-1].startswith("Not counted: 2 cards of items no loaded pack asks")
    lines = lines[:-1]
    rows = lines[1:15]
    assert rows[0].split()[0] == "today" and rows[1].split()[0] == "tomorrow"
    top = max(n for _day, n in data.days)
    for (day, n), row in zip(data.days, rows, strict=True):
        assert day.isoformat() in row and int(row.split(day.isoformat())[1].split()[0]) == n
        assert row.count("█") == (max(1, round(24 * n / top)) if n else 0)
    assert lines[15].split() == ["later", str(data.later)]
    assert max(map(len, lines)) <= 60


def test_forecast_with_nothing_scheduled_and_with_list():
    result = CliRunner().invoke(cli, ["review", "--forecast"])
    assert result.exit_code == 0
    assert result.stdout.startswith("No reviews are scheduled yet")
    result = CliRunner().invoke(cli, ["review", "--forecast", "--list"])
    assert result.exit_code == 2 and result.output.count("\n") == 1


LEAKING_PACK = """\
pack:
  name: leaky
  version: "1.0.0"
questions:
  - id: leaky-a
    topic: leaky
    kind: numeric
    prompt: "The NDCG of one relevant document at rank 2?"
    answer: "1/log2(3)"
    hints: ["log2(3)"]
    explanation: "One relevant document: IDCG = 1."
  - id: leaky-b
    topic: leaky
    kind: numeric
    prompt: "A relevant document at rank 2 scores 0.6309 in NDCG. What is its RR?"
    answer: "1/2"
    hints: ["1/rank"]
    explanation: "RR = 1/2."
"""


def test_a_review_session_never_holds_two_questions_that_give_each_other_away(store, drills_home):
    packs = drills_home / "packs"
    packs.mkdir(exist_ok=True)
    (packs / "leaky.yaml").write_text(LEAKING_PACK, encoding="utf-8")
    due_now(store, [("q:leaky-a", timedelta(hours=2)), ("q:leaky-b", timedelta(hours=1))])
    result = CliRunner().invoke(cli, ["review"], input=":skip\n:skip\n")
    assert result.exit_code == 0, result.output
    assert "Question 1/1" in result.output and "Question 1/2" not in result.output
    asked = store.conn.execute("SELECT question_id FROM attempts").fetchall()
    assert asked == [("leaky-a",)]  # the most overdue; leaky-b states its answer, so it waits


# --- one definition of due: review, stats and the end line agree (issue 23, point 5) ------------

def test_review_stats_and_the_end_line_count_the_same_due_items(store, monkeypatch):
    """17 due cards: 12 a pack asks, 3 of a removed pack (answered here), 2 known only from
    imported history; stats and review say 12, --count 5 asks 5 of 12, and after a session
    that answers nothing the end line says 12 still due, as stats does then."""
    from drills.packs import discover

    askable = sorted({f"q:{q.id}" for q in discover().questions
                      if q.kind == "numeric" and not q.generator})[:12]
    assert len(askable) == 12
    due_now(store, [(key, timedelta(hours=20 - i)) for i, key in enumerate(askable)])
    due_now(store, [(f"q:removed-{i}", timedelta(days=2)) for i in range(3)])
    answered_here(store, [f"q:removed-{i}" for i in range(3)])
    due_now(store, [(f"q:other-machine-{i}", timedelta(days=1)) for i in range(2)])
    sid = store.start_session("practice", 1, {"imported": True})
    store.record_attempts(sid, [att(question_id=f"other-machine-{i}") for i in range(2)], review=False)

    data = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)["review"]
    assert (data["due"], data["due_no_longer_in_a_pack"], data["due_imported_not_here"]) == (12, 3, 2)
    text = CliRunner().invoke(cli, ["stats"]).stdout
    assert ("Review: 12 items due now: run `drills review` (3 more no longer in any pack; 2 more "
            "from imported history, in no pack here, skipped)") in " ".join(text.split())
    listed = CliRunner().invoke(cli, ["review", "--list", "--count", "20"]).stdout.splitlines()
    assert listed[0] == ("12 items due for review (3 more no longer in any pack, skipped; 2 more "
                         "from imported history, in no pack here, skipped):")
    assert [line.split(": ")[0].strip() for line in listed[1:13]] == askable
    assert all("no longer in any pack" in line for line in listed[13:16])
    assert all("from imported history" in line for line in listed[16:18]) and len(listed) == 18

    served = capture_quiz(monkeypatch)  # a session that answers nothing
    result = CliRunner().invoke(cli, ["review", "--count", "5"])
    assert result.exit_code == 0, result.output
    assert served == [askable[:5]]  # run_review asks `count` of them, most overdue first
    assert result.stdout.splitlines() == [  # nothing scheduled later: no "Next due" line
        "Review: 5 of 12 due items", "Still due: 12 items; run `drills review` again."]
    assert result.stderr.splitlines()[-1] == (
        "Skipping 3 due items no longer in any pack and 2 due items from imported history, in no "
        "pack here (`drills review --list` shows them).")
    after = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)["review"]
    assert after["due"] == 12


def test_after_one_review_answer_stats_and_the_end_line_agree(store):
    """A real review: one item answered wrong comes back within minutes; the end line's
    still-due count is what stats says right after, and the next due is an item a pack asks."""
    due_now(store, [(key, timedelta(hours=5 - i)) for i, key in enumerate(ASKABLE)])
    due_now(store, [("q:gone-later", -timedelta(seconds=20))])  # no pack asks it: never "next"
    answered_here(store, ["q:gone-later"])
    result = CliRunner().invoke(cli, ["review", "--count", "1"], input="0.123456\n")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Review: 1 of 4 due items"
    data = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)["review"]
    still = [line for line in lines if line.startswith("Still due:")]
    assert still == [f"Still due: {data['due']} items; run `drills review` again."]
    assert data["due"] == 3  # the other three; the one answered is due again in minutes
    nxt = datetime.fromisoformat(data["next_due"])
    assert nxt == due_of(store, ASKABLE[0])
    assert re.fullmatch(r"Next due: in (under a minute|\d+ minutes?) \(1 item (later today|that day)\)",
                        lines[-1]), lines[-1]


# --- the next interval after each review answer (issue 23, point 5) ------------------------------

def test_each_review_answer_says_when_the_question_comes_back(store):
    """A well-known item answered right comes back in days, a fresh one answered wrong within
    the minute: the intervals fsrs gives for those cards, said under each verdict."""
    now = datetime.now(timezone.utc)
    known = rv.Card(card_id=rv.card_id(f"q:{FIXED}"), state=State.Review, step=None,
                    stability=20.0, difficulty=5.0, due=now - timedelta(hours=2),
                    last_review=now - timedelta(days=20))
    store.conn.execute("INSERT INTO review_cards(item_key, card, due, reviews, updated_at) "
                       "VALUES (?, ?, ?, 3, ?)", (f"q:{FIXED}", json.dumps(known.to_dict()),
                                                  rv.utc_text(known.due), rv.utc_text(known.due)))
    due_now(store, [("q:norm-query-b-ndcg", timedelta(hours=1))])
    expected_days = (rv.Scheduler(enable_fuzzing=False).review_card(known, Rating.Good, now)[0].due
                     - now) / timedelta(days=1)
    result = CliRunner().invoke(cli, ["review"], input="3 + 2/log2(3)\n0.000001\n")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stdout.splitlines() if line.startswith("Next review of")]
    assert notes == [f"Next review of this question: in {round(expected_days)} days",
                     "Next review of this question: in under a minute"]
    assert expected_days > 2
    # each said after its own verdict, before the next question
    text = result.stdout
    assert text.index("Question 1/2") < text.index(notes[0]) < text.index("Question 2/2")
    assert text.index("Question 2/2") < text.rindex("Next review of this question")
    assert "Next review of this question" not in CliRunner().invoke(
        cli, ["practice", "--question", FIXED], input="3\n").stdout  # practice says nothing of it


def test_review_list_is_wrapped_to_the_terminals_width(store, monkeypatch):
    """Issue 23, point 2: at 50 columns no line is wider, the words stay whole and each item's
    continuation lines are indented under it; a pipe without COLUMNS gets one line per item."""
    due_now(store, [(f"q:{FIXED}", timedelta(days=2)), (SKILL, timedelta(hours=3)),
                    ("q:norm-why-normalize", timedelta(minutes=5))])
    piped = CliRunner().invoke(cli, ["review", "--list"]).stdout.splitlines()
    assert len(piped) == 4
    monkeypatch.setenv("COLUMNS", "50")
    narrow = CliRunner().invoke(cli, ["review", "--list"]).stdout.splitlines()
    assert len(narrow) > 4 and max(map(len, narrow)) < 50
    assert narrow[0] == "3 items due for review:"
    items = [line for line in narrow[1:] if not line.startswith("      ")]
    assert [line.split(": ")[0] for line in items] == [f"  q:{FIXED}", f"  {SKILL}", "  q:norm-why-normalize"]
    assert " ".join(" ".join(narrow).split()) == " ".join(" ".join(piped).split())  # no word cut
