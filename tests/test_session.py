"""The quiz state machine: pure, no I/O, driven with a fake clock."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from drills.display import Style
from drills.engine.problem import Problem
from drills.grading.keypoints import covered
from drills.model import Option, Question
from drills.quiz.session import (
    COMMANDS,
    Finished,
    Graded,
    HintShown,
    InvalidAnswer,
    Notice,
    Options,
    QuestionShown,
    Revealed,
    Session,
    Skipped,
    StepsShown,
    TimedOut,
    Waiting,
)
from drills.tui.render import render

NDCG = Question(
    id="ndcg-worked", topic="hand-computation", kind="numeric",
    prompt="Ranked relevance [2, 1, 3, 0], judged pool [3, 2, 1, 0]: NDCG@4 (gain 2^rel - 1)?",
    problem=Problem((2, 1, 3, 0), (3, 2, 1, 0), 4), metric="ndcg",
    hints=("IDCG sorts the judged pool best first.", "The discount at rank i is log2(i + 1)."),
)
CHOICE = Question(
    id="gain-choice", topic="conventions", kind="choice", prompt="Burges et al. use which gain?",
    options=(Option("rel"), Option("2^rel - 1", True), Option("2^rel", False, "That keeps gain 1 for rel 0.")),
)
CONCEPT = Question(
    id="why-normalize", topic="normalization", kind="concept", prompt="Why divide DCG by IDCG?",
    model_answer="DCG grows with the number of relevant documents; dividing by the ideal DCG "
                 "puts every query on a 0-1 scale.",
    key_points=("puts queries on a comparable 0-1 scale", "ideal ranking scores exactly 1",
                "dividing by the ideal DCG"),
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def test_start_shows_first_question():
    s = Session([NDCG, CHOICE])
    (shown,) = s.start()
    assert isinstance(shown, QuestionShown) and shown.index == 0 and shown.total == 2
    assert s.current() is NDCG


def test_correct_answer_records_and_advances():
    s = Session([NDCG, CHOICE])
    s.start()
    events = s.submit("0.7592")
    (graded,) = of(events, Graded)
    assert graded.record.verdict == "correct"
    assert graded.record.expected_value == pytest.approx(0.759191924319732)
    assert of(events, QuestionShown)[0].index == 1
    assert s.score == 1 and s.streak == 1
    line = render(graded, Style(width=200))
    assert line.startswith("Correct") and "0.75919192432" in line
    assert len(line.splitlines()) == 1  # a correct answer: one line with the exact value


def test_exact_expression_is_correct():
    s = Session([NDCG])
    s.start()
    (graded,) = of(s.submit("(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))"), Graded)
    assert graded.record.verdict == "correct"


def test_wrong_answer_is_diagnosed_with_worked_solution():
    s = Session([NDCG], Options(feedback="full"))
    s.start()
    events = s.submit("0.8675")
    (graded,) = of(events, Graded)
    assert graded.record.verdict == "wrong"
    assert "linear_gain" in graded.record.misconceptions
    text = render(graded)
    assert "Diagnosis: linear_gain" in text and "IDCG@4" in text
    assert isinstance(events[-1], Finished)
    assert s.streak == 0


def test_brief_feedback_is_a_card_and_the_steps_wait_for_steps():
    s = Session([NDCG, NDCG])
    s.start()
    events = s.submit("0.8675")
    (graded,) = of(events, Graded)
    card = render(graded, Style(width=80))
    assert "Diagnosis: linear_gain" in card and "That formula gives 0.867503" in card
    assert "Right step: DCG rank 1" in card
    assert "IDCG@4" not in card  # the tables wait for :steps
    assert len(card.splitlines()) <= 12
    assert of(events, Notice) and ":steps" in render(of(events, Notice)[0])  # no pause: say how
    assert of(events, QuestionShown)  # plain mode: nothing waits
    (steps,) = of(s.submit(":steps"), StepsShown)
    assert "IDCG@4" in render(steps)


def test_after_a_miss_on_a_terminal_the_next_question_waits_for_enter():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(pause=True, seconds=30), clock=clock)
    s.start()
    events = s.submit("0.8675")
    assert of(events, Waiting) and not of(events, QuestionShown) and s.waiting
    assert s.deadline() is None  # reading the feedback costs no question time
    clock.now += 100
    shown = s.submit("s")
    assert of(shown, StepsShown) and of(shown, Waiting)  # the full solution, still waiting
    assert of(s.submit("b"), Notice) and s.waiting  # not taken as the next answer
    (question,) = of(s.submit(""), QuestionShown)
    assert question.question is CHOICE and question.limit == 30 and not s.waiting
    assert of(s.submit("b"), Graded) and s.finished  # a right answer never waits


def test_ctrl_c_on_the_feedback_goes_on_and_skips_nothing():
    s = Session([NDCG, CHOICE], Options(pause=True))
    s.start()
    s.submit("0.8675")
    (question,) = of(s.skip(), QuestionShown)
    assert question.question is CHOICE and len(s.records) == 1


def test_invalid_answer_is_asked_again_not_counted():
    s = Session([NDCG])
    s.start()
    (invalid,) = s.submit("zero point seven")
    assert isinstance(invalid, InvalidAnswer)
    assert s.records == [] and s.current() is NDCG
    assert of(s.submit(""), InvalidAnswer)
    assert of(s.submit("0.7592"), Graded)


def test_hints_one_at_a_time_then_none_left():
    s = Session([NDCG])
    s.start()
    first, = s.submit(":hint")
    second, = s.hint()
    assert isinstance(first, HintShown) and (first.number, first.of) == (1, 2)
    assert second.text == NDCG.hints[1]
    assert isinstance(s.hint()[0], Notice)
    s.submit("0.7592")
    assert s.records[0].hints == 2


def test_skip_records_and_shows_the_answer():
    s = Session([NDCG, CHOICE])
    s.start()
    events = s.submit(":skip")
    (skipped,) = of(events, Skipped)
    assert skipped.record.verdict == "skipped"
    assert "0.7591919243" in skipped.record.explanation
    assert s.current() is CHOICE and s.streak == 0


def test_steps_show_the_last_graded_question():
    s = Session([NDCG, CHOICE])
    s.start()
    assert isinstance(s.steps()[0], Notice)  # nothing graded yet
    s.submit("0.7592")
    steps, again = s.submit(":steps")
    assert isinstance(steps, StepsShown) and "DCG@4" in steps.text and "IDCG@4" in steps.text
    # the question now waiting is shown again below the old solution, clock not restarted
    assert isinstance(again, QuestionShown) and again.question is CHOICE and s.index == 1


def test_quit_finishes_with_a_summary():
    s = Session([NDCG, CHOICE], Options(seed=7))
    s.start()
    s.submit("0.7592")
    (done,) = s.submit(":quit")
    assert isinstance(done, Finished) and s.finished
    assert done.summary.asked == 1 and done.summary.total == 2 and done.summary.quit_early
    text = render(done)
    assert "Score: 1/1" in text and "--seed 7" in text
    assert s.submit("0.1") == []


def test_choice_by_letter_and_option_explanation():
    s = Session([CHOICE, CHOICE])
    s.start()
    assert of(s.submit("b"), Graded)[0].record.verdict == "correct"
    (graded,) = of(s.submit("c"), Graded)
    assert graded.record.verdict == "wrong" and "keeps gain 1" in render(graded)


def test_choice_bad_letter_is_invalid():
    s = Session([CHOICE])
    s.start()
    (ev,) = s.submit("z")
    assert isinstance(ev, InvalidAnswer) and "a to c" in ev.message


def test_concept_flow_marks_key_points_then_self_grade():
    s = Session([CONCEPT, NDCG])
    s.start()
    (revealed,) = s.submit("Raw DCG depends on how many relevant docs a query has.\n"
                           "Dividing by the ideal DCG puts every query on a 0-1 scale.")
    assert isinstance(revealed, Revealed) and s.awaiting_grade
    marks = dict(revealed.key_points)
    assert marks["puts queries on a comparable 0-1 scale"]
    assert marks["dividing by the ideal DCG"]
    assert not marks["ideal ranking scores exactly 1"]
    assert isinstance(s.submit("meh")[0], InvalidAnswer)
    events = s.submit("good")
    (graded,) = of(events, Graded)
    assert graded.record.self_grade == "good" and graded.record.verdict == "correct"
    assert "Raw DCG" in graded.record.given
    assert of(events, QuestionShown)


# "hard" is a recall with effort, as in spaced repetition: only "again" is a miss
@pytest.mark.parametrize("grade,verdict", [("again", "wrong"), ("1", "wrong"), ("2", "correct"),
                                           ("hard", "correct"), ("g", "correct"), ("e", "correct")])
def test_self_grade_maps_to_a_verdict(grade, verdict):
    s = Session([CONCEPT])
    s.start()
    s.submit("something")
    assert of(s.self_grade(grade), Graded)[0].record.verdict == verdict


def test_covered_is_keyword_overlap():
    assert covered("ideal ranking scores exactly 1", "the IDEAL ranking would score 1")
    assert not covered("ideal ranking scores exactly 1", "it normalises by length")


def test_mock_timeout_records_timeout():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(mode="mock", seconds=30), clock=clock)
    (shown,) = s.start()
    assert shown.limit == 30 and s.remaining() == 30
    clock.now += 12
    assert s.remaining() == 18
    events = s.timeout()
    (timed,) = of(events, TimedOut)
    assert timed.record.verdict == "timeout" and timed.record.seconds == 30
    clock.now += 31
    (late,) = of(s.submit("b"), TimedOut)  # an answer after the deadline is a timeout too
    assert late.record.question is CHOICE and s.finished


def test_mock_total_minutes_ends_the_session():
    clock = Clock()
    s = Session([NDCG, CHOICE, CHOICE], Options(mode="mock", minutes=1), clock=clock)
    s.start()
    clock.now += 61
    events = s.timeout()
    assert isinstance(events[-1], Finished) and events[-1].summary.asked == 1


def test_mock_has_no_hints_and_defers_feedback():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(mode="mock", feedback="end", seconds=60), clock=clock)
    s.start()
    assert isinstance(s.hint()[0], Notice)
    clock.now += 5
    (graded,) = of(s.submit("0.8675"), Graded)
    assert graded.deferred and "report" in render(graded)
    assert isinstance(s.steps()[0], Notice)
    clock.now += 7
    events = s.submit("b")
    report = render(events[-1])
    for part in ("Mock interview report", "Score by topic", "hand-computation", "Time per question",
                 "0:05 of 1:00", "Wrong formulas you used", "linear_gain", "What to review next",
                 "Explanations", "IDCG@4"):
        assert part in report, part


def test_score_and_streak():
    s = Session([CHOICE] * 5)
    s.start()
    for answer in ("b", "b", "a", "b", "b"):
        s.submit(answer)
    summary = s.summary()
    assert (summary.score, summary.best_streak, s.streak) == (4, 2, 2)
    assert summary.by_topic == {"conventions": (4, 5)}


def test_unknown_command_and_help():
    s = Session([NDCG])
    s.start()
    assert isinstance(s.submit(":frobnicate")[0], InvalidAnswer)
    (help_,) = s.submit(":help")
    for name in ("hint", "skip", "steps", "quit", "help"):
        assert f":{name}" in help_.text
    assert set(COMMANDS) >= {"hint", "skip", "steps", "quit", "help"}


def test_session_does_no_io_and_no_terminal_imports():
    """The state machine imports neither click nor prompt_toolkit and never prints."""
    tree = ast.parse(Path(__file__).parents[1].joinpath("drills/quiz/session.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
             for a in n.names} | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {"click", "prompt_toolkit", "sqlite3"} & {str(n).split(".")[0] for n in names}
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not {"print", "input", "open"} & calls


def test_render_respects_color_setting(monkeypatch):
    s = Session([NDCG])
    (shown,) = s.start()
    assert "\x1b[" not in render(shown, Style(color=False))
    assert "\x1b[" in render(shown, Style(color=True))

    class Tty:
        def isatty(self):
            return True

    from drills.display import use_color

    assert use_color(Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Tty())


def test_reflow_joins_hard_wrapped_prose_but_keeps_tables_and_lists():
    text = ("scikit-learn's ndcg_score uses linear gain: DCG@4 = 2 + 1/log2(3) + 3/2 = 4.1309,\n"
            "IDCG@4 = 4.7619, so NDCG = 0.8675 here.\n"
            "Answer: 0.8675\n"
            "DCG@4  = 7 + 7/log2(3) + 3/2 + 0 = 12.9165 and a long tail to pass sixty chars\n"
            "IDCG@4 = 13.3472\n"
            "1. Gain: LightGBM uses 2^rel - 1 (label_gain), sklearn uses the raw label\n"
            "   (linear). Pass 2**y - 1 to match.\n"
            "  rank  rel  gain\n")
    out = Style(width=60).reflow(text)
    lines = out.splitlines()
    assert all(len(line) <= 59 for line in lines)
    assert "Answer: 0.8675" in lines  # a sentence that ended keeps its break
    assert "IDCG@4 = 13.3472" in lines  # an equation under an equation is a table row
    assert any(line.startswith("   ") and "(linear)" in line for line in lines)  # hanging indent
    assert lines[-1] == "  rank  rel  gain"
    assert "log2(i + 1)" in Style(width=30).wrap("Exponential gain 2^rel - 1, discount log2(i + 1).")


RATIO = Question(
    id="gain-ratio", topic="gain-and-discount", kind="numeric", prompt="gain(3) / gain(2)?",
    answer="7/3",
    explanation="2^3 - 1 = 7 and 2^2 - 1 = 3.\nAnswer: 7/3 = 2.3333\n",
)


@pytest.mark.parametrize("answer", ["2", ":skip"])
def test_author_answer_line_is_not_repeated_beside_the_engines(answer):
    s = Session([RATIO])
    s.start()
    record = s.submit(answer)[0].record
    lines = record.explanation.splitlines()
    assert "2^3 - 1 = 7 and 2^2 - 1 = 3." in lines  # the author's reasoning stays
    assert "Answer: 7/3 = 2.3333" not in lines  # their rounded answer line is dropped ...
    assert any("7/3" in ln and "2.33333333" in ln for ln in lines)  # ... the engine's is shown
    assert RATIO.prose == "2^3 - 1 = 7 and 2^2 - 1 = 3."


def test_undecodable_input_bytes_are_replaced_not_fatal():
    s = Session([CONCEPT, NDCG])
    s.start()
    s.submit("bad \udcff\udcfe text")  # what surrogateescape makes of b"\xff\xfe"
    record = s.submit("good")[0].record
    assert record.given == "bad \ufffd\ufffd text"
    record.given.encode("utf-8")  # storable: no lone surrogates left


@pytest.mark.parametrize("answers, words", [
    ([], "no question was answered"),
    (["0.7592"], "nothing missed so far"),
    (["0.7592", "b"], "nothing missed: try a harder mock"),
])
def test_mock_report_does_not_praise_an_unfinished_mock(answers, words):
    s = Session([NDCG, CHOICE], Options(mode="mock", feedback="end", seed=1))
    s.start()
    events = []
    for a in answers:
        events = s.submit(a)
    done = [e for e in events if isinstance(e, Finished)] or s.submit(":quit")
    text = render(done[-1])
    assert words in text
    assert ("try a harder mock" in text) == (len(answers) == 2)


@pytest.mark.parametrize("leave", [":skip", ":quit"])
def test_a_revealed_concept_answer_is_kept_when_not_self_graded(leave):
    s = Session([CONCEPT, NDCG])
    s.start()
    s.submit("dividing by the ideal DCG puts queries on one scale")
    events = s.submit(leave)
    (skipped,) = of(events, Skipped)
    assert skipped.record.verdict == "skipped"
    assert skipped.record.given == "dividing by the ideal DCG puts queries on one scale"
    # kept for the report, :steps and the transcript; not printed again under the reveal
    assert skipped.record.explanation.startswith("Model answer:")
    assert render(skipped, Style(False, 80)) == "Skipped (recorded as skipped)."
    assert s.records == [skipped.record]
    if leave == ":quit":
        assert s.finished and of(events, Finished)


def test_a_timeout_keeps_what_was_typed():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(mode="mock", seconds=30), clock=clock)
    s.start()
    clock.now += 31
    (timed_out, *_) = s.submit("0.76")  # a late answer
    assert isinstance(timed_out, TimedOut)
    assert timed_out.record.verdict == "timeout" and timed_out.record.given == "0.76"
    clock.now += 31
    (second, *_) = s.timeout("b")  # the front end's timer, with the half-typed text
    assert second.record.given == "b"


def test_steps_after_a_correct_choice_names_the_answer():
    s = Session([CHOICE, NDCG])
    s.start()
    s.submit("b")
    steps = of(s.submit(":steps"), StepsShown)[0]
    assert steps.text.splitlines()[0] == "Right: you picked b, the answer is b) 2^rel - 1."


@pytest.mark.parametrize("point, answer, hit", [
    ("0 <= NDCG <= 1; above 1 means a broken ideal", "It must be between 0 and 1", True),  # a clause
    ("gain, ideal pool, truncation and ties must match",
     "gain linear vs exponential, IDCG from the judged pool, the cutoff k, ties", True),  # synonyms
    ("labels are graded 0-3", "the grades go from 0 to 3", True),
    ("the truncation k changes the ideal", "truncated lists", False),  # one word of four
    ("threshold choice changes which errors count", "MRR is fine", False),
])
def test_key_points_match_words_clauses_and_the_fields_synonyms(point, answer, hit):
    assert covered(point, answer) is hit


def test_steps_re_shows_the_question_with_the_time_left():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(mode="mock", feedback="brief", seconds=90), clock=clock)
    s.start()
    s.submit("0.7592")
    clock.now += 60
    again = of(s.submit(":steps"), QuestionShown)[0]
    assert again.limit == pytest.approx(30.0)


@pytest.mark.parametrize("word, point", [("position", "rank weight"), ("logarithm", "log scale"),
                                         ("labels", "grade scale"), ("IDCG", "ideal order")])
def test_each_synonym_counts(word, point):
    assert covered(point, f"{word} matters")


def test_a_long_exact_form_is_elided_in_the_card_and_whole_in_the_steps():
    grades = (3, 0, 2, 1, 0, 3, 1, 2, 0, 1, 2, 3, 0, 1, 2, 1, 0, 3, 2, 1)
    q = Question(id="long", topic="t", kind="numeric", prompt="?", metric="ndcg",
                 problem=Problem(relevance=grades))
    s = Session([q])
    s.start()
    (graded,) = of(s.submit("0.1"), Graded)
    card = render(graded, Style(width=80))
    assert len(graded.record.expected) > 200  # the exact NDCG of 20 documents is long
    assert " ... " in card and graded.record.expected not in card
    assert len(card.splitlines()) <= 12
    assert graded.record.expected in graded.record.explanation  # :steps shows it whole


def test_elide_cuts_between_terms():
    from drills.tui.render import elide

    text = " + ".join(f"1/log2({i})" for i in range(3, 40))
    short = elide(text, 40)
    assert len(short) <= 40 and short.startswith("1/log2(3) + ") and short.endswith("1/log2(39)")
    assert elide("7/2", 40) == "7/2"


def test_mock_limits_weigh_the_kind_and_share_the_minutes():
    from drills.quiz.timing import mock_limits

    concept = Question(id="c", topic="t", kind="concept", prompt="why?", model_answer="so")
    limits = mock_limits([CHOICE, NDCG, concept], minutes=6)
    assert limits == (60.0, 120.0, 180.0) and sum(limits) == 360
    assert mock_limits([NDCG, concept]) == (90.0, 135.0)


def test_each_question_gets_its_own_limit():
    clock = Clock()
    s = Session([NDCG, CHOICE], Options(mode="mock", limits=(120.0, 30.0)), clock=clock)
    (first,) = of(s.start(), QuestionShown)
    assert first.limit == 120
    clock.now += 121
    events = s.timeout()
    (second,) = of(events, QuestionShown)
    assert second.limit == 30


def test_a_typed_but_unsent_right_answer_is_reported_as_would_have_been_correct():
    clock = Clock()
    s = Session([NDCG, NDCG], Options(mode="mock", seconds=60), clock=clock)
    s.start()
    clock.now += 61
    (timed,) = of(s.timeout("0.7592"), TimedOut)
    assert timed.record.verdict == "timeout" and timed.record.would_have == "correct"
    assert "would have been correct" in render(timed)
    clock.now += 61
    events = s.timeout("0.1")
    (late,) = of(events, TimedOut)
    assert late.record.would_have == "wrong"
    report = render(of(events, Finished)[0])
    assert "timeout (would have been correct)" in report and "timeout (would have been wrong)" in report


def test_the_last_questions_miss_waits_for_its_steps_before_the_summary():
    """On a terminal a miss waits for Enter, the last question's too (it used to go straight
    to the summary, with no key left for its worked solution)."""
    s = Session([CHOICE, NDCG], Options(pause=True))
    s.start()
    s.submit("b")  # right: no wait
    events = s.submit("0.8675")  # a miss on the last question
    (waiting,) = of(events, Waiting)
    assert waiting.next == "summary" and not of(events, Finished) and not s.finished
    assert s.current() is None and s.waiting
    style = Style(color=False, width=80)
    assert "Enter: the summary   s: the worked solution" in render(waiting, style)
    shown = s.submit("s")
    assert of(shown, StepsShown) and of(shown, Waiting)[0].next == "summary"
    (nudge,) = of(s.submit("0.7"), Notice)  # not an answer: the summary or the steps
    assert nudge.text == "Press Enter for the summary, or s for the worked solution."
    (done,) = of(s.submit(""), Finished)
    assert s.finished and not done.summary.quit_early and done.summary.asked == 2


def test_quit_while_the_last_miss_waits_is_a_whole_session():
    s = Session([NDCG], Options(pause=True))
    s.start()
    s.submit("0.8675")
    (done,) = of(s.submit(":q"), Finished)
    assert not done.summary.quit_early and done.summary.total == 1


def test_a_right_last_answer_and_piped_input_still_end_at_once():
    right = Session([NDCG], Options(pause=True))
    right.start()
    assert of(right.submit("0.7592"), Finished)
    piped = Session([NDCG])  # no pause: pipes never wait
    piped.start()
    assert of(piped.submit("0.8675"), Finished)
