"""Discount slips: log2(i), log2(i + 2), the rank itself, ln, and ranks counted from 0 (also in RR
and MRR: 1/(r - 1))."""

from __future__ import annotations

from fractions import Fraction

from drills.engine.exact import Exact, LogSum
from drills.engine.metrics.binary import MeanResult
from drills.engine.metrics.ndcg import Formula
from drills.engine.metrics.registry import measure, metric_value
from drills.engine.problem import Problem, ProblemError
from drills.grading.slips.registry import NDCG_FAMILY, Case, formula_slip, slip

ONE_RANK = ("discount", "contribution", "discount_ratio")

formula_slip(
    "log2_rank", "discount log2(i) instead of log2(i + 1)",
    "You discounted rank i by log2(i) with rank 1 undiscounted (the older "
    "Jarvelin-Kekalainen form), so ranks 1 and 2 both got discount 1. "
    "The standard discount is log2(i + 1): 1, log2(3), 2, log2(5), ...",
    Formula(discount="log2_rank"), metrics=(*NDCG_FAMILY, "ndcg_difference", *ONE_RANK), family="discount", short="the log2(i) discount")
formula_slip(
    "rank_offset", "discount log2(i + 2): ranks counted from 0 twice",
    "You shifted the rank by one too many: rank 1 got log2(3) instead of log2(2) = 1. "
    "With 1-based ranks the discount is log2(i + 1).",
    Formula(discount="log2_offset"), metrics=(*NDCG_FAMILY, "ndcg_difference", *ONE_RANK), family="discount", short="the log2(i + 2) discount")
formula_slip(
    "reciprocal_discount", "discount 1/i (MRR-style) instead of 1/log2(i + 1)",
    "You divided by the rank itself, as reciprocal rank does. NDCG's discount is the "
    "gentler log2(i + 1), so lower ranks keep more credit.",
    Formula(discount="reciprocal"), metrics=(*NDCG_FAMILY, "ndcg_difference", *ONE_RANK), family="discount", short="the 1/i discount")
formula_slip(
    "natural_log", "natural log instead of log2",
    "You used ln(i + 1). NDCG does not change with the log base (it cancels), "
    "but DCG and IDCG do: they are defined with log2.",
    Formula(discount="ln"), metrics=("dcg", "idcg", "discount", "contribution"), family="discount", short="the ln(i + 1) discount",
    descriptions={
        "discount": "You used ln(i + 1). The NDCG discount is log2(i + 1); the base cancels in "
                    "NDCG, but not in one discount or in DCG.",
        "contribution": "You used ln(i + 1). The NDCG discount is log2(i + 1); the base cancels in "
                        "NDCG, but not in one document's contribution.",
    })


@slip("zero_based_rank", "ranks counted from 0",
      "You counted ranks from 0, so rank i went into the formula as i - 1: a discount of "
      "log2(i) instead of log2(i + 1). Ranks count from 1: rank 1's discount is log2(2) = 1.",
      metrics=("rr", "mrr", *ONE_RANK), family="discount", short="counting ranks from 0",
      descriptions={
          "rr": "You counted ranks from 0, so the first relevant document at rank r gave 1/(r - 1). "
                "Reciprocal rank is 1 / its 1-based rank: 1 at rank 1, 1/2 at rank 2.",
          "mrr": "You counted ranks from 0, so a query whose first relevant document is at rank r "
                 "gave 1/(r - 1). Reciprocal rank is 1 / its 1-based rank: 1 at rank 1.",
      })
def zero_based_rank(case: Case) -> Exact | None:
    if case.metric in ("rr", "mrr"):
        return _zero_based_rr(case.problem, case.metric)
    try:
        return metric_value(case.problem, case.metric, Formula(discount="zero_based"))
    except (ZeroDivisionError, ProblemError):  # rank 1 counted from 0 has discount log2(1) = 0
        return None


def _zero_based_rr(problem: Problem, metric: str) -> Exact | None:
    """RR (or MRR) with each first relevant rank r taken as r - 1, from the engine's rows
    (so the relevance threshold and k apply). None when a query's first hit is at rank 1
    (1/0: nobody writes that down) or no query has a hit (0 either way)."""
    result = measure(problem, metric)
    per = result.per_query if isinstance(result, MeanResult) else (result,)
    firsts = [r.denominator if r.exact > 0 else None for r in per]  # type: ignore[union-attr]
    if 1 in firsts or all(f is None for f in firsts):
        return None
    total = sum((Fraction(1, f - 1) for f in firsts if f is not None), Fraction(0))
    return LogSum.of(total / len(firsts))
