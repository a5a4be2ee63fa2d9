"""NDCG@k whose ideal is the ranking itself sorted in place (`ideal = relevance` is an alias),
so the DCG is computed on the sorted list: 1.0 whenever anything is relevant."""

import math


def dcg(grades, k):
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(grades[:k]))


def ndcg_at_k(relevance, k):
    ideal = relevance
    ideal.sort(reverse=True)
    best = dcg(ideal, k)
    return dcg(relevance, k) / best if best > 0 else 0.0
