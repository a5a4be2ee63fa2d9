"""NDCG@k against a judged pool (coding.ndcg-judged-pool) whose ideal is built from the
ranked list: `judged` is never used, so missed relevant documents cost nothing."""

import math


def _dcg(grades, k):
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))


def ndcg_with_pool(relevance: list[int], judged: list[int], k: int) -> float:
    ideal = _dcg(sorted(relevance, reverse=True), k)
    return _dcg(relevance, k) / ideal if ideal > 0 else 0.0
