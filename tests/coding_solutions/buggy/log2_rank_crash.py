"""NDCG@k (coding.ndcg-at-k) with the literal log2(i) and 1-based i: log2(1) = 0, so every
call raises ZeroDivisionError at rank 1."""

import math


def dcg(grades, k):
    return sum((2**g - 1) / math.log2(i) for i, g in enumerate(grades[:k], start=1))


def ndcg_at_k(relevance: list[int], k: int) -> float:
    ideal = dcg(sorted(relevance, reverse=True), k)
    return dcg(relevance, k) / ideal if ideal > 0 else 0.0
