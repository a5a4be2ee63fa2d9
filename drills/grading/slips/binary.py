"""Binary-metric slips: AP over the wrong count or over every rank, recall over k, precision
over R, R counted from the retrieved documents, MRR over the queries with a hit, MAP taken as
the mean P@k.

Every value comes from ``drills.engine.metrics.binary`` (the engine that grades the answer),
with one thing changed. A slip returns None where it is no mistake: AP over the relevant
retrieved when every relevant document was retrieved, MRR over the queries with a hit when
every query (or none) has one.

``precision_over_relevant`` and ``answered_recall`` (quantity.py, older) are the same number:
the relevant documents in the top k over R, which is recall@k. The issue's id,
``precision_over_relevant``, is the one named: it ``supersedes`` ``answered_recall``, which
stays registered (its id is public: old transcripts and stats name it) and is named only by
a question that declares it and not the new id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

from drills.engine.exact import Exact, LogSum
from drills.engine.metrics import binary as bm
from drills.engine.metrics.registry import measure
from drills.engine.problem import Problem
from drills.grading.slips.registry import Case, slip

PerQuery = Callable[[Problem, Problem], "Fraction | None"]  # (the asked problem, one query)


def _queries(p: Problem) -> tuple[Problem, ...]:
    return p.queries or (p,)


def _depth(p: Problem, q: Problem) -> int:
    return len(q.relevance) if p.k is None else p.k


def _ap(p: Problem, q: Problem, convention: str | None = None) -> bm.BinaryResult:
    return bm.average_precision(q.relevance, p.k, judged=q.judged, convention=convention or p.convention,
                                threshold=p.threshold)


def _unless_right(case: Case, value: Fraction | None) -> Exact | None:
    """The slip's value, or None where it is the right number (no mistake to name)."""
    if value is None or value == measure(case.problem, case.metric).exact:
        return None
    return LogSum.of(value)


def _mean_of(per_query: PerQuery) -> Callable[[Case], Exact | None]:
    """AP's slip on one query; on MAP, the mean over the queries (each query's own slip)."""

    def compute(case: Case) -> Exact | None:
        p = case.problem
        values = [per_query(p, q) for q in _queries(p)] if case.metric == "map" else [per_query(p, p)]
        if any(v is None for v in values):
            return None
        return _unless_right(case, sum(values, Fraction(0)) / len(values))  # type: ignore[arg-type]

    return compute


def _binary(p: Problem, metric: str) -> bm.BinaryResult:
    result = measure(p, metric)
    assert isinstance(result, bm.BinaryResult)
    return result


def _ap_line(p: Problem, metric: str) -> str:
    return measure(p, metric).working


def denominator_text(result: bm.BinaryResult) -> str:
    """What an AP result divides by under its convention, with its value."""
    d = result.denominator
    return {"R": f"R = {d} (the relevant documents in the judged pool, retrieved or not)",
            "min_k_R": f"min(k, R) = {d}",
            "retrieved": f"the {d} relevant documents retrieved"}[result.convention or "R"]


def _denominator(p: Problem) -> str:
    return denominator_text(_binary(p, "ap"))


def _ap_step(what: str) -> Callable[[Problem, str], str]:
    """The right step of an AP slip: ``what`` AP does, with ``{den}`` its denominator."""

    def step(p: Problem, metric: str) -> str:
        if metric == "map":
            return f"each query's AP {what.format(den='its own denominator')}: {_ap_line(p, metric)}"
        return f"AP {what.format(den=_denominator(p))}: {_ap_line(p, metric)}"

    return step


# --------------------------------------------------------------------------- AP and MAP
# What each AP convention divides by, and whose it is: a slip's text cites the question's own.
DIVIDES_BY = {
    "R": "R, every relevant document in the judged pool, retrieved or not (trec_eval's and ranx's "
         "convention)",
    "min_k_R": "min(k, R), the cut-off or the relevant documents in the judged pool if fewer "
               "(ml_metrics' apk)",
    "retrieved": "the relevant documents retrieved (scikit-learn's and torchmetrics' convention)",
}


def _asked(p: Problem, metric: str) -> str:
    """``This question's AP divides by min(k, R) ...``: the convention the question asks."""
    whose = "each query's AP" if metric == "map" else "AP@k" if p.k is not None else "AP"
    return f"This question's {whose} divides by {DIVIDES_BY[p.convention]}"


def _over_retrieved_text(p: Problem, metric: str) -> str:
    missed = ("a relevant document never retrieved contributes a precision of 0" if p.convention == "R"
              else "a relevant document never retrieved still counts in R, up to k")
    return ("You divided the sum of precisions by the relevant documents you retrieved "
            f"(scikit-learn's and torchmetrics' convention). {_asked(p, metric)}: {missed}.")


def _over_retrieved(p: Problem, q: Problem) -> Fraction | None:
    return None if p.convention == "retrieved" else _ap(p, q, "retrieved").exact


slip("ap_over_retrieved", "AP divided by the relevant documents retrieved, not by R",
     "You divided the sum of precisions by the relevant documents you retrieved (scikit-learn's "
     "and torchmetrics' convention). trec_eval's and ranx's AP divide by R, every relevant "
     "document in the judged pool, retrieved or not: a relevant document never retrieved "
     "contributes a precision of 0.",
     metrics=("ap", "map"), family="binary", short="AP over the relevant retrieved",
     step=_ap_step("divides by {den}"), text=_over_retrieved_text,
     )(_mean_of(_over_retrieved))


def _over_r(p: Problem, q: Problem) -> Fraction | None:
    return None if p.convention == "R" else _ap(p, q, "R").exact


slip("ap_over_r", "AP divided by R where another denominator was asked",
     "You divided the sum of precisions by R, every relevant document in the judged pool "
     "(trec_eval's and ranx's convention). This question names another denominator: the "
     "relevant documents retrieved (scikit-learn, torchmetrics) or min(k, R) (ml_metrics' apk).",
     metrics=("ap", "map"), family="binary", short="AP over R",
     step=_ap_step("divides by {den}"),
     text=lambda p, m: ("You divided the sum of precisions by R, every relevant document in the judged "
                        f"pool (trec_eval's and ranx's convention). {_asked(p, m)}."),
     )(_mean_of(_over_r))


def _over_k(p: Problem, q: Problem) -> Fraction | None:
    return _ap(p, q).numerator / _depth(p, q)


slip("ap_over_k", "AP divided by k",
     "You divided the sum of precisions by k (or by the length of the list). AP divides it by "
     "R, the relevant documents in the judged pool: a perfect ranking scores 1 whatever k is.",
     metrics=("ap", "map"), family="binary", short="AP over k",
     step=_ap_step("divides the sum of the precisions at the relevant ranks by {den}, not by k"),
     text=lambda p, m: ("You divided the sum of precisions by k (or by the length of the list). "
                        f"{_asked(p, m)}: a perfect ranking scores 1 whatever k is."),
     )(_mean_of(_over_k))


def _all_ranks(p: Problem, q: Problem) -> Fraction | None:
    depth = _depth(p, q)
    rows = bm.precision_at_k(q.relevance, depth, judged=q.judged, threshold=p.threshold).rows
    hits = 0
    total = Fraction(0)
    for rank in range(1, depth + 1):  # ranks past the list are non-relevant: P@i keeps falling
        hits = rows[rank - 1].hits if rank <= len(rows) else hits
        total += Fraction(hits, rank)
    return total / depth


slip("ap_all_ranks", "AP as the mean precision at every rank",
     "You averaged the precision at every rank. AP takes the precision only at the ranks "
     "that hold a relevant document, adds those, and divides by R: a non-relevant document "
     "adds no term, it only lowers the precision of the relevant ones below it.",
     metrics=("ap", "map"), family="binary", short="the mean precision at every rank",
     step=_ap_step("adds the precision only at the relevant ranks and divides by {den}"),
     text=lambda p, m: ("You averaged the precision at every rank. AP takes the precision only at "
                        "the ranks that hold a relevant document and adds those; "
                        f"{_asked(p, m)[0].lower()}{_asked(p, m)[1:]}. A non-relevant document adds no "
                        "term, it only lowers the precision of the relevant ones below it."),
     )(_mean_of(_all_ranks))


def _precision(p: Problem, q: Problem) -> Fraction | None:
    return bm.precision_at_k(q.relevance, p.k, judged=q.judged, threshold=p.threshold).exact


@slip("map_of_precision", "MAP taken as the mean P@k",
      "You averaged each query's precision at k. MAP averages each query's AP: the precision "
      "at every relevant rank, summed and divided by that query's R.",
      metrics=("map",), family="binary", short="the mean P@k",
      step=lambda p, metric: f"MAP averages the queries' APs, not their P@k: {_ap_line(p, metric)}")
def map_of_precision(case: Case) -> Exact | None:
    values = [_precision(case.problem, q) for q in _queries(case.problem)]
    return _unless_right(case, sum(values, Fraction(0)) / len(values))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- precision, recall
def _hits_line(p: Problem, metric: str, over: str) -> str:
    result = _binary(p, metric)
    return f"{result.label} divides by {over.format(R=result.relevant_total)}: {result.working}"


@slip("recall_over_k", "recall@k divided by k",
      "You divided the relevant documents in the top k by k: that is precision@k. Recall@k "
      "divides them by R, every relevant document in the judged pool.",
      metrics=("recall",), family="binary", short="recall over k",
      step=lambda p, m: _hits_line(p, m, "R = {R}, not by k"))
def recall_over_k(case: Case) -> Exact | None:
    p = case.problem
    return _unless_right(case, _precision(p, p))


@slip("precision_over_relevant", "precision@k divided by R",
      "You divided the relevant documents in the top k by R, the relevant documents in the "
      "judged pool: that is recall@k. Precision@k divides them by k itself.",
      metrics=("precision",), family="binary", short="precision over R",
      step=lambda p, m: _hits_line(p, m, "k, not by R"), supersedes=("answered_recall",))
def precision_over_relevant(case: Case) -> Exact | None:
    p = case.problem
    recall = bm.recall_at_k(p.relevance, p.k, judged=p.judged, threshold=p.threshold)
    return None if recall.relevant_total == 0 else _unless_right(case, recall.exact)


@slip("precision_over_retrieved", "precision@k divided by the documents retrieved, not by k",
      "You divided the relevant documents in the top k by the documents there, min(k, n) "
      "(np.mean(r[:k]) and sum(r[:k]) / len(r[:k]) do): when k is past the end of the list, a "
      "short list scores as if it had k documents. P@k divides by k itself: the missing ranks "
      "count as non-relevant (trec_eval's P@k).",
      metrics=("precision",), family="binary", short="precision over the documents retrieved",
      step=lambda p, m: _hits_line(p, m, "k, not by the documents retrieved"))
def precision_over_retrieved(case: Case) -> Exact | None:
    p = case.problem
    if p.k is None or p.k <= len(p.relevance):
        return None  # min(k, n) is k: no mistake to name
    shown = bm.precision_at_k(p.relevance, len(p.relevance), judged=p.judged, threshold=p.threshold)
    return _unless_right(case, shown.exact)


def _retrieved_r(p: Problem) -> int:
    return sum(1 for g in p.relevance if g >= p.threshold)


@slip("r_from_retrieved", "R counted from the retrieved documents only",
      "You took R, the number of relevant documents, from the ranked list. R counts every "
      "relevant document in the judged pool, retrieved or not.",
      metrics=("recall", "rprec"), family="binary", short="R from the retrieved documents",
      step=lambda p, m: (f"R = {_binary(p, m).relevant_total} counts every relevant judged "
                         f"document, retrieved or not: {_ap_line(p, m)}"))
def r_from_retrieved(case: Case) -> Exact | None:
    p = case.problem
    retrieved = _retrieved_r(p)
    if retrieved == 0:
        return None
    only = replace(p, judged=None)
    return _unless_right(case, measure(only, case.metric).exact)


# --------------------------------------------------------------------------- MRR
def _mrr_line(p: Problem, metric: str) -> str:
    n = len(_queries(p))
    return (f"a query with no relevant document counts 0 and the mean is over all {n} queries: "
            f"{measure(p, metric).working}")


@slip("mrr_skips_misses", "MRR averaged only over the queries with a hit",
      "You averaged the reciprocal ranks of the queries that found a relevant document and left "
      "out the others. MRR is the mean over every query: one with no relevant document in its "
      "list (or its top k) scores 0 and still counts.",
      metrics=("mrr",), family="binary", short="MRR over the queries with a hit", step=_mrr_line)
def mrr_skips_misses(case: Case) -> Exact | None:
    result = measure(case.problem, "mrr")
    assert isinstance(result, bm.MeanResult)
    per = result.per_query
    found = [r.exact for r in per if r.exact > 0]
    if not found or len(found) == len(per):
        return None
    return _unless_right(case, sum(found, Fraction(0)) / len(found))
