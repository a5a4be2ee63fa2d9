"""Comparison generators: two rankings of the same documents, graded vs binarised labels.

Which-is-higher questions are choices with one correct option; every distractor carries
the numbers that show why it is wrong. Values come from the exact engine and are
compared at 50 digits, so "equal" means equal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from drills.engine.exact import Exact, Ratio, decimal_text
from drills.engine.metrics.ndcg import ndcg_solution
from drills.engine.problem import Problem
from drills.generators.drawing import (
    GAIN_PARAM,
    compare,
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
from drills.model import Option, Question, Tolerance

COMPARE_RANKINGS = "compare-rankings"
BINARY_VS_GRADED = "binary-vs-graded"


def _dec(x: Exact) -> str:
    return decimal_text(x.decimal(), 6)


def _variant(a: list[int], k: int | None, scenario: str, rng: random.Random) -> list[int] | None:
    """Ranking B from A: a reshuffle, one swap, or (k < n) a reshuffle below the cut-off only."""
    n = len(a)
    if scenario == "tail":
        if k is None or len(set(a[k:])) < 2:
            return None
        tail = a[k:]
        while tail == a[k:]:
            tail = rng.sample(a[k:], len(tail))
        return a[:k] + tail
    if scenario == "swap":
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if a[i] != a[j]]
        i, j = rng.choice(pairs)
        b = list(a)
        b[i], b[j] = b[j], b[i]
        return b
    b = list(a)
    while b == a:
        b = rng.sample(a, n)
    return b


@register(
    COMPARE_RANKINGS,
    topic="normalization",
    summary="Which of two rankings of the same documents has the higher NDCG@k (choice), or NDCG(A) - NDCG(B)",
    params={
        "n": n_param(5),
        "max_rel": max_rel_param(3),
        "gain": GAIN_PARAM,
        "k": k_param("random"),
        "ask": Param(str, "which", "which: choose A / B / equal; difference: NDCG@k(A) - NDCG@k(B)",
                     choices=("which", "difference")),
    },
)
def compare_rankings(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(COMPARE_RANKINGS, params)
    n, max_rel, gain, ask = p["n"], p["max_rel"], p["gain"], p["ask"]
    k = resolve_k(p["k"], n, rng)
    scenarios = ("shuffle", "swap", "tail") if ask == "which" else ("shuffle", "swap")
    # B differs from A and one of them scores; a difference is clearly away from 0 (so
    # answering 0 cannot pass the tolerance) when a draw allows it, and never exactly 0.
    floor = 4 * (template.tolerance or Tolerance()).absolute
    for _ in range(50):
        a = draw_relevant_list(rng, n, max_rel, distinct=True)
        b = _variant(a, k, rng.choice(scenarios), rng) or _variant(a, k, "swap", rng)
        assert b is not None
        sa = ndcg_solution(Problem(tuple(a), None, k, gain))
        sb = ndcg_solution(Problem(tuple(b), None, k, gain))
        if sa.dcg.is_zero and sb.dcg.is_zero:
            continue
        if ask == "which" or abs(sa.ndcg.value - sb.ndcg.value) >= floor:
            break
    if ask == "difference" and sa.dcg == sb.dcg:  # 50 misses in a row: swap rank 1 with a different grade
        j = next(j for j in range(1, n) if a[j] != a[0])
        b = list(a)
        b[0], b[j] = b[j], b[0]
        sb = ndcg_solution(Problem(tuple(b), None, k, gain))
    label = metric_label("ndcg", k)
    lines = [
        f"Two systems rank the same {n} documents for a query. Relevance grades (0-{max_rel}), "
        "rank 1 first:",
        f"  A: {grades_text(a)}",
        f"  B: {grades_text(b)}",
        "The judged pool is these documents (the same for both).",
        conventions(gain),
    ]
    values = f"{label}(A) = {_dec(sa.ndcg)}, {label}(B) = {_dec(sb.ndcg)}"
    why = ("Both rankings hold the same documents, so they share IDCG: compare DCG"
           f"{'@' + str(k) if k is not None else ''} (A: {_dec(sa.dcg)}, B: {_dec(sb.dcg)}).")
    concrete_params = {**p, "k": k, "ranking_a": a, "ranking_b": b, "judged": None}
    if ask == "difference":
        diff = Ratio(sa.dcg - sb.dcg, sa.idcg)
        problem = Problem(tuple(a), None, k, gain, versus=tuple(b))
        concrete_params.update(problem_params(problem, "ndcg_difference"))
        lines += [f"Compute {label}(A) - {label}(B){cutoff_phrase(k, n)} (negative when B scores higher)."]
        return concrete(
            template, COMPARE_RANKINGS, concrete_params, kind="numeric", prompt="\n".join(lines),
            problem=problem, metric="ndcg_difference",
            slips=declared("ndcg_difference"), answer=diff.text, explanation=f"{values}. {why} The difference is (DCG(A) - DCG(B)) / IDCG.",
            hints=("Same documents, same IDCG: the difference is (DCG(A) - DCG(B)) / IDCG.",),
        )
    order = compare(sa.ndcg, sb.ndcg)
    if k is not None and a[:k] == b[:k]:
        tie_reason = f"the top {k} are the same in both; documents below rank {k} do not count."
    else:
        tie_reason = "their DCGs are exactly equal."
    texts = {1: f"A has the higher {label}", -1: f"B has the higher {label}", 0: f"They have the same {label}"}
    verdicts = {1: f"A scores higher: {values}.", -1: f"B scores higher: {values}.",
                0: f"They tie: {values}; {tie_reason}"}
    at = f"@{k}" if k is not None else ""
    signs = {1: ">", -1: "<", 0: "="}
    options = [
        Option(texts[v], v == order,
               f"Right. {verdicts[order]} {why}" if v == order else
               f"Not so: that needs DCG{at}(A) {signs[v]} DCG{at}(B), but DCG{at}(A) = {_dec(sa.dcg)} "
               f"and DCG{at}(B) = {_dec(sb.dcg)}. {verdicts[order]}")
        for v in (1, -1, 0)
    ]
    lines += [f"Which ranking has the higher {label}{cutoff_phrase(k, n)}?"]
    return concrete(
        template, COMPARE_RANKINGS, concrete_params, kind="choice", prompt="\n".join(lines),
        options=options, explanation=f"{values}. {why}",
        hints=("Same documents means the same IDCG: you only need to compare DCG.",
               "Only the top k ranks count."),
    )


@register(
    BINARY_VS_GRADED,
    topic="binary-vs-graded",
    summary="The same ranking scored with graded labels vs binarised labels (rel > 0 -> 1)",
    params={
        "n": n_param(5),
        "max_rel": max_rel_param(3, minimum=2),
        "gain": GAIN_PARAM,
        "k": k_param(None),
        "ask": Param(str, "binary", "binary: NDCG@k under binary labels; which: graded or binary higher",
                     choices=("binary", "which")),
    },
)
def binary_vs_graded(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(BINARY_VS_GRADED, params)
    n, max_rel, gain, ask = p["n"], p["max_rel"], p["gain"], p["ask"]
    k = resolve_k(p["k"], n, rng)
    for _ in range(30):
        graded = draw_relevant_list(rng, n, max_rel)
        if max(graded) < 2:
            graded[rng.randrange(n)] = rng.randint(2, max_rel)
        binary = [int(g > 0) for g in graded]
        g_problem = Problem(tuple(graded), None, k, gain)
        b_problem = Problem(tuple(binary), None, k, gain)
        g_value, b_value = engine_value(g_problem, "ndcg"), engine_value(b_problem, "ndcg")
        if ask == "which" or (compare(g_value, b_value) != 0 and 0 < b_value.value < 1
                              and diagnosable(b_problem, "ndcg", template.tolerance)):
            break
    label = metric_label("ndcg", k)
    lines = [
        f"A ranked list has graded relevance labels (0-{max_rel}), rank 1 first: {grades_text(graded)}. "
        "The judged pool is the list itself.",
        "Binarised, every grade > 0 becomes 1 (relevant) and 0 stays 0: "
        f"{grades_text(binary)}.",
        f"{conventions(gain)} With binary labels a relevant document has gain 1 under either convention.",
    ]
    values = f"graded {label} = {_dec(g_value)}, binary {label} = {_dec(b_value)}"
    why = ("Binary labels ignore how relevant a document is: a grade-1 document above a grade-"
           f"{max(graded)} one costs less, and every relevant document earns the same gain.")
    concrete_params = {**p, "k": k, "graded": graded, **problem_params(b_problem, "ndcg")}
    if ask == "binary":
        lines += [f"Compute {label}{cutoff_phrase(k, n)} with the binary labels."]
        return concrete(
            template, BINARY_VS_GRADED, concrete_params, kind="numeric", prompt="\n".join(lines),
            problem=b_problem, metric="ndcg", explanation=f"{values}. {why}",
            slips=declared("ndcg", without=()),
            hints=("With binary labels each relevant document contributes 1 / log2(rank + 1).",),
        )
    order = compare(g_value, b_value)
    texts = {1: f"{label} with the graded labels", -1: f"{label} with the binary labels",
             0: "They are equal"}
    verdicts = {1: f"Graded is higher: {values}.", -1: f"Binary is higher: {values}.",
                0: f"They are equal: {values}."}
    misses = {1: f"Graded is not the higher one here: {values}.",
              -1: f"Binary is not the higher one here: {values}.",
              0: f"They differ: {values}."}
    options = [
        Option(texts[v], v == order,
               f"Right. {verdicts[order]} {why}" if v == order else f"Not so. {misses[v]} {why}")
        for v in (1, -1, 0)
    ]
    # the metric and its cut-off in the question, not only inside the options (issue 27)
    lines += [f"Which {label} is higher, with the graded labels or with the binary ones"
              f"{cutoff_phrase(k, n)}?"]
    concrete_params["metric"] = "compare"
    return concrete(
        template, BINARY_VS_GRADED, concrete_params, kind="choice", prompt="\n".join(lines),
        options=options, explanation=f"{values}. {why}",
        hints=("Compute both: the binary ideal only needs the relevant documents first, in any order.",),
    )
