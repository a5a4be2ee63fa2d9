"""``Metric``: one metric declared once (its name, family, what it takes, how to compute it
exactly, its worked steps, its one-line value, its trec_eval names).

The family modules build their metrics with this class; ``registry.py`` lists them. Imports
only the engine's low modules (exact, problem, table; NDCG's ``Formula`` for annotations).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drills.engine.exact import Exact
from drills.engine.problem import Problem
from drills.engine.table import Layout

if TYPE_CHECKING:
    from drills.engine.metrics.ndcg import Formula

# The Problem fields a metric may read besides ``relevance`` (``takes``).
FIELDS = ("k", "judged", "gain", "swap", "versus", "threshold", "convention", "persistence",
          "max_grade", "queries")

Value = Callable[[Problem, "Formula"], Exact]
Steps = Callable[[Problem, Layout, bool], str]
Line = Callable[[Problem], str]


@dataclass(frozen=True)
class Metric:
    """One metric.

    ``value(problem, formula)``: the exact value; ``formula`` is NDCG's (a learner's slip is the
    same computation under another ``Formula``); the families without one ignore it.
    ``steps(problem, layout, scoped)``: the worked steps (``scoped``: a scenario step's own
    table, DCG's or IDCG's, not the whole NDCG solution). ``line(problem)``: the right value
    in one line, for a diagnosis's "right step". ``result(problem)``: for the families whose
    exact result carries its worked rows (binary, cascade), that result; None for the rest.
    ``takes``: the Problem fields it reads (FIELDS). ``per_query``: a mean over
    ``Problem.queries`` (map, mrr). ``trec``: the trec_eval measure families that compute it.
    """

    name: str
    family: str
    takes: frozenset[str]
    value: Value
    steps: Steps
    line: Line
    result: Callable[[Problem], Any] | None = None
    per_query: bool = False
    trec: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = self.takes - set(FIELDS)
        if unknown:
            raise ValueError(f"metric {self.name}: unknown fields {sorted(unknown)} (one of {', '.join(FIELDS)})")
        if self.per_query != ("queries" in self.takes):
            raise ValueError(f"metric {self.name}: a per-query metric takes `queries`, and only it")
