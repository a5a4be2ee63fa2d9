"""Generators for the first-relevant-document metrics: MRR over queries (one with no hit),
and ERR@k by hand (the cascade user who stops at a satisfying document).

Answers come from the engine (``drills.engine.metrics.registry``); the draws keep the declared slips'
values and the usual wrong formulas apart from the answer (see measured.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from drills.engine.exact import LogSum
from drills.engine.problem import Problem
from drills.generators.drawing import (
    concrete,
    cutoff_phrase,
    engine_value,
    grades_text,
    k_param,
    max_rel_param,
    n_param,
    resolve_k,
    resolved,
)
from drills.generators.measured import dec, pick, rate, replay, slips_asked
from drills.generators.registry import Param, register
from drills.model import Question

MRR_QUERIES = "mrr-queries"
ERR_HAND = "err-hand"


# ----------------------------------------------------------------------------------- MRR
def _first(ranking: tuple[int, ...], cut: int) -> int | None:
    return next((i for i, g in enumerate(ranking[:cut], start=1) if g), None)


def _ranking_with_first(rng: random.Random, n: int, first: int | None) -> tuple[int, ...]:
    """Binary labels whose first relevant document is at rank ``first`` (None: no relevant one)."""
    if first is None:
        return (0,) * n
    return tuple([0] * (first - 1) + [1] + [rng.randint(0, 1) for _ in range(n - first)])


@register(
    MRR_QUERIES,
    topic="ndcg-vs-mrr",
    summary="MRR (or MRR@k) over 3-5 queries with binary labels; one query retrieves no relevant "
            "document and still counts, with RR 0",
    params={
        "queries": Param(int, 4, "number of queries (one of them has no relevant document retrieved)",
                         minimum=3, maximum=5),
        "n": n_param(5),
        "k": k_param(None),
    },
)
def mrr_queries(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(MRR_QUERIES, params)
    count, n = p["queries"], p["n"]
    k = resolve_k(p["k"], n, rng)
    declared = slips_asked("mrr")

    def first_hit() -> int:  # mostly inside the cut-off, sometimes below it (RR@k 0)
        if k is not None and k < n and rng.random() < 0.25:
            return rng.randint(k + 1, n)
        return rng.randint(1, min(k or n, n))

    def draw() -> Problem:
        missing = rng.randrange(count)
        firsts = [None if i == missing else first_hit() for i in range(count)]
        if all(f is None or (k is not None and f > k) for f in firsts):  # somebody finds something
            firsts[(missing + 1) % count] = 1
        per = tuple(Problem(_ranking_with_first(rng, n, f), None, k) for f in firsts)
        return replace(per[0], queries=per)

    def rivals(problem: Problem) -> list[Any]:
        firsts = [_first(q.relevance, problem.cutoff) for q in problem.queries]
        rrs = [Fraction(1, f) if f else Fraction(0) for f in firsts]
        found = sum(1 for f in firsts if f)
        out: list[Any] = [sum(rrs) / found]  # the queries without a hit left out
        if all(f is None or f > 1 for f in firsts):  # 1/(r - 1): counting ranks from 0
            out.append(sum((Fraction(1, f - 1) for f in firsts if f), Fraction(0)) / count)
        if problem.k is not None and problem.k < n:  # prefer a k that matters
            out.append(engine_value(replace(problem, k=None), "mrr").value)
        return out

    problem = pick(draw, lambda q: rate(q, "mrr", declared, rivals(q), high=1.0))
    label = "MRR" if k is None else f"MRR@{k}"
    rows = [f"  Query {i}: {grades_text(q.relevance)}" for i, q in enumerate(problem.queries, start=1)]
    blank = [i for i, q in enumerate(problem.queries, start=1) if not any(q.relevance)]
    which = ", ".join(str(i) for i in blank)
    ask = (f"Compute the MRR (mean reciprocal rank) over the {count} queries." if k is None else
           f"Compute {label} over the {count} queries{cutoff_phrase(k, n)}: a query's RR@{k} is 0 when no "
           f"relevant document is in its top {k}.")
    lines = [
        f"A system answers {count} queries, returning {n} documents for each. Binary labels "
        "(1 relevant, 0 not), rank 1 first:",
        *rows,
        f"Every query has relevant documents in the judged pool; the system retrieved none for query "
        f"{which}.",
        ask,
    ]
    # The engine's modules load on first use: the first question must appear fast.
    from drills.engine.metrics.binary import MeanResult
    from drills.engine.metrics.registry import (
        measure,  # deferred: not needed before the first question
    )

    result = measure(problem, "mrr")
    assert isinstance(result, MeanResult)
    hits = [r.exact for r in result.per_query if r.exact]
    dropped = sum(hits, Fraction(0)) / len(hits)
    note = (f"A query with no hit scores 0 and still counts: the mean is over all {count} queries, "
            "as trec_eval averages recip_rank over the run's queries. Averaging only the "
            f"{len(hits)} queries with a hit would give {dec(LogSum.of(dropped))} and reward a system "
            "for failing silently.")
    return concrete(
        template, MRR_QUERIES, {**p, "k": k, **replay(problem, "mrr")}, kind="numeric",
        prompt="\n".join(lines), problem=problem, metric="mrr", explanation=note, slips=declared,
        hints=("RR is 1 / the rank of the first relevant document, counting ranks from 1.",
               f"Average over all {count} queries, the ones with RR 0 included."),
    )


# ----------------------------------------------------------------------------------- ERR
def _err_rivals(ranking: tuple[int, ...], cut: int, g_max: int) -> list[Fraction]:
    """ERR with linear gain g / g_max, and ERR without the stopping product."""
    linear = no_stop = Fraction(0)
    reach = Fraction(1)
    for r, g in enumerate(ranking[:cut], start=1):
        stop = Fraction(g, g_max)
        linear += reach * stop / r
        reach *= 1 - stop
        no_stop += Fraction(2**g - 1, 2**g_max) / r
    return [linear, no_stop]


@register(
    ERR_HAND,
    topic="hand-computation",
    summary="ERR@k of a graded ranking by hand, with the top grade g_max stated",
    params={
        "n": n_param(4),
        "k": k_param(None),
        "max_rel": max_rel_param(3),
    },
)
def err_hand(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(ERR_HAND, params)
    n, g_max = p["n"], p["max_rel"]
    k = resolve_k(p["k"], n, rng)
    cut = min(k or n, n)
    declared = slips_asked("err")

    def draw() -> Problem:
        for _ in range(50):  # two relevant documents in the top k, when there is room
            ranking = [rng.randint(0, g_max) for _ in range(n)]
            if sum(1 for g in ranking[:cut] if g) >= min(2, cut):
                break
        return Problem(tuple(ranking), None, k, max_grade=g_max)

    problem = pick(draw, lambda q: rate(q, "err", declared, _err_rivals(q.relevance, cut, g_max)))
    label = "ERR" if k is None else f"ERR@{k}"
    lines = [
        f"A search system returns {n} documents for a query. Their relevance grades on a 0-{g_max} "
        f"scale, rank 1 first: {grades_text(problem.relevance)}.",
        f"Compute {label} (expected reciprocal rank, Chapelle et al. 2009){cutoff_phrase(k, n)}, with "
        f"g_max = {g_max}, the top grade of the scale.",
    ]
    top = max(problem.relevance)
    note = ("ERR is the expected 1/rank at which a cascade user stops: at each rank the user is "
            f"satisfied with probability R = (2^g - 1) / 2^{g_max} and stops, so a document only "
            "counts for the users still reading, the product of (1 - R) above it. Unlike NDCG it "
            "is not normalised, and one very relevant document near the top saturates it.")
    if top < g_max:
        note += (f" The list's best grade is {top}, but g_max is the scale's top ({g_max}), "
                 "as the question says.")
    return concrete(
        template, ERR_HAND, {**p, "k": k, **replay(problem, "err")}, kind="numeric",
        prompt="\n".join(lines), problem=problem, metric="err", explanation=note, slips=declared,
        hints=(f"R_i = (2^g_i - 1) / 2^{g_max}; carry P(still reading) = product of (1 - R_j) above "
               "rank i.",
               "Each rank adds P(still reading) * R_i / i."),
    )
