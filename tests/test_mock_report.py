"""The mock report (issue 23): no empty sections, and what to review next names the command."""

from __future__ import annotations

from drills.display import Style
from drills.model import Question
from drills.quiz.events import Record
from drills.quiz.session import Options, Session
from drills.tui.render import report


def _q(n: int, topic: str) -> Question:
    return Question(id=f"q{n}", topic=topic, kind="numeric", prompt=f"Q{n}", answer=1.0)


def test_a_mock_quit_at_once_has_no_empty_sections():
    s = Session([_q(1, "t")], Options(mode="mock"))
    s.start()
    s.quit(early=True)
    text = report(s.summary(), Style(width=80))
    assert "Score by topic" not in text and "Time per question" not in text
    assert "\n\n\n" not in text and "no question was answered" in text


def test_what_to_review_next_gives_the_command():
    items = [_q(1, "gain-and-discount"), _q(2, "normalization")]
    s = Session(items, Options(mode="mock"))
    s.restore([Record(0, items[0], "wrong", misconceptions=("linear_gain",), item=0)])
    text = report(s.summary(), Style(width=80))
    assert "gain-and-discount: `drills practice --topic gain-and-discount`" in text
    assert "misconception linear_gain: `drills practice --topic gain-and-discount`" in text
