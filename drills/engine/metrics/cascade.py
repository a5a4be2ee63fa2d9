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

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from drills.engine.exact import fraction_text, short_fraction
from drills.engine.metrics.rational import (
    ExactFraction,
    check_grades,
    check_whole,
    measured,
    sum_text,
)
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_POOL, MAX_RELEVANCE, ProblemError
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


@dataclass(frozen=True)
class CascadeResult(ExactFraction):
    """ERR@k or RBP on one ranking: the exact value and how it was reached."""

    metric: str  # err | rbp
    label: str  # "ERR@5", "RBP (p = 4/5)"
    exact: Fraction
    k: int | None
    max_grade: int
    rows: tuple[CascadeRow, ...]
    persistence: Fraction | None = None  # RBP only
    residual: Fraction | None = None  # RBP only: p^d
    note: str | None = None

    @property
    def working(self) -> str:
        """The one-line worked equation."""
        note = f" ({self.note})" if self.note else ""
        parts = [short_fraction(r.contribution) for r in self.rows if r.contribution]
        terms = sum_text(parts)
        if len(parts) <= 1:  # one term (or none) is the total: say it once
            terms = self.shown
        if self.metric == "rbp":
            residual = f"; residual p^{len(self.rows)} = {short_fraction(self.residual or Fraction(0), 40)}"
            total = "" if terms == self.shown else f" = {self.shown}"
            return f"{self.label} = {terms}{total}{residual}{note}"
        total = "" if terms == self.shown else f" = {self.shown}"
        return f"{self.label} = {terms}{total}{note}"

    @property
    def worked(self) -> str:
        """The worked table and its one-line equation."""
        lines = [f"g_max = {self.max_grade}"]
        if self.rows:
            lines.append(format_table(table(self)))
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
    rows: list[CascadeRow] = []
    reach = Fraction(1)
    running = Fraction(0)
    for rank, grade in enumerate(ranked[: len(ranked) if k is None else k], start=1):
        stop = Fraction(2**grade - 1, 2**top) if top else Fraction(0)
        contribution = reach * stop / rank
        running += contribution
        rows.append(CascadeRow(rank, grade, stop, reach, contribution, running))
        reach *= 1 - stop
    note = "no judged document is relevant (g_max = 0): ERR is 0" if not top else None
    return CascadeResult("err", "ERR" if k is None else f"ERR@{k}", running, k, top, tuple(rows),
                         note=note)


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
    rows: list[CascadeRow] = []
    running = Fraction(0)
    weight = 1 - p
    for rank, grade in enumerate(ranked[: len(ranked) if k is None else k], start=1):
        stop = Fraction(grade, top) if top else Fraction(0)
        contribution = weight * stop
        running += contribution
        rows.append(CascadeRow(rank, grade, stop, weight, contribution, running))
        weight *= p
    label = f"RBP (p = {fraction_text(p)})" if k is None else f"RBP@{k} (p = {fraction_text(p)})"
    note = "no judged document is relevant (g_max = 0): RBP is 0" if not top else None
    return CascadeResult("rbp", label, running, k, top, tuple(rows), persistence=p,
                         residual=p ** len(rows), note=note)


def table(result: CascadeResult) -> list[list[str]]:
    """The worked table's cells (a header row first)."""
    if result.metric == "err":
        head = ["rank", "grade", "R = (2^g-1)/2^gmax", "reach", "R x reach / rank", "ERR so far"]
    else:
        head = ["rank", "grade", "r = g/gmax", "(1-p)p^(i-1)", "r x weight", "RBP so far"]
    cells = [head]
    for r in result.rows:
        cells.append([str(r.rank), str(r.grade), short_fraction(r.stop), short_fraction(r.reach),
                      short_fraction(r.contribution), short_fraction(r.running)])
    return cells


# The family's metrics (drills.engine.metrics.registry lists them).
ERR = measured("err", "cascade", lambda p: err(p.relevance, p.k, judged=p.judged, max_grade=p.max_grade),
               ("k", "judged", "max_grade"), trec=("err",))
RBP = measured("rbp", "cascade", lambda p: rbp(p.relevance, p.persistence, p.k, judged=p.judged,
                                                max_grade=p.max_grade),
               ("k", "judged", "persistence", "max_grade"), trec=("rbp",))
METRICS: tuple[Metric, ...] = (ERR, RBP)
