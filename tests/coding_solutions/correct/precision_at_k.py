"""coding.precision-at-k: ranks past the end are non-relevant; always over k."""


def precision_at_k(relevance: list[int], k: int) -> float:
    return sum(1 for g in relevance[:k] if g) / k
