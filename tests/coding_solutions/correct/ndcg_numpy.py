"""coding.ndcg-numpy: vectorised, no loop over documents."""

import numpy as np


def ndcg_numpy(relevance: list[int], k: int) -> float:
    rel = np.asarray(relevance, dtype=float)
    m = min(k, rel.size)
    discounts = 1.0 / np.log2(np.arange(2, m + 2))
    dcg = float(((2.0 ** rel[:m] - 1.0) * discounts).sum())
    ideal = np.sort(rel)[::-1][:m]
    idcg = float(((2.0**ideal - 1.0) * discounts).sum())
    return dcg / idcg if idcg > 0 else 0.0
