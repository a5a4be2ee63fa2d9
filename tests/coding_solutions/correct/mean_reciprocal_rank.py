"""coding.mrr: the mean over every query; a query without a hit counts 0."""


def mean_reciprocal_rank(queries: list[list[int]]) -> float:
    total = 0.0
    for grades in queries:
        for rank, rel in enumerate(grades, start=1):
            if rel:
                total += 1.0 / rank
                break
    return total / len(queries)
