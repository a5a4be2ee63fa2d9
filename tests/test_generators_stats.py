"""ctr-lift and paired-test: every answer against an independent computation (scipy.stats
for the sign test, a plain enumeration written here for the randomisation test, the clicks
and impressions read back from the prompt for the lift)."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from drills.answers.parser import parse
from drills.generators import REGISTRY
from drills.grading.check import check
from drills.model import Question


def make(name: str, params: dict, seed: int) -> Question:
    t = Question(id=f"t-{name}", topic="significance", kind="generated", prompt="", generator=name,
                 params=params)
    g = REGISTRY[name]
    return g.make(t, g.resolved(params), random.Random(seed))


@pytest.mark.parametrize("ask", ["relative", "absolute"])
@pytest.mark.parametrize("seed", range(40))
def test_ctr_lift_from_the_prompt(ask, seed):
    q = make("ctr-lift", {"ask": ask}, seed)
    nums = [int(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?= (?:clicks|impressions))", q.prompt)]
    c_a, n_a, c_b, n_b = nums
    ctr_a, ctr_b = Fraction(c_a, n_a), Fraction(c_b, n_b)
    want = ctr_b / ctr_a - 1 if ask == "relative" else ctr_b - ctr_a
    assert parse(q.answer).value == pytest.approx(float(want), abs=1e-15)
    assert check(q, str(want)).correct and check(q, f"{float(want):.6f}").correct
    assert make("ctr-lift", {"ask": ask}, seed) == q  # the same seed, the same item


def _differences(q: Question) -> list[float]:
    return [float(x) for x in re.findall(r"[+-]\d\.\d\d", q.prompt)]


@pytest.mark.parametrize("sides", [1, 2])
@pytest.mark.parametrize("seed", range(30))
def test_sign_test_matches_scipy(sides, seed):
    stats = pytest.importorskip("scipy.stats")
    q = make("paired-test", {"test": "sign", "sides": sides}, seed)
    d = _differences(q)
    wins = sum(x > 0 for x in d)
    want = stats.binomtest(wins, len(d), 0.5, alternative="greater" if sides == 1 else "two-sided").pvalue
    assert parse(q.answer).value == pytest.approx(want, abs=1e-12)


def _flip_p(d: list[float], sides: int) -> float:
    n, observed, count = len(d), sum(d), 0
    for mask in range(2**n):
        total = sum(abs(x) * (-1 if mask >> i & 1 else 1) for i, x in enumerate(d))
        if sides == 2:
            count += abs(total) >= abs(observed) - 1e-9
        else:
            count += total >= observed - 1e-9
    return count / 2**n


@pytest.mark.parametrize("sides", [1, 2])
@pytest.mark.parametrize("seed", range(30))
def test_sign_flip_test_by_enumeration(sides, seed):
    q = make("paired-test", {"test": "sign-flip", "sides": sides}, seed)
    d = _differences(q)
    assert sum(d) > 0  # B ahead: the one-sided question asks about B being better
    assert parse(q.answer).value == pytest.approx(_flip_p(d, sides), abs=1e-12)
    assert check(q, q.answer).correct


def test_scipy_permutation_test_agrees_where_installed():
    stats = pytest.importorskip("scipy.stats")
    q = make("paired-test", {"test": "sign-flip", "sides": 1}, 7)
    d = _differences(q)
    res = stats.permutation_test((d,), lambda x: sum(x), permutation_type="samples",
                                 alternative="greater", n_resamples=10**6)
    assert res.pvalue == pytest.approx(parse(q.answer).value, abs=1e-9)
