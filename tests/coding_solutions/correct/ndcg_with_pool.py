"""coding.ndcg-judged-pool: DCG@k of the ranking over IDCG@k of the judged pool."""

import math


def _dcg(grades, k):
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))


def ndcg_with_pool(relevance: list[int], judged: list[int], k: int) -> float:
    ideal = _dcg(sorted(judged, reverse=True), k)
    if ideal <= 0:
        return 0.0
    return _dcg(relevance, k) / ideal
