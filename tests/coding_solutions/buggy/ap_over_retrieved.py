"""AP (coding.average-precision) divided by the relevant documents retrieved, not by R."""


def average_precision(relevance: list[int], num_relevant: int) -> float:
    hits, total = 0, 0.0
    for rank, rel in enumerate(relevance, start=1):
        if rel:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0
