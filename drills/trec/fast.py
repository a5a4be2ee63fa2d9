"""Every trec_eval measure of one query in floats, in one pass over its ranking.

A query reaches here as what the measures need and nothing more: ``hits``, the (rank, grade)
of each retrieved document with a grade above 0, best rank first (after trec_eval's order
and ``-M``); ``positives``, every judged grade above 0 of the query, best first (R and the
ideal ranking); ``retrieved``, how many documents were ranked. Documents with grade 0,
unjudged or judged negative change no measure, so they are never looked at one by one.

The values are trec_eval's (it computes in double): sums are ``math.fsum`` (exact, rounded
once), so each value is the exact engine's (``drills.trec.evaluate``) to a few units in the
last place, far inside trec_eval's printed ``%6.4f``. ``tests/test_trec_stream.py`` checks
both on random files.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence

from drills.trec.names import Measure

Hits = Sequence[tuple[int, int]]  # (rank, grade > 0), rank ascending
Compute = Callable[[Hits, list[int], Sequence[int], int], float]
_LOG2: list[float] = [0.0, 0.0]  # _LOG2[m] = log2(m), grown as ranks need it


def _log2(upto: int) -> list[float]:
    if len(_LOG2) <= upto:
        _LOG2.extend(math.log2(m) for m in range(len(_LOG2), upto + 1))
    return _LOG2


def _dcg(pairs: Sequence[tuple[int, int]]) -> float:
    """sum of grade / log2(rank + 1) over (rank, grade) pairs, rounded once."""
    if not pairs:
        return 0.0
    log2 = _log2(pairs[-1][0] + 1)
    return math.fsum([g / log2[r + 1] for r, g in pairs])


def _ideal(positives: Sequence[int], k: int | None) -> list[tuple[int, int]]:
    top = positives if k is None else positives[:k]
    return list(zip(range(1, len(top) + 1), top, strict=True))


def _ndcg(k: int | None) -> Compute:
    def compute(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
        ideal = _dcg(_ideal(positives, k))
        if not ideal:
            return 0.0
        cut = hits if k is None else hits[:bisect_right(hits, (k, 99))]
        return _dcg(cut) / ideal
    return compute


def _ap(k: int | None) -> Compute:
    def compute(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
        if not relevant:
            return 0.0
        cut = ranks if k is None else ranks[:bisect_right(ranks, k)]
        return math.fsum([i / r for i, r in enumerate(cut, start=1)]) / relevant
    return compute


def _precision(k: int) -> Compute:
    return lambda hits, ranks, positives, relevant: bisect_right(ranks, k) / k


def _recall(k: int) -> Compute:
    return lambda hits, ranks, positives, relevant: (bisect_right(ranks, k) / relevant
                                                     if relevant else 0.0)


def _rprec(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
    return bisect_right(ranks, relevant) / relevant if relevant else 0.0


def _recip_rank(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
    return 1 / ranks[0] if ranks else 0.0


def _success(k: int) -> Compute:
    return lambda hits, ranks, positives, relevant: 1.0 if ranks and ranks[0] <= k else 0.0


def _err(k: int | None) -> Compute:
    def compute(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
        if not positives:
            return 0.0
        scale = 2.0 ** positives[0]
        reach, terms = 1.0, []
        for r, g in hits:
            if k is not None and r > k:
                break
            stop = (2.0 ** g - 1) / scale
            terms.append(reach * stop / r)
            reach *= 1 - stop
        return math.fsum(terms)
    return compute


def _rbp(p: float) -> Compute:
    def compute(hits: Hits, ranks: list[int], positives: Sequence[int], relevant: int) -> float:
        if not positives:
            return 0.0
        top = positives[0]
        return (1 - p) * math.fsum([g / top * p ** (r - 1) for r, g in hits])
    return compute


def compiler(measure: Measure) -> Compute:
    """The float function of one measure: (hits, binary hit ranks, positives, R) -> value."""
    fam, k = measure.family, measure.k
    if fam in ("ndcg", "ndcg_cut"):
        return _ndcg(k)
    if fam in ("map", "map_cut"):
        return _ap(k)
    if fam == "P":
        return _precision(k or 1)
    if fam == "recall":
        return _recall(k or 1)
    if fam == "Rprec":
        return _rprec
    if fam == "recip_rank":
        return _recip_rank
    if fam == "success":
        return _success(k or 1)
    if fam == "err":
        return _err(k)
    if fam == "rbp":
        return _rbp(float(measure.persistence))
    raise ValueError(f"no measure family {fam!r}")


class Scorer:
    """Every requested measure of a query, in the order given, from its hits."""

    def __init__(self, measures: Sequence[Measure], threshold: int = 1) -> None:
        self.measures = tuple(measures)
        self.threshold = threshold
        self._computes = [compiler(m) for m in self.measures]

    def score(self, hits: Hits, positives: Sequence[int]) -> tuple[float, ...]:
        """``hits``: (rank, grade > 0), rank ascending; ``positives``: judged grades > 0,
        best first. The binary measures count grade >= the threshold (trec_eval -l)."""
        t = self.threshold
        ranks = [r for r, g in hits if g >= t]
        relevant = len(positives) if t <= 1 else sum(1 for g in positives if g >= t)
        return tuple(c(hits, ranks, positives, relevant) for c in self._computes)

    def zeros(self) -> tuple[float, ...]:
        """A query with nothing retrieved (trec_eval -c): every measure 0."""
        return (0.0,) * len(self.measures)
