"""coding.lambdarank-delta: the closed form |G_i - G_j| * |1/D_i - 1/D_j| / IDCG."""

import math


def delta_ndcg(relevance: list[int], i: int, j: int) -> float:
    def gain(g):
        return 2**g - 1

    def weight(rank):
        return 1 / math.log2(rank + 1)

    ideal = sum(gain(g) * weight(r) for r, g in enumerate(sorted(relevance, reverse=True), 1))
    if ideal == 0:
        return 0.0
    gi, gj = gain(relevance[i - 1]), gain(relevance[j - 1])
    return abs(gi - gj) * abs(weight(i) - weight(j)) / ideal
