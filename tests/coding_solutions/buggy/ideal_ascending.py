"""NDCG@k whose ideal is sorted worst first (np.sort without [::-1]): above 1 on most lists."""

import numpy as np


def ndcg_at_k(relevance, k):
    rel = np.asarray(relevance, dtype=float)
    m = min(k, len(rel))
    disc = 1 / np.log2(np.arange(2, m + 2))
    dcg = ((2 ** rel[:m] - 1) * disc).sum()
    idcg = ((2 ** np.sort(rel)[:m] - 1) * disc).sum()
    return float(dcg / idcg) if idcg > 0 else 0.0
