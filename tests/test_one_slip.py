"""One answer, one slip (issue 23, point 3): when several slips give the answer's number the
card names one (the primary) and lists the others in a line; a typo of the right value and an
answer not clearly nearer a slip name none; stats, the report and history count the primary
only, while the JSON keeps every id and adds ``slip``.

Expected values are computed here from the definitions (tests/ndcg_reference.py), never read
from drills' output.
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.engine.problem import Problem
from drills.grading.check import check, explain
from drills.grading.diagnose import Case, diagnose_case
from drills.grading.typo import nearer_by_margin, one_digit_typo, rounds_to
from drills.model import Question, Tolerance
from drills.store import Attempt, Store
from tests.ndcg_reference import ndcg

TOL = Tolerance()


def numeric(problem: Problem, metric: str = "ndcg") -> Question:
    return Question(id="q", topic="hand-computation", kind="numeric", prompt="", problem=problem,
                    metric=metric)


# --- the card: one slip explained, the others named in one line ----------------------------

def test_two_slips_with_one_number_give_one_explanation_and_an_also_line():
    # the run retrieved [0, 1]; the pool also holds an unretrieved grade-2 document. The
    # ideal of the retrieved documents is [1, 0], IDCG 1: that slip's NDCG is the DCG itself,
    # 1/log2(3), which is also what forgetting to divide gives.
    p = Problem((0, 1), (2, 1, 0), gain="linear")
    slip_value = 1 / math.log2(3)
    assert ndcg((0, 1), (2, 1, 0), convention="linear") != pytest.approx(slip_value, abs=0.01)
    outcome = check(numeric(p), f"{slip_value:.3f}")
    assert outcome.misconceptions == ("ideal_from_retrieved", "dcg_for_ndcg")  # both, for the JSON
    assert outcome.slip == "ideal_from_retrieved"
    text = explain(outcome, steps=False)
    assert "Diagnosis: ideal_from_retrieved\n" in text + "\n"
    assert text.count("Right step") == 1
    assert "Also gives this number: dcg_for_ndcg." in text


def test_the_issue_answer_of_1_names_one_slip_in_a_short_card():
    # mrr-disagree-a-ndcg: answering 1 matches three slips (the issue's "three paragraphs")
    runner = CliRunner()
    got = runner.invoke(cli, ["grade", "mrr-disagree-a-ndcg", "--answer", "1"], env={"COLUMNS": "80"})
    assert got.exit_code == 1, got.output
    assert got.output.count("Right step") == 1, got.output
    assert "Diagnosis: ideal_unsorted\n" in got.output
    assert "Also gives this number: ideal_from_retrieved, dcg_for_ndcg." in got.output.replace("\n", " ") \
        or "Also gives this number:" in got.output
    assert len(got.output.strip().splitlines()) <= 12, got.output
    data = json.loads(runner.invoke(cli, ["grade", "mrr-disagree-a-ndcg", "--answer", "1",
                                          "--json"]).output)
    assert data["check"]["slip"] == "ideal_unsorted"
    assert data["check"]["misconceptions"] == ["ideal_unsorted", "ideal_from_retrieved", "dcg_for_ndcg"]


def test_solve_json_adds_the_primary_slip():
    got = CliRunner().invoke(cli, ["solve", "2,1,3,0", "--judged", "3,2,1,0", "--answer", "0.7917",
                                   "--json"])
    check_ = json.loads(got.output)["check"]
    assert check_["slip"] == "log2_rank" and check_["misconceptions"][0] == "log2_rank"
    right = CliRunner().invoke(cli, ["solve", "2,1,3,0", "--judged", "3,2,1,0", "--answer",
                                     f"{ndcg((2, 1, 3, 0), (3, 2, 1, 0)):.4f}", "--json"])
    assert json.loads(right.output)["check"]["slip"] is None


# --- a typo of the right value, or an answer not clearly nearer a slip: no slip named ------

def _no_minus_one(rel: tuple[int, ...]) -> float:
    """NDCG with gain 2^rel (the gain_without_minus_one slip), from the definition."""
    dcg = sum(2 ** r / math.log2(i + 2) for i, r in enumerate(rel))
    ideal = sorted(rel, reverse=True)
    return dcg / sum(2 ** r / math.log2(i + 2) for i, r in enumerate(ideal))


def test_a_one_digit_typo_of_the_right_value_names_no_slip():
    rel = (1, 3, 0, 0)
    right, slip = ndcg(rel), _no_minus_one(rel)
    assert f"{right:.3f}" == "0.710" and f"{slip:.3f}" == "0.783"
    typed = "0.780"  # 0.710 with one digit wrong, 0.0027 from the slip's value
    assert abs(float(typed) - slip) <= 0.005  # inside the slip's window: it used to be named
    outcome = check(numeric(Problem(rel)), typed)
    assert outcome.verdict == "wrong" and outcome.slip is None
    assert "one digit away from the right 0.70" in explain(outcome, steps=False)
    assert "typo" in explain(outcome, steps=False)
    # the slip's own digits are no typo: named
    assert check(numeric(Problem(rel)), f"{slip:.3f}").slip == "gain_without_minus_one"


def test_an_answer_not_three_times_nearer_the_slip_names_none():
    # [3, 3, 2, 0] in a pool 3, 3, 2, 1, 0 (norm-almost-perfect): right 0.9677; the log2(i)
    # discount gives 0.9695
    rel, pool = (3, 3, 2, 0), (3, 3, 2, 1, 0)
    right = ndcg(rel, pool)
    slip = (7 + 7 + 3 / math.log2(3) + 0) / (7 + 7 + 3 / math.log2(3) + 1 / 2)
    assert f"{right:.4f}" == "0.9677" and f"{slip:.4f}" == "0.9695"
    between = "0.9689"  # 0.0006 from the slip, 0.0012 from the right value: twice, not 3 times
    assert not nearer_by_margin(float(between), slip, right)
    narrow = Tolerance(0.0005, 0.0)  # the narrowed interval; a slip matches within the old one
    case = Case(Problem(rel, pool), "ndcg")
    assert diagnose_case(case, float(between), narrow, TOL).ids == []
    assert diagnose_case(case, slip, narrow, TOL).ids == ["log2_rank"]


@pytest.mark.parametrize("given, right, typo", [
    ("0.646", "0.6646", True),    # a digit dropped
    ("0.6466", "0.6646", True),   # two neighbours swapped
    ("0.6656", "0.6646", True),   # one digit wrong
    ("0.661", "0.6606", False),   # right at three places: no typo at all
    ("0.412", "0.4083", False),   # 0.41 with one more digit is more precision, not a typo
    ("0.5", "0.7", False),        # one significant digit: a different answer
    ("0.646", "0.661", False),    # two digits differ
    ("1/3", "0.3333", False),     # a fraction is not read for typos
    ("-0.0123", "-0.0132", True),
])
def test_one_digit_typo(given, right, typo):
    from decimal import Decimal

    assert one_digit_typo(given, Decimal(right)) is typo


def test_rounds_to():
    from decimal import Decimal

    assert rounds_to(Decimal("0.868913"), "0.869") and not rounds_to(Decimal("0.868913"), "0.868")
    assert not rounds_to(Decimal("0.5"), "1/2")


# --- counted once: stats, the report and history ---------------------------------------------

def att(**kw) -> Attempt:
    base = dict(question_id="q1", topic="normalization", kind="numeric", verdict="wrong",
                given="1", expected="13/16", expected_value=0.8125, misconceptions=(), seconds=4.0)
    base.update(kw)
    return Attempt(**base)


def test_stats_and_history_count_one_slip_per_answer_and_every_wrong_belief(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        for i in range(3):
            s.record_attempt(sid, att(question_id=f"n{i}", misconceptions=(
                "ideal_unsorted", "ideal_from_retrieved", "dcg_for_ndcg")))
        s.record_attempt(sid, att(question_id="c1", kind="concept", verdict="partial", given="x",
                                  expected=None, expected_value=None,
                                  misconceptions=("linear_gain_belief", "idcg_per_list")))
        s.end_session(sid, 0, 4, {})
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["stats", "--json"]).output)
    assert data["misconceptions"] == {"ideal_unsorted": 3}
    assert data["wrong_beliefs"] == {"idcg_per_list": 1, "linear_gain_belief": 1}
    shown = runner.invoke(cli, ["history", "show", "1"], env={"COLUMNS": "100"}).output
    assert "ideal_from_retrieved" not in shown.split("Wrong formulas you used", 1)[-1].split(
        "Wrong beliefs", 1)[0]
    # the export keeps every id
    exported = json.loads(runner.invoke(cli, ["history", "export", "--format", "json"]).output)
    rows = exported["attempts"] if isinstance(exported, dict) else exported
    assert rows[0]["misconceptions"] == ["ideal_unsorted", "ideal_from_retrieved", "dcg_for_ndcg"]


def test_the_session_summary_counts_the_primary_only():
    from drills.quiz.events import Options, Record, summarize

    q = numeric(Problem((0, 1), (2, 1, 0), gain="linear"))
    outcome = check(q, f"{1 / math.log2(3):.3f}")
    record = Record(0, q, outcome.verdict, outcome.given, misconceptions=outcome.misconceptions,
                    outcome=outcome)
    summary = summarize(Options(mode="mock"), [record, record], 2, 0, 0, True, False)
    assert summary.misconceptions == {"ideal_from_retrieved": 2}
