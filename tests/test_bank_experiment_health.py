"""The experiment-health pack (questions/experiment-health.yaml): every key recomputed from its
definition (fractions; scipy.stats for the binomial tail, the chi-square cut-off and the SRM
example of the concept answer), and the choice questions free of length and wording cues."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from drills.generators import REGISTRY
from tests.experiments_bank import (
    evaluate,
    load,
)

RAW = load("experiment-health")
Q = {q["id"]: q for q in RAW["questions"]}


def diluted_absolute(trigger_rate: F, triggered_effect: F) -> F:
    """The effect per user over all users when untriggered users are unaffected."""
    return trigger_rate * triggered_effect


def diluted_relative(rate: F, base_t: F, base_u: F, rel_t: F) -> F:
    """Relative lift over all users: the dollars gained over the overall baseline per user."""
    gained = rate * base_t * rel_t
    overall = rate * base_t + (1 - rate) * base_u
    return gained / overall


def traffic_ratio(rate: F) -> F:
    """Total traffic for an all-users analysis over a triggered one, equal per-user variances:
    n ~ 1/effect^2; the all-users effect is rate * delta; the triggered n is rate of the traffic."""
    all_users = 1 / rate**2  # in units of the triggered analysis' users
    triggered_traffic = 1 / rate
    return all_users / triggered_traffic


KEYS = {
    "eh-aa-too-many": (80 - 1000 * 0.05) / math.sqrt(1000 * 0.05 * 0.95),
    "eh-dilution-absolute": diluted_absolute(F(1, 10), F(2, 100)),
    "eh-dilution-relative": diluted_relative(F(1, 5), F(50), F(10), F(5, 100)),
    "eh-dilution-traffic": traffic_ratio(F(1, 10)),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_numeric_key(qid):
    assert evaluate(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-12)


def test_every_fixed_numeric_question_has_a_key():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_the_numbers_the_explanations_quote():
    # eh-dilution-relative: $0.50 per user gained, $18 baseline, 10/18 of the spend triggered,
    # and the slip 5% x 20% = 1%
    assert F(1, 5) * 50 * F(5, 100) == F(1, 2)
    assert F(1, 5) * 50 + F(4, 5) * 10 == 18 and F(1, 5) * 50 / 18 == F(10, 18)
    assert F(5, 100) * F(1, 5) == F(1, 100) != KEYS["eh-dilution-relative"]
    # eh-aa-too-many: sd sqrt(47.5) about 6.9
    assert round(math.sqrt(47.5), 1) == 6.9


def test_scipy_agrees():
    stats = pytest.importorskip("scipy.stats")
    # the one-sided binomial tail quoted in eh-aa-too-many ("about 3.5e-5")
    p = stats.binomtest(80, 1000, 0.05, alternative="greater").pvalue
    assert 3.4e-5 < p < 3.6e-5
    # the SRM alarm cut-off p < 0.001 <-> chi^2 > 10.83 (the generator's explanation)
    assert stats.chi2.ppf(0.999, 1) == pytest.approx(10.83, abs=0.005)
    # eh-explain-srm's example: 50.6% / 49.4% of 100,000 users, p about 0.0001 (the correction)
    res = stats.chisquare([50_600, 49_400], [50_000, 50_000])
    assert res.statistic == pytest.approx(14.4) and 0.0001 < res.pvalue < 0.0002


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
