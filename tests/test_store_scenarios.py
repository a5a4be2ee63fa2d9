"""Scenarios in the history (issue 15): each step an attempt of its own, one review card per
scenario, ``consistent`` counted as right, and the steps readable in ``drills history``.

Expected values are worked out by hand in the comments, never read back from the code.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from fsrs import State

from drills.cli import cli
from drills.store import VERDICTS, Attempt, Store
from drills.store import cards as rv
from drills.store import migrations as mig
from drills.store.history_export import export
from drills.store.progress import recent_topics, stats, topic_weights
from drills.store.schedule import new_reviewed_today, reviewed_keys
from drills.store.sessions import items_answered, list_sessions, session_report

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)
SCN = "scn.ndcg-chain"


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
                given="0.8", expected="13/16", expected_value=0.8125, misconceptions=(),
                seconds=4.0, answered_at=T0)
    base.update(kw)
    return Attempt(**base)


def step(n: int, verdict: str, *, last: str | None = None, scenario: str = SCN, **kw) -> Attempt:
    """Step ``n`` of the scenario, answered n-1 minutes after T0; ``last``: the scenario's
    verdict, given on its last step only."""
    return att(question_id=f"{scenario}#{n}", topic="hand-computation", difficulty="medium",
               verdict=verdict, scenario=scenario, step=n, scenario_verdict=last,
               answered_at=T0 + timedelta(minutes=n - 1), **kw)


def cards(store: Store) -> list[tuple[str, int]]:
    return store.conn.execute("SELECT item_key, reviews FROM review_cards ORDER BY item_key").fetchall()


def card_of(store: Store, key: str):
    (text,) = store.conn.execute("SELECT card FROM review_cards WHERE item_key = ?",
                                 (key,)).fetchone()
    return rv.Card.from_dict(json.loads(text))


# --- the attempt -------------------------------------------------------------------------

def test_consistent_is_a_verdict_right_after_correct():
    assert VERDICTS[:2] == ("correct", "consistent")
    assert set(VERDICTS) == {"correct", "consistent", "close", "partial", "wrong", "skipped",
                             "timeout"}
    a = att(verdict="consistent", scenario=SCN, step=3)
    assert (a.scenario, a.step, a.scenario_verdict) == (SCN, 3, None)
    plain = att()
    assert (plain.scenario, plain.step, plain.scenario_verdict) == (None, None, None)


@pytest.mark.parametrize("fields", [
    {"scenario": SCN},  # a scenario without its step
    {"step": 2},  # a step without its scenario
    {"scenario": SCN, "step": 0},  # steps count from 1
    {"scenario": SCN, "step": -1},
    {"scenario": SCN, "step": True},
    {"scenario": SCN, "step": 1.5},
    {"scenario": "", "step": 1},
    {"scenario": SCN, "step": 3, "scenario_verdict": "great"},  # not a verdict
    {"scenario_verdict": "correct"},  # a scenario's verdict on an ordinary answer
])
def test_scenario_fields_are_checked(fields):
    with pytest.raises(ValueError):
        att(**fields)


# --- migration 004 -------------------------------------------------------------------------

def _old_history(home: Path, monkeypatch) -> None:
    """A history made by a drills from before 004_attempt_scenario, with one answer."""
    with monkeypatch.context() as m:
        m.setattr(mig, "MIGRATIONS", [s for s in mig.MIGRATIONS if s[0] < "004_attempt_scenario"])
        with Store.open(home) as s:
            sid = s.conn.execute(  # as that drills wrote it: no uid column yet
                "INSERT INTO sessions(mode, seed, options, started_at) VALUES "
                "('practice', 1, '{}', '2026-12-01T09:59:00.000000+00:00')").lastrowid
            s.conn.execute("INSERT INTO attempts(session_id, question_id, topic, kind, verdict, "
                           "answered_at, difficulty) VALUES (?, 'old', 'normalization', "
                           "'numeric', 'correct', '2026-12-01T10:00:00.000000+00:00', 'easy')",
                           (sid,))
    with sqlite3.connect(home / "drills.db") as raw:
        columns = {row[1] for row in raw.execute("PRAGMA table_info(attempts)")}
        assert "difficulty" in columns and "scenario" not in columns and "step" not in columns
        assert mig.pending(raw) == ["004_attempt_scenario", "005_attempt_uid",
                                    "006_attempt_overridden"]


def test_an_old_history_gains_scenario_and_step(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _old_history(home, monkeypatch)
    with Store.open(home) as s:
        assert mig.pending(s.conn) == []
        names = [r[0] for r in s.conn.execute("SELECT name FROM migrations ORDER BY rowid")]
        assert names[-3:] == ["004_attempt_scenario", "005_attempt_uid", "006_attempt_overridden"]
        indexes = {r[0] for r in s.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts'")}
        assert "attempts_scenario" in indexes
        s.record_attempt(1, step(1, "wrong"))
        s.record_attempt(1, att(question_id="plain"))
        rows = s.conn.execute("SELECT question_id, scenario, step FROM attempts ORDER BY id").fetchall()
    assert rows == [("old", None, None), (f"{SCN}#1", SCN, 1), ("plain", None, None)]


def test_an_old_history_read_where_it_cannot_be_migrated_has_the_columns(tmp_path, monkeypatch):
    home = tmp_path / "h"
    _old_history(home, monkeypatch)

    def read_only_file(path, *_):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Store, "_open_checked", staticmethod(read_only_file))
    with Store.open(home, readonly=True) as s:
        assert s.memory
        buf = io.StringIO()
        export(s, "json", buf)
    (row,) = json.loads(buf.getvalue())["attempts"]
    assert (row["question_id"], row["scenario"], row["step"]) == ("old", None, None)


# --- one review card per scenario ------------------------------------------------------------

def test_a_scenario_is_one_item_even_when_a_generator_drew_it():
    assert rv.item_key(step(2, "correct")) == f"q:{SCN}"
    drawn = step(2, "correct", kind="numeric", generator="ndcg_chain")
    assert rv.item_key(drawn) == f"q:{SCN}"
    assert rv.item_key(att(generator="ndcg_at_k", topic="t")) == "skill:ndcg_at_k:t"


def test_question_key_of_a_scenario_and_of_its_steps():
    part = type("Part", (), {"scenario": SCN, "step": 2})
    step_q = type("Q", (), {"id": f"{SCN}#2", "generator": "ndcg_chain", "topic": "t",
                            "kind": "numeric", "part": part})
    whole = type("Q", (), {"id": SCN, "generator": "ndcg_chain", "topic": "t",
                           "kind": "scenario", "part": None})
    assert rv.question_key(step_q) == f"q:{SCN}"
    assert rv.question_key(whole) == f"q:{SCN}"


def test_three_steps_review_one_card_once_at_the_last(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, step(1, "correct"))
    store.record_attempt(sid, step(2, "correct"))
    assert cards(store) == []  # nothing reviewed before the scenario is over
    store.record_attempt(sid, step(3, "consistent", last="correct"))
    assert cards(store) == [(f"q:{SCN}", 1)]
    assert store.conn.execute("SELECT count(*) FROM attempts").fetchone() == (3,)


def test_a_generated_scenario_reviews_its_own_card_not_the_generators_skill(store):
    sid = store.start_session("practice", 1, {})
    for n, last in ((1, None), (2, None), (3, "correct")):
        store.record_attempt(sid, step(n, "correct", last=last, generator="ndcg_chain"))
    assert cards(store) == [(f"q:{SCN}", 1)]


def test_the_scenario_asked_again_is_reviewed_again(store):
    sid = store.start_session("practice", 1, {})
    for n, last in ((1, None), (2, None), (3, "correct")):
        store.record_attempt(sid, step(n, "correct", last=last))
    for n, last in ((1, None), (2, None), (3, "wrong")):
        store.record_attempt(sid, step(n, "wrong" if n == 1 else "correct", last=last))
    assert cards(store) == [(f"q:{SCN}", 2)]


# FSRS's default learning steps are 1 and 10 minutes: a new card rated Good moves to the
# second step (due 10 minutes after the review), one rated Again stays on the first (1 minute).
# The review is the last step's answer, 2 minutes after T0.

def test_every_step_right_rates_the_scenario_good(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, step(1, "correct"))
    store.record_attempt(sid, step(2, "consistent"))
    store.record_attempt(sid, step(3, "consistent", last="correct"))
    card = card_of(store, f"q:{SCN}")
    assert card.state == State.Learning
    assert card.due == T0 + timedelta(minutes=2) + timedelta(minutes=10)


def test_consistent_as_the_scenarios_verdict_is_good_too(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, step(1, "correct", last="consistent"))
    assert card_of(store, f"q:{SCN}").due == T0 + timedelta(minutes=10)


def test_one_wrong_step_rates_the_scenario_again_though_the_last_was_right(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, step(1, "wrong", misconceptions=("linear_gain",)))
    store.record_attempt(sid, step(2, "correct"))
    store.record_attempt(sid, step(3, "consistent", last="wrong"))
    card = card_of(store, f"q:{SCN}")
    assert card.due == T0 + timedelta(minutes=2) + timedelta(minutes=1)
    assert cards(store) == [(f"q:{SCN}", 1)]


def test_a_diagnosed_slip_on_the_last_step_makes_the_scenario_due_at_once(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, step(1, "correct"))
    store.record_attempt(sid, step(2, "wrong", last="wrong", misconceptions=("log2_rank",)))
    assert card_of(store, f"q:{SCN}").due == T0 + timedelta(minutes=1)  # its own answer time


def test_ordinary_answers_still_review_their_cards(store):
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, att(question_id="plain"))
    store.record_attempt(sid, att(question_id="gen-1", generator="ndcg_at_k", topic="t"))
    assert cards(store) == [("q:plain", 1), ("skill:ndcg_at_k:t", 1)]


def test_schedule_sql_keys_steps_by_their_scenario(store):
    sid = store.start_session("review", None, {})
    store.record_attempt(sid, step(1, "correct", generator="ndcg_chain"))
    store.record_attempt(sid, step(2, "correct", generator="ndcg_chain", last="correct"))
    store.record_attempt(sid, att(question_id="plain"))
    store.record_attempt(sid, att(question_id="gen-1", generator="ndcg_at_k", topic="t"))
    keys = [f"q:{SCN}", "q:plain", "skill:ndcg_at_k:t", f"q:{SCN}#1", "skill:ndcg_chain:hand-computation"]
    assert reviewed_keys(store, keys) == {f"q:{SCN}", "q:plain", "skill:ndcg_at_k:t"}
    # three items first answered in a review today: the scenario, the plain one, the skill
    assert new_reviewed_today(store, T0 + timedelta(minutes=5)) == 3


def test_review_resolves_and_labels_a_scenario_by_its_id():
    from drills.cli.quiz.due import resolve
    from drills.cli.review.review import describe
    from drills.model import Question

    scenario = Question(id=SCN, topic="hand-computation", kind="scenario",
                        prompt="A ranking on the whiteboard: grades 2, 1, 3, 0.\nCompute ...",
                        generator="ndcg_chain")
    found = resolve([f"q:{SCN}"], [scenario])
    assert found == {f"q:{SCN}": [scenario]}
    assert describe(f"q:{SCN}", found[f"q:{SCN}"]) == "A ranking on the whiteboard: grades 2, 1, 3, 0...."


# --- accuracy: consistent counts as correct -----------------------------------------------------

def _mixed(store: Store) -> int:
    """Five answers, oldest first: close (t2), wrong, correct, consistent, consistent
    (normalization, medium)."""
    sid = store.start_session("practice", 1, {})
    store.record_attempt(sid, att(topic="t2", kind="choice", verdict="close", difficulty="easy"))
    for verdict in ("wrong", "correct", "consistent", "consistent"):
        store.record_attempt(sid, att(verdict=verdict, difficulty="medium"))
    return sid


def test_stats_count_consistent_as_correct(store):
    _mixed(store)
    data = stats(store, T0)
    # right: correct + 2 consistent = 3 of 5
    assert (data["attempts"], data["correct"], data["accuracy"]) == (5, 3, 0.6)
    assert data["verdicts"] == {"close": 1, "consistent": 2, "correct": 1, "wrong": 1}
    assert data["by_topic"]["normalization"]["correct"] == 3
    assert data["by_topic"]["normalization"]["accuracy"] == 0.75
    assert data["by_topic"]["t2"]["correct"] == 0
    assert data["by_kind"]["numeric"]["correct"] == 3
    assert data["by_difficulty"]["medium"]["correct"] == 3
    assert data["by_difficulty"]["easy"]["correct"] == 0
    # the by-verdict table keeps consistent as its own row, every one of them right
    assert data["verdicts"]["consistent"] == 2
    (trend,) = data["trend"]
    assert (trend["attempts"], trend["correct"], trend["accuracy"]) == (5, 3, 0.6)
    # the last three (correct, consistent, consistent) are right in a row; the wrong stops it
    assert data["streak"]["correct"] == 3
    # normalization: 3/4 = 0.75 < 0.8 over 4 answers: still worth practising
    assert data["practise_next"]["topics"] == [
        {"topic": "normalization", "accuracy": 0.75, "attempts": 4}]


def test_consistent_is_no_miss_for_adaptive_weights(store):
    _mixed(store)
    seen = recent_topics(store)
    assert seen["normalization"] == {"attempts": 4, "correct": 3, "misses": 1.0}
    assert seen["t2"] == {"attempts": 1, "correct": 0, "misses": 0.5}
    # (misses + 1) / (attempts + 2) = 2/6; 1 + 3 * 1/3 = 2
    assert topic_weights(store, ["normalization"])["normalization"] == pytest.approx(2.0)


def test_session_scores_count_consistent_as_correct(store):
    sid = _mixed(store)
    sessions, total = list_sessions(store)
    assert total == 1 and (sessions[0]["answered"], sessions[0]["correct"]) == (5, 3)
    report = session_report(store, sid)
    assert report is not None and (report["answered"], report["correct"]) == (5, 3)
    # the worked-out review list names no topic that was all right: t2 (0/1), then
    # normalization (3/4)
    assert report["review"][:2] == ["t2", "normalization"]


def test_stats_text_says_how_many_of_the_correct_were_consistent(store):
    _mixed(store)
    store.close()
    out = CliRunner().invoke(cli, ["stats"]).output
    headline = " ".join(out.split("\n\n")[0].split())  # stats wraps its prose at 60 columns
    assert headline.startswith("5 answers in 1 session: 3 correct (60%), 2 of them consistent")


# --- export and history ------------------------------------------------------------------------

def _scenario_session(store: Store, **options) -> int:
    """One scenario (DCG wrong with linear_gain, IDCG correct, NDCG consistent), then a plain
    numeric question."""
    sid = store.start_session("practice", 5, options)
    store.record_attempt(sid, step(1, "wrong", misconceptions=("linear_gain",), given="5.39"))
    store.record_attempt(sid, step(2, "correct", given="9.39"))
    store.record_attempt(sid, step(3, "consistent", last="wrong", given="0.574"))
    store.record_attempt(sid, att(question_id="ndcg-basics-1", answered_at=T0 + timedelta(minutes=3)))
    return sid


def test_export_has_scenario_and_step(store):
    _scenario_session(store)
    buf = io.StringIO()
    export(store, "json", buf)
    data = json.loads(buf.getvalue())["attempts"]
    assert [(d["scenario"], d["step"]) for d in data] == [(SCN, 1), (SCN, 2), (SCN, 3), (None, None)]
    assert [d["verdict"] for d in data] == ["wrong", "correct", "consistent", "correct"]
    buf = io.StringIO()
    export(store, "csv", buf)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert [(r["scenario"], r["step"]) for r in rows] == [(SCN, "1"), (SCN, "2"), (SCN, "3"), ("", "")]
    assert list(rows[0])[-5:] == ["scenario", "step", "uid", "session_uid", "overridden"]


def test_session_report_answers_carry_scenario_and_step(store):
    sid = _scenario_session(store)
    report = session_report(store, sid)
    assert report is not None
    assert [(a["scenario"], a["step"]) for a in report["answers"]] == [
        (SCN, 1), (SCN, 2), (SCN, 3), (None, None)]
    assert report["items"] == 2  # the scenario and the plain question


def test_history_show_lists_steps_under_their_scenario(store):
    sid = _scenario_session(store, count=3)
    store.end_session(sid, 3, 4, {"quit_early": True})
    store.close()
    result = CliRunner().invoke(cli, ["history", "show", str(sid)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # 3 of 4 answers right (IDCG, NDCG consistent, the plain one); 2 of 3 planned items asked
    assert "Score: 3/4 correct (1 of them consistent, 1 wrong); 0:16 answering." in lines
    assert "Ended early: answered 2 of 3 questions." in lines
    assert f"   1. {SCN}#1 (hand-computation, medium): wrong" in lines
    assert f"   2. {SCN}#2 (hand-computation, medium): correct" in lines
    assert f"   3. {SCN}#3 (hand-computation, medium): consistent" in lines
    assert "   4. ndcg-basics-1 (normalization): correct" in lines
    at = lines.index(f"   3. {SCN}#3 (hand-computation, medium): consistent")
    assert lines[at + 1] == "      you answered: 0.574"
    assert "earlier step" in "\n".join(lines[at + 2:at + 4])
    assert max(len(line) for line in lines) <= 80
    assert "  hand-computation       2/3" in lines  # score by topic: the consistent step is right
    out = CliRunner().invoke(cli, ["history", "list"]).output
    assert out.splitlines()[1].split()[4] == "3/4"


def test_a_scenario_is_one_planned_item():
    # an ordinary answer, a whole scenario, another ordinary answer: 3 items
    assert items_answered([(None, None), ("s", 1), ("s", 2), ("s", 3), (None, None)]) == 3
    assert items_answered([("s", 1)]) == 1  # left part way: asked
    assert items_answered([("a", 1), ("a", 2), ("b", 1), ("b", 2)]) == 2
    assert items_answered([("s", 1), ("s", 2), ("s", 1), ("s", 2)]) == 2  # asked twice
    assert items_answered([]) == 0


def test_a_session_with_questions_left_after_a_scenario_can_be_resumed(store):
    from drills.cli.quiz.flow import last_unfinished

    # 4 planned questions; 4 answers, but they cover 2 of them (the scenario's 3 steps and
    # one plain question): 2 are left
    plan = [SCN, "ndcg-basics-1", "ndcg-basics-2", "ndcg-basics-3"]
    sid = _scenario_session(store, plan=plan, count=4)
    left = last_unfinished(store)
    assert left is not None and (left.id, left.answered) == (sid, 4)  # answers, as recorded


def test_a_session_whose_last_question_was_answered_is_not_resumed(store):
    from drills.cli.quiz.flow import last_unfinished

    _scenario_session(store, plan=[SCN, "ndcg-basics-1"], count=2)  # both covered
    assert last_unfinished(store) is None


def test_the_store_and_the_grader_agree_on_what_counts_as_right():
    from drills.grading import scenario
    from drills.store import verdicts

    assert set(verdicts.RIGHT) == set(scenario.RIGHT) == {"correct", "consistent"}
    assert scenario.CONSISTENT in VERDICTS


def test_history_show_gives_a_steps_time_without_the_per_question_limit(store):
    """A scenario's steps share its time (the per-question limit times its steps): a step's row
    says it is a step instead of showing one question's limit."""
    sid = _scenario_session(store, count=2, per_question=20)
    store.end_session(sid, 3, 4, {})
    store.close()
    lines = CliRunner().invoke(cli, ["history", "show", str(sid)]).output.splitlines()
    timed = lines[lines.index("Time per question") + 1:][:4]
    assert [line.endswith(f"(scenario step {n})") for n, line in enumerate(timed, 1)] == [
        True, True, True, False]
    assert " of 0:20" not in "\n".join(timed[:3]) and timed[3].endswith("of 0:20  correct")
