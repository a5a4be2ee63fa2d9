"""Issue 23, point 6: a skipped question shows a short card, as a miss does (the whole worked
solution on :steps), and the end of a long concept feedback (its key points, the grade
prompt) or of a long worked solution (the verdict said again) is printed after the pager
closes, so ``q`` on the pager's first page never hides it."""

from __future__ import annotations

from math import log2

from drills.display import Style
from drills.quiz.session import Options, Revealed, Session, Skipped, StepsShown
from drills.tui.output import Output
from drills.tui.render import render
from tests.test_session import CHOICE, CONCEPT, NDCG, Clock, of

# NDCG@4 of grades [2, 1, 3, 0] against the pool [3, 2, 1, 0], gain 2^rel - 1
VALUE = (3 + 1 / log2(3) + 7 / 2) / (7 + 3 / log2(3) + 1 / 2)


def skip(item, **options):
    s = Session([item, CHOICE], Options(**options), clock=Clock())
    s.start()
    return s, of(s.submit(":skip"), Skipped)[0]


def test_a_skip_in_brief_is_a_card_and_steps_shows_the_worked_solution():
    s, ev = skip(NDCG, feedback="brief")
    text = render(ev, Style(width=80))
    lines = text.splitlines()
    assert lines[0] == "Skipped (recorded as skipped)."
    assert lines[1].startswith("Answer: ") and f"{VALUE:.8f}" in lines[1]
    assert lines[-1] == "(:steps shows the full worked solution)"
    assert len(lines) <= 6 and "IDCG@4" not in text and "rank  rel" not in text  # no tables
    assert max(map(len, lines)) <= 80
    (steps,) = of(s.submit(":steps"), StepsShown)
    assert "IDCG@4" in render(steps, Style(width=80))  # the whole solution is one command away


def test_a_skip_in_full_feedback_or_a_mock_is_unchanged():
    _, ev = skip(NDCG, feedback="full")
    assert "IDCG@4" in render(ev, Style(width=80))
    _, ev = skip(NDCG, mode="mock", feedback="end")
    assert render(ev, Style(width=80)) == "Skipped (recorded as skipped)."


def test_a_skipped_choice_card_gives_the_letter_and_the_reason():
    _, ev = skip(CHOICE, feedback="brief")
    text = render(ev, Style(width=80))
    assert "Answer: b) 2^rel - 1" in text and "(:steps" not in text  # nothing more to show


def test_a_skipped_concept_card_offers_the_model_answer_and_key_points():
    _, ev = skip(CONCEPT, feedback="brief")
    text = render(ev, Style(width=80))
    assert text.splitlines()[-1] == "(:steps shows the whole model answer and its key points)"
    assert "Model answer:" in text and "[ ]" not in text


def pages(quit_at_once: bool):
    """An Output whose pager takes everything it is given (a reader who presses q at once)."""
    printed: list[str] = []
    paged: list[str] = []

    def pager(text: str) -> bool:
        paged.append(text)
        return quit_at_once

    out = Output(Style(width=80), echo=printed.append)
    out.pager = pager
    return out, printed, paged


def test_key_points_are_printed_after_the_pager_closes():
    long = " ".join(["Dividing by the ideal DCG puts every query on the same 0-1 scale."] * 30)
    ev = Revealed(CONCEPT, long, (("puts queries on a comparable 0-1 scale", True),
                                  ("ideal ranking scores exactly 1", False)))
    out, printed, paged = pages(quit_at_once=True)
    out._draw([ev])
    assert len(paged) == 1 and "Key points" not in paged[0] and "Model answer:" in paged[0]
    (tail,) = printed
    assert tail.startswith("Key points you covered (1/2):")
    assert tail.splitlines()[-1] == "Grade yourself: again, hard, good or easy (1-4)"


def test_the_verdict_under_a_long_solution_is_printed_after_the_pager():
    s = Session([NDCG, CHOICE], Options(feedback="full"), clock=Clock())
    s.start()
    (graded,) = [e for e in s.submit("0.8675") if type(e).__name__ == "Graded"]
    out, printed, paged = pages(quit_at_once=True)
    out._draw([graded])
    assert len(paged) == 1 and "=> Wrong" not in paged[0]
    assert printed == [render(graded, Style(width=80)).rpartition("\n\n")[2]]
    assert printed[0].startswith(f"=> Wrong: you answered 0.8675, the answer is {VALUE:.6g}")
