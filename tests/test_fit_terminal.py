"""Output that fits the screen: narrow tables under 72 columns, one screen of rows for a long
list (--all for every row), long exact forms elided in the display and whole in --json."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner

from drills.cli import cli
from drills.display import Style
from drills.engine.problem import Problem
from drills.engine.table import Layout
from drills.grading.solution import worked_for
from drills.model import Question
from drills.quiz.session import Graded, Options, Session, StepsShown
from drills.tui.render import render

BIG = ",".join(str(random.Random(1).randint(0, 3)) for _ in range(1000))


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def test_under_72_columns_the_tables_are_narrow_and_no_line_wraps():
    result = run("solve", "2,1,3,0", "--judged", "3,2,1,0", env={"COLUMNS": "60"})
    assert result.exit_code == 0
    assert "gain/disc" in result.stdout and "2^2 - 1 = 3" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 60
    wide = run("solve", "2,1,3,0", "--judged", "3,2,1,0", env={"COLUMNS": "100"}).stdout
    assert "2^2 - 1 = 3" in wide and "gain/discount" in wide


def test_a_1000_document_solve_shows_one_screen_of_rows_unless_all():
    short = run("solve", BIG, env={"COLUMNS": "80"}).stdout
    rows = [line for line in short.splitlines() if line[:6].strip().isdigit()]
    assert len(rows) <= 66 and "more ranks (`drills solve --all` shows every row" in short
    assert " + ... + " in short  # the 1,000-term exact forms are elided
    full = run("solve", BIG, "--all", env={"COLUMNS": "80"}).stdout
    assert len([line for line in full.splitlines() if line[:6].strip().isdigit()]) == 2000
    data = json.loads(run("solve", BIG, "--json").stdout)
    assert len(data["rows"]) == 1000 and " + ... + " not in data["dcg"]["exact"]


def test_layout_elides_between_whole_terms():
    text = " + ".join(f"1/log2({i})" for i in range(3, 200))
    shown = Layout(exact_width=60).exact(text)
    assert len(shown) <= 60 and shown.startswith("1/log2(3) + ") and shown.endswith(" + 1/log2(199)")
    assert " + ... + " in shown and Layout().exact(text) == text


def test_steps_in_the_quiz_use_the_narrow_tables_on_a_narrow_screen():
    q = Question(id="n", topic="t", kind="numeric", prompt="?", metric="ndcg",
                 problem=Problem(relevance=(2, 1, 3, 0), judged=(3, 2, 1, 0)))
    s = Session([q], Options(feedback="brief"))
    s.start()
    s.submit("0.8675")
    (steps,) = [e for e in s.steps() if isinstance(e, StepsShown)]
    narrow = render(steps, Style(width=60))
    table = worked_for(q, Layout(narrow=True)).split("DCG: the ranking as given\n")[1].split("\n  DCG")[0]
    assert table in narrow and "gain/disc " in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 60
    assert "2^2 - 1 = 3" in render(steps, Style(width=90))
    assert Graded  # the card itself is covered in test_session


def test_a_text_worksheet_fits_a_narrow_terminal_and_a_file_is_unchanged():
    from drills.model import TOPICS
    from drills.packs import discover
    from drills.publish.worksheet import WIDTH, text_sheet
    from drills.quiz.plan import plan

    # The NDCG topics (an NDCG worked table is sure to be drawn; the coding pack's snippets
    # and signatures are shown verbatim, so it is left out)
    topics = [t for t in ("hand-computation", "gain-and-discount", "normalization",
                          "binary-vs-graded", "ndcg-vs-mrr", "map-and-recall") if t in TOPICS]
    items = plan(discover([]).questions, seed=7, count=12, topics=topics)
    narrow = text_sheet(items, 7, 60)
    assert max(len(line) for line in narrow.splitlines()) <= 60
    assert "gain/disc " in narrow
    assert text_sheet(items, 7) == text_sheet(items, 7, WIDTH)  # a file: always 78 columns
    chosen = [arg for t in topics for arg in ("--topic", t)]
    assert run("generate", "--seed", "7", "--count", "12", *chosen).stdout == text_sheet(items, 7)


def test_an_elided_quotient_keeps_its_division():
    """Issue 23: '(13/2 + ... + 3/log2(7))' for a quotient lost the '/ (IDCG)' half."""
    from drills.engine.table import Layout

    top = " + ".join(["13/2", "3/log2(3)", "1/2", "7/log2(5)", "1/log2(6)", "3/log2(7)"])
    bottom = " + ".join(["15/2", "7/log2(3)", "3/2", "1/log2(5)", "1/log2(6)", "1/log2(7)"])
    shown = Layout(exact_width=60).exact(f"({top}) / ({bottom})")
    assert shown == "(13/2 + ... + 3/log2(7)) / (15/2 + ... + 1/log2(7))"
    assert len(shown) <= 60
    assert Layout(exact_width=60).exact("(7) / (15)") == "(7) / (15)"
    # not a quotient at the top level: cut between terms as before
    assert Layout(exact_width=20).exact("(1 + 2) + 3/log2(4) + 4/log2(5) + 5") == "(1 + 2) + ... + 5"


def test_a_whole_number_side_of_a_quotient_has_no_brackets_and_still_elides():
    from drills.engine.table import Layout, quotient

    bottom = " + ".join(["3/2", "1/log2(3)", "7/log2(5)", "15/log2(6)", "1/log2(7)"])
    assert quotient(f"1 / ({bottom})") == ("1", bottom)
    assert quotient("(1 + 2) / (3) + 4") is None  # a sum at the top level
    assert Layout(exact_width=30).exact(f"1 / ({bottom})") == "1 / (3/2 + ... + 1/log2(7))"


def test_ndcg_exact_one_over_a_sum_reads_without_brackets_round_the_one():
    from drills.engine.metrics.registry import metric_value
    from drills.engine.problem import Problem

    # DCG of [0, 1] at k = 2 is 1/log2(3); IDCG of [2, 1, 0] linear is 2 + 1/log2(3)
    text = metric_value(Problem((1, 0), (1, 1, 0)), "ndcg").text
    assert text == "1 / (1 + 1/log2(3))", text


def test_at_60_columns_a_long_ndcg_quotient_splits_over_two_lines():
    lines = run("solve", "3,2,3,0,1,2,3,1,2", "--k", "8", env={"COLUMNS": "60"}).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("NDCG@8 = DCG@8 / IDCG@8"))
    assert lines[at + 1].strip().startswith("= (") and lines[at + 2].strip().startswith("/ (")
    assert max(len(line) for line in lines) <= 60


def test_a_ranking_longer_than_the_line_is_broken_between_its_items():
    from drills.publish.worksheet import _wrap

    ranking = "[" + ", ".join(["1", "1"] + ["0"] * 17 + ["1"]) + "]"  # 62 characters
    lines = _wrap(f"binary labels rank 1 first:\n{ranking}\nCompute AP.", "   ", width=60)
    assert max(len(line) for line in lines) <= 60
    assert " ".join(" ".join(lines).split()) == f"binary labels rank 1 first: {ranking} Compute AP."
    short = _wrap("the ranking (3, 2, 1) stays whole", "", width=20)
    assert any("(3, 2, 1)" in line for line in short)
