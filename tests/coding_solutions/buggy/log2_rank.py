"""NDCG@k (coding.ndcg-at-k) discounted by log2(i) with 1-based i: rank 1 is left undiscounted
(log2(1) = 0 would divide by zero), so ranks 1 and 2 both get discount 1."""

import math


def dcg(grades, k):
    total = 0.0
    for i, grade in enumerate(grades[:k], start=1):
        total += (2**grade - 1) / max(1.0, math.log2(i))
    return total


def ndcg_at_k(relevance: list[int], k: int) -> float:
    ideal = dcg(sorted(relevance, reverse=True), k)
    return dcg(relevance, k) / ideal if ideal > 0 else 0.0
