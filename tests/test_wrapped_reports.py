"""Issue 23, point 2, for ``drills grade``, ``drills stats`` and ``drills history show``:
prose wrapped to the terminal's width (COLUMNS stands for the terminal here) with no word
broken (the words, in order, are those of the unwrapped text), piped output unwrapped (or
at the documented 60 columns for stats), and ``cli.style.fill``'s colours put on after
wrapping."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.cli.stats.report import render
from drills.cli.style import fill
from drills.display import Style
from drills.store import Attempt, Store

LONG_TITLE = "AP divided by the relevant documents retrieved, not by R"  # ap_over_retrieved's title
LONG_GIVEN = ("the discount at rank r is one over r so the whole of NDCG comes down to the "
              "reciprocal rank and they agree")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TABLE_ROW = re.compile(r"\d+%  \d+/\d+$")  # a row of an accuracy table: "  86%  6/7"


def attempt(i: int, **kw) -> Attempt:
    base = dict(question_id=f"question-with-a-rather-long-id-{i}", topic="incomplete-judgements",
                kind="numeric", verdict="wrong" if i % 3 else "correct", given=f"0.{i}1",
                expected="(2 + 1/log2(3)) / (7/2 + 2/log2(3))", expected_value=0.5525,
                misconceptions=("ap_over_retrieved", "reciprocal_discount", "ideal_not_truncated")
                if i % 3 else (), seconds=12.0, difficulty="medium")
    base.update(kw)
    return Attempt(**base)


def build_history() -> int:
    """Two sessions: a long practice of 14 answers (long ids, three slips an answer, a long
    concept answer) and a short one. Returns the long session's id."""
    with Store.open() as s:
        sid = s.start_session("practice", 4, {"count": 14})
        for i in range(12):
            s.record_attempt(sid, attempt(i, topic=("incomplete-judgements", "map-and-recall",
                                                    "position-bias")[i % 3]))
        s.record_attempt(sid, attempt(12, kind="concept", given=LONG_GIVEN, verdict="wrong",
                                      misconceptions=("ndcg_single_equals_rr",),
                                      expected="NDCG = 1/log2(r + 1) while RR = 1/r"))
        s.record_attempt(sid, attempt(13, verdict="consistent", misconceptions=(),
                                      scenario="scn-a-long-scenario-id", step=2))
        s.end_session(sid, 5, 14, {"review": ["incomplete-judgements", "misconception "
                                              "ap_over_retrieved: run `drills practice --slip "
                                              "ap_over_retrieved` to drill it"]})
        other = s.start_session("practice", 5, {})
        s.record_attempt(other, attempt(20, verdict="correct", misconceptions=()))
        s.end_session(other, 1, 1, {})
    return sid


def run(*args: str, columns: int | None):
    env = {"COLUMNS": str(columns) if columns else None, "LINES": None}
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def widest(text: str) -> int:
    return max(len(ANSI.sub("", line)) for line in text.splitlines())


def test_history_show_is_wrapped_to_the_width_without_a_broken_word(drills_home):
    sid = str(build_history())
    piped = run("history", "show", sid, columns=None)
    assert piped.exit_code == 0, piped.output
    assert widest(piped.output) > 80  # a pipe gets whole lines
    assert f"you answered: {LONG_GIVEN}"[:60] in piped.output
    for columns in (80, 60):
        shown = run("history", "show", sid, columns=columns).output
        assert widest(shown) <= columns, shown
        assert shown.split() == piped.output.split()  # the same words in the same order
        assert "diagnosis: ap_over_retrieved," in shown
    assert "\n        ideal_not_truncated" in shown  # at 60: the list hangs under "diagnosis"


def test_stats_fits_60_columns_piped_and_a_narrower_report_breaks_no_word(drills_home):
    build_history()
    out = run("stats", columns=None).output
    assert widest(out) <= 60, out
    one_line = " ".join(out.split())
    assert f"ap_over_retrieved: {LONG_TITLE}" in one_line
    assert one_line.startswith("15 answers in 2 sessions: 6 correct (40%)")  # 1 + 4 + 1 of 15
    from datetime import datetime, timezone

    from drills.store.progress import stats as compute

    with Store.open() as s:
        data = compute(s, datetime.now(timezone.utc))
    whole = render(data, unicode=False, width=10_000)
    for width in (60, 40):
        text = render(data, unicode=False, width=width)
        assert text.split() == whole.split(), text
        prose = [line for line in text.splitlines() if not TABLE_ROW.search(line)]
        assert widest("\n".join(prose)) <= width, text  # the bar tables keep their 60 columns


def test_grade_is_wrapped_to_the_terminal_and_unwrapped_on_a_pipe(drills_home):
    piped = run("grade", "norm-idcg-at-2", "--answer", "1", columns=None)
    assert piped.exit_code == 1
    assert widest(piped.output) > 100  # the diagnosis is one line
    for columns in (80, 60):
        shown = run("grade", "norm-idcg-at-2", "--answer", "1", columns=columns).output
        assert widest(shown) <= columns, shown
        assert shown.split() == piped.output.split()
        assert shown.startswith("Wrong: 1; exact 3 + 2/log2(3) = 4.26185950714.")
        assert "Diagnosis: ideal_unsorted" in shown
    concept = run("grade", "mrr-single-relevant-identity", "--answer", "NDCG = 1/r, same as RR",
                  columns=60).output
    assert widest(concept) <= 60 and len(concept.splitlines()) <= 12, concept
    assert concept.startswith("Wrong: a wrong belief (ndcg_single_equals_rr).")


@pytest.mark.parametrize("width", [30, 45, 60])
def test_fill_paints_after_wrapping_and_keeps_every_word(width):
    paint = Style(color=True).paint
    parts = [("    12x  ", ()), ("ap_over_retrieved", ("bold",)), (f": {LONG_TITLE}", ("red",))]
    lines = fill(parts, width, paint, hang=10)
    plain_lines = [ANSI.sub("", line) for line in lines]
    assert all(len(line) <= width - 1 for line in plain_lines if " " in line.strip()), plain_lines
    assert " ".join(plain_lines).split() == f"12x ap_over_retrieved: {LONG_TITLE}".split()
    assert plain_lines[0].startswith("    12x  ap_over_retrieved")
    assert all(line.startswith(" " * 10) for line in plain_lines[1:])
    assert "\x1b[1map_over_retrieved\x1b[0m" in lines[0]
    painted_red = " ".join(re.findall(r"\x1b\[31m(.*?)\x1b\[0m", "\n".join(lines)))
    assert painted_red.split() == f": {LONG_TITLE}".split()  # every word of it red, no more
