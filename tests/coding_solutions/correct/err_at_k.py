"""coding.err-at-k: the cascade with g_max = 3."""

G_MAX = 3


def err_at_k(relevance: list[int], k: int) -> float:
    reach = 1.0  # the chance the user gets this far
    total = 0.0
    for rank, grade in enumerate(relevance[:k], start=1):
        stop = (2**grade - 1) / 2**G_MAX
        total += reach * stop / rank
        reach *= 1 - stop
    return total
