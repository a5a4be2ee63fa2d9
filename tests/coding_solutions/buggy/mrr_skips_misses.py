"""MRR (coding.mrr) averaged over the queries with a hit only: misses are dropped."""


def mean_reciprocal_rank(queries: list[list[int]]) -> float:
    rrs = []
    for grades in queries:
        for rank, rel in enumerate(grades, start=1):
            if rel:
                rrs.append(1.0 / rank)
                break
    return sum(rrs) / len(rrs) if rrs else 0.0
