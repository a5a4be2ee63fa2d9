"""coding.ap-at-k: ml_metrics' apk convention, divided by min(k, R)."""


def ap_at_k(relevance: list[int], num_relevant: int, k: int) -> float:
    denominator = min(k, num_relevant)
    if denominator == 0:
        return 0.0
    hits, total = 0, 0.0
    for rank, rel in enumerate(relevance[:k], start=1):
        if rel:
            hits += 1
            total += hits / rank
    return total / denominator
