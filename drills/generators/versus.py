"""MAP vs NDCG on the same documents: which ranking each metric prefers, and why.

A choice question over two rankings of one graded pool. AP (MAP over this one query)
binarises the grades, so it rewards relevant documents early however relevant they are;
NDCG weights each grade by its gain, so it rewards the best documents first. The correct
option is whichever pair of verdicts the engine's exact values give (compared at 50
digits), never a fixed text.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from drills.engine.exact import Exact
from drills.engine.problem import Problem
from drills.generators.drawing import (
    DISCOUNT_PHRASE,
    GAIN_PARAM,
    compare,
    concrete,
    cutoff_phrase,
    engine_value,
    gain_phrase,
    grades_text,
    k_param,
    max_rel_param,
    metric_label,
    n_param,
    resolve_k,
    resolved,
    shuffled,
)
from drills.generators.measured import short_value
from drills.generators.registry import Param, register
from drills.model import Option, Question

MAP_VS_NDCG = "map-vs-ndcg"
CASES = ("disagree", "ap-tie", "agree")
# A visible preference: the two values differ by at least this much (or are exactly equal).
VISIBLE = 0.01
STRICT = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _draw_pool(rng: random.Random, n: int, max_rel: int) -> list[int]:
    """Grades with a top grade >= 2, another relevant grade and, when there is room, a 0."""
    while True:
        grades = [rng.randint(0, max_rel) for _ in range(n)]
        relevant = [g for g in grades if g]
        if (max(grades) >= 2 and len(relevant) >= min(2, n) and (n < 3 or 0 in grades)
                and len(set(grades)) > 1):
            return grades


def _variant(rng: random.Random, a: list[int], case: str, cut: int) -> list[int]:
    """B: a reshuffle of A; for ap-tie, two relevant documents of different grades swapped."""
    if case == "ap-tie":
        pairs = [(i, j) for i in range(len(a)) for j in range(i + 1, len(a))
                 if a[i] and a[j] and a[i] != a[j] and i < cut]
        if pairs:
            i, j = rng.choice(pairs)
            b = list(a)
            b[i], b[j] = b[j], b[i]
            return b
    b = list(a)
    while b[:cut] == a[:cut]:
        b = rng.sample(a, len(a))
    return b


def _verdict(order: int, metric: str) -> str:
    return {1: f"{metric} prefers A", -1: f"{metric} prefers B", 0: f"{metric} scores A and B the same"}[order]


@register(
    MAP_VS_NDCG,
    topic="binary-vs-graded",
    summary="Two rankings of the same graded documents: which one AP (MAP of one query) prefers and "
            "which one NDCG prefers (choice, from the engine's values)",
    params={
        "n": n_param(5),
        "max_rel": max_rel_param(3, minimum=2),
        "gain": GAIN_PARAM,
        "k": k_param(None),
        "case": Param(str, "random", "disagree: the metrics prefer different rankings; ap-tie: AP "
                      "cannot tell them apart; agree: both prefer one; random: one of them (the "
                      "draw may fall back when the list is too short)",
                      choices=("random", *CASES)),
    },
)
def map_vs_ndcg(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(MAP_VS_NDCG, params)
    n, max_rel, gain = p["n"], p["max_rel"], p["gain"]
    k = resolve_k(p["k"], n, rng)
    case = p["case"] if p["case"] != "random" else rng.choice(("disagree", "disagree", "ap-tie", "agree"))
    cut = min(k or n, n)

    def values(ranking: list[int]) -> tuple[Exact, Exact]:
        problem = Problem(tuple(ranking), None, k, gain)
        return engine_value(problem, "ap"), engine_value(problem, "ndcg")

    def wanted(sa: int, sn: int) -> bool:
        return {"disagree": sa * sn == -1, "ap-tie": sa == 0 and sn != 0, "agree": sa == sn != 0}[case]

    def visible(x: Exact, y: Exact) -> bool:
        return compare(x, y) == 0 or abs(x.value - y.value) >= VISIBLE

    best = None
    for _ in range(200):
        a = _draw_pool(rng, n, max_rel)
        b = _variant(rng, a, case, cut)
        (ap_a, nd_a), (ap_b, nd_b) = values(a), values(b)
        sa, sn = compare(ap_a, ap_b), compare(nd_a, nd_b)
        if sn == 0:
            continue
        if best is None:
            best = (a, b)
        if wanted(sa, sn) and visible(ap_a, ap_b) and visible(nd_a, nd_b):
            best = (a, b)
            break
    if best is None:  # NDCG tied every time (tiny lists): move A's rank-1 document down
        a = _draw_pool(rng, n, max_rel)
        j = next(j for j in range(1, n) if a[j] != a[0])
        b = list(a)
        b[0], b[j] = b[j], b[0]
        best = (a, b)
    a, b = best
    (ap_a, nd_a), (ap_b, nd_b) = values(a), values(b)
    sa, sn = compare(ap_a, ap_b), compare(nd_a, nd_b)
    ap_label, nd_label = metric_label("ap", k), metric_label("ndcg", k)
    numbers = (f"{ap_label}(A) = {short_value(ap_a)}, {ap_label}(B) = {short_value(ap_b)}; "
               f"{nd_label}(A) = {short_value(nd_a)}, {nd_label}(B) = {short_value(nd_b)}.")
    why = (f"{ap_label} only sees which documents are relevant (grade >= 1): it rewards putting "
           f"relevant documents early, a grade-1 document as much as a grade-{max_rel} one. "
           f"{nd_label} weights each document by its gain, so it rewards putting the highest grades "
           "first, even at the cost of a relevant document further down.")
    right = (sa, sn)
    if sa == 0:
        pairs = [right, (1, sn), (-1, sn), (0, -sn)]
    else:
        pairs = [right, *(s for s in STRICT if s != right)]
    options = []
    for pair in pairs:
        text = f"{_verdict(pair[0], ap_label)}; {_verdict(pair[1], nd_label)}"
        verdict = ("Right." if pair == right else
                   f"Not so: {_verdict(sa, ap_label)} and {_verdict(sn, nd_label)}.")
        options.append(Option(text, pair == right, f"{verdict} {numbers} {why}"))
    lines = [
        f"Two systems rank the same {n} documents for a query. Relevance grades (0-{max_rel}), "
        "rank 1 first:",
        f"  A: {grades_text(a)}",
        f"  B: {grades_text(b)}",
        "The judged pool is these documents (the same for both).",
        f"{ap_label} (MAP over this one query) counts a document as relevant when its grade is at least 1 "
        "and divides by R, the relevant documents in the pool (trec_eval's map). "
        f"{nd_label} uses {gain_phrase(gain)} and {DISCOUNT_PHRASE}.",
        f"Which statement is true{cutoff_phrase(k, n)}?",
    ]
    concrete_params = {**p, "k": k, "case": case, "ranking_a": a, "ranking_b": b, "judged": None,
                       "metric": "compare"}
    return concrete(
        template, MAP_VS_NDCG, concrete_params, kind="choice", prompt="\n".join(lines),
        options=shuffled(rng, options), explanation=f"{numbers} {why}",
        hints=(f"Binarise the grades and compare {ap_label} first: only the positions of relevant "
               "documents matter.",
               f"Then compare DCG: same documents, so {nd_label} shares one IDCG."),
    )
