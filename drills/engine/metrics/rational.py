"""What the rational metric families (binary, cascade) share: the ``Exact`` protocol over a
``Fraction`` (``ExactFraction``), the checks of their inputs, the text of a long sum, and
``measured``, which declares a metric from its exact result (one cached computation gives
the value, the worked steps and the one-line equation).

Imports only the engine's low modules (exact, problem, spec).
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from drills.engine.exact import LogSum, decimal_text, fraction_text
from drills.engine.lazy import Lazy
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_RANKING, MAX_RELEVANCE, Problem, ProblemError

_CTX = decimal.Context(prec=60)


class ExactFraction:
    """The ``Exact`` protocol over a Fraction attribute ``exact``."""

    exact: Fraction

    @property
    def text(self) -> str:
        return fraction_text(self.exact)

    @property
    def value(self) -> float:
        return float(self.exact)

    def decimal(self) -> decimal.Decimal:
        q = self.exact
        return _CTX.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))

    def to_sympy(self) -> Any:
        import sympy  # slow: only the grader's symbolic comparison needs it

        return sympy.Rational(self.exact.numerator, self.exact.denominator)

    @property
    def shown(self) -> str:
        """The exact fraction, or for a long one (a 1,000-document list's) its value to 12
        digits: the exact form stays in ``text`` and in --json."""
        if len(self.text) <= 40:
            return self.text
        return f"{decimal_text(self.decimal(), 12)} (exact: a fraction of {len(self.text)} characters)"


def sum_text(terms: Sequence[str], most: int = 8) -> str:
    """``a + b + c``; past ``most`` terms the middle is elided, so that the equation of a long
    list stays one readable line: ``1 + 1 + 2/3 + ... + 9/40 (474 terms)``."""
    if not terms:
        return "0"
    if len(terms) <= most:
        return " + ".join(terms)
    return " + ".join([*terms[:4], "...", *terms[-2:]]) + f" ({len(terms)} terms)"


def check_grades(name: str, grades: Sequence[int], most: int = MAX_RANKING) -> None:
    """Raise ProblemError unless ``grades`` are at most ``most`` whole numbers in 0..MAX_RELEVANCE."""
    if len(grades) > most:
        what = "relevant documents" if name == "judged pool" else "documents"
        raise ProblemError(f"the {name} has {len(grades):,} {what}; the limit is {most:,}")
    for g in grades:
        if isinstance(g, bool) or not isinstance(g, int) or g < 0:
            raise ProblemError(f"{name} grades must be whole numbers >= 0, got {g!r}")
        if g > MAX_RELEVANCE:
            raise ProblemError(f"{name} grade {g} is above the limit {MAX_RELEVANCE}")


def check_whole(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Raise ProblemError unless ``value`` is a whole number in low..high."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ProblemError(f"{name} must be a whole number >= {low}, got {value!r}")
    if high is not None and value > high:
        raise ProblemError(f"{name} {value} is above the limit {high}")


Compute = Callable[[Problem], Any]  # a Problem to an exact result with .exact, .worked, .working


@lru_cache(maxsize=1024)  # grading, diagnosis, narrowing and the worked steps ask for the same results
def _result(compute: Compute, problem: Problem) -> Any:
    return compute(problem)


def _lazy(result: Any) -> Any:
    """A result's value as the grader reads it: its float at once, ``LogSum.of(exact)`` when its
    exact form is asked for (a capped cascade result stands for itself: 50 digits)."""
    if getattr(result, "capped", False):
        return result
    return Lazy(result.value, lambda: LogSum.of(result.exact))


def measured(name: str, family: str, compute: Compute, takes: Iterable[str],
             trec: tuple[str, ...] = ()) -> Metric:
    """The ``Metric`` of an exact result with worked rows: its value is ``result.exact``, its
    steps ``result.worked``, its line ``result.working`` (one computation, cached)."""

    def result(problem: Problem) -> Any:
        return _result(compute, problem)

    fields = frozenset(takes)
    return Metric(name, family, fields,
                  value=lambda problem, _formula: _lazy(result(problem)),
                  steps=lambda problem, _layout, _scoped: result(problem).worked,
                  line=lambda problem: result(problem).working,
                  result=result, per_query="queries" in fields, trec=trec)
