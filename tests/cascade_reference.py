"""A naive reference for ERR and RBP, written from the papers' definitions with no drills code.

ERR (Chapelle et al., CIKM 2009, algorithm 2): walk the ranking keeping the probability p
that the user is still looking; at rank r add p * R_r / r, then p *= 1 - R_r, where
R_r = (2^g - 1) / 2^g_max. RBP (Moffat and Zobel, TOIS 2008): (1 - p) * sum r_i p^(i-1),
here with r_i = g_i / g_max; residual p^d for d documents scored.
"""

from __future__ import annotations

from fractions import Fraction


def err(grades, k=None, g_max=None):
    g_max = max(grades) if g_max is None else g_max
    depth = len(grades) if k is None else min(k, len(grades))
    if g_max == 0:
        return Fraction(0)
    still, total = Fraction(1), Fraction(0)
    for r in range(1, depth + 1):
        stop = Fraction(2 ** grades[r - 1] - 1) / 2**g_max
        total += still * stop / r
        still *= 1 - stop
    return total


def rbp(grades, p, k=None, g_max=None):
    g_max = max(grades) if g_max is None else g_max
    depth = len(grades) if k is None else min(k, len(grades))
    if g_max == 0:
        return Fraction(0), p**depth
    value = (1 - p) * sum(Fraction(grades[i], g_max) * p**i for i in range(depth))
    return value, p**depth
