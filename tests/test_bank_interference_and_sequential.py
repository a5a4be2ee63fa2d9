"""The interference-and-sequential pack (questions/interference-and-sequential.yaml): every key
recomputed from its definition (fractions and math; scipy.stats.multivariate_normal for the
repeated-looks error rates and the O'Brien-Fleming and Pocock constants the explanations quote),
and the choice questions free of length and wording cues."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from tests.experiments_bank import (
    evaluate,
    load,
)

RAW = load("interference-and-sequential")
Q = {q["id"]: q for q in RAW["questions"]}


def msprt_lambda(n: int, mean: float, sigma2: float, tau2: float) -> float:
    """The normal-mixture likelihood ratio of Johari et al. (Operations Research 2022), written
    as the ratio of the marginal density under the mixture to the density under theta = 0."""
    # mean ~ N(theta, sigma2/n); theta ~ N(0, tau2) under the mixture
    v0 = sigma2 / n
    v1 = sigma2 / n + tau2
    dens = lambda v: math.exp(-mean * mean / (2 * v)) / math.sqrt(2 * math.pi * v)  # noqa: E731
    return dens(v1) / dens(v0)


def se_ratio(small: F) -> float:
    """SE of a difference of means, split small / 1 - small, over the 50/50 SE."""
    return math.sqrt((1 / small + 1 / (1 - small)) / 4)


KEYS = {
    "is-obf-second-look": 2.024 * math.sqrt(4 / 2),
    "is-design-effect": F(10_000) / (1 + (50 - 1) * F(2, 100)),
    "is-cannibalisation": F(60, 40) - 1,
    "is-msprt-lambda": msprt_lambda(100, 0.3, 1.0, 1.0),
    "is-holdout-se": se_ratio(F(5, 100)),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_numeric_key(qid):
    assert evaluate(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-9)


def test_every_fixed_numeric_question_has_a_key():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_msprt_numbers_quoted():
    lam = msprt_lambda(100, 0.3, 1.0, 1.0)
    assert round(lam, 1) == 8.6 and round(1 / lam, 3) == 0.117 and lam < 1 / 0.05
    assert round(math.exp(900 / 202), 1) == 86.1 and round(1 / math.sqrt(101), 4) == 0.0995
    # the fixed-horizon z = 3 and its two-sided p about 0.003
    assert 0.3 * math.sqrt(100) == pytest.approx(3)
    assert round(math.erfc(3 / math.sqrt(2)), 3) == 0.003


def test_holdout_and_design_effect_numbers_quoted():
    assert 1 / 0.95 + 1 / 0.05 == pytest.approx(21.05, abs=0.005)
    assert round(se_ratio(F(5, 100)), 2) == 2.29
    assert 1 + 49 * 0.02 == pytest.approx(1.98) and round(10_000 / 1.98) == 5051  # "about 5,050"


def _reject(bounds: list[float]) -> float:
    """P(some |Z_k| > b_k) for equally spaced looks of a Brownian motion (corr sqrt(i/j))."""
    np = pytest.importorskip("numpy")
    stats = pytest.importorskip("scipy.stats")
    k = len(bounds)
    cov = np.array([[math.sqrt(min(i, j) / max(i, j)) for j in range(1, k + 1)] for i in range(1, k + 1)])
    b = np.array(bounds)
    return 1 - stats.multivariate_normal(np.zeros(k), cov).cdf(b, lower_limit=-b)


def test_repeated_looks_error_rates():
    # is-peeking-five-looks: about 14% for 5 looks, about 8% for 2, 23% if independent
    assert _reject([1.959964] * 5) == pytest.approx(0.142, abs=0.002)
    assert _reject([1.959964] * 2) == pytest.approx(0.083, abs=0.001)
    assert round(1 - 0.95**5, 2) == 0.23


def test_group_sequential_constants():
    optimize = pytest.importorskip("scipy.optimize")
    obf = optimize.brentq(lambda c: _reject([c * math.sqrt(4 / k) for k in range(1, 5)]) - 0.05, 1.5, 3,
                          xtol=1e-6)
    assert obf == pytest.approx(2.024, abs=0.001)  # Jennison & Turnbull table 2.3
    assert round(obf * 2, 2) == 4.05  # "the first look needs |z| > 4.05"
    pocock = optimize.brentq(lambda c: _reject([c] * 4) - 0.05, 1.9, 3, xtol=1e-6)
    assert pocock == pytest.approx(2.361, abs=0.001)
