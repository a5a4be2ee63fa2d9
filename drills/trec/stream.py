"""Evaluate a TREC run of any size: one pass over the run, one query in memory at a time.

Pure: the qrels come held compactly (``reading.read_qrels``), the run as a ``Source`` of
bytes. Each query is ranked as trec_eval ranks it (score descending, ties by docno
descending; ``depth``: only the first N, trec_eval -M) and every measure computed in floats
(``fast.Scorer``) from the ranks of its relevant documents alone. The exact forms (the
engine's fractions and LogSums, ``evaluate.measure_query``) are built only for the queries
``exact_for`` names: the worked query, the queries of ``--json``.

Memory grows with the largest query, not the file, when each query's lines are together (as
every tool writes them). A query whose lines are scattered is noticed, and gathered in a
second pass over the run once the first ends: then memory grows with those queries.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress

from drills.engine.problem import MAX_LIST, ProblemError
from drills.trec.evaluate import QueryEvaluation, Value, choose, measure_query, notes_for, query_of
from drills.trec.fast import Scorer
from drills.trec.files import Judgement, Retrieved, TrecError, show
from drills.trec.names import Measure
from drills.trec.reading import CompactQrels, Invalid, Progress, Source, run_blocks


@dataclass
class Streamed:
    """Every query's floats in qid order (``rows``), the means, the notes, and the exact
    evaluations of the queries asked for (``exact``; None where past the engine's limits)."""

    measures: tuple[Measure, ...]
    threshold: int
    rows: list[tuple[str, tuple[float, ...]]]
    mean: dict[str, float]
    notes: list[str]
    exact: dict[str, QueryEvaluation | None] = field(default_factory=dict)


def hits_of(docs: list[str], scores: list[float], positive: dict[str, int],
            depth: int | None = None) -> list[tuple[int, int]]:
    """(rank, grade) of every retrieved document with a grade above 0, rank ascending, in
    trec_eval's order; ranks past ``depth`` dropped. Raises Invalid on a docno ranked twice.

    A document's rank is 1 + the documents with a higher score + those with its score and a
    greater docno: counted with bisect in the sorted scores, never sorting the documents."""
    table = dict(zip(docs, scores, strict=True))
    if len(table) != len(docs):
        raise Invalid
    n = len(docs)
    found = [(d, g, table[d]) for d, g in positive.items() if d in table]
    if not found:
        return []
    ordered = sorted(scores)
    placed = []
    tied: set[float] = set()
    for docno, grade, score in found:
        hi = bisect_right(ordered, score)
        if hi - bisect_left(ordered, score, 0, hi) > 1:
            tied.add(score)
        placed.append((n - hi + 1, grade, score, docno))
    groups: dict[float, list[str]] = {}
    if tied:
        for score, docno in compress(zip(scores, docs, strict=True), map(tied.__contains__, scores)):
            groups.setdefault(score, []).append(docno)
        for group in groups.values():
            group.sort()
    hits = []
    for rank, grade, score, docno in placed:
        if score in tied:  # the tied documents with a greater docno come first
            group = groups[score]
            rank += len(group) - bisect_right(group, docno)
        if depth is None or rank <= depth:
            hits.append((rank, grade))
    hits.sort()
    return hits


class _Evaluator:
    def __init__(self, qrels: CompactQrels, measures: Sequence[Measure], threshold: int,
                 depth: int | None, exact_for: Callable[[str], bool]) -> None:
        self.qrels, self.measures, self.threshold = qrels, tuple(measures), threshold
        self.depth, self.exact_for = depth, exact_for
        self.scorer = Scorer(measures, threshold)
        self.results: dict[str, tuple[float, ...]] = {}
        self.exact: dict[str, QueryEvaluation | None] = {}
        self.empty: set[str] = set()
        self.below: set[str] = set()

    def query(self, qid: str, docs: list[str], scores: list[float]) -> None:
        positive = self.qrels.positive(qid)
        grades = sorted(positive.values(), reverse=True)
        self.results[qid] = self.scorer.score(hits_of(docs, scores, positive, self.depth), grades)
        self.flag(qid, grades)
        if self.exact_for(qid):
            self.exact[qid] = self.exact_query(qid, docs, scores)

    def exact_query(self, qid: str, docs: list[str], scores: list[float]) -> QueryEvaluation | None:
        judgements = {d: Judgement(g, 0) for d, g in self.qrels.judgements(qid).items()}
        retrieved = [Retrieved(d, s, 0) for d, s in zip(docs, scores, strict=True)]
        query = query_of(qid, judgements, retrieved, self.depth)
        if len(query.docnos) > MAX_LIST:
            return None
        for measure in self.measures:
            if not query.docnos:  # trec_eval -c: a judged query the run lacks scores 0
                query.values[measure.name] = Value("0", 0.0, None)
                continue
            try:
                query.values[measure.name] = measure_query(query, measure, self.threshold)
            except ProblemError as exc:
                raise TrecError(f"query {show(qid)}, {measure.name}: {exc}") from None
        return query

    def flag(self, qid: str, grades: Sequence[int]) -> None:
        if not grades:
            self.empty.add(qid)
        elif self.threshold > 1 and grades[0] < self.threshold:
            self.below.add(qid)


def evaluate_stream(qrels: CompactQrels, run: Source, run_name: str, measures: Sequence[Measure],
                    threshold: int = 1, query_ids: Sequence[str] = (), complete: bool = False,
                    depth: int | None = None, exact_for: Callable[[str], bool] = lambda q: False,
                    progress: Progress | None = None) -> Streamed:
    """Every measure on every query in both files (``complete``: every judged query, a query
    the run lacks scoring 0; ``query_ids``: those only), in floats, and their means.

    Raises Invalid when a line of the run is bad (the caller names it), TrecError for
    queries that cannot be evaluated."""
    if not measures:
        raise TrecError("give at least one measure")
    ev = _Evaluator(qrels, measures, threshold, depth, exact_for)
    chosen = set(query_ids)
    judged = qrels.queries
    seen: set[str] = set()
    scattered: set[str] = set()
    for qid, docs, scores in run_blocks(run, run_name, progress):
        if qid in seen:
            scattered.add(qid)
            continue
        seen.add(qid)
        if qid in judged and (not chosen or qid in chosen):
            ev.query(qid, docs, scores)
        elif len(set(docs)) != len(docs):
            raise Invalid
    if scattered:
        _gather(ev, run, run_name, scattered & set(ev.results))
    qids, notes = choose(judged.keys(), qrels.source, seen, run_name, query_ids, complete)
    rows = []
    for qid in qids:
        values = ev.results.get(qid)
        if values is None:  # judged, not ranked: -c
            values = ev.scorer.zeros()
            ev.flag(qid, sorted(qrels.positive(qid).values(), reverse=True))
            if exact_for(qid):
                ev.exact[qid] = ev.exact_query(qid, [], [])
        rows.append((qid, values))
    keep = {qid for qid, _ in rows}
    empty, below = sorted(ev.empty & keep), sorted(ev.below & keep)
    count = len(rows)
    mean = {m.name: math.fsum(values[i] for _, values in rows) / count
            for i, m in enumerate(ev.measures)}
    notes += notes_for(qrels.negative, qrels.source, ev.measures, threshold, empty, below)
    return Streamed(ev.measures, threshold, rows, mean, notes, ev.exact)


def _gather(ev: _Evaluator, run: Source, run_name: str, qids: set[str]) -> None:
    """Queries whose lines are scattered through the run: read again, joined, evaluated."""
    parts: dict[str, tuple[list[str], list[float]]] = {q: ([], []) for q in qids}
    for qid, docs, scores in run_blocks(run, run_name):
        part = parts.get(qid)
        if part is not None:
            part[0].extend(docs)
            part[1].extend(scores)
    for qid, (docs, scores) in sorted(parts.items()):
        ev.query(qid, docs, scores)
        parts[qid] = ([], [])
