"""``:undo`` and the skip card at 80x24, as a person sees them (issue 23, point 6): the pty
output is replayed into pyte and the assertions read the visible screen."""

from __future__ import annotations

import sqlite3

import pytest

from tests.test_pty import Term

pyte = pytest.importorskip("pyte")

ROWS, COLS = 24, 80
PAGED = {"PAGER": "sh -c 'cat > /dev/null; echo PAGED-BY-PAGER'"}


def screen_of(t: Term) -> list[str]:
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(t.seen)
    return [line.rstrip() for line in screen.display]


def builtin(home, *extra, env=None):
    return Term(["practice", "--seed", "4", "--pack", "ndcg-hand-computation", "--count", "2",
                 *extra], home, env, dimensions=(ROWS, COLS))


def test_undo_after_a_miss_asks_the_question_again_and_the_toolbar_goes_back(drills_home):
    t = builtin(drills_home, env=PAGED)
    t.expect("Question 1/2")
    t.expect("answer>")
    t.send("0.5\r")
    t.expect("next>")
    t.expect("streak")
    assert "score 0/1" in screen_of(t)[-1]
    t.send(":undo\r")
    t.expect("Took back your answer to question 1.")
    t.expect("answer>")
    t.expect("streak")  # the toolbar, drawn after the prompt
    screen = screen_of(t)
    text = "\n".join(screen)
    took = next(i for i, line in enumerate(screen) if "Took back your answer" in line)
    assert any(line.startswith("Question 1/2") for line in screen[took:]), text  # asked again
    assert "Q 1/2" in screen[-1] and "score 0/0" in screen[-1], screen[-1]
    assert "Question 2/2" not in t.seen
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0
    assert "PAGED-BY-PAGER" not in t.seen
    with sqlite3.connect(drills_home / "drills.db") as db:
        assert db.execute("SELECT count(*) FROM attempts").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM review_cards").fetchone() == (0,)


def test_a_skip_shows_a_card_not_the_pager(drills_home):
    t = builtin(drills_home, env=PAGED)
    t.expect("Question 1/2")
    t.expect("answer>")
    t.send("\x03")  # Ctrl-C on an empty line: skip
    t.expect("Question 2/2")
    t.expect("answer>")
    t.expect("streak")
    screen = screen_of(t)
    text = "\n".join(screen)
    assert "PAGED-BY-PAGER" not in t.seen  # the worked solution did not open in the pager
    top = next(i for i, line in enumerate(screen) if line.startswith("Skipped (recorded as skipped)."))
    bottom = next(i for i, line in enumerate(screen) if "(:steps shows the full worked solution)" in line)
    assert screen[top + 1].startswith("Answer: "), text
    assert bottom - top <= 6, text  # a card, and the next question under it on the same screen
    assert any(line.startswith("Question 2/2") for line in screen[bottom:]), text
    assert "rank  rel" not in text  # no worked table
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0
