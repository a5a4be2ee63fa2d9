"""Evaluate a TREC run against its qrels as trec_eval does: per query, exact, and the mean.

Pure: parsed files in (``drills.trec.files``), results out. Per query:
- the ranking is trec_eval's (score descending, ties by docno descending);
- a ranked document absent from the qrels is unjudged: non-relevant, grade 0; a negative
  grade is "in the pool, unjudged": also grade 0, and never in R;
- R and the ideal ranking come from the qrels (every judged document, retrieved or not);
- binary measures (map, map_cut, P, recall, Rprec, recip_rank, success) count grade >= the
  threshold (trec_eval's -l); ndcg and ndcg_cut use the grade as the gain (trec_eval's
  default), err.K and rbp use g / g_max with g_max = the query's top judged grade.
The binary measures, err and rbp are the exact engine's (``binary_metrics``,
``cascade_metrics``). NDCG is summed here in the engine's exact form (``LogSum``: a rational
plus rational multiples of 1/log2(m)), which ``metrics.solve`` also gives, but without
evaluating each term to 60 digits: the float comes from ``math.fsum`` of the terms, so a
1,000-document query takes milliseconds, not a tenth of a second.

Queries: those in both files, in qid order (strcmp). A query only in the run is skipped
(trec_eval too); a query only in the qrels is left out of the mean, as trec_eval 9.0.8 does
(``trec_eval -c`` would score it 0; trec_eval 10 stops). Each case gets a note.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from drills.engine.exact import LogSum, Ratio, perfect_power
from drills.engine.metrics import binary as bm
from drills.engine.metrics import cascade as cm
from drills.engine.problem import MAX_LIST, ProblemError
from drills.trec.files import Judgement, Qrels, Retrieved, Run, TrecError, ranked, show, tied
from drills.trec.names import Measure

MAX_LISTED = 10  # qids named in one note or error


@dataclass(frozen=True)
class NdcgResult:
    """NDCG (``k`` None) or NDCG@k of one query: the exact DCG and IDCG, and the value."""

    dcg: LogSum
    idcg: LogSum
    k: int | None
    value: float
    dcg_value: float
    idcg_value: float

    @property
    def label(self) -> str:
        return "NDCG" if self.k is None else f"NDCG@{self.k}"

    @property
    def text(self) -> str:
        return "0" if self.idcg.is_zero else Ratio(self.dcg, self.idcg).text


@dataclass(frozen=True)
class Value:
    """One measure on one query: the exact form, its float, and the engine's result."""

    exact: str
    value: float
    result: Any  # BinaryResult, CascadeResult or NdcgResult


@dataclass(frozen=True)
class QueryEvaluation:
    """One query: its ranking (docnos, grades as scored, qrels grade or None if unjudged),
    the positive judged grades best first, and each measure's value by printed name."""

    qid: str
    docnos: tuple[str, ...]
    grades: tuple[int, ...]
    judged: tuple[int | None, ...]
    positives: tuple[int, ...]
    judged_count: int
    ties: int
    values: dict[str, Value] = field(default_factory=dict)

    def relevant(self, threshold: int) -> int:
        """R at ``threshold``: judged documents with grade >= it, retrieved or not."""
        return sum(1 for g in self.positives if g >= threshold)


@dataclass(frozen=True)
class Evaluation:
    """A run evaluated: the measures, the relevance threshold, each query's values, the means, notes."""

    measures: tuple[Measure, ...]
    threshold: int
    queries: tuple[QueryEvaluation, ...]
    mean: dict[str, float]
    notes: tuple[str, ...]


def _listed(qids: Sequence[str]) -> str:
    names = ", ".join(show(q, 24) for q in qids[:MAX_LISTED])
    return names + (f", ... ({len(qids)} in all)" if len(qids) > MAX_LISTED else "")


def dcg(grades: Sequence[int]) -> tuple[LogSum, float]:
    """sum of grade / log2(rank + 1), exact (as ``metrics.solve`` builds it) and as a float."""
    const = Fraction(0)
    coefs: dict[int, Fraction] = {}
    for rank, grade in enumerate(grades, start=1):
        if grade <= 0:
            continue
        m = rank + 1
        if m & (m - 1) == 0:  # log2(m) is a whole number
            const += Fraction(grade, m.bit_length() - 1)
        else:
            base, e = perfect_power(m)  # 1/log2(9) = 1/(2 log2(3))
            coefs[base] = coefs.get(base, 0) + Fraction(grade, e)
    value = math.fsum([float(const), *(float(c) / math.log2(b) for b, c in coefs.items())])
    return LogSum.from_terms(const, {("log2", b): c for b, c in coefs.items()}), value


def ndcg(grades: Sequence[int], positives: Sequence[int], k: int | None) -> NdcgResult:
    """trec_eval's ndcg (k None: whole ranking over the whole ideal) or ndcg_cut.k, gain =
    grade; ``positives``: every judged grade > 0 of the query, best first. 0 when IDCG = 0."""
    d, d_value = dcg(grades if k is None else grades[:k])
    i, i_value = dcg(positives if k is None else positives[:k])
    value = d_value / i_value if i_value else 0.0
    return NdcgResult(d, i, k, value, d_value, i_value)


def measure_query(query: QueryEvaluation, measure: Measure, threshold: int) -> Value:
    """One measure on one query (raises ProblemError past the engine's limits)."""

    grades, fam, k = query.grades, measure.family, measure.k
    if fam in ("ndcg", "ndcg_cut"):
        result: Any = ndcg(grades, query.positives, k)
        return Value(result.text, result.value, result)
    top = query.positives[0] if query.positives else None
    if fam == "err":
        result = cm.err(grades, k, max_grade=top)
    elif fam == "rbp":
        result = cm.rbp(grades, measure.persistence, max_grade=top)
    else:
        pool = tuple(g for g in query.positives if g >= threshold)
        kw = {"judged": pool, "threshold": threshold}
        if fam in ("map", "map_cut"):
            result = bm.average_precision(grades, k, convention="R", **kw)
        elif fam == "P":
            result = bm.precision_at_k(grades, k, **kw)
        elif fam == "recall":
            result = bm.recall_at_k(grades, k, **kw)
        elif fam == "Rprec":
            result = bm.r_precision(grades, **kw)
        elif fam == "recip_rank":
            result = bm.reciprocal_rank(grades, **kw)
        elif fam == "success":
            result = bm.hit_at_k(grades, k, **kw)
        else:
            raise ValueError(f"no measure family {fam!r}")
    return Value(result.text, result.value, result)


def _query(qid: str, qrels: Qrels, run: Run) -> QueryEvaluation:
    return query_of(qid, qrels.queries[qid], run.queries[qid])


def query_of(qid: str, judgements: Mapping[str, Judgement], retrieved: Sequence[Retrieved],
             depth: int | None = None) -> QueryEvaluation:
    """One query's ranking (the first ``depth`` documents: trec_eval -M) and judgements,
    ready for ``measure_query``."""
    order = ranked(retrieved)[:depth]
    judged = tuple(j.grade if j is not None else None
                   for j in (judgements.get(d.docno) for d in order))
    positives = tuple(sorted((j.grade for j in judgements.values() if j.grade > 0), reverse=True))
    return QueryEvaluation(qid, tuple(d.docno for d in order),
                           tuple(max(g or 0, 0) for g in judged), judged, positives,
                           len(judgements), tied(order))


def select(qrels: Qrels, run: Run, query_ids: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The qids to evaluate (in trec_eval's order) and the notes about the others."""
    return choose(qrels.queries.keys(), qrels.source, run.queries.keys(), run.source, query_ids)


def choose(judged: Collection[str], qrels_source: str, ranked_ids: Collection[str],
           run_source: str, query_ids: Sequence[str] = (),
           complete: bool = False) -> tuple[list[str], list[str]]:
    """The qids to evaluate, in trec_eval's order, and the notes about the others: those in
    both files (``complete``: every judged one, as trec_eval -c), or ``query_ids``."""
    qrels = SimpleNamespace(queries=judged, source=qrels_source)
    run = SimpleNamespace(queries=ranked_ids, source=run_source)
    both = sorted(set(run.queries) & set(qrels.queries))
    if not both and not complete:
        raise TrecError(f"no query is in both files: {run.source} ranks {_listed(sorted(run.queries))}; "
                        f"{qrels.source} judges {_listed(sorted(qrels.queries))}")
    if query_ids:
        chosen = set(qrels.queries) if complete else set(both)
        for qid in query_ids:
            if qid in chosen:
                continue
            if qid in qrels.queries:
                raise TrecError(f"query {show(qid)} is judged in {qrels.source} but has no "
                                f"ranking in {run.source} (-c would score it 0)")
            if qid in run.queries:
                raise TrecError(f"query {show(qid)} is ranked in {run.source} but has no "
                                f"judgements in {qrels.source}; trec_eval skips it too")
            raise TrecError(f"unknown query {show(qid)}; the queries in both files: {_listed(both)}")
        return sorted(set(query_ids)), []
    notes = []
    run_only = sorted(set(run.queries) - set(qrels.queries))
    qrels_only = sorted(set(qrels.queries) - set(run.queries))
    if run_only:
        notes.append(f"{len(run_only)} quer{'y' if len(run_only) == 1 else 'ies'} ranked in "
                     f"{run.source} but not judged in {qrels.source}, skipped as trec_eval does: "
                     f"{_listed(run_only)}")
    if qrels_only and complete:
        notes.append(f"{len(qrels_only)} quer{'y' if len(qrels_only) == 1 else 'ies'} judged in "
                     f"{qrels.source} but not ranked in {run.source}, each scoring 0 in the mean "
                     f"(-c, as trec_eval -c): {_listed(qrels_only)}")
        return sorted(qrels.queries), notes
    if qrels_only:
        notes.append(f"{len(qrels_only)} quer{'y' if len(qrels_only) == 1 else 'ies'} judged in "
                     f"{qrels.source} but not ranked in {run.source}, left out of the mean as "
                     f"trec_eval 9.0.8 does (trec_eval -c would count each as 0; trec_eval 10 "
                     f"stops): {_listed(qrels_only)}")
    return both, notes


def evaluate(qrels: Qrels, run: Run, measures: Sequence[Measure], threshold: int = 1,
             query_ids: Sequence[str] = ()) -> Evaluation:
    """Every measure on every query in both files (or ``query_ids``), and their means.

    Raises TrecError (one message per line) for unknown queries or a query past the
    engine's limits.
    """
    if not measures:
        raise TrecError("give at least one measure")
    qids, notes = select(qrels, run, query_ids)
    errors: list[str] = []
    queries: list[QueryEvaluation] = []
    for qid in qids:
        query = _query(qid, qrels, run)
        if len(query.docnos) > MAX_LIST:
            errors.append(f"query {show(qid)}: {len(query.docnos):,} ranked documents; drills "
                          f"evaluates at most {MAX_LIST:,} per query (trec_eval -M{MAX_LIST} "
                          f"would keep the first {MAX_LIST:,})")
            continue
        for measure in measures:
            try:
                query.values[measure.name] = measure_query(query, measure, threshold)
            except ProblemError as exc:
                errors.append(f"query {show(qid)}, {measure.name}: {exc}")
                break
        queries.append(query)
        if len(errors) >= MAX_LISTED:
            break
    if errors:
        raise TrecError(errors)
    mean = {m.name: math.fsum(q.values[m.name].value for q in queries) / len(queries)
            for m in measures}
    notes.extend(_notes(qrels, queries, measures, threshold))
    return Evaluation(tuple(measures), threshold, tuple(queries), mean, tuple(notes))


def _notes(qrels: Qrels, queries: Sequence[QueryEvaluation], measures: Sequence[Measure],
           threshold: int) -> list[str]:
    empty = [q.qid for q in queries if not q.positives]
    below = [q.qid for q in queries if q.positives and not q.relevant(threshold)]
    return notes_for(qrels.negative, qrels.source, measures, threshold, empty, below)


def notes_for(negative: int, source: str, measures: Sequence[Measure], threshold: int,
              empty: Sequence[str], below: Sequence[str]) -> list[str]:
    """The notes under an evaluation: negative grades, the threshold, queries with nothing
    relevant (``empty``) or nothing at the threshold (``below``)."""
    notes = []
    if negative:
        notes.append(f"{negative:,} judgement{'s' if negative != 1 else ''} in "
                     f"{source} with a negative grade (in the pool, unjudged, as trec_eval "
                     "reads it): never relevant, not counted in R")
    if threshold > 1 and any(m.binary for m in measures):
        graded = list(dict.fromkeys(m.family for m in measures if not m.binary))
        also = f"; {', '.join(graded)} use{'s' if len(graded) == 1 else ''} the grades" if graded else ""
        notes.append(f"binary measures count grade >= {threshold} as relevant (trec_eval -l "
                     f"{threshold}){also}")
    if empty:
        notes.append(f"no relevant judged document for {_listed(empty)}: every measure is 0 "
                     "there, and the query counts in the mean (as trec_eval)")
    if threshold > 1 and any(m.binary for m in measures):
        if below:
            notes.append(f"no judged document at grade >= {threshold} for {_listed(below)}: "
                         "the binary measures are 0 there")
    return notes
