"""Exact binary-relevance ranking metrics: P@k, R@k, R-precision, Hit@k, RR, MRR, AP, MAP.

Every value here is rational, so it is kept as a ``fractions.Fraction``. Each function
returns a frozen ``BinaryResult`` (or ``MeanResult`` over several queries) with the exact
value, its ``text`` ("29/48"), a float ``value`` and the worked ``rows`` (one per rank:
grade, relevant or not, hits so far, precision at that rank, whether it counts toward AP),
so the same computation grades an answer and prints its worked table (``worked``). The
family's metrics are declared at the end (``METRICS``) for the registry. Imports only the
engine's low modules (exact, problem, table, metrics.spec, metrics.rational).

Conventions (see the project notes on metrics; trec_eval's by default):
- graded judgements become binary with ``threshold`` (trec_eval's ``-l``): relevant iff
  grade >= threshold, default 1;
- R = relevant documents in the judged pool, retrieved or not; the pool defaults to the
  ranking itself. A ranked document absent from the pool is non-relevant, so the pool must
  hold every *relevant* ranked grade; non-relevant ones may be missing;
- ranks past the end of the list count as non-relevant (P@10 of 5 documents is over 10);
- AP's denominator is selectable: "R" (trec_eval map / map_cut, ranx), "min_k_R"
  (ml_metrics apk), "retrieved" (relevant retrieved in the top k: scikit-learn,
  torchmetrics). AP is 0 when its denominator is 0; so are R@k and R-precision when R = 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from drills.engine.exact import fraction_text, short_fraction
from drills.engine.metrics.rational import (
    ExactFraction,
    check_grades,
    check_whole,
    ends,
    fraction_sum,
    measured,
    sum_text,
)
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_POOL, MAX_RELEVANCE, Problem, ProblemError
from drills.engine.table import format_table

AP_CONVENTIONS = {
    "R": "relevant documents in the judged pool (trec_eval map, map_cut; ranx)",
    "min_k_R": "min(k, R) (ml_metrics apk)",
    "retrieved": "relevant documents retrieved in the top k (scikit-learn, torchmetrics)",
}
MAX_QUERIES = 200


@dataclass(frozen=True)
class BinaryRow:
    """One rank of a worked table."""

    rank: int
    grade: int
    relevant: bool
    hits: int  # relevant documents at ranks 1..rank
    precision: Fraction  # hits / rank
    counts: bool  # its precision is a term of AP's sum (relevant, within the cut-off)


@dataclass(frozen=True)
class BinaryResult(ExactFraction):
    """One metric on one query: the exact value and how it was reached."""

    metric: str  # precision, recall, r_precision, hit, rr, ap
    label: str  # "P@3", "AP@5", "RR"
    exact: Fraction
    k: int | None  # the cut-off asked for (None: the whole ranking)
    threshold: int
    relevant_total: int  # R
    rows: tuple[BinaryRow, ...]
    numerator: Fraction
    denominator: int
    convention: str | None = None  # AP only
    note: str | None = None

    @property
    def working(self) -> str:
        """The one-line worked equation, e.g. ``AP = (1 + 2/3 + 3/4) / 4 = 29/48``."""
        note = f" ({self.note})" if self.note else ""
        if self.metric in ("hit", "rr") or self.denominator == 0:
            return f"{self.label} = {self.text}{note}"
        if self.metric == "ap":
            counted = [r for r in self.rows if r.counts]  # the ends only: sum_text elides the rest
            terms = sum_text([short_fraction(r.precision) for r in ends(counted)], total=len(counted))
            return f"{self.label} = ({terms}) / {self.denominator} = {self.shown}{note}"
        top = fraction_text(self.numerator)
        return f"{self.label} = {top} / {self.denominator} = {self.text}{note}"

    def worked_at(self, width: int) -> str:
        """``worked``: its table is narrow at any width (as a cascade's ``worked_at``)."""
        return self.worked

    @property
    def worked(self) -> str:
        """The worked table and its one-line equation."""
        lines = [f"relevant iff grade >= {self.threshold}; R = {self.relevant_total}"]
        if self.rows:
            lines.append(format_table(table(self)))
        lines.append(self.working)
        return "\n".join(lines)


@dataclass(frozen=True)
class MeanResult(ExactFraction):
    """MRR or MAP: the mean of one metric over several queries (a query with no hit counts 0)."""

    metric: str  # mrr, map
    label: str
    exact: Fraction
    per_query: tuple[BinaryResult, ...]

    @property
    def working(self) -> str:
        terms = sum_text([short_fraction(r.exact) for r in self.per_query])
        return f"{self.label} = ({terms}) / {len(self.per_query)} = {self.shown}"

    @property
    def worked(self) -> str:
        """Each query's worked table, then the mean."""
        blocks = [f"Query {n}: {r.working}" for n, r in enumerate(self.per_query, start=1)]
        return "\n".join([*blocks, self.working])


def _prepare(
    ranking: Sequence[int], judged: Sequence[int] | None, k: int | None, threshold: int
) -> tuple[tuple[int, ...], int]:
    """Validate; return the ranking as a tuple and R (relevant in the judged pool)."""
    ranking = tuple(ranking)
    if not ranking:
        raise ProblemError("the ranked list is empty: give at least one relevance grade")
    check_grades("ranked list", ranking)
    check_whole("the relevance threshold", threshold, 1, MAX_RELEVANCE)
    if k is not None:
        check_whole("k", k, 1)
    if judged is None:
        return ranking, sum(1 for g in ranking if g >= threshold)
    pool = tuple(judged)
    check_grades("judged pool", pool, MAX_POOL)
    missing = Counter(g for g in ranking if g >= threshold) - Counter(pool)
    if missing:
        grades = ", ".join(f"{g} (x{n})" for g, n in sorted(missing.items()))
        raise ProblemError(
            f"the judged pool must contain every relevant ranked document's grade; missing: {grades}"
        )
    return ranking, sum(1 for g in pool if g >= threshold)


def _rows(ranking: tuple[int, ...], depth: int, threshold: int) -> tuple[BinaryRow, ...]:
    rows = []
    hits = 0
    for rank, grade in enumerate(ranking[:depth], start=1):
        relevant = grade >= threshold
        hits += relevant
        rows.append(BinaryRow(rank, grade, relevant, hits, Fraction(hits, rank), relevant))
    return tuple(rows)


def _hits(rows: tuple[BinaryRow, ...]) -> int:
    return rows[-1].hits if rows else 0


def _label(name: str, k: int | None) -> str:
    return name if k is None else f"{name}@{k}"


def precision_at_k(
    ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
    threshold: int = 1,
) -> BinaryResult:
    """Relevant documents in the top k over k (trec_eval P_k); uncut: over the list's length."""
    ranked, total = _prepare(ranking, judged, k, threshold)
    depth = len(ranked) if k is None else k
    rows = _rows(ranked, depth, threshold)
    hits = _hits(rows)
    note = f"ranks {len(ranked) + 1}..{k} are past the list: non-relevant" if depth > len(ranked) else None
    return BinaryResult("precision", _label("P", k), Fraction(hits, depth), k, threshold, total,
                        rows, Fraction(hits), depth, note=note)


def recall_at_k(
    ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
    threshold: int = 1,
) -> BinaryResult:
    """Relevant documents in the top k over R (trec_eval recall_k); 0 when R = 0."""
    ranked, total = _prepare(ranking, judged, k, threshold)
    return _over_r("recall", _label("R", k), ranked, len(ranked) if k is None else k, k, threshold,
                   total)


def r_precision(
    ranking: Sequence[int], *, judged: Sequence[int] | None = None, threshold: int = 1
) -> BinaryResult:
    """Precision at rank R (trec_eval Rprec); 0 when R = 0."""
    ranked, total = _prepare(ranking, judged, None, threshold)
    return _over_r("r_precision", f"R-precision (P@{total})", ranked, total, None, threshold, total)


def _over_r(metric: str, label: str, ranked: tuple[int, ...], depth: int, k: int | None,
            threshold: int, total: int) -> BinaryResult:
    """Relevant documents in the top ``depth`` over R (recall, R-precision); 0 when R = 0."""
    rows = _rows(ranked, depth, threshold)
    hits = _hits(rows)
    value = Fraction(hits, total) if total else Fraction(0)
    what = "recall" if metric == "recall" else "R-precision"
    note = f"R = 0: no judged document is relevant, {what} is 0" if not total else None
    return BinaryResult(metric, label, value, k, threshold, total, rows, Fraction(hits), total,
                        note=note)


def hit_at_k(
    ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
    threshold: int = 1,
) -> BinaryResult:
    """1 when any of the top k is relevant, else 0 (trec_eval success_k)."""
    ranked, total = _prepare(ranking, judged, k, threshold)
    rows = _rows(ranked, len(ranked) if k is None else k, threshold)
    hits = _hits(rows)
    value = Fraction(int(hits > 0))
    note = None if hits else f"no relevant document in the top {k}" if k else "no relevant document"
    return BinaryResult("hit", _label("Hit", k), value, k, threshold, total, rows,
                        value, 1, note=note)


def reciprocal_rank(
    ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
    threshold: int = 1,
) -> BinaryResult:
    """1 / rank of the first relevant document within k (1-based); 0 when there is none."""
    ranked, total = _prepare(ranking, judged, k, threshold)
    rows = _rows(ranked, len(ranked) if k is None else k, threshold)
    first = next((r.rank for r in rows if r.relevant), None)
    if first is None:
        where = f"in the top {k}" if k is not None else "in the ranking"
        return BinaryResult("rr", _label("RR", k), Fraction(0), k, threshold, total, rows,
                            Fraction(0), 1, note=f"no relevant document {where}")
    return BinaryResult("rr", _label("RR", k), Fraction(1, first), k, threshold, total, rows,
                        Fraction(1), first, note=f"first relevant document at rank {first}")


def average_precision(
    ranking: Sequence[int], k: int | None = None, *, judged: Sequence[int] | None = None,
    convention: str = "R", threshold: int = 1,
) -> BinaryResult:
    """Sum of P@i over the relevant ranks i <= k, over the ``convention``'s denominator.

    "R" (default): R, relevant in the judged pool (trec_eval map / map_cut_k);
    "min_k_R": min(k, R), k the list's length when not given; "retrieved": relevant retrieved in the top k. 0 when that is 0.
    """
    if convention not in AP_CONVENTIONS:
        raise ProblemError(f"unknown AP convention {convention!r} (use {', '.join(AP_CONVENTIONS)})")
    ranked, total = _prepare(ranking, judged, k, threshold)
    rows = _rows(ranked, len(ranked) if k is None else k, threshold)
    numerator = fraction_sum((r.hits, r.rank) for r in rows if r.counts)  # sum of P@i, exact
    if convention == "R":
        denominator = total
    elif convention == "min_k_R":  # no k: the list's length, as uncut precision takes it
        denominator = min(len(ranked) if k is None else k, total)
    else:
        denominator = _hits(rows)
    note = None
    if denominator == 0:
        value = Fraction(0)
        note = {"R": "R = 0", "min_k_R": "min(k, R) = 0",
                "retrieved": "no relevant document retrieved"}[convention] + ": AP is 0"
    else:
        value = numerator / denominator
    if convention == "min_k_R" and k is None:
        note = f"no k given: k = the list's length, {len(ranked)}" + (f"; {note}" if note else "")
    return BinaryResult("ap", _label("AP", k), value, k, threshold, total, rows, numerator,
                        denominator, convention=convention, note=note)


def _queries(rankings: Sequence[Sequence[int]], judged: Sequence[Sequence[int] | None] | None
             ) -> list[tuple[Sequence[int], Sequence[int] | None]]:
    rankings = list(rankings)
    if not rankings:
        raise ProblemError("give at least one query")
    if len(rankings) > MAX_QUERIES:
        raise ProblemError(f"{len(rankings)} queries; the limit is {MAX_QUERIES}")
    pools = [None] * len(rankings) if judged is None else list(judged)
    if len(pools) != len(rankings):
        raise ProblemError(f"{len(rankings)} rankings but {len(pools)} judged pools: give one per query")
    return list(zip(rankings, pools, strict=True))


def mean_reciprocal_rank(
    rankings: Sequence[Sequence[int]], k: int | None = None, *,
    judged: Sequence[Sequence[int] | None] | None = None, threshold: int = 1,
) -> MeanResult:
    """Mean RR@k over the queries; a query with no relevant document in its top k counts 0."""
    per = tuple(reciprocal_rank(r, k, judged=p, threshold=threshold) for r, p in _queries(rankings, judged))
    return MeanResult("mrr", _label("MRR", k), sum((r.exact for r in per), Fraction(0)) / len(per), per)


def mean_average_precision(
    rankings: Sequence[Sequence[int]], k: int | None = None, *,
    judged: Sequence[Sequence[int] | None] | None = None, convention: str = "R",
    threshold: int = 1,
) -> MeanResult:
    """Mean AP (or AP@k) over the queries, each under ``convention``."""
    per = tuple(average_precision(r, k, judged=p, convention=convention, threshold=threshold)
                for r, p in _queries(rankings, judged))
    return MeanResult("map", _label("MAP", k), sum((r.exact for r in per), Fraction(0)) / len(per), per)


def table(result: BinaryResult) -> list[list[str]]:
    """The worked table's cells (a header row first), for ``format_table``: AP's shows
    the precision at each rank and which count; RR's only where the first hit is."""
    columns = {"ap": 6, "rr": 3}.get(result.metric, 4)
    cells = [["rank", "grade", "relevant", "hits", "P@rank", "in AP"][:columns]]
    for r in result.rows:
        cells.append([str(r.rank), str(r.grade), "yes" if r.relevant else "no", str(r.hits),
                      fraction_text(r.precision), "yes" if r.counts else ""][:columns])
    return cells


def _queries_of(p: Problem) -> tuple[list[tuple[int, ...]], list[tuple[int, ...] | None]]:
    queries = p.queries or (p,)
    return [q.relevance for q in queries], [q.judged for q in queries]


def _mean_ap(p: Problem) -> MeanResult:
    rankings, pools = _queries_of(p)
    return mean_average_precision(rankings, p.k, judged=pools, convention=p.convention,
                                  threshold=p.threshold)


def _mrr(p: Problem) -> MeanResult:
    rankings, pools = _queries_of(p)
    return mean_reciprocal_rank(rankings, p.k, judged=pools, threshold=p.threshold)


# The family's metrics (drills.engine.metrics.registry lists them).
_CUT = ("k", "judged", "threshold")
PRECISION = measured("precision", "binary", lambda p: precision_at_k(
    p.relevance, p.k, judged=p.judged, threshold=p.threshold), _CUT, trec=("P",))
RECALL = measured("recall", "binary", lambda p: recall_at_k(
    p.relevance, p.k, judged=p.judged, threshold=p.threshold), _CUT, trec=("recall",))
RPREC = measured("rprec", "binary", lambda p: r_precision(
    p.relevance, judged=p.judged, threshold=p.threshold), ("judged", "threshold"), trec=("Rprec",))
HIT = measured("hit", "binary", lambda p: hit_at_k(
    p.relevance, p.k, judged=p.judged, threshold=p.threshold), _CUT, trec=("success",))
RR = measured("rr", "binary", lambda p: reciprocal_rank(
    p.relevance, p.k, judged=p.judged, threshold=p.threshold), _CUT, trec=("recip_rank",))
AP = measured("ap", "binary", lambda p: average_precision(
    p.relevance, p.k, judged=p.judged, convention=p.convention, threshold=p.threshold),
    (*_CUT, "convention"), trec=("map", "map_cut"))
MAP = measured("map", "binary", _mean_ap, ("k", "queries", "threshold", "convention"))
MRR = measured("mrr", "binary", _mrr, ("k", "queries", "threshold"))
METRICS: tuple[Metric, ...] = (PRECISION, RECALL, RPREC, HIT, RR, AP, MAP, MRR)
