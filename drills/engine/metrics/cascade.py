"""Exact user-model metrics over graded rankings: ERR@k (the cascade) and RBP (persistence).

Both are rational, so values are ``fractions.Fraction`` with worked rows, built like the
binary metrics' (``drills.engine.metrics.binary``) so one computation grades and explains.

- ERR@k (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009) = sum over r <= k of
  (1/r) R_r prod_{i<r} (1 - R_i), where R_i = (2^g_i - 1) / 2^g_max is the chance the
  user is satisfied at rank i and stops. g_max is the scale's top grade: given, or the
  largest grade in the judged pool (the ranking itself when no pool is given).
- RBP (Moffat and Zobel, TOIS 27(1), 2008) = (1 - p) sum_i r_i p^(i-1), with r_i =
  g_i / g_max (0/1 on binary lists; trec_eval 10's rbp rescales grades the same way when
  the lowest is 0). The residual p^d is the weight of the ranks past the d scored:
  how much RBP could still rise if they were all relevant.

The family's metrics are declared at the end (``METRICS``) for the registry. Imports only the
engine's low modules (exact, problem, table, metrics.spec, metrics.rational).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, overload

from drills.engine.exact import decimal_text, fraction_text, short_fraction
from drills.engine.metrics.rational import (
    ExactFraction,
    check_grades,
    check_whole,
    ends,
    measured,
    sum_text,
)
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_LIST, MAX_POOL, MAX_RELEVANCE, ProblemError
from drills.engine.table import format_table

DEFAULT_PERSISTENCE = Fraction(4, 5)


@dataclass(frozen=True)
class CascadeRow:
    """One rank: its grade, the probability the user stops there (ERR's R_i, RBP's r_i), the
    weight of reaching it, its contribution and the running total."""

    rank: int
    grade: int
    stop: Fraction  # ERR: R_i = (2^g - 1) / 2^g_max; RBP: r_i = g / g_max
    reach: Fraction  # ERR: prod_{j<i} (1 - R_j); RBP: (1 - p) p^(i-1)
    contribution: Fraction
    running: Fraction


EXACT_RANKS = MAX_LIST  # past this many ranks the rows and the total are 60-digit decimals
_CTX = decimal.Context(prec=60)


class _Cascade:
    """One ERR or RBP computation: every rank in 60-digit decimals at once (no growing
    fractions), the exact Fraction rows built on demand from the top, for the first
    EXACT_RANKS ranks; past those a row holds its decimal values (as Fractions) and the total
    is not built as a fraction: its 50-digit decimal stands for it."""

    def __init__(self, metric: str, grades: tuple[int, ...], top: int, p: Fraction | None) -> None:
        self.metric, self.grades, self.top, self.p = metric, grades, top, p
        self.reach: list[decimal.Decimal] = []
        self.running: list[decimal.Decimal] = []
        self._stops = {g: _dec(self._stop(g)) for g in set(grades)}
        # what reach is multiplied by after each grade: 1 - R (ERR) or p (RBP)
        after = {g: _CTX.subtract(1, d) if metric == "err" else _dec(p or 0) for g, d in self._stops.items()}
        reach = _CTX.create_decimal(1) if metric == "err" else _dec(1 - (p or 0))
        running = decimal.Decimal(0)
        mul, div, add = _CTX.multiply, _CTX.divide, _CTX.add
        for rank, grade in enumerate(grades, start=1):
            self.reach.append(reach)
            if grade:  # a 0 grade stops no one: it adds nothing
                term = mul(reach, self._stops[grade])
                running = add(running, div(term, rank) if metric == "err" else term)
            self.running.append(running)
            reach = mul(reach, after[grade])
        self.total = running
        self._rows: list[CascadeRow] = []

    def _stop(self, grade: int) -> Fraction:
        if not self.top:
            return Fraction(0)
        return Fraction(2**grade - 1, 2**self.top) if self.metric == "err" else Fraction(grade, self.top)

    def _stop_dec(self, grade: int) -> decimal.Decimal:
        return self._stops[grade]

    def row(self, index: int) -> CascadeRow:
        rank, grade = index + 1, self.grades[index]
        if index >= EXACT_RANKS:  # its decimal values (a 50-digit fraction each)
            stop, reach = self._stop(grade), Fraction(self.reach[index])
            contribution = Fraction(_CTX.divide(_CTX.multiply(self.reach[index], self._stop_dec(grade)),
                                                rank) if self.metric == "err" else
                                    _CTX.multiply(self.reach[index], self._stop_dec(grade)))
            return CascadeRow(rank, grade, stop, reach, contribution, Fraction(self.running[index]))
        while len(self._rows) <= index:
            i = len(self._rows)
            last = self._rows[-1] if self._rows else None
            g = self.grades[i]
            stop = self._stop(g)
            if self.metric == "err":
                reach = Fraction(1) if last is None else last.reach * (1 - last.stop)
                contribution = reach * stop / (i + 1)
            else:
                p = self.p or Fraction(0)
                reach = 1 - p if last is None else last.reach * p
                contribution = reach * stop
            running = contribution + (last.running if last is not None else 0)
            self._rows.append(CascadeRow(i + 1, g, stop, reach, contribution, running))
        return self._rows[index]

    def decimal_rows(self, start: int) -> list[tuple[int, int, dict[str, str]]]:
        """(rank, grade, its stop, reach, contribution and running total to 6 digits, as
        short_fraction shows a long fraction) from rank ``start + 1`` on, read from the
        decimals (for --json past EXACT_RANKS)."""
        out = []
        for i in range(start, len(self.grades)):
            grade, reach = self.grades[i], self.reach[i]
            term = _CTX.multiply(reach, self._stops[grade])
            term = _CTX.divide(term, i + 1) if self.metric == "err" else term
            out.append((i + 1, grade, {"stop": short_fraction(self._stop(grade), 60),
                                       **{k: f"{float(v):.6g}" for k, v in (
                                           ("reach", reach), ("contribution", term),
                                           ("running", self.running[i]))}}))
        return out

    @cached_property
    def exact(self) -> Fraction | None:
        """The total as a fraction (None past EXACT_RANKS ranks: too many digits to be read)."""
        if len(self.grades) > EXACT_RANKS:
            return None
        if not self.grades or not self.top:
            return Fraction(0)
        # summed in integers over one denominator, not row by row (each row's Fraction
        # reduced by a gcd of ever longer numbers): 1,000 ranks in a few ms
        n = len(self.grades)
        if self.metric == "err":  # R = (2^g - 1) / 2^top
            return err_total([(1 << g) - 1 for g in self.grades], 1 << self.top)
        p = self.p or Fraction(0)  # RBP: (1 - p) / top * sum g_i p^(i-1), p = a / b
        a, b = p.numerator, p.denominator
        total, power = 0, 1
        for g in self.grades:
            total = total * b + g * power
            power *= a
        return (1 - p) * Fraction(total, self.top * b ** (n - 1))


def err_total(stops: Sequence[int], denominator: int) -> Fraction:
    """ERR's sum of reach_i R_i / i, exact, for R_i = stops[i] / denominator (integers) and
    reach_i = prod_{j<i} (1 - R_j); the linear-gain slip uses it with its own stops. Summed in
    integers over denominator^n * lcm(1..n), Horner in the denominator (reach_i's numerator
    is prod (denominator - stops[j])), not row by row: each row's Fraction would be reduced
    by a gcd of ever longer numbers (1,000 ranks: 67 ms that way, a few here)."""
    n = len(stops)
    ranks = math.lcm(*range(1, n + 1))
    total, reach = 0, 1
    for rank, stop in enumerate(stops, start=1):
        total = total * denominator + reach * stop * (ranks // rank)
        reach *= denominator - stop
    return Fraction(total, denominator ** n * ranks)


def _dec(q: Fraction | int) -> decimal.Decimal:
    q = Fraction(q)
    return _CTX.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))


class CascadeRows(Sequence[CascadeRow]):
    """The rows of a cascade computation, each built when first read."""

    def __init__(self, source: _Cascade) -> None:
        self.source = source

    def __len__(self) -> int:
        return len(self.source.grades)

    @overload
    def __getitem__(self, index: int) -> CascadeRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[CascadeRow, ...]: ...

    def __getitem__(self, index: int | slice) -> CascadeRow | tuple[CascadeRow, ...]:
        if isinstance(index, slice):
            return tuple(self.source.row(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.source.row(index)


@dataclass(frozen=True)
class CascadeResult(ExactFraction):
    """ERR@k or RBP on one ranking: the value (60-digit decimals, at once), how it was reached
    (``rows``, built when read) and the exact fraction (``exact``, built when asked for; past
    EXACT_RANKS ranks None, and ``text`` the value to 50 digits)."""

    metric: str  # err | rbp
    label: str  # "ERR@5", "RBP (p = 4/5)"
    k: int | None
    max_grade: int
    rows: Sequence[CascadeRow]
    source: _Cascade = field(compare=False, repr=False)
    persistence: Fraction | None = None  # RBP only
    note: str | None = None

    @property
    def exact(self) -> Fraction:  # type: ignore[override]
        q = self.source.exact
        if q is None:
            raise ValueError(f"{self.label} over {len(self.source.grades):,} ranks has no exact "
                             f"fraction built (past {EXACT_RANKS:,}): read .decimal()")
        return q

    @property
    def grades(self) -> tuple[int, ...]:
        """The grades the rows are of (cut at k): what a slip recomputes its variant from."""
        return self.source.grades

    @property
    def capped(self) -> bool:
        """True past EXACT_RANKS ranks: ``text`` is the value to 50 digits, not a fraction."""
        return len(self.source.grades) > EXACT_RANKS

    @property
    def residual(self) -> Fraction | None:
        """RBP only: p^d, the weight of the ranks past the d scored."""
        return None if self.persistence is None else self.persistence ** len(self.source.grades)

    @property
    def text(self) -> str:
        if self.capped:
            return decimal_text(self.source.total, 50)
        return fraction_text(self.exact)

    @property
    def value(self) -> float:
        return float(self.source.total)

    def decimal(self) -> decimal.Decimal:
        return self.source.total if self.capped else super().decimal()

    def to_sympy(self) -> Any:
        if self.capped:
            import sympy  # slow: only the grader's symbolic comparison needs it

            return sympy.Float(self.text, 50)
        return super().to_sympy()

    @property
    def shown(self) -> str:
        if self.capped:
            return (f"{decimal_text(self.source.total, 12)} (past {EXACT_RANKS:,} ranks the "
                    "fraction is not built: --json gives 50 digits)")
        return super().shown

    @property
    def working(self) -> str:
        """The one-line worked equation."""
        note = f" ({self.note})" if self.note else ""
        nonzero = [i for i, g in enumerate(self.source.grades) if g and self.max_grade]
        terms = sum_text([short_fraction(self.source.row(i).contribution) for i in ends(nonzero)],
                         total=len(nonzero))  # the rows of the terms shown only
        if len(nonzero) <= 1:  # one term (or none) is the total: say it once
            terms = self.shown
        if self.metric == "rbp":
            residual = f"; residual p^{len(self.rows)} = {short_fraction(self.residual or Fraction(0), 40)}"
            if len(self.rows) > EXACT_RANKS:  # p^d of a long list: its value, not its digits
                residual = f"; residual p^{len(self.rows)} = {float(self.residual or 0):.6g}"
            total = "" if terms == self.shown else f" = {self.shown}"
            return f"{self.label} = {terms}{total}{residual}{note}"
        total = "" if terms == self.shown else f" = {self.shown}"
        return f"{self.label} = {terms}{total}{note}"

    @property
    def worked(self) -> str:
        """The worked table and its one-line equation."""
        return self.worked_at(10_000)

    def worked_at(self, width: int) -> str:
        """``worked`` with the table narrowed to ``width`` columns where it can be: a fraction
        too long for its cell is shown as its value (the exact total is in the equation)."""
        if self.metric == "err":
            legend = f"g_max = {self.max_grade}; R = (2^g - 1) / 2^g_max; term = R x reach / rank"
        else:
            legend = f"g_max = {self.max_grade}; r = g / g_max; weight = (1 - p) p^(i-1); term = r x weight"
        lines = [legend]
        if self.rows:
            for cell in CELL_WIDTHS:
                drawn = format_table(table(self, cell))
                if max(map(len, drawn.splitlines())) < width:
                    break
            lines.append(drawn)
        lines.append(self.working)
        return "\n".join(lines)


def _top_grade(ranking: tuple[int, ...], judged: Sequence[int] | None, max_grade: int | None) -> int:
    pool = tuple(judged) if judged is not None else ranking
    if judged is not None:
        check_grades("judged pool", pool, MAX_POOL)
    top = max(max(pool, default=0), max(ranking, default=0))
    if max_grade is None:
        return top
    check_whole("the top grade g_max", max_grade, 1, MAX_RELEVANCE)
    if max(ranking) > max_grade:
        raise ProblemError(f"grade {max(ranking)} is above the top grade g_max = {max_grade}")
    return max_grade


def _ranking(ranking: Sequence[int], k: int | None) -> tuple[int, ...]:
    ranked = tuple(ranking)
    if not ranked:
        raise ProblemError("the ranked list is empty: give at least one relevance grade")
    check_grades("ranked list", ranked)
    if k is not None:
        check_whole("k", k, 1)
    return ranked


def err(ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
        max_grade: int | None = None) -> CascadeResult:
    """ERR@k, exact (k None: the whole ranking)."""
    ranked = _ranking(ranking, k)
    top = _top_grade(ranked, judged, max_grade)
    ranks = ranked[: len(ranked) if k is None else k]
    note = "no judged document is relevant (g_max = 0): ERR is 0" if not top else None
    source = _Cascade("err", ranks, top, None)
    return CascadeResult("err", "ERR" if k is None else f"ERR@{k}", k, top, CascadeRows(source),
                         source, note=note)


def parse_persistence(value: Fraction | str | float | None) -> Fraction:
    """RBP's p as an exact fraction strictly between 0 and 1 (``"0.8"`` is 4/5)."""
    if value is None:
        return DEFAULT_PERSISTENCE
    try:
        p = Fraction(str(value).strip()) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise ProblemError(f"cannot read persistence {value!r}: give p as 0.8 or 4/5") from None
    if not 0 < p < 1:
        raise ProblemError(f"persistence p must be strictly between 0 and 1, got {fraction_text(p)}")
    if p.denominator > 10**6:
        raise ProblemError("persistence p: give at most 6 decimal places")
    return p


def rbp(ranking: Sequence[int], persistence: Fraction | str | float | None = None,
        k: int | None = None, *, judged: Sequence[int] | None = None,
        max_grade: int | None = None) -> CascadeResult:
    """RBP with persistence p over the top k (None: the whole ranking), with its residual."""
    ranked = _ranking(ranking, k)
    p = parse_persistence(persistence)
    top = _top_grade(ranked, judged, max_grade)
    ranks = ranked[: len(ranked) if k is None else k]
    label = f"RBP (p = {fraction_text(p)})" if k is None else f"RBP@{k} (p = {fraction_text(p)})"
    note = "no judged document is relevant (g_max = 0): RBP is 0" if not top else None
    source = _Cascade("rbp", ranks, top, p)
    return CascadeResult("rbp", label, k, top, CascadeRows(source), source, persistence=p, note=note)


CELL_WIDTHS = (24, 14, 10, 7)  # a fraction's most characters in a cell, widest that fits first


def table(result: CascadeResult, cell: int = 24) -> list[list[str]]:
    """The worked table's cells (a header row first); a fraction longer than ``cell``
    characters is shown as its value."""
    if result.metric == "err":
        head = ["rank", "grade", "R", "reach", "term", "ERR so far"]
    else:
        head = ["rank", "grade", "r", "weight", "term", "RBP so far"]
    cells = [head]
    for r in result.rows:
        cells.append([str(r.rank), str(r.grade), short_fraction(r.stop, cell),
                      short_fraction(r.reach, cell), short_fraction(r.contribution, cell),
                      short_fraction(r.running, cell)])
    return cells


# The family's metrics (drills.engine.metrics.registry lists them).
ERR = measured("err", "cascade", lambda p: err(p.relevance, p.k, judged=p.judged, max_grade=p.max_grade),
               ("k", "judged", "max_grade"), trec=("err",))
RBP = measured("rbp", "cascade", lambda p: rbp(p.relevance, p.persistence, p.k, judged=p.judged,
                                                max_grade=p.max_grade),
               ("k", "judged", "persistence", "max_grade"), trec=("rbp",))
METRICS: tuple[Metric, ...] = (ERR, RBP)
