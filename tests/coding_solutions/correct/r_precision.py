"""coding.r-precision: P@R, the missing ranks past the list count as misses."""


def r_precision(relevance: list[int], num_relevant: int) -> float:
    if num_relevant == 0:
        return 0.0
    return sum(1 for g in relevance[:num_relevant] if g) / num_relevant
