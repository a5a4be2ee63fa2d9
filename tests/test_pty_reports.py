"""What a person sees of ``drills stats``, ``drills history show`` and ``drills grade`` in a
terminal (issue 23, point 2): the last screen holds the headline or the verdict, whether
the pager showed the text (less: its first page stays after ``q``) or there was no pager
(the headline said again last); no line is wider than the terminal."""

from __future__ import annotations

import pytest

from tests.test_pty import Term
from tests.test_wrapped_reports import build_history

pyte = pytest.importorskip("pyte")

ROWS, COLS = 24, 80
NO_PAGER = {"PAGER": "no-such-pager-for-drills-tests"}  # it cannot run: the text is printed
HEADLINE = "15 answers in 2 sessions: 6 correct (40%), 1 of them consistent"  # see build_history


def screen_of(t: Term, rows: int = ROWS, cols: int = COLS) -> list[str]:
    screen = pyte.Screen(cols, rows)
    pyte.Stream(screen).feed(t.seen.replace("\r\n", "\n").replace("\n", "\r\n"))
    return [line.rstrip() for line in screen.display]


def finished(args: list[str], home, extra: dict[str, str] | None = None,
             rows: int = ROWS, cols: int = COLS) -> tuple[str, Term]:
    t = Term(args, home, extra, dimensions=(rows, cols))
    t.expect_eof()
    return "\n".join(screen_of(t, rows, cols)), t


def widest(t: Term) -> int:
    return max(len(line) for line in t.seen.replace("\r", "").splitlines())


def test_stats_without_a_pager_ends_with_its_headline(drills_home):
    build_history()
    text, t = finished(["stats"], drills_home, NO_PAGER)
    assert t.seen.count("40%") >= 2  # said first and again last
    assert " ".join(text.split()).endswith(HEADLINE), text  # wrapped to the report's 60 columns
    assert widest(t) <= COLS


def test_stats_through_less_leaves_its_first_page_on_the_screen(drills_home):
    build_history()
    t = Term(["stats"], drills_home, dimensions=(ROWS, COLS))
    t.expect("Accuracy by topic")
    t.send("q")
    t.expect_eof()
    text = "\n".join(screen_of(t))
    assert HEADLINE in " ".join(text.split()), text


def test_history_show_without_a_pager_ends_with_the_session_and_its_score(drills_home):
    sid = build_history()
    text, t = finished(["history", "show", str(sid)], drills_home, NO_PAGER)
    tail = [line for line in text.splitlines() if line.strip()][-2:]
    assert tail[0].startswith(f"Session {sid} · practice · ") and tail[0].endswith(" · seed 4"), text
    assert tail[1].startswith("Score: 5/14 correct (1 of them consistent, 9 wrong); "), text
    assert widest(t) <= COLS


def test_a_wrong_grade_leaves_the_verdict_and_the_diagnosis_on_the_last_screen(drills_home):
    text, t = finished(["grade", "norm-idcg-at-2", "--answer", "1"], drills_home)
    assert "Wrong: 1; exact 3 + 2/log2(3) = 4.26185950714." in text, text
    assert "Diagnosis: ideal_unsorted" in text and "Right step: IDCG rank 1" in text.replace("\n", " ")
    assert widest(t) <= COLS


def test_a_grade_taller_than_a_small_terminal_says_the_verdict_again_last(drills_home):
    rows, cols = 8, 60
    text, t = finished(["grade", "norm-idcg-at-2", "--answer", "1"], drills_home, rows=rows, cols=cols)
    tail = [line for line in text.splitlines() if line.strip()][-2:]
    assert tail == ["Wrong: 1; exact 3 + 2/log2(3) = 4.26185950714.", "Diagnosis: ideal_unsorted"], text
    assert widest(t) <= cols
