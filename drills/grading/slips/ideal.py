"""Ideal-order slips: IDCG from the model's order, sorted worst first, uncut, retrieved only,
and the ranking itself sorted in place through an alias (its DCG then taken on the sorted list)."""

from __future__ import annotations

from dataclasses import replace

from drills.engine.exact import Exact
from drills.engine.metrics.ndcg import Formula
from drills.engine.metrics.registry import metric_value
from drills.grading.slips.registry import Case, formula_slip, slip

formula_slip(
    "ideal_unsorted", "IDCG from the model's own order",
    "You computed the 'ideal' DCG from the ranking as given, so DCG / IDCG came out 1. "
    "The ideal order sorts the judged documents by relevance, best first.",
    # not delta_ndcg: an "ideal" that moves with the swap is no longer |dDCG| / IDCG
    Formula(ideal="unsorted"), metrics=("idcg", "ndcg"), family="ideal", short="the unsorted ideal")
formula_slip(
    "ideal_ascending", "ideal order sorted ascending",
    "You sorted the ideal list worst first. The ideal puts the most relevant document at "
    "rank 1; an NDCG above 1 is the tell-tale sign of this slip.",
    Formula(ideal="ascending"), metrics=("idcg", "ndcg", "delta_ndcg", "ndcg_difference"), family="ideal", short="the ideal sorted worst first")
formula_slip(
    "ideal_not_truncated", "IDCG over the whole ideal list, not cut at k",
    "You summed the ideal DCG over every judged document. IDCG@k is cut at k, "
    "like DCG@k, so a perfect top k scores 1.",
    Formula(ideal="untruncated"), metrics=("idcg", "ndcg", "delta_ndcg", "ndcg_difference"), family="ideal", short="the uncut ideal")
formula_slip(
    "ideal_from_retrieved", "IDCG from the retrieved documents only",
    "You built the ideal order from the ranked list alone. The ideal comes from ALL judged "
    "documents of the query, including relevant ones the system failed to retrieve.",
    Formula(ideal="retrieved"), metrics=("idcg", "ndcg", "delta_ndcg"), family="ideal", short="the ideal from the retrieved documents only")


@slip("ideal_sorted_in_place", "the ranking sorted in place as its own ideal (an alias)",
      "Your ideal is the ranked list itself, sorted in place: `ideal = relevance` copies nothing, "
      "so `ideal.sort(reverse=True)` (or numpy's in-place `.sort()` on the same array) reorders "
      "the ranking too, and its DCG is computed on the sorted list: DCG = IDCG and NDCG comes "
      "out 1 (or the ranking's best order over a judged pool). `sorted(relevance, reverse=True)` "
      "or `np.sort(rel)[::-1]` sorts a copy.",
      metrics=("ndcg",), family="ideal", short="the ranking sorted in place as its own ideal")
def ideal_sorted_in_place(case: Case) -> Exact | None:
    p = case.problem
    best = tuple(sorted(p.relevance, reverse=True))
    if best == p.relevance:
        return None  # already in its best order: sorting it changes nothing
    return metric_value(replace(p, relevance=best), case.metric)
