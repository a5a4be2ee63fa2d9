"""A resumed session is the same session (issue 23): the plan walk over saved answers, the
session restored with its earlier records, and piped practice: one history row, totals of
the whole plan."""

from __future__ import annotations

from click.testing import CliRunner

from drills.cli import cli
from drills.cli.quiz.flow import items_completed
from drills.model import Question
from drills.quiz.events import Record
from drills.quiz.session import Options, Session


def test_items_completed_counts_whole_items_from_the_first():
    plain = [(None, None)] * 3
    assert items_completed(plain, [1, 1, 1, 1]) == 3
    # a scenario of 3 steps cut after 2, then asked again whole after a resume
    steps = [(None, None), ("s", 1), ("s", 2), ("s", 1), ("s", 2), ("s", 3), (None, None)]
    assert items_completed(steps, [1, 3, 1, 1]) == 3
    assert items_completed(steps[:3], [1, 3, 1]) == 1


def _q(n: int) -> Question:
    return Question(id=f"q{n}", topic="t", kind="numeric", prompt=f"Q{n}", answer=1.0)


def test_a_restored_session_counts_the_earlier_answers():
    items = [_q(n) for n in range(4)]
    s = Session(items, Options())
    s.restore([Record(0, items[0], "correct", item=0), Record(1, items[1], "wrong", item=1)])
    assert (s.index, s.score, len(s.records), s.streak, s.best_streak) == (2, 1, 2, 0, 1)
    assert s.position() == (3, 4)
    summary = s.summary()
    assert (summary.score, summary.asked) == (1, 2)


def test_piped_resume_keeps_one_session_row(tmp_path):
    runner = CliRunner()
    first = runner.invoke(cli, ["practice", "--seed", "3", "--count", "3"], input=":skip\n:quit\n")
    assert "goes on from there" in first.stdout
    again = runner.invoke(cli, ["practice", "--resume"], input=":skip\n:skip\n")
    assert again.exit_code == 0, again.output
    assert "Score: 0/3 correct (3 skipped)" in again.stdout
    listed = runner.invoke(cli, ["history", "list"])
    rows = [line for line in listed.stdout.splitlines() if "practice" in line]
    assert len(rows) == 1 and "0/3" in rows[0]
