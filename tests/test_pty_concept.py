"""A concept answer at 80x24, as a person sees it: the card (verdict, the wrong belief
named with its correction and the learner's words, the points made and missed, the keys)
is on screen together, and waits for the recall rating."""

from __future__ import annotations

import pytest

from tests.test_pty import Term
from tests.test_pty_feedback import COLS, ROWS, screen_of

pytest.importorskip("pyte")

ONE_OVER_R = ("the discount at rank r is 1/r, so NDCG = 1/r which is exactly RR; they are "
              "interchangeable")


def test_the_concept_card_fits_the_screen_with_verdict_points_and_belief(drills_home):
    t = Term(["practice", "--seed", "1", "--question", "mrr-single-relevant-identity"], drills_home,
             dimensions=(ROWS, COLS))
    t.expect("answer>")
    t.send(ONE_OVER_R + "\r")
    t.send("\r")  # an empty line ends a concept answer
    t.expect("grade>")
    screen = screen_of(t)
    for seen in ("Wrong: a wrong belief (ndcg_single_equals_rr)", "Wrong belief:", "you said:",
                 "Missed (required):", "[ ] NDCG = 1/log2(r + 1), RR = 1/r", ":override"):
        assert seen in screen, screen
    t.send("3\r")
    t.expect("Session over.")
    t.expect("Score: 0/1")
    t.expect("Retry the 1 question you missed?")  # a wrong concept answer is a miss
    t.send("n\r")
    assert t.close() == 0
