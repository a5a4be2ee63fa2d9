"""The binary ranking metrics (P@k, R@k, R-precision, Hit@k, RR, MRR, AP, MAP): against the
naive reference in metrics_reference.py, the notes' test vectors and scikit-learn."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.engine.metrics import binary as bm
from drills.engine.problem import MAX_RANKING, MAX_RELEVANCE, ProblemError
from tests import metrics_reference as ref

B = [1, 0, 1, 1, 0]
B_POOL = [1, 1, 1, 1, 0]  # one relevant document never retrieved: R = 4
G = [2, 1, 3, 0]
G_POOL = [3, 2, 1, 0]


@st.composite
def cases(draw, threshold=None):
    """A graded ranking, a threshold, k (or None) and a judged pool (or None) that holds every
    relevant ranked grade, possibly missing non-relevant ones and with unretrieved extras."""
    ranking = draw(st.lists(st.integers(0, 4), min_size=1, max_size=15))
    threshold = draw(st.integers(1, 4)) if threshold is None else threshold
    k = draw(st.none() | st.integers(1, 20))
    pool = None
    if draw(st.booleans()):
        keep = draw(st.lists(st.booleans(), min_size=len(ranking), max_size=len(ranking)))
        extra = draw(st.lists(st.integers(0, 4), max_size=10))
        pool = [g for g, kept in zip(ranking, keep, strict=True) if kept or g >= threshold] + extra
    return ranking, threshold, k, pool


@settings(max_examples=300, deadline=None)
@given(cases())
def test_precision_recall_rprec_hit_rr_match_the_reference(case):
    ranking, t, k, pool = case
    assert bm.precision_at_k(ranking, k, judged=pool, threshold=t).exact == ref.precision(ranking, k, t)
    assert bm.recall_at_k(ranking, k, judged=pool, threshold=t).exact == ref.recall(ranking, k, pool, t)
    assert bm.r_precision(ranking, judged=pool, threshold=t).exact == ref.r_precision(ranking, pool, t)
    assert bm.hit_at_k(ranking, k, judged=pool, threshold=t).exact == ref.hit(ranking, k, t)
    assert bm.reciprocal_rank(ranking, k, judged=pool, threshold=t).exact == ref.rr(ranking, k, t)


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from(sorted(bm.AP_CONVENTIONS)))
def test_average_precision_matches_the_reference_under_each_convention(case, convention):
    ranking, t, k, pool = case
    got = bm.average_precision(ranking, k, judged=pool, convention=convention, threshold=t)
    assert got.exact == ref.ap(ranking, k, pool, convention, t)
    assert got.convention == convention
    assert 0 <= got.exact <= 1
    assert got.value == float(got.exact)
    # the rows are the worked sum: AP's numerator is the precisions of the counted ranks
    assert got.numerator == sum((r.precision for r in got.rows if r.counts), Fraction(0))


@settings(max_examples=100, deadline=None)
@given(st.lists(cases(threshold=1), min_size=1, max_size=6), st.sampled_from(sorted(bm.AP_CONVENTIONS)),
       st.none() | st.integers(1, 10))
def test_mrr_and_map_are_means_over_every_query(queries, convention, k):
    rankings = [q[0] for q in queries]
    pools = [q[3] for q in queries]
    mrr = bm.mean_reciprocal_rank(rankings, k, judged=pools)
    assert mrr.exact == ref.mean(ref.rr(r, k) for r in rankings)
    mean_ap = bm.mean_average_precision(rankings, k, judged=pools, convention=convention)
    assert mean_ap.exact == ref.mean(ref.ap(r, k, p, convention) for r, p in zip(rankings, pools, strict=True))
    assert len(mean_ap.per_query) == len(rankings)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_rows_are_the_worked_table(case):
    ranking, t, k, pool = case
    result = bm.average_precision(ranking, k, judged=pool, threshold=t)
    depth = min(len(ranking), len(ranking) if k is None else k)
    assert [r.rank for r in result.rows] == list(range(1, depth + 1))
    hits = 0
    for row, grade in zip(result.rows, ranking, strict=False):
        hits += grade >= t
        assert row.grade == grade
        assert row.relevant == (grade >= t) == row.counts
        assert row.hits == hits
        assert row.precision == Fraction(hits, row.rank)
    assert result.relevant_total == ref.relevant_in_pool(ranking, pool, t)


# The worked example B of metrics-facts.md: [1,0,1,1,0] with R = 4.
@pytest.mark.parametrize(("k", "convention", "expected"), [
    (None, "R", Fraction(29, 48)),  # trec_eval map, ranx map
    (None, "retrieved", Fraction(29, 36)),  # sklearn on the 5 docs, torchmetrics
    (None, "min_k_R", Fraction(29, 48)),
    (3, "R", Fraction(5, 12)),  # map_cut_3, ranx map@3
    (3, "min_k_R", Fraction(5, 9)),  # ml_metrics apk
    (3, "retrieved", Fraction(5, 6)),  # torchmetrics top_k
    (5, "R", Fraction(29, 48)),
    (5, "min_k_R", Fraction(29, 48)),
])
def test_average_precision_on_the_notes_example(k, convention, expected):
    got = bm.average_precision(B, k, judged=B_POOL, convention=convention)
    assert got.exact == expected
    assert got.text == f"{expected.numerator}/{expected.denominator}"


def test_the_notes_example_to_four_decimals_and_its_working():
    ap = bm.average_precision(B, judged=B_POOL)
    assert round(ap.value, 4) == 0.6042
    assert round(bm.average_precision(B, judged=B_POOL, convention="retrieved").value, 4) == 0.8056
    assert ap.working == "AP = (1 + 2/3 + 3/4) / 4 = 29/48"
    assert str(ap.decimal()).startswith("0.604166666")
    assert bm.average_precision(B, 3, judged=B_POOL).working == "AP@3 = (1 + 2/3) / 4 = 5/12"


def test_the_notes_example_b_other_metrics():
    assert [bm.precision_at_k(B, k).exact for k in (1, 3, 5, 10)] == [1, Fraction(2, 3), Fraction(3, 5), Fraction(3, 10)]
    assert bm.recall_at_k(B, 3, judged=B_POOL).exact == Fraction(1, 2)
    assert bm.recall_at_k(B, 5, judged=B_POOL).exact == Fraction(3, 4)
    assert bm.r_precision(B, judged=B_POOL).exact == Fraction(3, 4)
    assert bm.reciprocal_rank(B).exact == 1
    assert bm.hit_at_k(B, 1).exact == 1
    # slips from the notes' table are not what the engine computes
    assert bm.recall_at_k(B, 3, judged=B_POOL).exact != Fraction(2, 3)
    assert bm.precision_at_k(B, 10).exact != Fraction(3, 5)
    assert bm.r_precision(B).exact == Fraction(2, 3)  # R from retrieved docs only: the slip's value
    p10 = bm.precision_at_k(B, 10)
    assert p10.note and "past the list" in p10.note


@pytest.mark.parametrize(("threshold", "ap", "p3", "rprec", "rr"), [
    (1, Fraction(1), Fraction(1), Fraction(1), Fraction(1)),
    (2, Fraction(5, 6), Fraction(2, 3), Fraction(1, 2), Fraction(1)),
    (3, Fraction(1, 3), Fraction(1, 3), Fraction(0), Fraction(1, 3)),
])
def test_the_graded_example_at_each_threshold(threshold, ap, p3, rprec, rr):
    assert bm.average_precision(G, judged=G_POOL, threshold=threshold).exact == ap
    assert bm.precision_at_k(G, 3, judged=G_POOL, threshold=threshold).exact == p3
    assert bm.r_precision(G, judged=G_POOL, threshold=threshold).exact == rprec
    assert bm.reciprocal_rank(G, judged=G_POOL, threshold=threshold).exact == rr


def test_mrr_counts_a_query_with_no_hit_as_zero():
    mrr = bm.mean_reciprocal_rank([[1, 0, 0], [0, 0, 1], [0, 0, 0]], judged=[None, None, [1, 0, 0, 0]])
    assert mrr.exact == Fraction(4, 9)  # not 2/3, the mean over queries with a hit only
    assert round(mrr.value, 6) == 0.444444
    assert [r.text for r in mrr.per_query] == ["1", "1/3", "0"]
    assert mrr.working == "MRR = (1 + 1/3 + 0) / 3 = 4/9"
    assert bm.mean_reciprocal_rank([[1, 0, 0], [0, 0, 1], [0, 0, 0]], 2).exact == Fraction(1, 3)


def test_map_over_the_two_worked_examples():
    result = bm.mean_average_precision([B, G], judged=[B_POOL, G_POOL])
    assert result.exact == Fraction(77, 96)
    assert result.label == "MAP"


def test_zero_denominators_give_zero_with_a_note():
    none_relevant = [0, 0, 0]
    for convention in bm.AP_CONVENTIONS:
        ap = bm.average_precision(none_relevant, convention=convention)
        assert ap.exact == 0 and ap.note
    assert bm.recall_at_k(none_relevant, 2).exact == 0
    assert bm.r_precision(none_relevant).exact == 0
    assert bm.reciprocal_rank([0, 1], 1).exact == 0
    # relevant documents exist in the pool but none is retrieved: "retrieved" has nothing to divide by
    assert bm.average_precision([0, 0], judged=[1, 0, 0], convention="retrieved").exact == 0
    assert bm.average_precision([0, 0], judged=[1, 0, 0]).relevant_total == 1


def test_results_are_frozen_and_offer_the_exact_protocol():
    result = bm.precision_at_k(B, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.exact = Fraction(1)  # type: ignore[misc]
    assert (result.text, result.label) == ("2/3", "P@3")
    assert result.to_sympy() == Fraction(2, 3)
    text = bm.average_precision(B, judged=B_POOL).worked
    assert "in AP" in text and text.endswith("= 29/48")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: bm.precision_at_k([]), "empty"),
    (lambda: bm.precision_at_k([1, -1]), "whole numbers"),
    (lambda: bm.precision_at_k([1, True]), "whole numbers"),
    (lambda: bm.precision_at_k([1, 1.5]), "whole numbers"),
    (lambda: bm.precision_at_k([MAX_RELEVANCE + 1]), "limit"),
    (lambda: bm.precision_at_k([0] * (MAX_RANKING + 1)), "limit"),
    (lambda: bm.recall_at_k([1], judged=[1] + [0] * bm.MAX_POOL), "limit"),
    (lambda: bm.precision_at_k([1], 0), "k must"),
    (lambda: bm.precision_at_k([1], True), "k must"),
    (lambda: bm.precision_at_k([1], threshold=0), "threshold"),
    (lambda: bm.precision_at_k([1], threshold=MAX_RELEVANCE + 1), "threshold"),
    (lambda: bm.average_precision([1], convention="k"), "unknown AP convention"),
    (lambda: bm.recall_at_k([2, 1], judged=[1, 0]), "missing: 2 (x1)"),
    (lambda: bm.mean_reciprocal_rank([]), "at least one query"),
    (lambda: bm.mean_reciprocal_rank([[1]] * (bm.MAX_QUERIES + 1)), "limit"),
    (lambda: bm.mean_average_precision([[1], [0]], judged=[[1]]), "one per query"),
])
def test_bad_input_raises_a_one_line_problem_error(call, message):
    with pytest.raises(ProblemError) as info:
        call()
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_non_relevant_ranked_document_may_be_missing_from_the_pool():
    # trec_eval: a document absent from the qrels is non-relevant; the notes' pool has one 0
    assert bm.average_precision(B, judged=B_POOL).relevant_total == 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=15).filter(lambda r: any(r)))
def test_uncut_ap_matches_scikit_learn_when_every_relevant_document_is_retrieved(ranking):
    metrics = pytest.importorskip("sklearn.metrics")
    y_true = ref.binary(ranking)
    scores = list(range(len(ranking), 0, -1))  # n, n-1, ...: no ties, the ranking's order
    expected = metrics.average_precision_score(y_true, scores)
    for convention in ("R", "retrieved"):  # R = relevant retrieved here: the pool is the ranking
        assert bm.average_precision(ranking, convention=convention).value == pytest.approx(expected, abs=1e-12)
