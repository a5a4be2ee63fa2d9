"""The prompt_toolkit loop, driven through a pipe input with a dummy output."""

from __future__ import annotations

import re
import threading

import pytest

pytest.importorskip("prompt_toolkit")

from prompt_toolkit.application import create_app_session
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from drills.quiz.session import Options, Session
from drills.tui.interactive import run_interactive
from tests.test_session import CHOICE, CONCEPT, NDCG


def play(items, keys: str, options: Options | None = None, later: tuple[float, str] | None = None):
    """Run the interactive loop over ``keys``; returns (summary, printed text, records)."""
    printed: list[str] = []
    records = []
    session = Session(items, options)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        timer = threading.Timer(later[0], pipe.send_text, (later[1],)) if later else None
        if timer:
            timer.start()
        try:
            summary = run_interactive(session, records.append, input=pipe, output=DummyOutput(),
                                      history=InMemoryHistory(), echo=printed.append)
        finally:
            if timer:
                timer.cancel()
    return summary, "\n".join(printed), records


def test_right_then_wrong_answer():
    summary, text, records = play([NDCG, NDCG], "0.7592\r0.8675\r")
    assert [r.verdict for r in records] == ["correct", "wrong"]
    assert "Question 1/2" in text and "Question 2/2" in text
    assert "Diagnosis: linear_gain" in text and "Session over." in text
    assert summary.score == 1


def test_invalid_answer_is_asked_again():
    summary, text, records = play([CHOICE], "zz\rb\r")
    assert "answer with a letter" in text and "Not counted" in text
    assert [r.verdict for r in records] == ["correct"]


def test_ctrl_c_skips_and_ctrl_d_quits():
    summary, text, records = play([NDCG, CHOICE, CHOICE], "\x03\x04")
    assert [r.verdict for r in records] == ["skipped"]
    assert "Skipped" in text and summary.asked == 1 and summary.total == 3


def test_commands_in_the_loop():
    summary, text, records = play([NDCG], ":hint\r:help\r0.7592\r:steps\r")
    assert "Hint 1/2" in text and ":skip" in text
    assert records[0].hints == 1


def test_concept_answer_is_multiline_and_self_graded():
    keys = "Dividing by the ideal DCG\rputs each query on a 0-1 scale\r\rgood\r"
    summary, text, records = play([CONCEPT], keys)
    assert "Key points you covered" in text and "[x]" in text
    assert records[0].self_grade == "good"
    assert records[0].given == "Dividing by the ideal DCG\nputs each query on a 0-1 scale"


def test_concept_answer_ends_with_escape_enter():
    summary, text, records = play([CONCEPT], "one line answer\x1b\r3\r")
    assert records[0].self_grade == "good" and records[0].given == "one line answer"


def test_question_times_out_in_mock():
    summary, text, records = play([NDCG, CHOICE], "", Options(mode="mock", seconds=0.6),
                                  later=(1.0, "b\r"))
    assert [r.verdict for r in records] == ["timeout", "correct"]
    assert "Time is up" in text and "Mock interview report" in text


def test_toolbar_shows_score_streak_and_countdown():
    from drills.display import Style
    from drills.tui.interactive import Interactive
    from drills.tui.output import Output

    session = Session([CHOICE, CHOICE], Options(mode="mock", seconds=90))
    session.start()
    session.submit("b")
    with create_pipe_input() as pipe:
        ui = Interactive(session, Output(Style()), input=pipe, output=DummyOutput(),
                         history=InMemoryHistory())
        bar = "".join(text for _, text in ui.toolbar().__pt_formatted_text__())
    assert "Q 2/2" in bar and "score 1/1" in bar and "streak 1" in bar
    assert re.search(r"1:(30|29|28) left", bar), bar  # a loaded machine may take a second or two
