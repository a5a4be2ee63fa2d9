"""An independent float NDCG implementation for tests (math.log2, no drills code)."""

from __future__ import annotations

import math


def gain(r: int, convention: str = "exponential") -> float:
    return float(2**r - 1) if convention == "exponential" else float(r)


def dcg(grades, k=None, convention="exponential") -> float:
    k = len(grades) if k is None else k
    return sum(gain(r, convention) / math.log2(i + 2) for i, r in enumerate(list(grades)[:k]))


def idcg(ranked, judged=None, k=None, convention="exponential") -> float:
    """No cut-off (k None): the whole judged pool, as trec_eval's and ranx's ndcg."""
    pool = list(judged if judged is not None else ranked)
    k = len(pool) if k is None else k
    return dcg(sorted(pool, reverse=True), k, convention)


def ndcg(ranked, judged=None, k=None, convention="exponential") -> float:
    ideal = idcg(ranked, judged, k, convention)
    return 0.0 if ideal == 0 else dcg(ranked, k, convention) / ideal
