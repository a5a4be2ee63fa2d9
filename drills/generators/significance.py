"""Generators for online evaluation and significance: a CTR lift from two arms' clicks, and
exact p-values of a paired test by hand (the sign test, the sign-flip randomisation test).

Every answer is an exact fraction computed here by counting (no floating point, no library):
the binomial tail for the sign test, all 2^n sign patterns for the randomisation test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from itertools import product
from math import comb
from typing import Any

from drills.engine.exact import fraction_text
from drills.generators.drawing import concrete, resolved
from drills.generators.registry import Param, register
from drills.model import Question

CTR_LIFT = "ctr-lift"
PAIRED_TEST = "paired-test"


@register(
    CTR_LIFT,
    topic="online-evaluation",
    summary="Two arms' clicks and impressions: the relative CTR lift of B over A, or the "
            "absolute difference in CTR",
    params={
        "ask": Param(str, "relative", "what to compute", choices=("relative", "absolute")),
    },
)
def ctr_lift(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(CTR_LIFT, params)
    n_a = rng.choice((2000, 4000, 5000, 8000, 10000))
    n_b = rng.choice((2000, 4000, 5000, 8000, 10000))
    while True:
        ctr_a = Fraction(rng.randint(20, 80), 1000)
        ctr_b = ctr_a * Fraction(rng.randint(85, 125), 100)
        c_a, c_b = ctr_a * n_a, ctr_b * n_b
        if c_a.denominator == c_b.denominator == 1 and ctr_b != ctr_a:
            break
    rel = ctr_b / ctr_a - 1
    diff = ctr_b - ctr_a
    relative = p["ask"] == "relative"
    want = rel if relative else diff
    prompt = "\n".join([
        f"An A/B test of a ranking change: control A got {int(c_a):,} clicks on {n_a:,} "
        f"impressions, treatment B {int(c_b):,} clicks on {n_b:,} impressions.",
        ("Compute B's relative CTR lift over A, CTR_B / CTR_A - 1 (a fraction or a decimal; "
         "negative if B is worse)." if relative else
         "Compute the absolute difference in CTR, CTR_B - CTR_A (a fraction or a decimal; "
         "negative if B is worse)."),
    ])
    note = (f"CTR_A = {int(c_a)}/{n_a} = {float(ctr_a):.4f}, CTR_B = {int(c_b)}/{n_b} = "
            f"{float(ctr_b):.4f}. Relative lift CTR_B / CTR_A - 1 = {float(rel):+.4f} "
            f"({float(rel) * 100:+.2f}%); absolute difference {float(diff):+.5f} "
            f"({float(diff) * 100:+.3f} points). Divide clicks by each arm's own impressions: the "
            "arms need not be the same size, and comparing raw clicks would reward the bigger arm.")
    return concrete(template, CTR_LIFT, {**p, "clicks": [int(c_a), int(c_b)], "impressions": [n_a, n_b]},
                    kind="numeric", prompt=prompt, answer=fraction_text(want), explanation=note,
                    hints=("CTR = clicks / impressions, for each arm separately.",))


def sign_test_p(positives: int, n: int, sides: int) -> Fraction:
    """P(X >= positives) for X ~ Binomial(n, 1/2); two-sided, twice the smaller tail (at most 1)."""
    upper = Fraction(sum(comb(n, i) for i in range(positives, n + 1)), 2**n)
    if sides == 1:
        return upper
    lower = Fraction(sum(comb(n, i) for i in range(0, positives + 1)), 2**n)
    return min(Fraction(1), 2 * min(upper, lower))


def sign_flip_p(diffs: tuple[int, ...], sides: int) -> Fraction:
    """The share of the 2^n sign patterns whose sum is at least the observed one (in size, when
    two-sided): the exact paired randomisation test."""
    observed = sum(diffs)
    count = 0
    for signs in product((1, -1), repeat=len(diffs)):
        total = sum(s * abs(d) for s, d in zip(signs, diffs, strict=True))
        count += abs(total) >= abs(observed) if sides == 2 else total >= observed
    return Fraction(count, 2 ** len(diffs))


@register(
    PAIRED_TEST,
    topic="significance",
    summary="Per-query differences of two systems: the exact p-value of the sign test or of the "
            "sign-flip randomisation test, one- or two-sided",
    params={
        "test": Param(str, "sign-flip", "which test", choices=("sign-flip", "sign")),
        "sides": Param(int, 1, "one-sided (B better) or two-sided", choices=(1, 2)),
    },
)
def paired_test(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(PAIRED_TEST, params)
    n = rng.randint(5, 7) if p["test"] == "sign-flip" else rng.randint(6, 10)
    diffs = tuple(rng.choice((-1, 1)) * rng.randint(1, 9) for _ in range(n))
    while sum(diffs) == 0:  # a tie overall asks nothing: draw again
        diffs = tuple(rng.choice((-1, 1)) * rng.randint(1, 9) for _ in range(n))
    if sum(diffs) < 0:  # B ahead on the whole: the one-sided question asks about B being better
        diffs = tuple(-d for d in diffs)
    positives = sum(1 for d in diffs if d > 0)
    sides = p["sides"]
    side = "two-sided" if sides == 2 else "one-sided (B better)"
    shown = ", ".join(f"{d / 100:+.2f}" for d in diffs)
    if p["test"] == "sign":
        want = sign_test_p(positives, n, sides)
        ask = (f"Compute the exact {side} p-value of the sign test (each query a coin flip "
               "under the null: count the queries where B is ahead).")
        note = (f"B is ahead on {positives} of {n} queries. Under the null each is a fair coin, "
                f"X ~ Binomial({n}, 1/2): "
                + (f"P(X >= {positives}) = {sum(comb(n, i) for i in range(positives, n + 1))}/{2**n}"
                   if sides == 1 else "twice the smaller tail, P(X >= k) or P(X <= k), at most 1")
                + f" = {fraction_text(want)}. "
                "The sign test ignores how large each difference is: robust, but weak.")
    else:
        want = sign_flip_p(diffs, sides)
        ask = (f"Compute the exact {side} p-value of the paired randomisation (sign-flip) test "
               f"of the mean difference: flip the signs in all 2^{n} ways.")
        note = (f"Under the null each difference is as likely to have either sign, so the "
                f"{2**n} sign patterns are equally likely; the p-value is the share whose sum is "
                + ("at least the observed one in size" if sides == 2 else "at least the observed one")
                + f": {fraction_text(want)} = {float(want):.4f}. The test uses the sizes of the "
                "differences, unlike the sign test, and assumes nothing about their distribution.")
    prompt = "\n".join([
        f"Systems A and B were run on the same {n} queries. The per-query differences in "
        f"AP (B - A) are: {shown}.",
        ask + " Give a fraction or a decimal.",
    ])
    return concrete(template, PAIRED_TEST, {**p, "differences": [d / 100 for d in diffs]},
                    kind="numeric", prompt=prompt, answer=fraction_text(want), explanation=note,
                    hints=("Pair by query: only the per-query differences matter.",))
