"""The one list of metrics: every metric the engine computes, declared once, by name.

``METRICS`` maps each name to its ``Metric`` (``spec.py``): its family, the Problem fields
it takes, whether it is a mean over queries, its trec_eval names, and how to compute it
exactly, work it and state it in one line. It is built here, in a fixed order, from the
declarations the family modules expose (``ndcg_text``, ``binary``, ``quantities``,
``cascade``); the families know nothing of this list. Every consumer reads it:

- ``names()``: every name, in the order packs and error messages list them (the order the
  metrics were added); ``names(family=..., taking=..., per_query=..., measured=...)``: a
  subset, in the same order;
- ``SOLVE_METRICS``: what ``drills solve --metric`` offers, in its help's order;
  ``CODE_METRICS``: what a coding-round task may ask for (two menus with their own order);
- ``metric_value``, ``measure``, ``worked_steps``, ``value_line``: the exact value, the exact
  result with its worked rows (binary and cascade), the worked steps and the one-line value
  of any metric, looked up here (no if-chain on names);
- ``TREC``: each trec_eval measure family to the metric it computes (drills.trec.names).

Adding a metric: declare its ``Metric`` in its family's module (a new family is a new
module: its computation, its worked text, its ``Metric``s), then add one line to
``_REGISTERED`` below, and its name to ``SOLVE_METRICS`` or ``CODE_METRICS`` if those menus
offer it. tests/test_metric_registry.py checks the rest.

Imports only the engine (its metric families and low modules).
"""

from __future__ import annotations

from typing import Union

from drills.engine.exact import Exact
from drills.engine.metrics import binary, cascade, ndcg_text, quantities
from drills.engine.metrics.ndcg import STANDARD, Formula
from drills.engine.metrics.spec import Metric
from drills.engine.problem import Problem, ProblemError
from drills.engine.table import WIDE, Layout

# One line per metric, in the order every list of all names shows them.
_REGISTERED: tuple[Metric, ...] = (
    ndcg_text.DCG,
    ndcg_text.IDCG,
    ndcg_text.NDCG,
    binary.RR,
    binary.PRECISION,
    binary.HIT,
    ndcg_text.DELTA_NDCG,
    quantities.GAIN_RATIO,
    quantities.DISCOUNT,
    quantities.CONTRIBUTION,
    quantities.DISCOUNT_RATIO,
    ndcg_text.NDCG_DIFFERENCE,
    binary.AP,
    binary.RECALL,
    binary.RPREC,
    cascade.ERR,
    cascade.RBP,
    binary.MAP,
    binary.MRR,
)
METRICS: dict[str, Metric] = {m.name: m for m in _REGISTERED}

# `drills solve --metric`'s choices, in the order its help lists them (NDCG, the default, first).
SOLVE_METRICS: tuple[str, ...] = ("ndcg", "dcg", "idcg", "ap", "precision", "recall", "rprec", "hit", "rr",
                                  "err", "rbp")
# What a coding-round task may ask a function to compute, in the order its errors list them.
CODE_METRICS: tuple[str, ...] = (*SOLVE_METRICS, "map", "mrr", "delta_ndcg")

# trec_eval's measure family (``map``, ``P``, ``ndcg_cut``, ...) -> the metric it computes.
TREC: dict[str, str] = {family: m.name for m in METRICS.values() for family in m.trec}

Result = Union[binary.BinaryResult, binary.MeanResult, cascade.CascadeResult]  # noqa: UP007 - 3.10 runtime alias


def names(*, family: str | None = None, taking: str | None = None, per_query: bool | None = None,
          measured: bool | None = None) -> tuple[str, ...]:
    """The registered names (those of ``family``, those that take the Problem field
    ``taking``, the per-query ones, those with an exact result with rows), in registry order."""
    return tuple(m.name for m in METRICS.values()
                 if (family is None or m.family == family)
                 and (taking is None or taking in m.takes)
                 and (per_query is None or m.per_query == per_query)
                 and (measured is None or (m.result is not None) == measured))


def get(metric: str) -> Metric:
    """The ``Metric`` called ``metric`` (ProblemError for an unknown name)."""
    try:
        return METRICS[metric]
    except KeyError:
        raise ProblemError(f"unknown metric {metric!r}") from None


def metric_value(problem: Problem, metric: str, formula: Formula = STANDARD) -> Exact:
    """The exact value of ``metric`` for ``problem`` (under ``formula``, NDCG's: a slip's value)."""
    return get(metric).value(problem, formula)


def measure(problem: Problem, metric: str) -> Result:
    """The exact result of a binary or cascade metric with its worked rows (ProblemError)."""
    m = get(metric)
    if m.result is None:
        raise ValueError(f"{metric!r} is not a measured metric (one of {', '.join(names(measured=True))})")
    return m.result(problem)


def worked_steps(problem: Problem, metric: str, layout: Layout = WIDE, scoped: bool = False) -> str:
    """The worked steps of ``metric`` (``scoped``: DCG's or IDCG's table alone, not the whole
    NDCG solution, for a scenario's step)."""
    return get(metric).steps(problem, layout, scoped)


def value_line(problem: Problem, metric: str) -> str:
    """The right value of ``metric`` in one line, for a diagnosis's "right step"."""
    return get(metric).line(problem)
