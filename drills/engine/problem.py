"""A ranking problem (relevance grades, judged pool, cut-off and each metric's parameters),
the engine's limits, and ``ProblemError`` for a problem it cannot compute.

Imports nothing: every module of the engine may import this one. The metrics themselves
(their names, what each takes) are declared in ``drills.engine.metrics.registry``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

GAINS: tuple[str, ...] = ("exponential", "linear")
# AP's denominator conventions (drills.engine.metrics.binary.AP_CONVENTIONS says whose each is).
AP_CONVENTION_NAMES: tuple[str, ...] = ("R", "min_k_R", "retrieved")

# Largest ranked list the engine computes (``drills solve``): values are floats first and
# exact forms are built only where they are shown, compared closely or exported, so a
# 100,000-document list is solved in well under a second.
MAX_RANKING = 100_000
# Largest list a pack question may hold, and the length up to which TREC's per-query exact
# forms are built. Interview lists have 3-20 documents and grades 0-4 (0-10 at most).
MAX_LIST = 1000
MAX_RELEVANCE = 20
# The judged pool is only counted (R) or searched for its top grade by the binary and
# cascade metrics, so it may be far longer than a ranking (a TREC query can have thousands
# of relevant documents).
MAX_POOL = 100_000


class ProblemError(ValueError):
    """A problem the engine cannot compute (bad list, k, judged pool or swap)."""


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

        (With k None IDCG takes the whole judged pool, which may be longer: see
        ``ndcg_solution``.)
        """
        return self.k if self.k is not None else len(self.relevance)
