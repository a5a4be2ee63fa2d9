"""AP with no guard for R = 0: the sum of precisions divided by num_relevant, even when it is 0."""


def average_precision(relevance, num_relevant):
    hits, total = 0, 0.0
    for i, rel in enumerate(relevance, start=1):
        if rel:
            hits += 1
            total += hits / i
    return total / num_relevant
