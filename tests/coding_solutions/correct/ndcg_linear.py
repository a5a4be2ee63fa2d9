"""coding.ndcg-linear-gain: NDCG@k with gain rel."""

import math


def _dcg(grades, k):
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))


def ndcg_linear(relevance: list[int], k: int) -> float:
    ideal = _dcg(sorted(relevance, reverse=True), k)
    return _dcg(relevance, k) / ideal if ideal > 0 else 0.0
