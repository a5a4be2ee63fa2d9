"""coding.idcg-from-pool: the ideal comes from the whole judged pool, not the ranking."""

import math


def idcg_at_k(relevance: list[int], judged: list[int], k: int) -> float:
    best = sorted(judged, reverse=True)[:k]
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(best, start=1))
