"""What a person sees of commands in a terminal (issue 23): at 80x24, ``drills solve
--answer`` with a worked solution taller than the screen ends with the verdict and the
diagnosis (read from the screen, pyte), no line is wider than the terminal, and the slow
commands (export anki, packs install) say what they are doing."""

from __future__ import annotations

import pytest

from tests.test_pty import Term

pyte = pytest.importorskip("pyte")

ROWS, COLS = 24, 80


def final_screen(args: list[str], home) -> list[str]:
    t = Term(args, home, dimensions=(ROWS, COLS))
    t.expect_eof()
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(t.seen.replace("\n", "\r\n"))
    return [line.rstrip() for line in screen.display]


def test_a_wrong_answer_to_solve_leaves_the_verdict_on_the_last_screen(drills_home):
    screen = final_screen(["solve", "3,2,3,0,1,2", "--k", "5", "--answer", "0.82"], drills_home)
    text = "\n".join(screen)
    assert "Wrong: 0.82" in text, text
    assert "No known slip gives that number" in text, text


def test_no_line_of_solve_is_wider_than_the_terminal(drills_home):
    t = Term(["solve", "3,2,3,0,1,2", "--k", "5", "--answer", "0.82"], drills_home, dimensions=(ROWS, COLS))
    t.expect_eof()
    assert max(len(line) for line in t.seen.replace("\r", "").splitlines()) <= COLS


def test_export_anki_says_what_it_is_doing_on_a_terminal(drills_home, tmp_path):
    out = tmp_path / "deck.apkg"
    t = Term(["export", "anki", "--pack", "ndcg-conventions", "-o", str(out)], drills_home,
             dimensions=(ROWS, 60))
    t.expect("export: building the notes of")
    t.expect("export: writing")
    t.expect_eof()
    assert out.is_file()
    assert max(len(line) for line in t.seen.replace("\r", "").splitlines()) <= 60


def test_packs_install_says_it_is_working_on_a_terminal(drills_home, tmp_path):
    from click.testing import CliRunner

    from drills.cli import cli

    made = CliRunner().invoke(cli, ["packs", "new", "--output", str(tmp_path), "--", "mine"])
    assert made.exit_code == 0, made.output
    t = Term(["packs", "install", str(tmp_path / "mine.yaml")], drills_home, dimensions=(ROWS, COLS))
    t.expect("fetching and validating")
    t.expect("installed mine")
    t.expect_eof()


def test_three_slips_one_card_and_the_question_stays_on_screen(drills_home):
    """Issue 23, point 3: answering 1 to an NDCG question three slips explain gives one named
    slip, one explanation, an "also" line; the card fits 12 lines and the question stays."""
    t = Term(["practice", "--question", "mrr-disagree-a-ndcg", "--question", "norm-almost-perfect"],
             drills_home, {"PAGER": "cat"}, dimensions=(ROWS, COLS))
    t.expect("Question 1/2")
    t.expect("answer>")
    t.send("1\r")
    t.expect("next>")
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(t.seen)
    lines = [line.rstrip() for line in screen.display]
    text = "\n".join(lines)
    assert "Diagnosis: ideal_unsorted" in text, text
    assert "Also gives this number: ideal_from_retrieved, dcg_for_ndcg." in text.replace("\n", " "), text
    assert text.count("Right step") == 1, text
    assert "Question 1/2" in text and "Compute its NDCG@5" in text, text  # the question stays
    top = next(i for i, line in enumerate(lines) if line.startswith("Wrong: 1"))
    bottom = next(i for i, line in enumerate(lines) if "Also gives this number" in line)
    assert bottom - top + 1 <= 12, text
    t.send("\r")
    t.expect("Question 2/2")
    t.send("\x04")
    t.expect("Session over")
    t.close()
