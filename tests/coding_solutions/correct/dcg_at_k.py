"""coding.dcg-at-k."""

import math


def dcg_at_k(relevance: list[int], k: int) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(relevance[:k]))
