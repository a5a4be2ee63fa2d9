"""Wrong-formula diagnosis: each slip's value on the worked example (facts file) and matching."""

from __future__ import annotations

import math

import pytest

from drills.engine.metrics.registry import metric_value
from drills.engine.problem import Problem
from drills.grading.diagnose import CATALOG, diagnose, variants
from drills.model import Tolerance

WORKED = Problem((2, 1, 3, 0), (3, 2, 1, 0))
LINEAR = Problem((2, 1, 3, 0), (3, 2, 1, 0), gain="linear")
TOL = Tolerance()

PUBLIC_IDS = {"linear_gain", "gain_without_minus_one", "log2_rank", "rank_offset", "reciprocal_discount",
              "natural_log", "ideal_unsorted", "ideal_ascending", "ideal_not_truncated",
              "ideal_from_retrieved", "dcg_not_truncated", "inverted_ratio", "exponential_gain"}
# "The tutor's voice": spelled as the issue writes them, plus two for precision and binary labels
NEW_IDS = {"k_ignored", "answered_ndcg", "answered_dcg", "answered_idcg", "zero_based_rank",
           "answered_recall", "graded_labels"}
# issue 12: the metrics beyond NDCG (tests/test_slips_metrics.py)
METRIC_IDS = {"ap_over_retrieved", "ap_over_k", "ap_all_ranks", "map_of_precision", "recall_over_k",
              "precision_over_relevant", "r_from_retrieved", "mrr_skips_misses", "err_linear_gain",
              "err_no_stop", "err_log_discount", "rbp_no_one_minus_p", "rbp_one_based_power",
              "ap_over_r", "err_gmax_four"}
# issue 24: the slips real code makes (tests/test_code_slips.py)
CODE_IDS = {"precision_over_retrieved", "ideal_sorted_in_place", "threshold_ignored"}


def test_catalog_ids_are_the_public_ones():
    # the ids, spelled as written, plus three added later (also public now)
    assert set(CATALOG) == (PUBLIC_IDS | {"idcg_zero_scores_one", "dcg_for_ndcg", "signed_delta"} | NEW_IDS
                            | METRIC_IDS | CODE_IDS)


@pytest.mark.parametrize("slip,problem,expected", [
    ("linear_gain", WORKED, 0.867503),
    ("gain_without_minus_one", WORKED, 0.810793),
    ("log2_rank", WORKED, 0.791700),
    ("log2_rank", LINEAR, 0.868913),
    ("rank_offset", WORKED, 0.851956),
    ("rank_offset", LINEAR, 0.918887),
    ("reciprocal_discount", WORKED, 0.660377),
    ("reciprocal_discount", LINEAR, 0.807692),
    ("ideal_ascending", WORKED, 1.385813),
    ("ideal_ascending", LINEAR, 1.413270),
    ("ideal_unsorted", WORKED, 1.0),
    ("inverted_ratio", WORKED, 1.317190),
])
def test_slip_values_on_worked_example(slip, problem, expected):
    value = metric_value(problem, "ndcg", CATALOG[slip].formula).value
    assert value == pytest.approx(expected, abs=1e-6)


def test_ideal_not_truncated_at_k2():
    p = Problem((2, 1, 3, 0), (3, 2, 1, 0), k=2)
    assert metric_value(p, "ndcg", CATALOG["ideal_not_truncated"].formula).value == pytest.approx(0.386566, abs=1e-6)
    pl = Problem((2, 1, 3, 0), (3, 2, 1, 0), k=2, gain="linear")
    assert metric_value(pl, "ndcg", CATALOG["ideal_not_truncated"].formula).value == pytest.approx(0.552500, abs=1e-6)
    assert diagnose(p, "ndcg", 0.3866, TOL).ids == ["ideal_not_truncated"]


def test_natural_log_changes_dcg_only():
    assert metric_value(WORKED, "dcg", CATALOG["natural_log"].formula).value == pytest.approx(10.2878, abs=1e-4)
    assert "natural_log" not in [v.misconception.id for v in variants(WORKED, "ndcg", TOL)]
    assert diagnose(WORKED, "dcg", 10.29, TOL).ids == ["natural_log"]


def test_ideal_from_retrieved():
    # the run retrieved [0, 1]; the judged pool also holds an unretrieved grade-2 doc
    p = Problem((0, 1), (2, 1, 0), gain="linear")
    wrong = metric_value(p, "ndcg", CATALOG["ideal_from_retrieved"].formula).value
    assert wrong == pytest.approx(1 / math.log2(3))  # ideal [1, 0] instead of [2, 1]
    # the retrieved ideal [1, 0] has IDCG 1, so that slip's NDCG equals the DCG itself:
    # forgetting to divide gives the same number, and both are named
    assert diagnose(p, "ndcg", 0.631, TOL).ids == ["ideal_from_retrieved", "dcg_for_ndcg"]
    q = Problem((0, 2), (3, 2, 0), gain="linear")  # ideal [2, 0]: IDCG 2, no coincidence
    assert diagnose(q, "ndcg", 2 / math.log2(3) / 2, TOL).ids == ["ideal_from_retrieved"]
    # when two slips give the same number, both are named
    both = Problem((1, 0), (2, 1, 0), gain="linear")
    assert set(diagnose(both, "ndcg", 1.0, TOL).ids) == {"ideal_from_retrieved", "ideal_unsorted", "dcg_for_ndcg"}


def test_dcg_not_truncated():
    p = Problem((2, 1, 3, 0), (3, 2, 1, 0), k=2)
    wrong = metric_value(p, "dcg", CATALOG["dcg_not_truncated"].formula).value
    assert diagnose(p, "dcg", wrong, TOL).ids == ["dcg_not_truncated"]


def test_exponential_gain_slip_under_linear_question():
    value = metric_value(LINEAR, "ndcg", CATALOG["exponential_gain"].formula).value
    assert value == pytest.approx(0.759191924319732)
    assert diagnose(LINEAR, "ndcg", 0.759, TOL).ids == ["exponential_gain"]
    assert "linear_gain" not in [v.misconception.id for v in variants(LINEAR, "ndcg", TOL)]


def test_correct_answer_is_never_diagnosed():
    assert diagnose(WORKED, "ndcg", 0.7592, TOL).ids == []


def test_indistinguishable_slips_are_dropped():
    # all relevant documents equally relevant and in order: many slips give the same 1.0
    p = Problem((1, 1, 1))
    ids = [v.misconception.id for v in variants(p, "ndcg", TOL)]
    assert "ideal_unsorted" not in ids and "linear_gain" not in ids


def test_unmatched_miss_gets_pointer():
    d = diagnose(WORKED, "ndcg", 0.5, TOL)
    assert d.ids == [] and d.pointer and "rank" in d.pointer


def test_explanations_carry_right_step():
    d = diagnose(WORKED, "ndcg", 0.8675, TOL)
    assert "2^2 - 1 = 3" in d.explanations[0]
    assert "0.867503" in d.explanations[0]


def test_only_the_nearest_slip_is_named_when_one_is_much_closer():
    p = Problem((1, 0, 2), (2, 1, 1, 0), k=5)
    retrieved = metric_value(p, "ndcg", CATALOG["ideal_from_retrieved"].formula).value
    pow2 = metric_value(p, "ndcg", CATALOG["gain_without_minus_one"].formula).value
    # by hand: DCG = 1 + 3/2 = 2.5; ideal from [2, 1, 0]: 3 + 1/log2(3) = 3.6309 -> 0.68853;
    # with 2^rel: DCG 2 + 1/log2(3) + 4/2 = 4.6309, IDCG 4 + 2/log2(3) + 2/2 + 1/log2(5) -> 0.69195
    assert retrieved == pytest.approx(2.5 / (3 + 1 / math.log2(3)))
    assert pow2 == pytest.approx((4 + 1 / math.log2(3)) / (5 + 2 / math.log2(3) + 1 / math.log2(5)))
    assert diagnose(p, "ndcg", 0.689, TOL).ids == ["ideal_from_retrieved"]  # 0.0005 away vs 0.003
    assert diagnose(p, "ndcg", 0.6902, TOL).ids == ["ideal_from_retrieved", "gain_without_minus_one"]


def test_idcg_zero_answered_1_is_the_convention_slip():
    p = Problem((0, 0, 0, 0, 0))
    d = diagnose(p, "ndcg", 1.0, TOL)
    assert d.ids == ["idcg_zero_scores_one"]  # not gain_without_minus_one, which also gives 1
    assert "LightGBM" in d.explanations[0]
    assert diagnose(Problem((1, 0)), "ndcg", 1.0, TOL).ids != ["idcg_zero_scores_one"]


def test_dcg_given_for_ndcg():
    d = diagnose(WORKED, "ndcg", 7.1309, TOL)
    assert d.ids == ["dcg_for_ndcg"]
    # the right step writes the division with its brackets
    assert "(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))" in d.explanations[0]


def test_signed_delta():
    p = Problem((3, 2, 1, 0), swap=(1, 4))
    size = metric_value(p, "delta_ndcg").value
    # by hand: swapping 3 and 0 at ranks 1 and 4: DCG drops by (7 - 0)(1 - 1/log2(5))
    idcg = 7 + 3 / math.log2(3) + 1 / 2
    assert size == pytest.approx(7 * (1 - 1 / math.log2(5)) / idcg)
    assert diagnose(p, "delta_ndcg", -size, TOL).ids == ["signed_delta"]
    assert diagnose(p, "delta_ndcg", size, TOL).ids == []


def test_idcg_question_points_into_the_ideal_table():
    # IDCG@4 of the worked example with 2^rel: the first differing row is IDCG rank 1 (rel 3)
    d = diagnose(WORKED, "idcg", 7.1, TOL)  # not a slip value; use a real one:
    wrong = metric_value(WORKED, "idcg", CATALOG["gain_without_minus_one"].formula).value
    d = diagnose(WORKED, "idcg", wrong, TOL)
    assert d.ids == ["gain_without_minus_one"]
    assert "IDCG rank 1: rel 3, gain 2^3 - 1 = 7" in d.explanations[0] and "(your formula: 8)" in d.explanations[0]
