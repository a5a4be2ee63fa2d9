"""Concept answers with a rubric in the quiz state machine: the verdict counts (score,
streak, record, misconception ids), the rating stays the review input, :override is
recorded as such, s shows the model answer, nothing typed is lost, and a mock with
feedback at the end keeps the card for the report."""

from __future__ import annotations

from dataclasses import replace

from drills.display import Style
from drills.model import KeyPoint, Misconception, Rubric
from drills.quiz.session import (
    Finished,
    Graded,
    InvalidAnswer,
    Notice,
    Options,
    Revealed,
    Session,
    StepsShown,
)
from drills.tui.conceptcard import CARD_LINES
from drills.tui.render import render
from tests.test_session import CONCEPT, NDCG

RUBRIC = Rubric(
    points=(KeyPoint("puts queries on a comparable 0-1 scale", True, ("0-1 scale", "queries comparable")),
            KeyPoint("ideal ranking scores exactly 1", False, ("ideal ranking|order 1",)),
            KeyPoint("dividing by the ideal DCG", True, ("divid* idcg", "idcg denominator"))),
    misconceptions=(Misconception("idcg_is_list_length", "IDCG is the DCG of the ideal order, not a length.",
                                  ("idcg length list", "divid* length")),))
GRADED = replace(CONCEPT, rubric=RUBRIC)
RIGHT = "Dividing by IDCG makes queries comparable on a 0-1 scale."
PARTIAL = "You divide by IDCG."
BELIEF = "You divide by the length of the list, so queries are comparable."


def answer(text: str, rating: str = "3", options: Options | None = None, *more: str):
    s = Session([GRADED, NDCG], options or Options())
    s.start()
    shown = s.submit(text)
    events = list(shown)
    for word in more:
        events += s.submit(word)
    events += s.submit(rating)
    return s, shown, events


def test_the_rubric_verdict_counts_not_the_rating():
    s, shown, _ = answer(BELIEF, rating="easy")
    assert isinstance(shown[0], Revealed) and shown[0].grade.verdict == "wrong"
    rec = s.records[0]
    assert (rec.verdict, rec.self_grade, rec.misconceptions) == ("wrong", "easy", ("idcg_is_list_length",))
    assert s.score == 0 and s.streak == 0
    s, _, _ = answer(PARTIAL, rating="hard")  # "hard" no longer makes an answer correct
    assert s.records[0].verdict == "partial" and s.score == 0
    s, _, _ = answer(RIGHT, rating="again")
    assert s.records[0].verdict == "correct" and s.score == 1 and s.streak == 1


def test_override_is_recorded_as_such_and_can_be_withdrawn():
    s, _, events = answer(PARTIAL, "3", None, ":override")
    assert any(isinstance(e, Notice) and "counts as correct" in e.text for e in events)
    assert (s.records[0].verdict, s.records[0].overridden) == ("correct", True)
    s, _, _ = answer(BELIEF, "3", None, ":override", ":override")
    assert (s.records[0].verdict, s.records[0].overridden) == ("wrong", False)
    assert s.records[0].misconceptions == ("idcg_is_list_length",)
    s, _, _ = answer(BELIEF, "3", None, ":override")  # overruled to correct: no belief is stored
    assert (s.records[0].verdict, s.records[0].misconceptions) == ("correct", ())


def test_override_needs_a_graded_card():
    s = Session([NDCG], Options())
    s.start()
    (notice,) = s.submit(":override")
    assert isinstance(notice, Notice) and "graded concept answer" in notice.text


def test_s_shows_the_model_answer_and_the_card_still_waits():
    s = Session([GRADED], Options())
    s.start()
    s.submit(PARTIAL)
    shown = s.submit("s")
    assert isinstance(shown[0], StepsShown) and "Model answer:" in shown[0].text
    assert "Partial" in shown[0].text and s.awaiting_grade
    assert isinstance(s.submit("maybe")[0], InvalidAnswer) and s.awaiting_grade
    s.submit("4")
    assert s.records[0].verdict == "partial"


def test_skip_and_quit_on_the_card_keep_the_graded_answer():
    s = Session([GRADED, NDCG], Options())
    s.start()
    s.submit(BELIEF)
    events = s.skip()
    assert isinstance(events[0], Graded)
    assert (s.records[0].verdict, s.records[0].given, s.records[0].self_grade) == ("wrong", BELIEF, None)
    s = Session([GRADED, NDCG], Options())
    s.start()
    s.submit(RIGHT)
    events = s.quit()
    assert isinstance(events[-1], Finished) and s.records[0].verdict == "correct"


def test_a_mock_with_feedback_at_the_end_records_the_verdict_without_a_card():
    s = Session([GRADED, NDCG], Options(mode="mock", feedback="end"))
    s.start()
    events = s.submit(BELIEF)
    assert not any(isinstance(e, Revealed) for e in events)
    assert isinstance(events[0], Graded) and events[0].deferred
    assert "feedback comes in the report" in render(events[0], Style(False, 80))
    assert s.records[0].verdict == "wrong" and s.records[0].self_grade is None
    assert "Wrong belief (idcg_is_list_length)" in s.records[0].explanation


def test_full_feedback_shows_the_model_answer_before_the_card():
    s = Session([GRADED], Options(feedback="full"))
    s.start()
    events = s.submit(PARTIAL)
    assert isinstance(events[0], StepsShown) and isinstance(events[1], Revealed)


def test_the_card_fits_twelve_lines_at_any_width():
    busy = replace(RUBRIC, points=RUBRIC.points * 1 + tuple(
        KeyPoint(f"extra point number {i} about something long enough to wrap", False, ("zzz",))
        for i in range(6)))
    s = Session([replace(CONCEPT, rubric=busy)], Options())
    s.start()
    (card,) = s.submit(BELIEF + " " + "padding words " * 30)
    for width in (40, 60, 80, 120):
        text = render(card, Style(False, width))
        lines = text.splitlines()
        assert len(lines) <= CARD_LINES and lines[0].startswith("Wrong")
        assert "IDCG is the DCG of the ideal order" in " ".join(line.strip() for line in lines)
        assert all(len(line) <= width for line in lines), (width, lines)


def test_the_mock_report_names_the_wrong_beliefs_with_their_corrections():
    s = Session([GRADED, NDCG], Options(mode="mock", feedback="end"))
    s.start()
    s.submit(BELIEF)
    finished = s.submit("0.5")[-1]
    assert isinstance(finished, Finished)
    report = render(finished, Style(False, 80))
    assert "Wrong beliefs you stated" in report
    assert "idcg_is_list_length: IDCG is the DCG of the ideal order, not a length." in report
    assert "Wrong belief (idcg_is_list_length)" in report  # the explanation of the miss
