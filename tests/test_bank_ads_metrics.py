"""The ads-metrics pack (questions/ads-metrics.yaml): every key recomputed from its definition
(normalised entropy back to log loss per impression with math.log; COEC from position CTRs), and
the choice questions free of length and wording cues. Generated questions:
tests/test_generators_retrieval.py (against scikit-learn's log_loss and roc_auc_score)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from drills.answers.parser import parse
from drills.generators import REGISTRY
from tests.experiments_bank import load

RAW = load("ads-metrics")
Q = {q["id"]: q for q in RAW["questions"]}


def base_rate_log_loss(ctr: float, impressions: int = 10_000) -> float:
    """Predict ``ctr`` for every impression of a day with that observed CTR: the mean log loss,
    summed impression by impression."""
    clicks = round(ctr * impressions)
    return -(clicks * math.log(ctr) + (impressions - clicks) * math.log(1 - ctr)) / impressions


def coec(shown: list[tuple[int, F]], clicks: int) -> F:
    return clicks / sum((n * ctr for n, ctr in shown), F(0))


KEYS = {
    "ads-ne-to-logloss": 0.95 * base_rate_log_loss(0.02),
    "ads-coec": float(coec([(100, F(5, 100)), (200, F(2, 100))], 11)),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_fixed_answer(qid):
    assert float(parse(str(Q[qid]["answer"])).value) == pytest.approx(KEYS[qid], abs=1e-12)


def test_every_fixed_numeric_question_is_keyed():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_numbers_the_explanations_quote():
    assert round(base_rate_log_loss(0.02), 4) == 0.0980
    assert round(KEYS["ads-ne-to-logloss"], 4) == 0.0931
    assert Q["ads-ne-to-logloss"]["tolerance"]["absolute"] == 0.00005
    assert 100 * F(5, 100) + 200 * F(2, 100) == 9
    # COEC's point: the raw CTR 11/300 is below the position-1 average, the ad is not worse
    assert F(11, 300) < F(5, 100) and coec([(100, F(5, 100)), (200, F(2, 100))], 11) > 1


def test_ne_does_not_depend_on_the_log_base():
    ctr = 0.02
    h_nats = base_rate_log_loss(ctr)
    h_bits = -(ctr * math.log2(ctr) + (1 - ctr) * math.log2(1 - ctr))
    assert (0.95 * h_nats) / h_nats == pytest.approx((0.95 * h_bits) / h_bits)


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
