"""coding.map: each query's R is the number of 1s in its own list."""


def _ap(grades):
    relevant = sum(1 for g in grades if g)
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for rank, g in enumerate(grades, start=1):
        if g:
            hits += 1
            total += hits / rank
    return total / relevant


def mean_average_precision(queries: list[list[int]]) -> float:
    return sum(_ap(q) for q in queries) / len(queries)
