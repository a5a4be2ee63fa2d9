"""``:undo`` (issue 23, point 6): the session's last answer taken back. The state machine puts
the score, the streak and the plan's position back and asks the question again; through the
front ends the attempt leaves the history and the review card is what it was before.

Expected scores and streaks are counted by hand from the answers given; NDCG@4 of the tiny
question is computed here from its definition, never by the engine.
"""

from __future__ import annotations

import sqlite3
import threading
from math import log2
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.display import Style
from drills.quiz.session import (
    Notice,
    Options,
    QuestionShown,
    Revealed,
    Session,
    Waiting,
)
from drills.quiz.undo import Undone
from drills.tui.render import render
from tests.test_pty import TINY_PACK
from tests.test_session import CHOICE, CONCEPT, NDCG, Clock, of

# NDCG@4 of grades [2, 1, 3, 0] against the pool [3, 2, 1, 0], gain 2^rel - 1
RIGHT = (3 + 1 / log2(3) + 7 / 2) / (7 + 3 / log2(3) + 1 / 2)
RIGHT_TEXT = f"{RIGHT:.4f}"


def session(*items, clock=None, **options) -> Session:
    s = Session(list(items), Options(**options), clock=clock or Clock())
    s.start()
    return s


def test_undo_puts_score_streak_and_position_back_and_asks_again():
    s = session(CHOICE, NDCG, CHOICE)
    s.submit("b")  # right
    s.submit(RIGHT_TEXT)  # right: streak 2
    assert (s.score, s.streak, s.best_streak, s.index) == (2, 2, 2, 2)
    events = s.submit(":undo")
    (undone,) = of(events, Undone)
    assert undone.number == 2 and undone.record.question is NDCG
    (shown,) = of(events, QuestionShown)
    assert shown.question.id == NDCG.id and shown.index == 1
    assert (s.score, s.streak, s.best_streak, s.index, len(s.records)) == (1, 1, 1, 1, 1)
    assert render(undone, Style()) == "Took back your answer to question 2."
    s.submit("0.1")  # answered again, wrong this time
    assert (s.score, s.streak, s.best_streak, s.index) == (1, 0, 1, 2)
    assert [r.verdict for r in s.records] == ["correct", "wrong"]


def test_undo_goes_back_one_answer_at_a_time_to_the_first():
    s = session(CHOICE, NDCG, CHOICE)
    s.submit("a")  # wrong
    s.submit(":skip")
    s.submit(":undo")
    assert s.index == 1 and [r.verdict for r in s.records] == ["wrong"]
    events = s.submit(":undo")
    assert of(events, Undone)[0].number == 1 and s.index == 0 and s.records == []
    (notice,) = of(s.submit(":undo"), Notice)
    assert notice.text == "nothing to take back yet"
    s.submit("b")
    assert s.score == 1 and s.index == 1


def test_undo_while_a_miss_waits_for_enter():
    s = session(NDCG, CHOICE, pause=True)
    s.submit("0.1")
    assert s.waiting
    events = s.submit(":undo")
    assert not s.waiting and of(events, QuestionShown)[0].question.id == NDCG.id
    assert not of(events, Waiting) and s.records == [] and s.index == 0


def test_undo_in_a_mock_with_feedback_at_the_end_says_nothing_of_the_verdict():
    s = session(CHOICE, NDCG, CHOICE, mode="mock", feedback="end")
    s.submit("a")
    events = s.submit(":undo")
    text = "\n".join(render(e, Style()) for e in events)
    assert "Took back your answer to question 1." in text
    assert "wrong" not in text.lower() and "correct" not in text.lower()
    assert s.records == [] and s.index == 0


def test_the_question_asked_again_keeps_the_time_it_already_took():
    clock = Clock()
    s = session(NDCG, CHOICE, clock=clock, seconds=60)
    clock.now += 40
    s.submit("0.1")
    clock.now += 100  # reading the card does not count
    events = s.submit(":undo")
    assert of(events, QuestionShown)[0].limit == pytest.approx(20)  # 60 - 40 left
    clock.now += 5
    s.submit(RIGHT_TEXT)
    assert s.records[-1].seconds == pytest.approx(45)


def test_what_undo_does_not_take_back():
    clock = Clock()
    s = session(NDCG, CHOICE, CONCEPT, CHOICE, clock=clock, seconds=10)
    clock.now += 11
    s.submit("0.7")  # late: a timeout
    (notice,) = of(s.submit(":undo"), Notice)
    assert "timeout is not taken back" in notice.text and len(s.records) == 1
    s.submit("b")
    events = s.submit("dividing by the ideal DCG puts queries on a 0-1 scale")
    assert of(events, Revealed)
    (notice,) = of(s.submit(":undo"), Notice)  # the concept answer waits for its self-grade
    assert "grade this answer first" in notice.text and s.awaiting_grade
    s.submit("good")
    assert of(s.submit(":undo"), Undone) and s.current() is CONCEPT


def test_answers_from_before_a_resume_stay():
    first = session(CHOICE, NDCG, CHOICE)
    first.submit("b")
    resumed = Session([CHOICE, NDCG, CHOICE], Options(), clock=Clock())
    resumed.restore(first.records)
    resumed.start()
    (notice,) = of(resumed.submit(":undo"), Notice)
    assert "before the resume stay" in notice.text and resumed.score == 1


def test_a_history_that_refuses_leaves_the_session_as_it_was():
    s = session(CHOICE, NDCG)
    s.take_back = lambda record: "disk I/O error"
    s.submit("b")
    (notice,) = of(s.submit(":undo"), Notice)
    assert notice.text == "could not take back your answer: disk I/O error"
    assert s.score == 1 and s.index == 1


def test_undo_is_in_help():
    s = session(CHOICE)
    assert ":undo" in of(s.submit(":help"), Notice)[0].text


# --- through the front ends: the history and the review card ----------------------------

@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_PACK, encoding="utf-8")
    return path


def practice(pack: Path, answers: str):
    args = ["practice", "--pack", str(pack), "--question", "tiny-ndcg", "--question", "tiny-choice"]
    return CliRunner().invoke(cli, args, input=answers)


def rows(home: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(home / "drills.db") as db:
        return db.execute(sql).fetchall()


def test_piped_undo_removes_the_attempt_and_restores_the_review_card(pack, drills_home):
    first = practice(pack, f"{RIGHT_TEXT}\n:skip\n")  # a card for each, reviewed once
    assert first.exit_code == 0, first.output
    card = "SELECT item_key, card, due, reviews, updated_at FROM review_cards"
    before = sorted(rows(drills_home, card))
    assert [r[3] for r in before] == [1, 1]
    result = practice(pack, "0.1\n:undo\n:quit\n")  # wrong, taken back, then quit
    assert result.exit_code == 0, result.output
    assert "Took back your answer to question 1." in result.output
    assert sorted(rows(drills_home, card)) == before  # the card is exactly as it was
    answers = rows(drills_home, "SELECT session_id, question_id, verdict FROM attempts ORDER BY id")
    assert answers == [(1, "tiny-ndcg", "correct"), (1, "tiny-choice", "skipped")]


def test_piped_undo_of_a_first_answer_removes_the_card_it_created(pack, drills_home):
    result = practice(pack, "0.1\n:undo\n" + RIGHT_TEXT + "\n:skip\n")
    assert result.exit_code == 0, result.output
    assert "Score: 1/2 correct (1 skipped); best streak 1." in result.output
    answers = rows(drills_home, "SELECT question_id, verdict, given FROM attempts ORDER BY id")
    assert answers == [("tiny-ndcg", "correct", RIGHT_TEXT), ("tiny-choice", "skipped", None)]
    cards = dict(rows(drills_home, "SELECT item_key, reviews FROM review_cards"))
    assert cards == {"q:tiny-ndcg": 1, "q:tiny-choice": 1}  # one review each: the wrong one is gone


def test_the_transcript_says_what_was_taken_back(pack, drills_home, tmp_path):
    import json

    out = tmp_path / "t.jsonl"
    args = ["practice", "--pack", str(pack), "--question", "tiny-ndcg", "--question", "tiny-choice",
            "--transcript", str(out)]
    result = CliRunner().invoke(cli, args, input="0.1\n:undo\n:quit\n")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(x["id"], x.get("verdict"), x.get("undone")) for x in lines] == [
        ("tiny-ndcg", "wrong", None), ("tiny-ndcg", None, True)]


def test_undo_in_the_prompt_toolkit_loop(pack, drills_home):
    """The interactive front end over a pipe, with the real recorder and history."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from drills.cli.quiz.recorder import Recorder
    from drills.store import Store
    from drills.tui.interactive import run_interactive

    printed: list[str] = []
    with Store.open(drills_home) as store:
        sid = store.start_session("practice", 1, {})
        s = Session([NDCG, CHOICE], Options(pause=True))
        recorder = Recorder(store, sid, None)
        recorder.attach(s)
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            pipe.send_text("0.1\r:undo\r" + RIGHT_TEXT + "\r\x04")
            timer = threading.Timer(30, pipe.close)  # never hang the suite
            timer.start()
            try:
                summary = run_interactive(s, recorder, input=pipe, output=DummyOutput(),
                                          history=InMemoryHistory(), echo=printed.append)
            finally:
                timer.cancel()
    text = "\n".join(printed)
    assert "Took back your answer to question 1." in text
    assert summary.score == 1 and summary.asked == 1
    assert rows(drills_home, "SELECT question_id, verdict FROM attempts") == [("ndcg-worked", "correct")]


def test_a_card_reviewed_again_since_is_left_as_it_is(drills_home):
    """Another drills reviews the same item between the answer and the undo: the answer goes,
    the newer review stays, and take_back says so."""
    from datetime import datetime, timedelta, timezone

    from drills.store import Attempt, Store
    from drills.store.attempt import new_uid
    from drills.store.undo import before, take_back

    def answer(verdict: str, when: datetime) -> Attempt:
        return Attempt("q1", "t", "numeric", verdict, "1", "2", 2.0, (), 3.0, uid=new_uid(),
                       answered_at=when)

    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    with Store.open(drills_home) as store:
        sid = store.start_session("practice", 1, {})
        mine = answer("wrong", start)
        was = before(store, mine)
        assert was.row is None and was.key == "q:q1"
        store.record_attempt(sid, mine)
        store.record_attempt(sid, answer("correct", start + timedelta(minutes=5)))  # elsewhere
        card = "SELECT card, due, reviews, updated_at FROM review_cards"
        newer = store.conn.execute(card).fetchall()
        note = take_back(store, sid, was)
        assert note == "its review card was reviewed again since, so it is left as it is"
        assert store.conn.execute(card).fetchall() == newer
        left = store.conn.execute("SELECT verdict FROM attempts").fetchall()
        assert left == [("correct",)]


def test_undo_on_a_scenario_asks_its_step_again_and_carry_forward_follows(tmp_path):
    """A step taken back is asked again; after the slip of step 1 is taken back and answered
    right, step 3 is graded against the right numbers (correct, not consistent)."""
    from tests import ndcg_reference as ref
    from tests.test_scenario_session import PACK, POOL, RANKED, K
    from tests.test_scenario_session import session as scenario

    path = tmp_path / "scn.yaml"
    path.write_text(PACK, encoding="utf-8")
    s = scenario(path, "chain-1", "plain-1")
    s.start()
    dcg, idcg = ref.dcg(RANKED, K), ref.idcg(RANKED, POOL, K)
    s.submit(f"{ref.dcg(RANKED, K, 'linear'):.4f}")  # step 1: the linear-gain slip
    s.submit(f"{idcg:.4f}")
    events = s.submit(":undo")
    (undone,) = of(events, Undone)
    assert render(undone, Style()) == "Took back your answer to question 1, step 2."
    assert of(events, QuestionShown)[0].question.part.step == 2
    s.submit(":undo")
    assert s.current().part.step == 1 and s.records == []
    s.submit(f"{dcg:.4f}")
    s.submit(f"{idcg:.4f}")
    s.submit(f"{dcg / idcg:.4f}")
    assert [r.verdict for r in s.records] == ["correct", "correct", "correct"]
