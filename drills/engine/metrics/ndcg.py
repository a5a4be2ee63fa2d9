"""NDCG, exact: DCG@k, IDCG@k, NDCG@k (``ndcg_solution``), the |delta NDCG| of a swap and the
NDCG difference of two rankings of the same documents.

One computation yields both the values and the worked rows, so an explanation can never
drift from the grading. The learner's slips (linear gain, log2(i) discount, unsorted
ideal, ...) are the same computation under a different ``Formula``; the diagnosis names
them. The worked text and these metrics' declarations are in ``ndcg_text``. Imports only
the engine's low modules (exact, problem).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import overload

from drills.engine.exact import Exact, Log, LogSum, Ratio
from drills.engine.lazy import Lazy
from drills.engine.metrics.ndcg_sums import exact_sum, float_sum
from drills.engine.problem import MAX_RANKING, MAX_RELEVANCE, Problem, ProblemError

GAIN_FORMS = {
    "exponential": "2^rel - 1",
    "linear": "rel",
    "pow2": "2^rel",  # the slip: 2^rel without the - 1
}
DISCOUNT_FORMS = {
    "log2": "log2(i + 1)",
    "log2_rank": "log2(i), rank 1 undiscounted",
    "log2_offset": "log2(i + 2)",
    "reciprocal": "i",
    "ln": "ln(i + 1)",
    "zero_based": "log2(i) with ranks counted from 0",  # one quantity's slip; not for sums
}
NDCG_ZERO_REASON = (
    "IDCG@k is 0: no judged document is relevant, so there is nothing to normalise by. "
    "drills scores NDCG 0 here, as scikit-learn, ranx and trec_eval do "
    "(LightGBM and XGBoost score such a query 1)."
)


@dataclass(frozen=True)
class Formula:
    """How to compute: the correct formula, or one of a learner's slips.

    ``gain`` None means the problem's own gain convention.
    """

    gain: str | None = None
    discount: str = "log2"
    ideal: str = "judged"
    truncate_dcg: bool = True
    inverted: bool = False
    normalized: bool = True  # False: "NDCG" left as DCG (the division forgotten)
    empty_ideal_one: bool = False  # IDCG = 0 scored 1 (LightGBM/XGBoost), not 0
    absolute_delta: bool = True  # False: delta NDCG keeps its sign (after - before)


STANDARD = Formula()


@dataclass(frozen=True)
class Discount:
    """The discount at one rank: its symbol (log2(4)), its value, and 1/discount exactly."""

    symbol: str
    text: str
    value: float
    inverse: LogSum


@dataclass(frozen=True)
class Row:
    """One rank of a worked table."""

    rank: int
    relevance: int
    gain: Fraction
    discount: Discount
    contribution: LogSum
    running: Decimal  # the running DCG after this rank (its exact form is the table's total)


class Rows(Sequence[Row]):
    """The worked rows of one table, built on demand from the top: a screen shows the first
    few of a 100,000-document list, and a diagnosis reads down to the row it names."""

    def __init__(self, grades: tuple[int, ...], convention: str, form: str) -> None:
        self.grades, self.convention, self.form = grades, convention, form
        self._built: list[Row] = []
        self._running = Decimal(0)

    def _build_to(self, n: int) -> None:
        for rank in range(len(self._built) + 1, min(n, len(self.grades)) + 1):
            rel = self.grades[rank - 1]
            g = gain(rel, self.convention)
            d = discount(rank, self.form)
            contribution = d.inverse.scale(g)
            self._running += contribution.decimal()
            self._built.append(Row(rank, rel, g, d, contribution, self._running))

    def __len__(self) -> int:
        return len(self.grades)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Row, ...]: ...

    def __getitem__(self, index: int | slice) -> Row | tuple[Row, ...]:
        if isinstance(index, slice):
            start, stop, _ = index.indices(len(self))
            self._build_to(stop)
            return tuple(self._built[index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        self._build_to(index + 1)
        return self._built[index]

    def __iter__(self) -> Iterator[Row]:
        for i in range(len(self)):
            self._build_to(i + 1)
            yield self._built[i]


@dataclass(frozen=True)
class Solution:
    """DCG@k, IDCG@k and NDCG@k for a problem under a formula, with every step.

    The three values are floats first (``dcg_value``, ...); the exact forms (``dcg``, ``idcg``:
    LogSums; ``ndcg``: a ``Lazy`` value) and the worked rows are built when first asked for.
    """

    problem: Problem
    formula: Formula
    gain: str
    k: int
    ranked: tuple[int, ...]  # the grades DCG's table runs over
    ideal_order: tuple[int, ...]
    dcg_value: float
    idcg_value: float
    ndcg_value: float
    ndcg_note: str | None

    @cached_property
    def rows(self) -> Rows:
        return Rows(self.ranked, self.gain, self.formula.discount)

    @cached_property
    def ideal_rows(self) -> Rows:
        return Rows(self.ideal_order, self.gain, self.formula.discount)

    @cached_property
    def dcg(self) -> LogSum:
        return exact_sum(self.ranked, self.gain, self.formula.discount)

    @cached_property
    def idcg(self) -> LogSum:
        return exact_sum(self.ideal_order, self.gain, self.formula.discount)

    @cached_property
    def ndcg(self) -> Exact:
        return Lazy(self.ndcg_value, self._ndcg_exact)

    @cached_property
    def dcg_lazy(self) -> Lazy:
        """DCG as the metric ``dcg`` gives it: its float now, its LogSum when asked for."""
        return Lazy(self.dcg_value, lambda: self.dcg)

    @cached_property
    def idcg_lazy(self) -> Lazy:
        return Lazy(self.idcg_value, lambda: self.idcg)

    def _ndcg_exact(self) -> Exact:
        f = self.formula
        if not f.normalized:
            return self.dcg
        if f.inverted:
            return Ratio(self.idcg, self.dcg)
        if self.idcg_value == 0:
            return LogSum.of(1) if f.empty_ideal_one else LogSum()
        return Ratio(self.dcg, self.idcg)

    @property
    def cut(self) -> bool:
        """True for NDCG@k (both sides cut at k); False for uncut NDCG (whole ranking, whole pool)."""
        return self.problem.k is not None

    def label(self, name: str) -> str:
        """``DCG@2`` when cut at k, plain ``DCG`` when there is no cut-off."""
        return f"{name}@{self.k}" if self.cut else name

    @property
    def gain_form(self) -> str:
        return GAIN_FORMS[self.gain]

    @property
    def discount_form(self) -> str:
        return DISCOUNT_FORMS[self.formula.discount]


def gain(rel: int, convention: str) -> Fraction:
    if convention == "exponential":
        return Fraction(2**rel - 1)
    if convention == "linear":
        return Fraction(rel)
    if convention == "pow2":
        return Fraction(2**rel)
    raise ProblemError(f"unknown gain convention {convention!r} (use exponential or linear)")


@lru_cache(maxsize=8192)
def discount(rank: int, form: str = "log2") -> Discount:
    """The discount applied at 1-based ``rank`` under ``form``."""
    if form == "reciprocal" or (form == "log2_rank" and rank == 1):
        d = Fraction(rank if form == "reciprocal" else 1)
        return Discount(str(d), str(d), float(d), LogSum(1 / d))
    arg = {"log2": rank + 1, "ln": rank + 1, "log2_rank": rank, "log2_offset": rank + 2}[form]
    log = Log("ln" if form == "ln" else "log2", arg)
    return Discount(log.symbol, log.text, log.value, log.reciprocal())


def check_problem(problem: Problem) -> None:
    """Raise ProblemError naming what is wrong with ``problem``."""
    rel = problem.relevance
    if not rel:
        raise ProblemError("the ranked list is empty: give at least one relevance grade")
    if len(rel) > MAX_RANKING:
        raise ProblemError(f"the ranked list has {len(rel):,} documents; the limit is {MAX_RANKING:,}")
    for name, values in (("relevance", rel), ("judged", problem.judged or ())):
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ProblemError(f"{name} grades must be whole numbers >= 0, got {v!r}")
            if v > MAX_RELEVANCE:
                raise ProblemError(f"{name} grade {v} is above the limit {MAX_RELEVANCE}")
    if problem.judged is not None:
        if len(problem.judged) > MAX_RANKING:
            raise ProblemError(f"the judged pool is over the limit of {MAX_RANKING:,} documents")
        missing = Counter(rel) - Counter(problem.judged)
        if missing:
            grades = ", ".join(f"{g} (x{n})" for g, n in sorted(missing.items()))
            raise ProblemError(
                "the judged pool must contain every ranked document's grade; "
                f"missing from it: {grades}"
            )
    if problem.k is not None and (isinstance(problem.k, bool) or problem.k < 1):
        raise ProblemError(f"k must be at least 1, got {problem.k}")
    if problem.gain not in ("exponential", "linear"):
        raise ProblemError(f"unknown gain {problem.gain!r} (use exponential or linear)")
    if problem.versus is not None and Counter(problem.versus) != Counter(rel):
        raise ProblemError("the second ranking must hold the same documents (the same grades)")
    if problem.swap is not None:
        i, j = problem.swap
        if not (1 <= i <= len(rel) and 1 <= j <= len(rel)) or i == j:
            raise ProblemError(f"swap ranks must be two different ranks in 1..{len(rel)}, got {i} and {j}")


def _ideal(problem: Problem, mode: str) -> tuple[int, ...]:
    """The ideal order under ``mode``, cut at k; with no cut-off, the whole judged pool."""
    pool = problem.judged if problem.judged is not None else problem.relevance
    k = problem.k if problem.k is not None else len(pool)
    if mode == "judged":
        return tuple(sorted(pool, reverse=True))[:k]
    if mode == "ascending":
        return tuple(sorted(pool))[:k]
    if mode == "unsorted":
        return problem.relevance[:k]
    if mode == "untruncated":
        return tuple(sorted(pool, reverse=True))
    if mode == "retrieved":
        return tuple(sorted(problem.relevance, reverse=True))[: problem.cutoff]
    raise ProblemError(f"unknown ideal mode {mode!r}")


@lru_cache(maxsize=256)  # grading, diagnosis and the worked steps ask for the same solutions
def ndcg_solution(problem: Problem, formula: Formula = STANDARD) -> Solution:
    """DCG@k, IDCG@k and NDCG@k, exact, with the worked tables.

    With ``problem.k`` None NDCG is uncut: DCG over the whole ranking and IDCG over the
    whole judged pool (trec_eval's and ranx's ``ndcg``); with k both are cut at k.
    """
    check_problem(problem)
    convention = formula.gain or problem.gain
    k = problem.cutoff
    ranked = problem.relevance[:k] if formula.truncate_dcg else problem.relevance
    ideal_order = _ideal(problem, formula.ideal)
    dcg = float_sum(ranked, convention, formula.discount)
    idcg = float_sum(ideal_order, convention, formula.discount)
    note = None
    if not formula.normalized:
        ndcg = dcg
    elif formula.inverted:
        if dcg == 0:
            raise ProblemError("DCG is 0: IDCG / DCG is undefined")
        ndcg = idcg / dcg
    elif idcg == 0:
        ndcg, note = (1.0 if formula.empty_ideal_one else 0.0), NDCG_ZERO_REASON
    else:
        ndcg = dcg / idcg
    return Solution(problem, formula, convention, k, ranked, ideal_order, dcg, idcg, ndcg, note)


def swapped(problem: Problem) -> Problem:
    """The problem with the documents at ``problem.swap`` exchanged."""
    if problem.swap is None:
        raise ProblemError("delta_ndcg needs two ranks to swap")
    i, j = problem.swap
    rel = list(problem.relevance)
    rel[i - 1], rel[j - 1] = rel[j - 1], rel[i - 1]
    return replace(problem, relevance=tuple(rel), swap=None)


def delta_ndcg(problem: Problem, formula: Formula = STANDARD) -> Exact:
    """|NDCG@k after swapping the two ranks - NDCG@k before| (LambdaRank's |dNDCG|).

    A swap within the ranked list leaves the judged pool, hence IDCG, unchanged, so this
    is |DCG after - DCG before| / IDCG. (A slip formula whose ideal follows the ranking
    would break that; diagnose.py does not apply such a slip to delta_ndcg.)
    """
    before = ndcg_solution(problem, formula)
    after = ndcg_solution(swapped(problem), formula)
    if before.idcg.is_zero:
        return LogSum()
    diff = after.dcg - before.dcg
    if diff.decimal() < 0 and formula.absolute_delta:
        diff = -diff
    return Ratio(diff, before.idcg)


def ndcg_difference(problem: Problem, formula: Formula = STANDARD) -> Exact:
    """NDCG(relevance) - NDCG(versus): two rankings of the same documents share IDCG."""
    if problem.versus is None:
        raise ProblemError("ndcg_difference needs `versus`: a second ranking of the same documents")
    a = ndcg_solution(problem, formula)
    b = ndcg_solution(replace(problem, relevance=problem.versus, versus=None), formula)
    if not formula.normalized:
        return a.dcg - b.dcg
    if a.idcg != b.idcg:  # a slip whose ideal follows the ranking: not one common IDCG
        raise ProblemError("the two rankings do not share IDCG under this formula")
    if a.idcg.is_zero or formula.inverted:
        raise ProblemError("no common denominator")
    return Ratio(a.dcg - b.dcg, a.idcg)
