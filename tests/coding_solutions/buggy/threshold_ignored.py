"""RR that counts any grade above 0 as relevant (`if rel:`) where the threshold is grade 2."""


def reciprocal_rank(relevance):
    for rank, rel in enumerate(relevance, start=1):
        if rel:
            return 1.0 / rank
    return 0.0
