"""A ranking problem (relevance grades, judged pool, cut-off and the metric's parameters)
and the names of the metrics the engine computes for one."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

GAINS: tuple[str, ...] = ("exponential", "linear")
# Metrics the exact engine can compute for a Problem.
METRICS: tuple[str, ...] = ("dcg", "idcg", "ndcg", "rr", "precision", "hit", "delta_ndcg",
                            "gain_ratio", "discount", "contribution", "discount_ratio",
                            "ndcg_difference", "ap", "recall", "rprec", "err", "rbp", "map", "mrr")
# The metrics ``drills solve --metric`` computes for one ranking (issue 12's names).
SOLVE_METRICS: tuple[str, ...] = ("ndcg", "dcg", "idcg", "ap", "precision", "recall", "rprec",
                                  "hit", "rr", "err", "rbp")
# Metrics over several queries: ``Problem.queries`` holds one Problem per query.
QUERY_METRICS: tuple[str, ...] = ("map", "mrr")
# The metrics of drills.engine.measures (one exact result with worked rows each).
MEASURED_METRICS: tuple[str, ...] = ("precision", "recall", "rprec", "hit", "rr", "ap", "err", "rbp",
                                     "map", "mrr")
# AP's denominator conventions (drills.engine.metrics.binary.AP_CONVENTIONS says whose each is).
AP_CONVENTION_NAMES: tuple[str, ...] = ("R", "min_k_R", "retrieved")


@dataclass(frozen=True)
class Problem:
    """A ranking problem: relevance grades in ranked order, the judged pool, cut-off k.

    ``judged`` is the query's full judged pool (None: the ranked list itself).
    ``k`` None means no cut-off: DCG over the whole ranking, IDCG over the whole judged
    pool (NDCG@k cuts both at k). ``swap`` holds two 1-based ranks for ``delta_ndcg``.
    """

    relevance: tuple[int, ...]
    judged: tuple[int, ...] | None = None
    k: int | None = None
    gain: str = "exponential"
    swap: tuple[int, int] | None = None
    # A second ranking of the same documents, for ``ndcg_difference`` (NDCG - NDCG of versus).
    versus: tuple[int, ...] | None = None
    # Binary metrics (precision, recall, rprec, hit, rr, ap, map, mrr): relevant iff
    # grade >= threshold (trec_eval's -l). NDCG, ERR and RBP use the grades themselves.
    threshold: int = 1
    # AP's denominator: "R" (trec_eval map), "min_k_R" or "retrieved".
    convention: str = "R"
    # RBP's persistence p, 0 < p < 1 (None: 4/5).
    persistence: Fraction | None = None
    # ERR's and RBP's top grade g_max (None: the largest grade in the judged pool).
    max_grade: int | None = None
    # map / mrr: one Problem per query (its relevance and judged); this problem's own
    # relevance and judged repeat the first query's, so single-ranking code still works.
    queries: tuple[Problem, ...] = ()

    @property
    def cutoff(self) -> int:
        """Where DCG, RR and P stop: k, or the whole ranked list when k is None.

        (With k None IDCG takes the whole judged pool, which may be longer: see solve.)
        """
        return self.k if self.k is not None else len(self.relevance)
