"""What the rational metric families (binary, cascade) share: the ``Exact`` protocol over a
``Fraction`` (``ExactFraction``), the checks of their inputs, the text of a long sum, and
``measured``, which declares a metric from its exact result (one cached computation gives
the value, the worked steps and the one-line equation).

Imports only the engine's low modules (exact, problem, spec).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from drills.engine.exact import LogSum, decimal_text, fraction_text
from drills.engine.lazy import Lazy
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_RANKING, MAX_RELEVANCE, Problem, ProblemError

_CTX = decimal.Context(prec=60)
T = TypeVar("T")


def fraction_decimal(q: Fraction) -> decimal.Decimal:
    """``q`` to 60 significant digits, correctly rounded. A long fraction (AP of 100,000 ranks
    has 40,000-digit terms) is divided in integers to 66 digits and a sticky digit, then
    rounded once: converting both terms to Decimals first took 50 ms a call."""
    num, den = q.numerator, q.denominator
    if max(num.bit_length(), den.bit_length()) < 4096:
        return _CTX.divide(decimal.Decimal(num), decimal.Decimal(den))
    # q >= 2^-(den bits - num bits + 1): that many times log10(2) (30103/100000 is just over
    # it) leading zeros, then 60 digits and 6 to spare
    digits = 66 + max(0, -(-(den.bit_length() - abs(num).bit_length() + 1) * 30103 // 100000))
    whole, rest = divmod(abs(num) * 10**digits, den)
    if rest:  # below the last digit kept: a sticky 1, so the one rounding sees it
        whole, digits = whole * 10 + 1, digits + 1
    out = _CTX.scaleb(decimal.Decimal(whole), -digits)  # rounded once, to 60 digits
    return out.copy_negate() if num < 0 else out  # unary minus would round to the default 28 digits


def fraction_sum(terms: Iterable[tuple[int, int]]) -> Fraction:
    """The exact sum of ``numerator / denominator`` pairs (denominators > 0), split in halves:
    each half's sum over the lcm of its denominators, one gcd per merge and the result
    reduced once. ``sum`` of Fractions reduces after every term, a gcd of ever longer numbers:
    AP over 100,000 ranks (P@i = hits / i) took 2.9 s that way, this way a fraction of it."""
    pairs = list(terms)
    if not pairs:
        return Fraction(0)

    def merged(lo: int, hi: int) -> tuple[int, int]:
        if hi - lo == 1:
            return pairs[lo]
        mid = (lo + hi) // 2
        (a, b), (c, d) = merged(lo, mid), merged(mid, hi)
        g = math.gcd(b, d)
        return a * (d // g) + c * (b // g), b // g * d

    num, den = merged(0, len(pairs))
    return Fraction(num, den)


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
        return fraction_decimal(self.exact)

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


def sum_text(terms: Sequence[str], most: int = 8, total: int | None = None) -> str:
    """``a + b + c``; past ``most`` terms the middle is elided, so that the equation of a long
    list stays one readable line: ``1 + 1 + 2/3 + ... + 9/40 (474 terms)``. ``total``: how many
    terms there are when ``terms`` holds only their ``ends`` (the long ones formatted alone)."""
    if not terms:
        return "0"
    return elided(terms, " + ", most, total, "terms")


def ends(items: Sequence[T], most: int = 8) -> list[T]:
    """The items an elided list shows: all of them, or past ``most`` the first 4 and last 2.
    Format these alone, then hand them to ``elided`` or ``sum_text`` with the whole count."""
    return list(items) if len(items) <= most else [*items[:4], *items[-2:]]


def elided(parts: Sequence[str], sep: str, most: int = 8, total: int | None = None,
           unit: str = "") -> str:
    """``parts`` joined by ``sep``; when there are more than ``most`` (``total``, or their
    number), the first 4, ``...`` and the last 2, then ``(N unit)`` when ``unit`` is given."""
    count = len(parts) if total is None else total
    if count <= most:
        return sep.join(parts)
    text = sep.join([*parts[:4], "...", *parts[-2:]])
    return f"{text} ({count} {unit})" if unit else text


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
