"""coding.ndcg-at-k: NDCG@k, gain 2^rel - 1, discount log2(i + 1), ideal = the list sorted."""

import math


def dcg(grades, k):
    total = 0.0
    for rank, grade in enumerate(grades[:k], start=1):
        total += (2**grade - 1) / math.log2(rank + 1)
    return total


def ndcg_at_k(relevance: list[int], k: int) -> float:
    ideal = dcg(sorted(relevance, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg(relevance, k) / ideal
