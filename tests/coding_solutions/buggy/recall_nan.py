"""recall@k in numpy with no guard for R = 0: 0 / 0 is nan (with a RuntimeWarning), not an error."""

import numpy as np


def recall_at_k(relevance, num_relevant, k):
    r = np.asarray(relevance)[:k]
    return np.sum(r) / np.float64(num_relevant)
