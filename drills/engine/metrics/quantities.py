"""Numbers about one gain or one rank rather than a whole ranking, with their one-line steps
and declarations: gain_ratio (gain(relevance[0]) / gain(relevance[1])), discount (the
discount at rank k), contribution (gain / discount of the document at rank k) and
discount_ratio (how many times smaller a document's contribution is at rank j than at
rank i, for swap = (i, j)).

Each takes the same ``Formula`` as NDCG, so a slip (linear gain, log2(i), an inverted
ratio) is the same computation with one thing changed. Imports only the engine's low
modules and the NDCG family (ndcg, ndcg_text).
"""

from __future__ import annotations

from drills.engine.exact import Exact, Log, LogSum, Quotient, with_value
from drills.engine.metrics.ndcg import STANDARD, Formula, check_problem, discount, gain
from drills.engine.metrics.ndcg_text import gain_text, num
from drills.engine.metrics.spec import Metric
from drills.engine.problem import Problem, ProblemError
from drills.engine.table import Layout


def discount_exact(rank: int, form: str = "log2") -> Exact:
    """The discount at ``rank`` itself (not its reciprocal): log2(5), 2, or i for 1/i."""
    if form == "zero_based":
        return Log("log2", rank)  # rank 1 gives log2(1) = 0
    if form == "reciprocal" or (form == "log2_rank" and rank == 1):
        return LogSum.of(rank if form == "reciprocal" else 1)
    arg = {"log2": rank + 1, "ln": rank + 1, "log2_rank": rank, "log2_offset": rank + 2}[form]
    return Log("ln" if form == "ln" else "log2", arg)


def quantity(problem: Problem, metric: str, formula: Formula = STANDARD) -> Exact:
    """A gain ratio, a discount, one document's contribution or a discount ratio."""
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


def quantity_value(problem: Problem, metric: str, formula: Formula = STANDARD) -> Exact:
    """``quantity`` of a checked problem (raises ProblemError)."""
    check_problem(problem)
    return quantity(problem, metric, formula)


def quantity_steps(problem: Problem, metric: str) -> str:
    """One line for a gain ratio, a discount, a contribution or a discount ratio."""
    value = quantity_value(problem, metric)
    shown = with_value(value.text, num(value, 6))
    if metric == "gain_ratio":
        a, b = problem.relevance
        return (f"gain({a}) / gain({b}) = ({gain_text(a, problem.gain)}) / ({gain_text(b, problem.gain)})"
                f" = {shown}")
    if metric == "discount":
        i = problem.k or 1
        return f"The discount at rank {i} is log2({i} + 1) = {shown}."
    if metric == "contribution":
        i = problem.k or 1
        rel = problem.relevance[i - 1]
        d = discount(i)
        return (f"Rank {i}: rel {rel}, gain {gain_text(rel, problem.gain)}, discount "
                f"{d.symbol}{'' if d.symbol == d.text else ' = ' + d.text}, contribution "
                f"gain / discount = {shown}.")
    i, j = problem.swap or (1, 1)
    return (f"Contribution = gain / log2(rank + 1), and the gain stays the same, so it shrinks by "
            f"log2({j} + 1) / log2({i} + 1) = {shown}.")


def _quantity(name: str, takes: frozenset[str]) -> Metric:
    def value(problem: Problem, formula: Formula) -> Exact:
        return quantity_value(problem, name, formula)

    def steps(problem: Problem, _layout: Layout, _scoped: bool) -> str:
        return quantity_steps(problem, name)

    def line(problem: Problem) -> str:
        return quantity_steps(problem, name)

    return Metric(name, "quantity", takes, value, steps, line)


# The family's metrics (drills.engine.metrics.registry lists them).
GAIN_RATIO = _quantity("gain_ratio", frozenset({"gain"}))
DISCOUNT = _quantity("discount", frozenset({"k"}))
CONTRIBUTION = _quantity("contribution", frozenset({"k", "gain"}))
DISCOUNT_RATIO = _quantity("discount_ratio", frozenset({"swap"}))
METRICS: tuple[Metric, ...] = (GAIN_RATIO, DISCOUNT, CONTRIBUTION, DISCOUNT_RATIO)
