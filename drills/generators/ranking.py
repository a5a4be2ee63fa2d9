"""Hand-computation generators: DCG/IDCG/NDCG of a drawn list, LambdaRank swap deltas, edge cases.

The answer of every item comes from the exact engine (``problem`` + ``metric``), so a
generated question can never disagree with its grader or its worked solution.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from drills.engine.problem import Problem
from drills.generators.drawing import (
    GAIN_PARAM,
    concrete,
    conventions,
    cutoff_phrase,
    declared,
    diagnosable,
    draw_relevant_list,
    engine_value,
    grades_text,
    k_param,
    max_rel_param,
    metric_label,
    n_param,
    problem_params,
    resolve_k,
    resolved,
)
from drills.generators.registry import Param, register
from drills.model import Question, Tolerance

NDCG_HAND = "ndcg-hand"
SWAP_DELTA = "swap-delta"
EDGE_CASE = "edge-case"
# A swap delta at least this many tolerances wide: answering 0 must not pass.
MIN_DELTA_FACTOR = 4
EDGE_CASES = ("nothing-relevant", "all-equal", "perfect")


def _pool_sentence(unretrieved: list[int], judged: list[int] | None) -> str:
    if judged is None:
        return "Every judged document of the query is in this list (the judged pool is the list itself)."
    n = len(unretrieved)
    return (f"The judges also graded {n} document{'' if n == 1 else 's'} the system did not retrieve, "
            f"with grades {grades_text(unretrieved)}, so the query's judged pool is "
            f"{grades_text(judged)}.")


def _hand_notes(relevance: list[int], k: int | None, unretrieved: list[int], metric: str) -> str:
    """Why this draw is instructive: the point a candidate must not miss."""
    n = len(relevance)
    notes = []
    if k is not None and k < n:
        notes.append(f"Both DCG@{k} and IDCG@{k} stop at rank {k}: documents below it do not count, "
                     f"and the ideal list is cut at {k} too.")
    if k is not None and k > n:
        notes.append(f"k = {k} is larger than the list: DCG sums the {n} documents there are, while "
                     f"IDCG@{k} takes up to {k} documents of the judged pool.")
    if any(unretrieved) and metric != "dcg":
        notes.append("The ideal order is built from ALL judged documents, including the relevant ones "
                     "the system never retrieved; leaving them out overstates NDCG.")
    positives = [g for g in relevance if g > 0]
    if len(positives) != len(set(positives)):
        notes.append("Documents with the same grade are interchangeable: ties do not change DCG of the "
                     "ideal order, whichever tied document comes first.")
    if not notes:
        notes.append("DCG divides each gain by log2(rank + 1); IDCG is the DCG of the judged documents "
                     "sorted best first; NDCG is their ratio.")
    return " ".join(notes)


def _draw_hand(rng: random.Random, n: int, max_rel: int, ties: bool, unretrieved: int
               ) -> tuple[list[int], list[int]]:
    """A ranked list with a relevant document, and the unretrieved judged grades (one relevant)."""
    relevance = draw_relevant_list(rng, n, max_rel)
    if ties:
        i, j = rng.sample(range(n), 2)
        relevance[i] = relevance[j] = rng.randint(1, max_rel)
    missed: list[int] = []
    if unretrieved:
        missed = [rng.randint(1, max_rel)] + [rng.randint(0, max_rel) for _ in range(unretrieved - 1)]
    return relevance, missed


@register(
    NDCG_HAND,
    topic="hand-computation",
    summary="DCG, IDCG or NDCG@k of a drawn ranked list, with k < n, k > n, ties and unretrieved judged documents",
    params={
        "n": n_param(5),
        "k": k_param(None),
        "metric": Param(str, "ndcg", "what to compute", choices=("dcg", "idcg", "ndcg")),
        "max_rel": max_rel_param(3),
        "gain": GAIN_PARAM,
        "ties": Param(bool, False, "force a repeated relevant grade"),
        "unretrieved": Param(int, 0, "judged documents missing from the ranked list (at least one relevant)",
                             minimum=0, maximum=3),
    },
)
def ndcg_hand(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(NDCG_HAND, params)
    n, max_rel, metric, gain = p["n"], p["max_rel"], p["metric"], p["gain"]
    k = resolve_k(p["k"], n, rng)
    for _ in range(20):  # prefer NDCG strictly between 0 and 1, and slips we can name
        relevance, unretrieved = _draw_hand(rng, n, max_rel, p["ties"], p["unretrieved"])
        judged = sorted(relevance + unretrieved, reverse=True) if unretrieved else None
        problem = Problem(tuple(relevance), tuple(judged) if judged else None, k, gain)
        if 0 < engine_value(problem, "ndcg").value < 1 and diagnosable(problem, metric, template.tolerance):
            break
    label = metric_label(metric, k)
    prompt = "\n".join([
        f"A search system returns {n} documents for a query. Their relevance grades (0-{max_rel}), "
        f"in ranked order from rank 1: {grades_text(relevance)}.",
        _pool_sentence(unretrieved, judged),
        conventions(gain),
        f"Compute {label}{cutoff_phrase(k, n, len(judged) if judged else None)}.",
    ])
    concrete_params = {**p, "k": k, **problem_params(problem, metric)}
    return concrete(
        template, NDCG_HAND, concrete_params, kind="numeric", prompt=prompt,
        problem=problem, metric=metric, explanation=_hand_notes(relevance, k, unretrieved, metric),
        slips=declared(metric),
        hints=("Write a table: rank, grade, gain, discount log2(rank + 1), gain / discount.",
               "IDCG: sort every judged grade best first, cut at k, and sum the same way."),
    )


@register(
    SWAP_DELTA,
    topic="lambdarank",
    summary="|delta NDCG@k| when the documents at two ranks swap places (LambdaRank's pair weight)",
    params={
        "n": n_param(5),
        "max_rel": max_rel_param(3),
        "gain": GAIN_PARAM,
        "k": k_param(None),
    },
)
def swap_delta(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(SWAP_DELTA, params)
    n, max_rel, gain = p["n"], p["max_rel"], p["gain"]
    k = resolve_k(p["k"], n, rng)
    relevance = draw_relevant_list(rng, n, max_rel, distinct=True)
    top = min(k or n, n)
    # One document inside the cut-off, the other of a different grade: the delta is never 0
    # (the list has two different grades, so rank 1 always has a partner).
    pairs = [(i, j) for i in range(1, top + 1) for j in range(1, n + 1)
             if i != j and relevance[i - 1] != relevance[j - 1]]
    # Prefer a swap whose delta is clearly above the tolerance (else "0" would pass) and
    # whose wrong-formula values can be told apart; try a few pairs in random order.
    tolerance = template.tolerance or Tolerance()
    best: tuple[float, Problem] | None = None
    for a, b in rng.sample(pairs, min(len(pairs), 12)):
        candidate = Problem(tuple(relevance), None, k, gain, swap=(min(a, b), max(a, b)))
        delta = engine_value(candidate, "delta_ndcg").value
        if best is None or delta > best[0]:
            best = (delta, candidate)
        if delta >= MIN_DELTA_FACTOR * tolerance.allowed(delta) and diagnosable(
                candidate, "delta_ndcg", tolerance):
            best = (delta, candidate)
            break
    assert best is not None and best[1].swap is not None
    problem = best[1]
    i, j = best[1].swap
    label = metric_label("ndcg", k)
    prompt = "\n".join([
        f"LambdaRank weights a pair of documents by |delta {label}|: how much {label} would change "
        f"if the two documents swapped places.",
        f"A ranked list has relevance grades (0-{max_rel}), rank 1 first: {grades_text(relevance)}. "
        "The judged pool is the list itself.",
        conventions(gain),
        f"What is |delta {label}|{cutoff_phrase(k, n)} for swapping the documents at ranks {i} and {j}?",
    ])
    note = ("|delta NDCG| = |G(l_i) - G(l_j)| * |1/log2(1 + i) - 1/log2(1 + j)| / IDCG: only the two "
            "swapped documents change their discount, and IDCG does not change.")
    if k is not None and j > k:
        note = (f"Rank {j} is below the cut-off k = {k}: after the swap only rank {i}'s contribution "
                f"changes, by (G(l_{j}) - G(l_{i})) / log2(1 + {i}); divide by IDCG@{k}.")
    concrete_params = {**p, "k": k, **problem_params(problem, "delta_ndcg")}
    return concrete(
        template, SWAP_DELTA, concrete_params, kind="numeric", prompt=prompt,
        problem=problem, metric="delta_ndcg", explanation=note, slips=declared("delta_ndcg"),
        hints=("Only the two swapped ranks change: compare their gain / discount before and after.",
               "Divide the change in DCG by IDCG (which the swap does not change)."),
    )


def _edge_list(case: str, n: int, max_rel: int, rng: random.Random) -> list[int]:
    if case == "nothing-relevant":
        return [0] * n
    if case == "all-equal":
        return [rng.randint(1, max_rel)] * n
    return sorted(draw_relevant_list(rng, n, max_rel, distinct=True), reverse=True)


@register(
    EDGE_CASE,
    topic="conventions",
    summary="NDCG when nothing is relevant (0 by convention), every document is equally relevant, or the ranking is perfect",
    params={
        "case": Param(str, "random", "which edge case", choices=("random", *EDGE_CASES)),
        "n": n_param(5),
        "max_rel": max_rel_param(3),
        "gain": GAIN_PARAM,
        "k": k_param(None),
    },
)
def edge_case(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(EDGE_CASE, params)
    n, max_rel, gain = p["n"], p["max_rel"], p["gain"]
    case = rng.choice(EDGE_CASES) if p["case"] == "random" else p["case"]
    k = resolve_k(p["k"], n, rng)
    relevance = _edge_list(case, n, max_rel, rng)
    problem = Problem(tuple(relevance), None, k, gain)
    label = metric_label("ndcg", k)
    lines = [f"A system ranks {n} documents for a query. Their relevance grades (0-{max_rel}), rank 1 "
             f"first: {grades_text(relevance)}. The judged pool is the list itself.",
             conventions(gain)]
    if case == "nothing-relevant":
        lines.append("drills' convention: when IDCG@k = 0 (no judged document is relevant), NDCG@k is "
                     "defined as 0, as in scikit-learn, ranx and trec_eval (LightGBM and XGBoost use 1).")
        # the worked solution states the convention (NDCG_ZERO_REASON); this adds the why
        note = ("No ranking can be better or worse than another here, so the metric carries no "
                "signal: in an interview, name the convention and say such queries are often "
                "dropped from the average or reported apart.")
    elif case == "all-equal":
        note = ("Every document has the same grade, so every order is ideal: DCG@k = IDCG@k and "
                "NDCG@k = 1, whatever the grade, the gain convention or k.")
    else:
        note = ("The list is already sorted best first and the judged pool is the list itself, so it is "
                "the ideal order: DCG@k = IDCG@k and NDCG@k = 1.")
    lines += [f"What is {label}{cutoff_phrase(k, n)}?"]
    concrete_params = {**p, "case": case, "k": k, **problem_params(problem, "ndcg")}
    return concrete(
        template, EDGE_CASE, concrete_params, kind="numeric", prompt="\n".join(lines),
        problem=problem, metric="ndcg", explanation=note, slips=declared("ndcg"),
        hints=("Before computing anything, compare the list with its ideal order.",),
    )
