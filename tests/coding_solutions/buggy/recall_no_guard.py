"""recall@k with no guard for R = 0: divides by num_relevant even when it is 0 (ZeroDivisionError)."""


def recall_at_k(relevance, num_relevant, k):
    return sum(relevance[:k]) / num_relevant
