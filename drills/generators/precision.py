"""Generators for the precision family: AP by hand under a named denominator, MAP over
queries, P@k, Recall@k and R-precision with relevant documents the system missed.

Every answer is the engine's (``drills.engine.metrics.registry``); the draws keep the other
conventions' values and the declared slips' values apart from the answer (see measured.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from drills.engine.problem import AP_CONVENTION_NAMES, Problem
from drills.generators.drawing import (
    concrete,
    engine_value,
    grades_text,
    k_param,
    n_param,
    resolve_k,
    resolved,
)
from drills.generators.measured import (
    dec,
    draw_labels,
    draw_missed,
    labels_phrase,
    missed_sentence,
    past_end,
    pick,
    pool_of,
    rate,
    replay,
    slips_asked,
    threshold_sentence,
)
from drills.generators.registry import Param, register
from drills.model import Question

AP_HAND = "ap-hand"
MAP_QUERIES = "map-queries"
PRECISION_RECALL = "precision-recall"


# ------------------------------------------------------------- naive rivals (draw choice only)
def _rel(ranking: Sequence[int], threshold: int, cut: int) -> list[bool]:
    """Relevance at ranks 1..cut (past the end: non-relevant)."""
    padded = [*ranking, *[0] * max(0, cut - len(ranking))]
    return [g >= threshold for g in padded[:cut]]


def _precision_sum(rel: list[bool]) -> Fraction:
    hits, total = 0, Fraction(0)
    for i, r in enumerate(rel, start=1):
        hits += r
        total += Fraction(hits, i) if r else 0
    return total


def _all_ranks(rel: list[bool]) -> Fraction:
    """Mean P@i over every rank 1..cut: AP's numerator taken at every rank."""
    return sum((Fraction(sum(rel[:i]), i) for i in range(1, len(rel) + 1)), Fraction(0)) / len(rel)


def _ap_rivals(p: Problem) -> list[Any]:
    """The other denominators' AP, the sum over k, the mean over every rank."""
    rel = _rel(p.relevance, p.threshold, p.cutoff)
    names = AP_CONVENTION_NAMES if p.k is not None else ("R", "retrieved")
    others = [engine_value(replace(p, convention=c), "ap").value for c in names if c != p.convention]
    return [*others, _precision_sum(rel) / p.cutoff, _all_ranks(rel)]


# --------------------------------------------------------------------------------- wording
def _denominator(convention: str, k: int | None) -> str:
    if convention == "R":
        tool = "map" if k is None else f"map_cut_{k}"
        return ("dividing by R, the number of relevant documents in the whole judged pool, retrieved "
                f"or not (trec_eval's {tool})")
    if convention == "min_k_R":
        return (f"dividing by min(k, R) = min({k}, R), where R is the number of relevant documents in "
                "the whole judged pool (ml_metrics' apk, common on Kaggle)")
    if k is None:
        return ("dividing by the number of relevant documents the system retrieved (scikit-learn's "
                "average_precision_score over the retrieved documents' scores)")
    return (f"dividing by the number of relevant documents in the top {k} (torchmetrics' "
            f"retrieval_average_precision with top_k={k})")


def _label(name: str, k: int | None) -> str:
    return name if k is None else f"{name}@{k}"


def _threshold(max_rel: int, threshold: int) -> None:
    if threshold > max_rel:
        raise ValueError(f"threshold {threshold} is above max_rel {max_rel}: no grade could be relevant")


THRESHOLD_PARAM = Param(int, 1, "a grade >= threshold is relevant (trec_eval -l)", minimum=1, maximum=4)


# ------------------------------------------------------------------------------------ AP
@register(
    AP_HAND,
    topic="conventions",
    summary="AP or AP@k of a ranked list under the denominator the prompt names "
            "(R as trec_eval, relevant retrieved as scikit-learn, min(k, R) as ml_metrics apk)",
    params={
        "n": n_param(6),
        "k": k_param(None),
        "convention": Param(str, "random", "AP's denominator: R, retrieved or min_k_R (random: "
                            "one of them; min_k_R only with a cut-off)",
                            choices=("random", *AP_CONVENTION_NAMES)),
        "max_rel": Param(int, 1, "highest grade: 1 for binary labels, 2..4 for grades with a threshold",
                         minimum=1, maximum=4),
        "threshold": THRESHOLD_PARAM,
        "unretrieved": Param(int, 1, "judged documents the system missed (the first is relevant)",
                             minimum=1, maximum=3),
    },
)
def ap_hand(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(AP_HAND, params)
    n, max_rel, threshold = p["n"], p["max_rel"], p["threshold"]
    _threshold(max_rel, threshold)
    k = resolve_k(p["k"], n, rng)
    convention = p["convention"]
    if convention == "random":
        convention = rng.choice(AP_CONVENTION_NAMES if k is not None else ("R", "retrieved"))
    if convention == "min_k_R" and k is None:  # min(k, R) needs a cut-off
        k = rng.randint(1, n)
    # a slip that is this very convention is no slip here
    without = {"R": (), "retrieved": ("ap_over_retrieved",), "min_k_R": ("ap_over_k",)}[convention]
    declared = slips_asked("ap", without)

    def draw() -> tuple[Problem, list[int]]:
        ranking = draw_labels(rng, n, max_rel, threshold, min(k or n, n))
        missed = draw_missed(rng, p["unretrieved"], max_rel, threshold)
        return Problem(tuple(ranking), pool_of(ranking, missed), k, threshold=threshold,
                       convention=convention), missed

    problem, missed = pick(draw, lambda d: rate(d[0], "ap", declared, _ap_rivals(d[0])))
    label = _label("AP", k)
    lines = [
        f"A search system returns {n} documents for a query. Their {labels_phrase(max_rel)}, rank 1 "
        f"first: {grades_text(problem.relevance)}.{threshold_sentence(max_rel, threshold)}",
        missed_sentence(missed, problem.judged, max_rel),
        f"Compute {label} (average precision{'' if k is None else f' at cut-off {k}'}){past_end(k, n)}, "
        f"{_denominator(convention, k)}.",
    ]
    values = {c: engine_value(replace(problem, convention=c), "ap")
              for c in (AP_CONVENTION_NAMES if k is not None else ("R", "retrieved"))}
    names = {"R": "/ R (trec_eval, ranx)", "retrieved": "/ relevant retrieved (scikit-learn, torchmetrics)",
             "min_k_R": "/ min(k, R) (ml_metrics apk)"}
    note = ("Every convention shares the numerator, the sum of P@i at the relevant ranks"
            f"{'' if k is None else f' i <= {k}'}; only the denominator differs: "
            + "; ".join(f"{names[c]}: {dec(v)}" for c, v in values.items())
            + ". Relevant documents the system never retrieved add nothing to the sum but still "
              "count in R, so AP / R is the lowest. In an interview, name the denominator first.")
    return concrete(
        template, AP_HAND, {**p, "k": k, "convention": convention, **replay(problem, "ap")},
        kind="numeric", prompt="\n".join(lines), problem=problem, metric="ap", explanation=note,
        slips=declared,
        hints=("Write rank, relevant?, hits so far, P@rank; keep P@i only at the relevant ranks.",
               "Add those precisions, then divide by the denominator the question names."),
    )


# ----------------------------------------------------------------------------------- MAP
@register(
    MAP_QUERIES,
    topic="hand-computation",
    summary="MAP (or MAP@k) over 2-4 queries with binary labels, AP divided by R as trec_eval's map",
    params={
        "queries": Param(int, 3, "number of queries", minimum=2, maximum=4),
        "n": n_param(5),
        "k": k_param(None),
    },
)
def map_queries(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(MAP_QUERIES, params)
    count, n = p["queries"], p["n"]
    k = resolve_k(p["k"], n, rng)
    declared = slips_asked("map")

    def draw() -> Problem:
        missed = [rng.choice((0, 0, 1, 2)) for _ in range(count)]
        if not any(missed):  # one query at least has a relevant document the system missed
            missed[rng.randrange(count)] = 1
        per = []
        for m in missed:
            ranking = draw_labels(rng, n, 1, 1, min(k or n, n))
            per.append(Problem(tuple(ranking), pool_of(ranking, [1] * m), k))
        return replace(per[0], queries=tuple(per))

    def rivals(problem: Problem) -> list[Any]:
        rels = [_rel(q.relevance, 1, problem.cutoff) for q in problem.queries]
        return [engine_value(replace(problem, convention="retrieved"), "map").value,
                sum(Fraction(sum(r), len(r)) for r in rels) / count,
                sum(_precision_sum(r) / len(r) for r in rels) / count,
                sum(_all_ranks(r) for r in rels) / count]

    problem = pick(draw, lambda q: rate(q, "map", declared, rivals(q)))
    label = _label("MAP", k)
    ap = _label("AP", k)
    rows = []
    for i, q in enumerate(problem.queries, start=1):
        pool = ("judged pool: the list itself" if q.judged is None
                else f"judged pool {grades_text(q.judged)}")
        rows.append(f"  Query {i}: {grades_text(q.relevance)}; {pool}")
    tool = "map" if k is None else f"map_cut_{k}"
    lines = [
        f"A system answers {count} queries, returning {n} documents for each. Binary labels "
        "(1 relevant, 0 not) of each ranking, rank 1 first, and each query's judged pool:",
        *rows,
        f"Compute {label} over the {count} queries{past_end(k, n)}: each query's {ap} divides by "
        f"its R, the relevant documents in its judged pool, retrieved or not (trec_eval's {tool}).",
    ]
    sklearn = engine_value(replace(problem, convention="retrieved"), "map")
    note = ("MAP is the plain mean of the queries' APs: every query weighs the same, however many "
            "relevant documents it has. A relevant document a query missed adds nothing to its sum "
            f"but still counts in its R; dividing each AP by the relevant documents retrieved "
            f"instead (scikit-learn's convention) would give {dec(sklearn)}.")
    return concrete(
        template, MAP_QUERIES, {**p, "k": k, **replay(problem, "map")}, kind="numeric",
        prompt="\n".join(lines), problem=problem, metric="map", explanation=note, slips=declared,
        hints=(f"Compute each query's {ap} on its own: the sum of P@i at its relevant ranks over its R.",
               f"{label} is the mean of the {count} values."),
    )


# ----------------------------------------------------------------------- P, Recall, R-prec
@register(
    PRECISION_RECALL,
    topic="hand-computation",
    summary="P@k, Recall@k or R-precision of a binary list whose query has relevant documents "
            "the system did not retrieve",
    params={
        "n": n_param(6),
        "k": k_param("random"),
        "metric": Param(str, "random", "precision, recall or rprec (R-precision; k is not used); "
                        "random: precision or recall", choices=("random", "precision", "recall", "rprec")),
        "unretrieved": Param(int, 1, "relevant judged documents the system missed", minimum=1, maximum=3),
    },
)
def precision_recall(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(PRECISION_RECALL, params)
    n = p["n"]
    k = resolve_k(p["k"], n, rng)
    metric = p["metric"] if p["metric"] != "random" else rng.choice(("precision", "recall"))
    if metric == "rprec":
        k = None  # R-precision's cut-off is R itself
    declared = slips_asked(metric)

    def draw() -> tuple[Problem, list[int]]:
        ranking = draw_labels(rng, n, 1, 1, min(k or n, n))
        missed = [1] * p["unretrieved"]
        return Problem(tuple(ranking), pool_of(ranking, missed), k), missed

    def rivals(d: tuple[Problem, list[int]]) -> list[Any]:
        q = d[0]
        big_r = sum(q.judged or ())
        found = sum(q.relevance)
        hits = sum(_rel(q.relevance, 1, q.cutoff))
        if metric == "precision":
            return [Fraction(hits, big_r), Fraction(found, n)]
        if metric == "recall":
            return [Fraction(hits, q.cutoff), Fraction(hits, found), Fraction(found, big_r)]
        return [Fraction(sum(_rel(q.relevance, 1, found)), found), Fraction(found, n)]

    problem, missed = pick(draw, lambda d: rate(d[0], metric, declared, rivals(d)))
    what = {
        "precision": (f"Compute {_label('P', k)} (precision at {k}){past_end(k, n)}." if k is not None
                      else "Compute the precision of the whole list."),
        "recall": (f"Compute Recall@{k} (recall at {k}){past_end(k, n)}, where R counts every relevant "
                   f"document in the judged pool, retrieved or not (trec_eval's recall_{k})."
                   if k is not None else
                   "Compute the recall of the whole list, where R counts every relevant document in "
                   "the judged pool, retrieved or not."),
        "rprec": ("Compute the R-precision: the precision at rank R, where R is the number of relevant "
                  "documents in the whole judged pool, retrieved or not (trec_eval's Rprec). Ranks past "
                  "the end of the list count as non-relevant."),
    }[metric]
    lines = [
        f"A search system returns {n} documents for a query. Their binary labels (1 relevant, 0 not), "
        f"rank 1 first: {grades_text(problem.relevance)}.",
        missed_sentence(missed, problem.judged, 1),
        what,
    ]
    big_r = sum(problem.judged or ())
    notes = {
        "precision": "Precision divides the hits in the top k by k: it never looks at the relevant "
                     "documents the system missed (recall does).",
        "recall": f"Recall divides the hits by R = {big_r}, every relevant judged document, including "
                  "the ones the system never retrieved: it cannot reach 1 here.",
        "rprec": f"R = {big_r}, so R-precision is P@{big_r}; at rank R precision equals recall, "
                 "hits / R.",
    }
    return concrete(
        template, PRECISION_RECALL, {**p, "k": k, "metric": metric, **replay(problem, metric)},
        kind="numeric", prompt="\n".join(lines), problem=problem, metric=metric,
        explanation=notes[metric], slips=declared,
        hints=("Count the relevant documents in the top k first.",
               "Precision divides by k; recall by R, the relevant documents in the whole judged pool."),
    )
