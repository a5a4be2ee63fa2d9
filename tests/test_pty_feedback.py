"""The tutor at 80x24, as a person sees it: the feedback card stays on screen and waits.

The pty output is replayed into pyte, a terminal emulator, so the assertions are about
the visible 80x24 screen, not the byte stream: after a miss the diagnosis line is on
screen and the next question has not been drawn; Enter brings it; ``s`` shows the full
worked solution through the pager (less).
"""

from __future__ import annotations

import shutil

import pytest

from tests.test_pty import Term, pexpect

pyte = pytest.importorskip("pyte")

ROWS, COLS = 24, 80


def screen_of(t: Term) -> str:
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.Stream(screen)
    stream.feed(t.seen)
    return "\n".join(line.rstrip() for line in screen.display)


def builtin(home, *extra, env=None):
    return Term(["practice", "--seed", "4", "--pack", "ndcg-hand-computation", *extra], home, env,
                dimensions=(ROWS, COLS))


def test_after_a_miss_the_card_is_on_screen_and_the_next_question_waits(drills_home):
    t = builtin(drills_home, "--count", "2", env={"PAGER": "cat"})
    t.expect("Question 1/2")
    t.expect("answer>")
    t.send("0.5\r")
    t.expect("Enter: next question")
    t.expect("next>")
    screen = screen_of(t)
    assert "Wrong: 0.5" in screen or "Close: 0.5" in screen, screen
    assert "Accepted [" in screen, screen
    assert "Question 2/2" not in t.seen  # it waits
    t.expect("streak")  # the toolbar, drawn after the prompt
    toolbar = screen_of(t).splitlines()[-1]
    assert "Q 1/2" in toolbar and "Q 2/2" not in toolbar, toolbar  # still the question answered
    t.send("\r")
    t.expect("Question 2/2")
    t.expect("answer>")
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0


@pytest.mark.skipif(shutil.which("less") is None, reason="needs less")
def test_s_shows_the_full_solution_through_the_pager(drills_home):
    t = builtin(drills_home, "--count", "2")
    t.expect("answer>")
    t.send("0.5\r")
    t.expect("next>")
    t.send("s\r")
    t.expect("IDCG")  # the worked tables, in less
    t.expect(":", "(END)")  # less's prompt: it waits for the reader
    t.send("q")
    t.expect("Enter: next question")
    t.expect("next>")
    t.send("\r")
    t.expect("Question 2/2")
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0


assert pexpect is not None


def test_tab_completes_h_to_hint(drills_home):
    t = builtin(drills_home, "--count", "1")
    t.expect("answer>")
    t.send(":h\t")
    t.expect(":hint")
    t.send("\r")
    t.expect("Hint 1/")
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0


def test_ctrl_c_clears_typed_text_and_the_question_stays(drills_home):
    t = builtin(drills_home, "--count", "2", env={"PAGER": "cat"})
    t.expect("Question 1/2")
    t.expect("answer>")
    t.send("0.12345")
    t.expect("0.12345")
    t.send("\x03")  # clears the line: nothing is skipped
    t.send("\x04")  # Ctrl-D on the empty line quits: answered 0 of 2
    t.expect("Session over.")
    assert t.close() == 0
    assert "Skipped" not in t.seen and "Answered 0 of 2" in t.seen


def test_output_taller_than_the_terminal_goes_through_the_pager(drills_home):
    """stats and a worksheet on a 12-line terminal: $PAGER gets them; piped, nobody does."""
    pager = {"PAGER": "sh -c 'cat > /dev/null; echo PAGED-BY-PAGER'"}
    for args in (["generate", "--seed", "1", "--count", "5"], ["docs", "quiz"]):
        t = Term(args, drills_home, pager, dimensions=(12, 80))
        t.expect("PAGED-BY-PAGER")
        assert t.close() == 0
