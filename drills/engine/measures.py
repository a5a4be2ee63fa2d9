"""One ``Problem`` and a metric name to the exact result of the metric family that owns it.

``measure(problem, metric)`` is the one entry point for the metrics beyond NDCG (issue 12):
precision, recall, rprec, hit, rr, ap (binary, with ``problem.threshold``; AP under
``problem.convention``), err and rbp (graded, ``problem.max_grade``, ``problem.persistence``),
and map / mrr over ``problem.queries``. ``metrics.metric_value`` turns the result into an
``Exact`` for the grader; the worked steps and the diagnosis read the same result.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Union

from drills.engine.metrics import binary as bm
from drills.engine.metrics import cascade as cm
from drills.engine.problem import MEASURED_METRICS, Problem

MEASURED = MEASURED_METRICS  # (the list lives in questions.py: packs read it without this module)

Result = Union[bm.BinaryResult, bm.MeanResult, cm.CascadeResult]  # noqa: UP007 - 3.10 runtime alias


@lru_cache(maxsize=1024)  # grading, diagnosis, narrowing and the worked steps ask for the same results
def measure(problem: Problem, metric: str) -> Result:
    """The exact ``metric`` of ``problem`` with its worked rows (raises ProblemError)."""
    p = problem
    if metric == "precision":
        return bm.precision_at_k(p.relevance, p.k, judged=p.judged, threshold=p.threshold)
    if metric == "recall":
        return bm.recall_at_k(p.relevance, p.k, judged=p.judged, threshold=p.threshold)
    if metric == "rprec":
        return bm.r_precision(p.relevance, judged=p.judged, threshold=p.threshold)
    if metric == "hit":
        return bm.hit_at_k(p.relevance, p.k, judged=p.judged, threshold=p.threshold)
    if metric == "rr":
        return bm.reciprocal_rank(p.relevance, p.k, judged=p.judged, threshold=p.threshold)
    if metric == "ap":
        return bm.average_precision(p.relevance, p.k, judged=p.judged, convention=p.convention,
                                    threshold=p.threshold)
    if metric == "err":
        return cm.err(p.relevance, p.k, judged=p.judged, max_grade=p.max_grade)
    if metric == "rbp":
        return cm.rbp(p.relevance, p.persistence, p.k, judged=p.judged, max_grade=p.max_grade)
    queries = p.queries or (p,)
    rankings = [q.relevance for q in queries]
    pools = [q.judged for q in queries]
    if metric == "map":
        return bm.mean_average_precision(rankings, p.k, judged=pools, convention=p.convention,
                                         threshold=p.threshold)
    if metric == "mrr":
        return bm.mean_reciprocal_rank(rankings, p.k, judged=pools, threshold=p.threshold)
    raise ValueError(f"{metric!r} is not a measured metric (one of {', '.join(MEASURED)})")


def worked(result: Result) -> str:
    """The worked table(s) and equation of a result."""
    if isinstance(result, cm.CascadeResult):
        return cm.worked(result)
    if isinstance(result, bm.MeanResult):
        blocks = [f"Query {n}: {r.working}" for n, r in enumerate(result.per_query, start=1)]
        return "\n".join([*blocks, result.working])
    return bm.worked(result)
