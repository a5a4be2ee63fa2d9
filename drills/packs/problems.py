"""A numeric question's ``problem:`` mapping, checked field by field and turned into a Problem.

Every field is checked and all problems reported at once, each at its file:line. The
fields beyond NDCG's (issue 12) go with the metrics that use them: ``threshold`` with the
binary metrics, ``denominator`` with AP and MAP, ``persistence`` with RBP, ``max_grade`` with
ERR and RBP, ``queries`` (one ranking per query) with MAP and MRR.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from drills.engine.metrics.cascade import parse_persistence
from drills.engine.metrics.registry import names
from drills.engine.problem import (
    AP_CONVENTION_NAMES,
    GAINS,
    MAX_LIST,
    MAX_RELEVANCE,
    Problem,
    ProblemError,
)
from drills.packs.document import INVALID
from drills.packs.errors import FieldPath
from drills.packs.fieldreader import FieldReader

# The exact engine's own limits, so a pack that loads can always be computed.
MAX_GRADE = MAX_RELEVANCE
MAX_QUERIES = 20
PROBLEM_FIELDS = ("relevance", "judged", "k", "gain", "swap", "versus", "threshold", "denominator",
                  "persistence", "max_grade", "queries")
QUERY_FIELDS = ("relevance", "judged")
QUERY_METRICS = names(per_query=True)  # map, mrr
MEASURED = names(measured=True)  # the metrics that check their own pool
# Which metrics each extra field is for: a field a metric ignores is an error, not a silent no-op.
# (The registry's ``takes`` in the order these messages list them: tests/test_metric_registry.py
# checks that the two agree.)
FIELD_METRICS = {
    "threshold": ("precision", "recall", "rprec", "hit", "rr", "ap", "map", "mrr"),
    "denominator": ("ap", "map"),
    "persistence": ("rbp",),
    "max_grade": ("err", "rbp"),
    "queries": QUERY_METRICS,
}


def field_errors(c: FieldReader, raw: dict, p: FieldPath, metric: str) -> bool:
    """Report fields the metric does not use, and ``queries`` missing for MAP/MRR; True if ok."""
    ok = True
    for name, metrics in FIELD_METRICS.items():
        if raw.get(name) is not None and metric not in metrics:
            c.err((*p, name), f"`{name}` is for metric {' or '.join(metrics)}, not {metric}")
            ok = False
    if metric in QUERY_METRICS and raw.get("queries") is None:
        c.err(p, f"metric {metric} needs `queries:`, one `- relevance: [...]` (and `judged`) per query")
        ok = False
    return ok


def grades(c: FieldReader, value: Any, p: FieldPath, *, required: bool) -> tuple[int, ...] | None:
    """A list of relevance grades (whole numbers 0 to MAX_GRADE); None, reported, if not."""
    if value is INVALID:
        return None
    if value is None:
        if required:
            c.err(p, "`relevance` is required: the grades in ranked order, e.g. [2, 1, 3, 0]")
        return None
    if not isinstance(value, list) or not value or len(value) > MAX_LIST:
        c.err(p, f"expected a list of 1 to {MAX_LIST} relevance grades, e.g. [2, 1, 3, 0]")
        return None
    ok = True
    for i, grade in enumerate(value):
        ok = c.integer(grade, (*p, i), minimum=0, maximum=MAX_GRADE) is not None and ok
    return tuple(value) if ok else None


def problem(c: FieldReader, value: Any, p: FieldPath, default_gain: str,
            metric: str | None = None) -> Problem | None:
    """Every field is checked (all problems reported at once); None when any is bad.

    The metrics beyond NDCG check their own pool (it need only hold the relevant ranked
    grades): ``numeric`` computes them once the problem is built.
    """

    m = c.mapping(value, p, PROBLEM_FIELDS, "problem")
    if m is None:
        return None
    queries = _queries(c, m["queries"], (*p, "queries")) if m.get("queries") is not None else ()
    ok_queries = queries is not None
    if queries and m.get("relevance") is None and m.get("judged") is None:
        m = {**m, "relevance": list(queries[0].relevance),
             "judged": list(queries[0].judged) if queries[0].judged is not None else None}
    if not ok_queries:  # MAP/MRR take `queries`; their problem was reported there
        return None
    relevance = grades(c, m.get("relevance"), (*p, "relevance"), required=True)
    judged = grades(c, m.get("judged"), (*p, "judged"), required=False)
    ok = relevance is not None and (m.get("judged") is None or judged is not None)  # null: absent
    k = None
    if m.get("k") is not None:
        k = c.integer(m["k"], (*p, "k"), minimum=1)
        ok = ok and k is not None
    gain = c.choice(m, p, "gain", GAINS, default_gain)
    ok = ok and gain is not None
    swap = _swap(c, m.get("swap"), (*p, "swap"), relevance) if m.get("swap") is not None else None
    ok = ok and (m.get("swap") is None or swap is not None)
    versus = grades(c, m.get("versus"), (*p, "versus"), required=False)  # ndcg_difference's B
    ok = ok and (m.get("versus") is None or versus is not None)
    if relevance is not None and versus is not None and Counter(relevance) != Counter(versus):
        c.err((*p, "versus"), "`versus` is a second ranking of the same documents: the same grades "
                              "in another order")
        ok = False
    if (metric not in MEASURED and relevance is not None and judged is not None
            and not Counter(relevance) <= Counter(judged)):
        missing = Counter(relevance) - Counter(judged)
        c.err((*p, "judged"), "`judged` is the query's whole judged pool, so it must contain every ranked "
                              f"grade; missing: {sorted(missing.elements())}")
        ok = False
    threshold = 1
    if m.get("threshold") is not None:
        threshold = c.integer(m["threshold"], (*p, "threshold"), minimum=1, maximum=MAX_GRADE)
        ok = ok and threshold is not None
    convention = c.choice(m, p, "denominator", AP_CONVENTION_NAMES, "R")
    persistence = _persistence(c, m["persistence"], (*p, "persistence")) if m.get("persistence") is not None else None
    ok = ok and convention is not None and (m.get("persistence") is None or persistence is not None)
    max_grade = None
    if m.get("max_grade") is not None:
        max_grade = c.integer(m["max_grade"], (*p, "max_grade"), minimum=1, maximum=MAX_GRADE)
        ok = ok and max_grade is not None
    if not ok or not ok_queries or relevance is None or gain is None or threshold is None:
        return None
    return Problem(relevance, judged, k, gain, swap, versus, threshold=threshold,
                   convention=convention or "R", persistence=persistence, max_grade=max_grade,
                   queries=queries or ())


def _swap(c: FieldReader, raw: Any, p: FieldPath, relevance: tuple[int, ...] | None) -> tuple[int, int] | None:
    if raw is INVALID:
        return None
    if not isinstance(raw, list) or len(raw) != 2:
        c.err(p, "`swap` must be two 1-based ranks, e.g. swap: [1, 3]")
        return None
    top = len(relevance) if relevance is not None else None
    ranks = [c.integer(r, (*p, i), minimum=1, maximum=top) for i, r in enumerate(raw)]
    if None in ranks:
        return None
    if ranks[0] == ranks[1]:
        c.err(p, "`swap` needs two different ranks")
        return None
    return ranks[0], ranks[1]


def _queries(c: FieldReader, raw: Any, p: FieldPath) -> tuple[Problem, ...] | None:
    if raw is INVALID:
        return None
    if not isinstance(raw, list) or not raw or len(raw) > MAX_QUERIES:
        c.err(p, f"`queries` must be a list of 1 to {MAX_QUERIES} queries, each "
                 "`- relevance: [...]` with an optional `judged: [...]`")
        return None
    out: list[Problem] = []
    for i, item in enumerate(raw):
        m = c.mapping(item, (*p, i), QUERY_FIELDS, "query")
        if m is None:
            return None
        relevance = grades(c, m.get("relevance"), (*p, i, "relevance"), required=True)
        judged = grades(c, m.get("judged"), (*p, i, "judged"), required=False)
        if relevance is None or (m.get("judged") is not None and judged is None):
            return None
        out.append(Problem(relevance, judged))
    return tuple(out)


def _persistence(c: FieldReader, raw: Any, p: FieldPath) -> Any:
    if raw is INVALID:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        c.err(p, "`persistence` is RBP's p, a number between 0 and 1 such as 0.8 or \"4/5\"")
        return None
    try:
        return parse_persistence(c.doc.text(p, raw) if isinstance(raw, float) else str(raw))
    except ProblemError as exc:
        c.err(p, str(exc))
        return None
