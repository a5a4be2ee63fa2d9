"""P@k as the mean of the top k (the most common precision bug in published code): past the end
of the list np.mean divides by the documents there, min(k, n), instead of k."""

import numpy as np


def precision_at_k(relevance, k):
    r = np.asarray(relevance)[:k]
    return float(np.mean(r))
