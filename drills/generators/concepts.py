"""Concept generators: NDCG vs RR for one relevant document, NDCG@1, gain ratios, discounts.

Small numbers, quick to answer, each aimed at one fact a candidate should know cold
(NDCG = 1/log2(r + 1) but RR = 1/r; 2^rel - 1 gain ratios tend to 2, not 2.3 ...).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from drills.engine.exact import Log, fraction_text
from drills.engine.metrics.ndcg import gain
from drills.engine.problem import Problem
from drills.generators.drawing import (
    concrete,
    declared,
    engine_value,
    grades_text,
    n_param,
    problem_params,
    resolved,
    shuffled,
)
from drills.generators.registry import Param, register
from drills.model import Option, Question

SINGLE_RELEVANT = "single-relevant"
NDCG_AT_1_BINARY = "ndcg-at-1-binary"
GAIN_RATIO = "gain-ratio"
DISCOUNT_AT_RANK = "discount-at-rank"


@register(
    SINGLE_RELEVANT,
    topic="ndcg-vs-mrr",
    summary="One relevant document at rank r: its RR (1/r) or its NDCG (1/log2(r + 1))",
    params={
        "metric": Param(str, "ndcg", "what to compute", choices=("ndcg", "rr")),
        "max_rank": Param(int, 10, "highest rank r drawn (r >= 2)", minimum=2, maximum=50),
    },
)
def single_relevant(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(SINGLE_RELEVANT, params)
    metric = p["metric"]
    r = rng.randint(2, p["max_rank"])
    n = r + rng.randint(0, 2)
    relevance = [0] * n
    relevance[r - 1] = 1
    problem = Problem(tuple(relevance), None, None, "exponential")
    what = ("its NDCG (gain 2^rel - 1, discount log2(i + 1) at rank i, no cut-off)" if metric == "ndcg"
            else "its reciprocal rank (RR)")
    prompt = "\n".join([
        "A query has exactly one relevant document (binary labels: 1 relevant, 0 not). "
        f"The system ranks it at position {r} of {n}: {grades_text(relevance)}.",
        f"Compute {what}.",
    ])
    ndcg = engine_value(problem, "ndcg")
    note = (f"With one relevant document IDCG = 1, so NDCG = 1/log2({r} + 1) = {ndcg.value:.4f}, "
            f"while RR = 1/{r} = {engine_value(problem, 'rr').value:.4f}: NDCG's log discount "
            "forgives a low rank far more "
            "than RR does.")
    return concrete(
        template, SINGLE_RELEVANT, {**p, **problem_params(problem, metric)}, kind="numeric",
        prompt=prompt, problem=problem, metric=metric, explanation=note, slips=declared(metric),
        hints=("The ideal ranking puts the single relevant document at rank 1.",),
    )


@register(
    NDCG_AT_1_BINARY,
    topic="ndcg-vs-mrr",
    summary="NDCG@1 under binary labels (= Precision@1 = Hit@1): compute it, or name the metric it equals",
    params={
        "n": n_param(5),
        "ask": Param(str, "value", "value: compute NDCG@1; which: which metric it always equals",
                     choices=("value", "which")),
    },
)
def ndcg_at_1_binary(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(NDCG_AT_1_BINARY, params)
    n = p["n"]
    relevance = [rng.randint(0, 1) for _ in range(n)]
    if not any(relevance[1:]):
        relevance[rng.randrange(1, n)] = 1
    problem = Problem(tuple(relevance), None, 1, "exponential")
    hits = sum(relevance)
    first = relevance.index(1) + 1
    note = (f"NDCG@1 only looks at rank 1: IDCG@1 = 1 (some document is relevant), DCG@1 = "
            f"{relevance[0]}, so NDCG@1 = {relevance[0]} = Precision@1 = Hit@1.")
    intro = (f"Binary relevance labels (1 relevant, 0 not), rank 1 first: {grades_text(relevance)}. "
             "The judged pool is the list itself.")
    if p["ask"] == "value":
        prompt = "\n".join([intro, "Use gain 2^rel - 1 and the discount log2(i + 1) at rank i.",
                            "Compute NDCG@1."])
        return concrete(
            template, NDCG_AT_1_BINARY, {**p, **problem_params(problem, "ndcg")}, kind="numeric",
            prompt=prompt, problem=problem, metric="ndcg", explanation=note, slips=declared("ndcg"),
            hints=("With k = 1 only the top document matters, for DCG and for IDCG.",),
        )
    rr = Fraction(1, first)
    options = [
        Option("Precision@1 (equivalently Hit@1)", True,
               f"Right. {note}"),
        Option("Reciprocal rank (1 / rank of the first relevant document)", False,
               f"RR gives credit below rank 1: here RR = {fraction_text(rr)} while NDCG@1 = {relevance[0]}."
               if first > 1 else
               "RR also gives credit to a relevant document at rank 2 (1/2), where NDCG@1 is 0."),
        Option("Recall@1 (relevant documents in the top 1 / all relevant documents)", False,
               f"Recall@1 divides by the number of relevant documents ({hits} here), so it is at "
               f"most 1/{hits} while NDCG@1 can be 1." if hits > 1 else
               ("Recall@1 divides by the number of relevant documents: with two of them it is at "
                "most 1/2, while NDCG@1 can be 1.")),
        Option(f"NDCG@{n} (the whole list)", False,
               "A longer cut-off rewards relevant documents below rank 1, which NDCG@1 ignores."),
    ]
    prompt = "\n".join([
        intro,
        "With binary labels (and at least one relevant judged document), NDCG@1 always equals "
        "which metric?",
    ])
    return concrete(
        template, NDCG_AT_1_BINARY, {**p, **problem_params(problem, "ndcg")}, kind="choice",
        prompt=prompt, options=shuffled(rng, options), explanation=note,
        hints=("Write out DCG@1 and IDCG@1 for binary labels.",),
    )


@register(
    GAIN_RATIO,
    topic="gain-and-discount",
    summary="How many times the gain of one grade exceeds another's under 2^rel - 1 (e.g. 15/7)",
    params={
        "max_rel": Param(int, 4, "highest grade drawn", minimum=2, maximum=10),
        "consecutive": Param(bool, False, "compare neighbouring grades (rel + 1 vs rel)"),
    },
)
def gain_ratio(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(GAIN_RATIO, params)
    high = rng.randint(2, p["max_rel"])
    low = high - 1 if p["consecutive"] else rng.randint(1, high - 1)
    def ratio(convention: str) -> Fraction:  # the engine's own gains
        return gain(high, convention) / gain(low, convention)

    prompt = "\n".join([
        f"Under exponential gain 2^rel - 1, how many times larger is the gain of a grade-{high} "
        f"document than the gain of a grade-{low} document?",
    ])
    exp_ratio = ratio("exponential")
    shown = fraction_text(exp_ratio) if exp_ratio.denominator == 1 else f"{fraction_text(exp_ratio)} = {float(exp_ratio):.4f}"
    note = (f"Gains: 2^{high} - 1 = {gain(high, 'exponential')} and 2^{low} - 1 = "
            f"{gain(low, 'exponential')}; ratio {shown}. Under "
            f"2^rel (no - 1) the ratio would be 2^{high - low} = {fraction_text(ratio('pow2'))}, under linear "
            f"gain {fraction_text(ratio('linear'))}. Neighbouring grades: 3, 7/3, 15/7, 31/15 ... tending to 2.")
    return concrete(
        template, GAIN_RATIO, {**p, "high": high, "low": low}, kind="numeric", prompt=prompt,
        problem=Problem((high, low)), metric="gain_ratio", slips=declared("gain_ratio"),
        answer=fraction_text(exp_ratio), explanation=note,
        hints=("Write both gains out: 2^rel - 1 for each grade.",),
    )


def _log_ratio(top: Log, bottom: Log) -> str:
    """``log2(5)/log2(3)`` as answer text, reduced when both logs are rational."""
    rt, rb = top.rational, bottom.rational
    if rt is not None and rb is not None:
        return fraction_text(rt / rb)
    if rb == 1:
        return top.text
    return f"{top.text}/{bottom.text}"


@register(
    DISCOUNT_AT_RANK,
    topic="gain-and-discount",
    summary="The discount log2(i + 1) at rank i, or how many times a document's contribution shrinks between two ranks",
    params={
        "max_rank": Param(int, 10, "highest rank drawn", minimum=2, maximum=100),
        "ask": Param(str, "discount", "discount: log2(i + 1) at one rank; ratio: between two ranks",
                     choices=("discount", "ratio")),
    },
)
def discount_at_rank(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(DISCOUNT_AT_RANK, params)
    max_rank = p["max_rank"]
    if p["ask"] == "discount":
        i = rng.randint(1, max_rank)
        log = Log("log2", i + 1)
        prompt = "\n".join([
            "In DCG each document's gain is divided by a discount that grows with its rank "
            "(standard NDCG discount, ranks counted from 1).",
            f"What is the discount at rank {i}, i.e. the number its gain is divided by?",
        ])
        note = (f"The discount at rank i is log2(i + 1): log2({i + 1}) = {log.value:.4f}. Rank 1 gets "
                "log2(2) = 1 (no discount); with log2(i) instead, ranks 1 and 2 would both get 1.")
        return concrete(
            template, DISCOUNT_AT_RANK, {**p, "rank": i}, kind="numeric", prompt=prompt,
            problem=Problem((0,) * i, k=i), metric="discount", slips=declared("discount"),
            answer=log.text, explanation=note,
            hints=("Rank 1 is not discounted: its discount is 1.",),
        )
    i = rng.randint(1, max_rank - 1)
    j = rng.randint(i + 1, max_rank)
    top, bottom = Log("log2", j + 1), Log("log2", i + 1)
    answer = _log_ratio(top, bottom)
    prompt = "\n".join([
        f"A document moves from rank {i} down to rank {j}; its gain stays the same. Under the "
        "standard NDCG discount (ranks counted from 1), how many times smaller is its contribution "
        f"to DCG at rank {j} than at rank {i}?",
    ])
    note = (f"Contribution = gain / log2(rank + 1), so the factor is log2({j + 1}) / log2({i + 1}) = "
            f"{top.value / bottom.value:.4f}.")
    return concrete(
        template, DISCOUNT_AT_RANK, {**p, "ranks": [i, j]}, kind="numeric", prompt=prompt,
        problem=Problem((0,) * j, swap=(i, j)), metric="discount_ratio", slips=declared("discount_ratio"),
        answer=answer, explanation=note,
        hints=("Divide the two discounts: the gain cancels.",),
    )
