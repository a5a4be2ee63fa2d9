"""The variance-reduction pack (questions/variance-reduction.yaml): every key recomputed from
its definition (fractions; numpy on simulated data for the CUPED and delta-method identities),
and the choice questions free of length and wording cues."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest

from drills.generators import REGISTRY
from tests.experiments_bank import (
    evaluate,
    load,
)

RAW = load("variance-reduction")
Q = {q["id"]: q for q in RAW["questions"]}


def cuped_factor(rho: F) -> F:
    """Var(Y - theta X) / Var(Y) at the best theta = cov/var: 1 - rho^2."""
    return 1 - rho * rho


def delta_var(n: int, mean_c: F, mean_m: F, var_c: F, var_m: F, cov: F) -> F:
    """Var(mean_c / mean_m) by the first-order delta method (Deng, Knoblich & Lu 2018, eq. 3)."""
    return (var_c / mean_m**2 - 2 * mean_c * cov / mean_m**3 + mean_c**2 * var_m / mean_m**4) / n


KEYS = {
    # rho = 0.8: the sample size scales with the variance
    "vr-cuped-users-needed": cuped_factor(F(4, 5)),
    # 1 - rho^2 = 1/2
    "vr-cuped-rho-for-half": math.sqrt(0.5),
    # cov / var(X)
    "vr-cuped-theta-summary": F(12, 16),
    "vr-delta-summary": math.sqrt(delta_var(1000, F(2), F(20), F(4), F(100), F(12))),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_numeric_key(qid):
    assert evaluate(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-12)


def test_every_fixed_numeric_question_has_a_key():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_delta_summary_numbers_in_the_explanation():
    var = delta_var(1000, F(2), F(20), F(4), F(100), F(12))
    assert var == F(13, 2_000_000) == F(65, 10**7)  # "6.5e-6"
    assert round(math.sqrt(var), 5) == 0.00255
    text = Q["vr-delta-summary"]["explanation"]
    assert "sqrt(5/400000)" in text and "sqrt(R(1 - R)/20000)" in text
    # without the covariance the SE grows; the binomial one over impressions is smaller still
    assert math.sqrt(F(5, 400_000)) > math.sqrt(var) > math.sqrt(F(1, 10) * F(9, 10) / 20_000)
    # the per-user bracket 4 - 2.4 + 1 = 2.6, over n mean_m^2 = 400,000
    assert F(4) - 2 * F(1, 10) * 12 + F(1, 100) * 100 == F(26, 10)


def test_cuped_identities_on_simulated_data():
    """Var(Y - theta X) = (1 - rho^2) Var(Y) at theta = cov/var, and the adjusted difference of
    arm means has the same expectation (numpy, 200 simulated experiments)."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(1)
    diffs_raw, diffs_cuped = [], []
    for _ in range(200):
        x = rng.normal(10, 3, 2000)
        arm = rng.integers(0, 2, 2000)
        y = 0.8 * x + rng.normal(0, 2, 2000) + 0.5 * arm
        theta = np.cov(x, y)[0, 1] / np.var(x, ddof=1)
        rho = np.corrcoef(x, y)[0, 1]
        adj = y - theta * (x - x.mean())
        assert np.var(adj, ddof=1) == pytest.approx((1 - rho**2) * np.var(y, ddof=1), rel=1e-9)
        diffs_raw.append(y[arm == 1].mean() - y[arm == 0].mean())
        diffs_cuped.append(adj[arm == 1].mean() - adj[arm == 0].mean())
    assert np.mean(diffs_cuped) == pytest.approx(0.5, abs=0.03)  # unbiased
    assert np.std(diffs_cuped) < 0.75 * np.std(diffs_raw)  # and less variable


def test_rho_half_removes_a_quarter():
    # vr-cuped-rho-for-half's explanation: rho 0.5 removes only a quarter of the variance
    assert 1 - cuped_factor(F(1, 2)) == F(1, 4)
    assert cuped_factor(F(4, 5)) == F(36, 100)


def test_delta_method_matches_a_user_bootstrap():
    """The formula's SE against resampling users on data drawn like the summary question's."""
    np = pytest.importorskip("numpy")
    rng = random.Random(5)
    m = [rng.randint(5, 35) for _ in range(1000)]
    c = [sum(rng.random() < 0.1 + 0.1 * (i % 2) for _ in range(k)) for i, k in enumerate(m)]
    cm, mm = np.array(c, float), np.array(m, float)
    n = len(c)
    vc, vm = np.var(cm, ddof=1), np.var(mm, ddof=1)
    cov = np.cov(cm, mm)[0, 1]
    r = cm.sum() / mm.sum()
    se = math.sqrt((vc - 2 * r * cov + r * r * vm) / (n * mm.mean() ** 2))
    g = np.random.default_rng(0)
    idx = g.integers(0, n, size=(4000, n))
    boot = cm[idx].sum(1) / mm[idx].sum(1)
    assert se == pytest.approx(boot.std(), rel=0.08)


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
