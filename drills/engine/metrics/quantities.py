"""Numbers about one gain or one rank, and the difference of two rankings' NDCG.

``metric_value`` dispatches here for QUANTITIES and ``ndcg_difference``; each takes the
same ``Formula`` as the ranking metrics, so a slip (linear gain, log2(i), an inverted
ratio) is the same computation with one thing changed.
"""

from __future__ import annotations

from dataclasses import replace

from drills.engine.exact import Exact, Log, LogSum, Quotient, Ratio
from drills.engine.metrics.ndcg import STANDARD, Formula, ProblemError, discount, gain, solve
from drills.engine.problem import Problem


def discount_exact(rank: int, form: str = "log2") -> Exact:
    """The discount at ``rank`` itself (not its reciprocal): log2(5), 2, or i for 1/i."""
    if form == "zero_based":
        return Log("log2", rank)  # rank 1 gives log2(1) = 0
    if form == "reciprocal" or (form == "log2_rank" and rank == 1):
        return LogSum.of(rank if form == "reciprocal" else 1)
    arg = {"log2": rank + 1, "ln": rank + 1, "log2_rank": rank, "log2_offset": rank + 2}[form]
    return Log("ln" if form == "ln" else "log2", arg)


def quantity(problem: Problem, metric: str, formula: Formula = STANDARD) -> Exact:
    """A gain ratio, a discount, one document's contribution or a discount ratio (QUANTITIES)."""
    convention = formula.gain or problem.gain
    rel = problem.relevance
    if metric == "gain_ratio":
        if len(rel) != 2:
            raise ProblemError("gain_ratio compares two grades: relevance: [a, b] gives gain(a) / gain(b)")
        top, bottom = (gain(r, convention) for r in (rel[::-1] if formula.inverted else rel))
        if bottom == 0:
            raise ProblemError("the gain below the line is 0: the ratio is undefined")
        return LogSum.of(top / bottom)
    if metric == "discount_ratio":
        if problem.swap is None:
            raise ProblemError("discount_ratio needs `swap: [i, j]`: a document moves from rank i to rank j")
        i, j = problem.swap
        top, bottom = discount_exact(j, formula.discount), discount_exact(i, formula.discount)
        return Quotient(bottom, top) if formula.inverted else Quotient(top, bottom)
    if problem.k is None:
        raise ProblemError(f"{metric} needs `k`: the rank asked about")
    if metric == "discount":
        return discount_exact(problem.k, formula.discount)
    if metric == "contribution":
        if problem.k > len(rel):
            raise ProblemError(f"contribution of rank {problem.k}, but the list has {len(rel)} documents")
        if formula.discount == "zero_based":
            d = Log("log2", problem.k).reciprocal()  # ZeroDivisionError at rank 1
        else:
            d = discount(problem.k, formula.discount).inverse
        return d.scale(gain(rel[problem.k - 1], convention))
    raise ProblemError(f"unknown metric {metric!r}")


def ndcg_difference(problem: Problem, formula: Formula = STANDARD) -> Exact:
    """NDCG(relevance) - NDCG(versus): two rankings of the same documents share IDCG."""
    if problem.versus is None:
        raise ProblemError("ndcg_difference needs `versus`: a second ranking of the same documents")
    a = solve(problem, formula)
    b = solve(replace(problem, relevance=problem.versus, versus=None), formula)
    if not formula.normalized:
        return a.dcg - b.dcg
    if a.idcg != b.idcg:  # a slip whose ideal follows the ranking: not one common IDCG
        raise ProblemError("the two rankings do not share IDCG under this formula")
    if a.idcg.is_zero or formula.inverted:
        raise ProblemError("no common denominator")
    return Ratio(a.dcg - b.dcg, a.idcg)
