"""coding.recall-at-k."""


def recall_at_k(relevance: list[int], num_relevant: int, k: int) -> float:
    if num_relevant == 0:
        return 0.0
    return sum(1 for g in relevance[:k] if g) / num_relevant
