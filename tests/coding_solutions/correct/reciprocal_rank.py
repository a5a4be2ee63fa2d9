"""coding.reciprocal-rank: relevant means grade >= 2."""


def reciprocal_rank(relevance: list[int]) -> float:
    for rank, grade in enumerate(relevance, start=1):
        if grade >= 2:
            return 1.0 / rank
    return 0.0
