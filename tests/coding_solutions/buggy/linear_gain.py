"""NDCG@k (coding.ndcg-at-k) with linear gain: a grade counts as itself, not 2^rel - 1."""

import math


def dcg(grades, k):
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))


def ndcg_at_k(relevance: list[int], k: int) -> float:
    ideal = dcg(sorted(relevance, reverse=True), k)
    return dcg(relevance, k) / ideal if ideal > 0 else 0.0
