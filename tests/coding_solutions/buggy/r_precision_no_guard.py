"""R-precision with no guard for R = 0: the hits in the top R divided by R, even when R is 0."""


def r_precision(relevance, num_relevant):
    return sum(relevance[:num_relevant]) / num_relevant
