"""NDCG@k (coding.ndcg-at-k) without the IDCG = 0 rule: a list of 0s divides 0.0 by 0.0."""

import math


def dcg(grades, k):
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))


def ndcg_at_k(relevance: list[int], k: int) -> float:
    return dcg(relevance, k) / dcg(sorted(relevance, reverse=True), k)
