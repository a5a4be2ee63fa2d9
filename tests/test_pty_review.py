"""``drills review`` as a person sees it at 80x24 (issue 23, points 2 and 5): ``--list`` taller
than the screen opens in the pager with its counts on the first screen and no line wider
than the terminal; a review answer says under its verdict when the question comes back."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone

import pytest

from drills.store import Store
from drills.store import cards as rv
from tests.test_pty import Term

pyte = pytest.importorskip("pyte")

ROWS, COLS = 24, 80


def due_cards(home, keys: list[str]) -> None:
    now = datetime.now(timezone.utc)
    with Store.open() as s:
        for i, key in enumerate(keys):
            due = now - timedelta(hours=len(keys) - i)
            card = rv.Card(card_id=rv.card_id(key), due=due)
            s.conn.execute("INSERT INTO review_cards(item_key, card, due, reviews, updated_at) "
                           "VALUES (?, ?, ?, 1, ?)",
                           (key, json.dumps(card.to_dict()), rv.utc_text(due), rv.utc_text(due)))
        s.conn.commit()


def screen_of(t: Term) -> list[str]:
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(t.seen.replace("\r\n", "\n").replace("\n", "\r\n"))
    return [line.rstrip() for line in screen.display]


@pytest.mark.skipif(shutil.which("less") is None, reason="needs less as the pager")
def test_a_long_review_list_opens_in_the_pager_with_its_counts_on_top(drills_home):
    from drills.packs import discover

    keys = sorted(f"q:{q.id}" for q in discover().questions
                  if q.kind == "numeric" and not q.generator)[:30]
    due_cards(drills_home, keys)
    t = Term(["review", "--list", "--count", "30"], drills_home, {"PAGER": "less"},
             dimensions=(ROWS, COLS))
    t.expect("30 items due for review:")
    t.expect(":")  # less waits at the bottom of the first screen
    first = screen_of(t)
    assert first[0] == "30 items due for review:", first
    t.child.send("q")
    t.expect_eof()
    lines = t.seen.replace("\r", "").splitlines()
    assert max(len(line) for line in lines) <= COLS


def test_a_review_answer_says_when_the_question_comes_back(drills_home):
    due_cards(drills_home, ["q:norm-idcg-at-2", "q:norm-why-normalize"])  # the first most overdue
    t = Term(["review"], drills_home, dimensions=(ROWS, COLS))
    t.expect("Review: 2 due items")
    t.expect("answer>")
    t.child.send("0.5\r")
    t.expect("next>")  # the miss waits for Enter: the note is on the screen with the verdict
    screen = screen_of(t)
    text = "\n".join(screen)
    assert "Wrong: 0.5" in text, text
    wrong = next(i for i, line in enumerate(screen) if line.startswith("Wrong: 0.5"))
    note = next(i for i, line in enumerate(screen) if line.startswith("Next review of this question:"))
    assert wrong < note
    assert screen[note] in ("Next review of this question: in under a minute",
                            "Next review of this question: now (still due)")
    t.child.send("\r")
    t.expect("Question 2/2")
    t.expect("answer>")
    t.child.send("\x04")  # quit
    t.expect("Next due:")
    t.expect_eof()
    last = "\n".join(screen_of(t))
    # the one not answered (and the missed one too, if a minute went by on a loaded machine)
    assert ("Still due: 1 item; run `drills review` again." in last
            or "Still due: 2 items; run `drills review` again." in last), last
