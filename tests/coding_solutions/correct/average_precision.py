"""coding.average-precision: uncut AP over R = num_relevant."""


def average_precision(relevance: list[int], num_relevant: int) -> float:
    if num_relevant == 0:
        return 0.0
    hits = 0
    total = 0.0
    for rank, rel in enumerate(relevance, start=1):
        if rel:
            hits += 1
            total += hits / rank
    return total / num_relevant
