"""A naive reference for the binary ranking metrics, written from the definitions in the
project notes (metrics-facts.md), with no drills code: lists of 0/1, Fractions, loops.

rel_i = [grade_i >= l]; R = judged documents with grade >= l (the pool defaults to the
ranking); ranks past the end of the list are non-relevant.
"""

from __future__ import annotations

from fractions import Fraction


def binary(grades, threshold=1):
    return [1 if g >= threshold else 0 for g in grades]


def relevant_in_pool(ranking, judged=None, threshold=1):
    pool = ranking if judged is None else judged
    return sum(binary(pool, threshold))


def rel_at(ranking, i, threshold=1):
    """Relevance of the document at 1-based rank i; 0 past the end of the list."""
    return binary(ranking, threshold)[i - 1] if i <= len(ranking) else 0


def precision(ranking, k=None, threshold=1):
    k = len(ranking) if k is None else k
    return Fraction(sum(rel_at(ranking, i, threshold) for i in range(1, k + 1)), k)


def recall(ranking, k=None, judged=None, threshold=1):
    big_r = relevant_in_pool(ranking, judged, threshold)
    if big_r == 0:
        return Fraction(0)
    k = len(ranking) if k is None else k
    return Fraction(sum(rel_at(ranking, i, threshold) for i in range(1, k + 1)), big_r)


def r_precision(ranking, judged=None, threshold=1):
    big_r = relevant_in_pool(ranking, judged, threshold)
    return Fraction(0) if big_r == 0 else precision(ranking, big_r, threshold)


def hit(ranking, k=None, threshold=1):
    k = len(ranking) if k is None else k
    return Fraction(int(any(rel_at(ranking, i, threshold) for i in range(1, k + 1))))


def rr(ranking, k=None, threshold=1):
    k = len(ranking) if k is None else k
    for i in range(1, k + 1):
        if rel_at(ranking, i, threshold):
            return Fraction(1, i)
    return Fraction(0)


def ap(ranking, k=None, judged=None, convention="R", threshold=1):
    """Uncut (k None), "min_k_R" takes k = the ranking's length (issue 23: as uncut precision)."""
    k = len(ranking) if k is None else k
    total = Fraction(0)
    for i in range(1, k + 1):
        if rel_at(ranking, i, threshold):
            total += precision(ranking, i, threshold)
    big_r = relevant_in_pool(ranking, judged, threshold)
    if convention == "R":
        denominator = big_r
    elif convention == "min_k_R":
        denominator = min(k, big_r)
    elif convention == "retrieved":
        denominator = sum(rel_at(ranking, i, threshold) for i in range(1, k + 1))
    else:
        raise ValueError(convention)
    return Fraction(0) if denominator == 0 else total / denominator


def mean(values):
    values = list(values)
    return sum(values, Fraction(0)) / len(values)


# ------------------------------------------------------------------------- a problem's value
METRICS = ("precision", "recall", "rprec", "hit", "rr", "ap", "err", "map", "mrr")


def value_of(problem, metric):
    """The value of ``metric`` for anything shaped like a drills Problem (relevance, judged,
    k, threshold, convention, max_grade, queries), from the functions above only (ERR from
    the naive cascade reference)."""
    p = problem
    queries = p.queries or (p,)
    if metric == "map":
        return mean(ap(q.relevance, p.k, q.judged, p.convention, p.threshold) for q in queries)
    if metric == "mrr":
        return mean(rr(q.relevance, p.k, p.threshold) for q in queries)
    if metric == "ap":
        return ap(p.relevance, p.k, p.judged, p.convention, p.threshold)
    if metric == "precision":
        return precision(p.relevance, p.k, p.threshold)
    if metric == "recall":
        return recall(p.relevance, p.k, p.judged, p.threshold)
    if metric == "rprec":
        return r_precision(p.relevance, p.judged, p.threshold)
    if metric == "hit":
        return hit(p.relevance, p.k, p.threshold)
    if metric == "rr":
        return rr(p.relevance, p.k, p.threshold)
    if metric == "err":
        from tests.cascade_reference import err

        return err(p.relevance, p.k, p.max_grade)
    raise ValueError(metric)
