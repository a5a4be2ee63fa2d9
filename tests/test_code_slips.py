"""Issue 24, points 3 and 5: the slips real code makes, and the words of the code check.

Learner files in tests/coding_solutions/buggy/ run through the real runner: functions with
no R = 0 guard are wrong with the edge named; P@k over min(k, n), the ideal sorted in place
through an alias and a threshold ignored are named, by the code check and by the numeric
grader; slip texts read the question's own AP convention; a result above 1 says why it
cannot be. Expected values come from tests/metrics_reference.py and tests/ndcg_reference.py.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.coding.grade import check_code
from drills.engine.problem import Problem
from drills.grading.diagnose import diagnose
from drills.model import Tolerance
from drills.packs import load_pack
from drills.runner import run_function

from . import metrics_reference as mref
from . import ndcg_reference as ref

ROOT = Path(__file__).resolve().parent.parent
BUGGY = Path(__file__).resolve().parent / "coding_solutions" / "buggy"
BY_ID = {q.id: q for q in load_pack(ROOT / "questions" / "coding.yaml").questions}
TOL = Tolerance()


def _check(qid: str, name: str | None = None, source: str | None = None):
    text = source if source is not None else (BUGGY / f"{name}.py").read_text(encoding="utf-8")
    return check_code(BY_ID[qid], text, run_function)


def _numpy():
    pytest.importorskip("numpy")


# --------------------------------------------------------------------------- R = 0
@pytest.mark.parametrize(("name", "qid"), [
    ("recall_no_guard", "coding.recall-at-k"),
    ("ap_no_guard", "coding.average-precision"),
    ("r_precision_no_guard", "coding.r-precision"),
    ("map_no_guard", "coding.map"),
])
def test_no_r_zero_guard_is_wrong_and_the_edge_is_named(name, qid):
    result = _check(qid, name)
    assert result.verdict == "wrong" and result.failed == 1, result.message
    first = result.first_failure
    assert first.edge == "no_hit" and first.error.startswith("ZeroDivisionError")
    call = first.call
    # the case really has nothing relevant: R = 0, so the reference's value is 0
    if "queries" in call:
        assert any(sum(q) == 0 for q in call["queries"])
        want = mref.mean([mref.ap(q) for q in call["queries"]])
    else:
        assert call["num_relevant"] == 0 and sum(call["relevance"]) == 0
        want = Fraction(0)
    assert first.expected is not None
    assert Fraction(first.expected.value).limit_denominator(10**6) == want
    note = result.explanations[0]
    assert note.startswith("ZeroDivisionError") and "when a query has no relevant document (R = 0)." in note
    assert ".." not in note


def test_a_nan_from_numpy_is_wrong_with_the_edge_named():
    _numpy()
    result = _check("coding.recall-at-k", "recall_nan")
    assert result.verdict == "wrong" and result.failed == 1 and result.first_failure.edge == "no_hit"
    assert result.explanations[0] == ("returned nan, expected a number, when a query has no relevant "
                                      "document (R = 0).")


# --------------------------------------------------------------------------- the new slips
def test_precision_over_the_documents_retrieved_is_named():
    _numpy()
    result = _check("coding.precision-at-k", "precision_over_retrieved")
    assert result.verdict == "wrong" and result.misconceptions == ("precision_over_retrieved",)
    for case in result.cases:
        rel, k = case.call["relevance"], case.call["k"]
        assert Fraction(case.expected.value).limit_denominator(1000) == mref.precision(rel, k)
        assert case.got == pytest.approx(float(Fraction(sum(rel[:k]), min(k, len(rel)))))
        assert case.ok == (k <= len(rel) or sum(rel) == 0)
    assert "np.mean(r[:k])" in result.explanations[0]


def test_the_ideal_sorted_in_place_through_an_alias_is_named():
    result = _check("coding.ndcg-at-k", "ideal_sorted_in_place")
    assert result.verdict == "wrong" and result.misconceptions[0] == "ideal_sorted_in_place"
    for case in result.cases:
        rel, k = case.call["relevance"], case.call["k"]
        assert case.expected.value == pytest.approx(ref.ndcg(rel, None, k))
        assert case.got == pytest.approx(1.0 if any(rel) else 0.0)
    assert "`ideal = relevance` copies nothing" in result.explanations[0]


def test_a_threshold_ignored_is_named():
    result = _check("coding.reciprocal-rank", "threshold_ignored")
    assert result.verdict == "wrong" and result.misconceptions == ("threshold_ignored",)
    for case in result.cases:
        rel = case.call["relevance"]
        assert Fraction(case.expected.value).limit_denominator(1000) == mref.rr(rel, threshold=2)
        assert case.got == pytest.approx(float(mref.rr(rel, threshold=1)))
    assert "relevant only at grade 2 or more" in result.explanations[0]


def test_the_numeric_grader_names_them_where_the_same_number_is_typed():
    b = [1, 0, 1, 1, 0]
    over_n = Fraction(sum(b), len(b))  # P@10 of B over the 5 documents there
    assert mref.precision(b, 10) == Fraction(3, 10) and over_n == Fraction(3, 5)
    assert diagnose(Problem(tuple(b), None, 10), "precision", float(over_n), TOL).primary == \
        "precision_over_retrieved"
    assert mref.rr([1, 0, 2, 3], threshold=2) == Fraction(1, 3) and mref.rr([1, 0, 2, 3]) == 1
    assert diagnose(Problem((1, 0, 2, 3), threshold=2), "rr", 1.0, TOL).ids == ["threshold_ignored"]
    assert ref.ndcg([0, 1, 3], None, 3) == pytest.approx(0.541340, abs=5e-7)  # the alias gives 1
    assert "ideal_sorted_in_place" in diagnose(Problem((0, 1, 3), None, 3), "ndcg", 1.0, TOL).ids


def test_the_docs_state_the_new_slips_values():
    doc = (ROOT / "docs" / "diagnosis.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in doc.splitlines() if line.startswith("| `")}
    assert "P@10 of B: 3/5 (correct 3/10)" in rows["`precision_over_retrieved`"]
    assert "1 (correct 1/3)" in rows["`threshold_ignored`"]
    assert "[0, 1, 3], NDCG@3: 1 (correct 0.541340)" in rows["`ideal_sorted_in_place`"]


# --------------------------------------------------------------------------- words
AP_AT_K_OVER_HITS = """
def ap_at_k(relevance, num_relevant, k):
    hits, total = 0, 0.0
    for i, rel in enumerate(relevance[:k], start=1):
        if rel:
            hits += 1
            total += hits / i
    return total / hits if hits else 0.0
"""


def test_a_slip_text_cites_the_question_s_own_convention():
    result = _check("coding.ap-at-k", source=AP_AT_K_OVER_HITS)
    assert result.misconceptions[0] == "ap_over_retrieved", result.explanations
    note = result.explanations[0]
    assert "This question's AP@k divides by min(k, R)" in note and "ml_metrics' apk" in note
    assert "trec_eval's and ranx's AP divide by R" not in note
    # on the R question the same slip says R
    r = diagnose(Problem((1, 0, 1, 1, 0), (1, 1, 1, 1, 0)), "ap", 29 / 36, TOL)
    assert r.primary == "ap_over_retrieved" and "divides by R, every relevant document" in r.explanations[0]


def test_a_result_above_one_says_ndcg_cannot_exceed_one():
    _numpy()
    result = _check("coding.ndcg-at-k", "ideal_ascending")
    above = [n for n in result.explanations if n.startswith("NDCG cannot exceed 1: ")]
    assert len(above) == 1 and "is not a possible NDCG." in above[0]
    first = next(c.got for c in result.cases if c.got is not None and c.got > 1)
    assert f"so {first:.6g}" in above[0] or f"so {round(first, 5)}" in above[0]
    d = diagnose(Problem((2, 1, 3, 0), (3, 2, 1, 0)), "ndcg", 2.08, TOL)
    assert d.explanations == ("NDCG cannot exceed 1: no order of the documents beats the ideal one "
                              "(DCG@k <= IDCG@k), so 2.08 is not a possible NDCG.",)
    assert diagnose(Problem((2, 1, 3, 0), (3, 2, 1, 0)), "dcg", 9.0, TOL).explanations == ()  # unbounded


RAISES_PAST_THE_END = """
def recall_at_k(relevance, num_relevant, k):
    if k > len(relevance):
        raise ValueError("k is longer than the list. Use `np.asarray` with a padded list instead.")
    return sum(relevance[:k]) / num_relevant if num_relevant else 0.0
"""


def test_an_error_that_ends_a_sentence_gets_no_second_period():
    result = _check("coding.recall-at-k", source=RAISES_PAST_THE_END)
    assert result.first_failure.edge == "k_past_end"
    assert result.explanations[0] == ("ValueError: k is longer than the list. Use `np.asarray` with a "
                                      "padded list instead. (when k is past the end of the list).")


def test_code_check_json_carries_the_primary_slip(tmp_path):
    env = {"DRILLS_HOME": str(tmp_path)}
    wrong = CliRunner().invoke(cli, ["code", "check", str(BUGGY / "threshold_ignored.py"), "--question",
                                     "coding.reciprocal-rank", "--json"], env=env)
    data = json.loads(wrong.output)
    assert wrong.exit_code == 1 and data["slip"] == "threshold_ignored"
    assert data["misconceptions"][0] == data["slip"]
    right = tmp_path / "rr.py"
    right.write_text((ROOT / "tests" / "coding_solutions" / "correct" / "reciprocal_rank.py").read_text(),
                     encoding="utf-8")
    ok = CliRunner().invoke(cli, ["code", "check", str(right), "--question", "coding.reciprocal-rank",
                                  "--json"], env=env)
    assert ok.exit_code == 0 and json.loads(ok.output)["slip"] is None


def test_ap_at_k_cites_apk_s_empty_list_rule_as_its_sources_have_it():
    # ml_metrics 0.1.4 on PyPI (2015-06): `if not actual: return 1.0`; benhamner/Metrics master
    # since a28d7ad (2015-08-05, "if length of actual is 0 it should return 0"): 0.0
    prompt = " ".join(BY_ID["coding.ap-at-k"].prompt.split())
    assert "apk in ml_metrics 0.1.4, the release pip installs, returns 1.0 for an empty actual list" in prompt
    assert "its GitHub master returns 0.0" in prompt
