"""A DCG-like table's total without its rows: ``float_sum`` (fsum of gain / discount, for the
value every caller reads first) and ``exact_sum`` (the exact LogSum, gains summed as integers
per logarithm, for the exact form when it is shown or compared), at any length.

Imports only the engine's low modules (exact, problem).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from drills.engine.exact import LogSum
from drills.engine.problem import ProblemError

_GAIN_FLOAT = {"exponential": lambda rel: 2.0**rel - 1, "linear": float, "pow2": lambda rel: 2.0**rel}


def discount_float(rank: int, form: str) -> float:
    """The discount at ``rank`` as a float."""
    if form == "reciprocal":
        return float(rank)
    if form == "log2_rank":
        return 1.0 if rank == 1 else math.log2(rank)
    if form == "ln":
        return math.log(rank + 1)
    return math.log2(rank + (2 if form == "log2_offset" else 1))


def float_sum(grades: tuple[int, ...], convention: str, form: str) -> float:
    """The table's total in floats (fsum of gain / discount): within a few units in the last
    place of the exact LogSum's value, at any length."""
    if convention not in _GAIN_FLOAT:
        raise ProblemError(f"unknown gain convention {convention!r} (use exponential or linear)")
    to_gain = _GAIN_FLOAT[convention]
    return math.fsum(to_gain(rel) / discount_float(rank, form)
                     for rank, rel in enumerate(grades, start=1) if rel or convention == "pow2")


@lru_cache(maxsize=8)
def _perfect_powers(limit: int) -> dict[int, tuple[int, int]]:
    """Every perfect power m <= limit with its smallest base: m -> (b, e), b**e == m."""
    out: dict[int, tuple[int, int]] = {}
    base = 2
    while base * base <= limit:
        value, e = base * base, 2
        while value <= limit:
            out.setdefault(value, (base, e))
            value, e = value * base, e + 1
        base += 1
    return out


_GAIN_INT = {"exponential": lambda rel: (1 << rel) - 1, "linear": int, "pow2": lambda rel: 1 << rel}


def exact_sum(grades: tuple[int, ...], convention: str, form: str) -> LogSum:
    """The table's total as an exact LogSum, without building its rows: the gains grouped
    by discount (log2(9) = 2 log2(3) adds to log2(3)'s coefficient), summed as integers."""
    if convention not in _GAIN_INT:
        raise ProblemError(f"unknown gain convention {convention!r} (use exponential or linear)")
    to_gain = _GAIN_INT[convention]
    const = Fraction(0)
    terms: dict[tuple[str, int], int | Fraction] = {}
    fn = "ln" if form == "ln" else "log2"
    shift = {"log2": 1, "ln": 1, "log2_rank": 0, "log2_offset": 2, "reciprocal": 0}[form]
    powers = _perfect_powers(len(grades) + shift)
    for rank, rel in enumerate(grades, start=1):
        g = to_gain(rel)
        if not g:
            continue
        if form == "reciprocal" or (form == "log2_rank" and rank == 1):
            const += Fraction(g, rank if form == "reciprocal" else 1)
            continue
        arg = rank + shift
        if fn == "log2" and arg & (arg - 1) == 0:  # log2 of a power of two: a whole number
            const += Fraction(g, arg.bit_length() - 1)
            continue
        base, e = powers.get(arg, (arg, 1))
        key = (fn, base)
        terms[key] = terms.get(key, 0) + (g if e == 1 else Fraction(g, e))
    # whole coefficients stay ints (equal, and hashing equal, to their Fractions): 3x faster
    return LogSum.from_terms(const, terms)  # type: ignore[arg-type]
