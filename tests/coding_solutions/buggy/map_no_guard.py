"""MAP whose per-query AP has no guard for R = 0: a query with no relevant document divides by 0."""


def average_precision(grades):
    hits, total = 0, 0.0
    for i, rel in enumerate(grades, start=1):
        if rel:
            hits += 1
            total += hits / i
    return total / sum(grades)


def mean_average_precision(queries):
    return sum(average_precision(q) for q in queries) / len(queries)
