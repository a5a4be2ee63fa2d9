"""Wrong-formula diagnosis: recompute the answer under each known slip and name the match.

Each misconception is a ``Formula`` for the same exact engine, so the value a slip
produces and the step it gets wrong come from the grader's own computation.
The ids are public output (transcripts, --json, stats): never rename one.
"""

from __future__ import annotations

from dataclasses import dataclass

from drills.core.exact import Exact, decimal_text
from drills.core.explain import row_text
from drills.core.metrics import (
    STANDARD,
    Formula,
    ProblemError,
    Solution,
    metric_value,
    solve,
)
from drills.core.questions import Problem, Tolerance


@dataclass(frozen=True)
class Misconception:
    id: str
    title: str
    description: str
    formula: Formula
    metrics: tuple[str, ...] = ("dcg", "idcg", "ndcg", "delta_ndcg")
    gains: tuple[str, ...] = ("exponential", "linear")


_M = Misconception
CATALOG: dict[str, Misconception] = {
    m.id: m
    for m in (
        _M("idcg_zero_scores_one", "a query with no relevant document scored 1",
           "No judged document is relevant, so IDCG is 0 and DCG / IDCG is undefined. drills "
           "scores such a query 0, as scikit-learn, trec_eval and ranx do; 1 is LightGBM's and "
           "XGBoost's convention. In an interview, name the convention you use.",
           Formula(empty_ideal_one=True), metrics=("ndcg",)),
        _M("linear_gain", "linear gain instead of 2^rel - 1",
           "You used the grade itself as the gain. This question uses exponential gain 2^rel - 1, "
           "which makes a highly relevant document count far more than a marginal one.",
           Formula(gain="linear"), gains=("exponential",)),
        _M("exponential_gain", "exponential gain instead of linear",
           "You used 2^rel - 1 as the gain, but this question uses linear gain: gain = rel.",
           Formula(gain="exponential"), gains=("linear",)),
        _M("gain_without_minus_one", "gain 2^rel instead of 2^rel - 1",
           "You dropped the - 1: with 2^rel an irrelevant document (rel 0) still earns gain 1. "
           "The - 1 makes rel 0 worth exactly nothing.",
           Formula(gain="pow2"), gains=("exponential",)),
        _M("log2_rank", "discount log2(i) instead of log2(i + 1)",
           "You discounted rank i by log2(i) with rank 1 undiscounted (the older "
           "Jarvelin-Kekalainen form), so ranks 1 and 2 both got discount 1. "
           "The standard discount is log2(i + 1): 1, log2(3), 2, log2(5), ...",
           Formula(discount="log2_rank")),
        _M("rank_offset", "discount log2(i + 2): ranks counted from 0 twice",
           "You shifted the rank by one too many: rank 1 got log2(3) instead of log2(2) = 1. "
           "With 1-based ranks the discount is log2(i + 1).",
           Formula(discount="log2_offset")),
        _M("reciprocal_discount", "discount 1/i (MRR-style) instead of 1/log2(i + 1)",
           "You divided by the rank itself, as reciprocal rank does. NDCG's discount is the "
           "gentler log2(i + 1), so lower ranks keep more credit.",
           Formula(discount="reciprocal")),
        _M("natural_log", "natural log instead of log2",
           "You used ln(i + 1). NDCG does not change with the log base (it cancels), "
           "but DCG and IDCG do: they are defined with log2.",
           Formula(discount="ln"), metrics=("dcg", "idcg")),
        _M("ideal_unsorted", "IDCG from the model's own order",
           "You computed the 'ideal' DCG from the ranking as given, so DCG / IDCG came out 1. "
           "The ideal order sorts the judged documents by relevance, best first.",
           # not delta_ndcg: an "ideal" that moves with the swap is no longer |dDCG| / IDCG
           Formula(ideal="unsorted"), metrics=("idcg", "ndcg")),
        _M("ideal_ascending", "ideal order sorted ascending",
           "You sorted the ideal list worst first. The ideal puts the most relevant document at "
           "rank 1; an NDCG above 1 is the tell-tale sign of this slip.",
           Formula(ideal="ascending"), metrics=("idcg", "ndcg", "delta_ndcg")),
        _M("ideal_not_truncated", "IDCG over the whole ideal list, not cut at k",
           "You summed the ideal DCG over every judged document. IDCG@k is cut at k, "
           "like DCG@k, so a perfect top k scores 1.",
           Formula(ideal="untruncated"), metrics=("idcg", "ndcg", "delta_ndcg")),
        _M("ideal_from_retrieved", "IDCG from the retrieved documents only",
           "You built the ideal order from the ranked list alone. The ideal comes from ALL judged "
           "documents of the query, including relevant ones the system failed to retrieve.",
           Formula(ideal="retrieved"), metrics=("idcg", "ndcg", "delta_ndcg")),
        _M("dcg_not_truncated", "DCG summed past k",
           "You summed DCG over the whole list. DCG@k stops at rank k.",
           Formula(truncate_dcg=False), metrics=("dcg", "ndcg")),
        _M("inverted_ratio", "IDCG / DCG instead of DCG / IDCG",
           "You divided the other way round. NDCG = DCG / IDCG, so it lies in [0, 1].",
           Formula(inverted=True), metrics=("ndcg",)),
        _M("dcg_for_ndcg", "DCG given where NDCG was asked",
           "You stopped at DCG. NDCG divides DCG by IDCG, the DCG of the ideal order, so that "
           "every query lands on the same 0-1 scale.",
           Formula(normalized=False), metrics=("ndcg",)),
        _M("signed_delta", "a signed NDCG change where |delta NDCG| was asked",
           "You kept the sign of NDCG after the swap minus NDCG before. LambdaRank weights a "
           "pair by |delta NDCG|, the size of the change, which is never negative.",
           Formula(absolute_delta=False), metrics=("delta_ndcg",)),
    )
}


@dataclass(frozen=True)
class Variant:
    """The value a misconception produces on a problem."""

    misconception: Misconception
    value: Exact


@dataclass(frozen=True)
class Diagnosis:
    """What the learner's number matches: named slips, or a pointer into the worked steps."""

    matches: tuple[Misconception, ...]
    explanations: tuple[str, ...]
    pointer: str | None = None

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.matches]


def _applies(m: Misconception, metric: str, gain: str) -> bool:
    return metric in m.metrics and gain in m.gains


def variants(problem: Problem, metric: str, tolerance: Tolerance) -> list[Variant]:
    """Every slip whose value can be told from the correct one under ``tolerance``."""
    correct = metric_value(problem, metric).value
    out: list[Variant] = []
    for m in CATALOG.values():
        if not _applies(m, metric, problem.gain):
            continue
        try:
            value = metric_value(problem, metric, m.formula)
        except (ProblemError, ZeroDivisionError):
            continue
        if abs(value.value - correct) > tolerance.allowed(correct):
            out.append(Variant(m, value))
    return out


def right_step(problem: Problem, m: Misconception, metric: str = "ndcg") -> str:
    """The first place where the slip's computation departs from the correct one.

    Only the tables the asked ``metric`` uses are searched: IDCG's for an IDCG question.
    """
    good, bad = solve(problem), solve(problem, m.formula)
    f = m.formula
    if f.inverted or not f.normalized:
        return f"NDCG = DCG / IDCG = {good.ndcg.text} = {decimal_text(good.ndcg.decimal(), 6)}"
    if f.empty_ideal_one:
        return "IDCG = 0, so NDCG = 0 by drills' convention"
    if not f.absolute_delta:
        value = metric_value(problem, "delta_ndcg")
        return f"|delta NDCG| = |NDCG after - NDCG before| = {decimal_text(value.decimal(), 6)}"
    tables = (("DCG", good.rows, bad.rows), ("IDCG", good.ideal_rows, bad.ideal_rows))
    if metric in ("dcg", "idcg"):
        tables = tuple(t for t in tables if t[0].lower() == metric)
    for label, rows_good, rows_bad in tables:
        for rg, rb in zip(rows_good, rows_bad, strict=False):
            if rg.contribution != rb.contribution or rg.relevance != rb.relevance:
                return f"{label} {row_text(rg, good.gain)} (your formula: {rb.contribution.text})"
        if len(rows_bad) > len(rows_good):
            extra = rows_bad[len(rows_good)]
            return f"{label} stops at rank {good.k}; rank {extra.rank} and below do not count"
    return f"ideal order: {', '.join(map(str, good.ideal_order))}"


def _pointer(problem: Problem, metric: str, learner: float) -> str | None:
    """For an unmatched miss: the first rank at which the running total passes the answer."""
    if metric not in ("dcg", "ndcg", "idcg"):
        return None
    sol = solve(problem)
    rows = sol.ideal_rows if metric == "idcg" else sol.rows
    target = learner
    if metric == "ndcg":
        if sol.idcg.is_zero:
            return "IDCG is 0 here, so NDCG is 0 by convention."
        target = learner * sol.idcg.value
    for row in rows:
        if not row.discount.inverse.is_rational or row.running >= target - 1e-12:
            return (f"Check {row_text(row, sol.gain)}; running {'IDCG' if metric == 'idcg' else 'DCG'} "
                    f"{decimal_text(row.running, 6)}. Discounts like log2(3) = 1.585 are where "
                    "hand computations usually slip.")
    return None


def _closest(hits: list[tuple[float, Variant]]) -> list[tuple[float, Variant]]:
    """The slips that explain the answer best: nearest first, none more than twice as far.

    0.689 against 0.6885 (IDCG from the retrieved list) and 0.6920 (2^rel) names only
    the first; slips that give the same number are all named, since nothing tells them
    apart. One exception: on a query with IDCG = 0 an answer of 1 is the convention
    slip, whatever formula also reaches 1 there.
    """
    hits = sorted(hits, key=lambda pair: pair[0])  # stable: CATALOG order among equals
    if not hits:
        return hits
    best = hits[0][0]
    kept = [(d, v) for d, v in hits if d <= 2 * best + 1e-12]
    convention = [(d, v) for d, v in kept if v.misconception.formula.empty_ideal_one]
    return convention or kept


def diagnose(problem: Problem, metric: str, learner: float, tolerance: Tolerance) -> Diagnosis:
    """Name the slips whose value the learner's answer matches (closest first)."""
    correct = metric_value(problem, metric).value
    if abs(learner - correct) <= tolerance.allowed(correct):
        return Diagnosis((), ())
    hits = [
        (abs(learner - v.value.value), v)
        for v in variants(problem, metric, tolerance)
        if abs(learner - v.value.value) <= tolerance.allowed(v.value.value)
    ]
    hits = _closest(hits)
    matches = tuple(v.misconception for _, v in hits)
    if not matches:
        return Diagnosis((), (), _pointer(problem, metric, learner))
    explanations = tuple(
        f"{v.misconception.description} That formula gives {decimal_text(v.value.decimal(), 6)}. "
        f"Right step: {right_step(problem, v.misconception, metric)}."
        for _, v in hits
    )
    return Diagnosis(matches, explanations)


__all__ = ["CATALOG", "STANDARD", "Diagnosis", "Misconception", "Solution", "Variant",
           "diagnose", "right_step", "variants"]
