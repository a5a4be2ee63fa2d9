"""The off-policy-evaluation pack (questions/off-policy-evaluation.yaml): every key recomputed
from its definition (fractions; the item-position and whole-slate estimators written out here;
a numpy Monte Carlo for the IPS-term variance and the clipping direction), and the choice
questions free of length and wording cues."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from drills.generators import REGISTRY
from tests.experiments_bank import (
    evaluate,
    load,
)

RAW = load("off-policy-evaluation")
Q = {q["id"]: q for q in RAW["questions"]}

# ope-item-position: the logging policy's slates, the new policy's one slate, the log
LOG_SLATES = {("x", "y"): F(1, 2), ("x", "z"): F(1, 4), ("z", "y"): F(1, 4)}
NEW_SLATES = {("x", "z"): F(1)}
IMPRESSIONS = [(("x", "y"), {0}), (("z", "y"), {0}), (("x", "z"), {1}), (("x", "y"), set())]


def marginal(slates: dict, item: str, slot: int) -> F:
    return sum((p for s, p in slates.items() if s[slot] == item), F(0))


def item_position_ips() -> F:
    total = F(0)
    for slate, clicked in IMPRESSIONS:
        for slot in clicked:
            d = slate[slot]
            total += marginal(NEW_SLATES, d, slot) / marginal(LOG_SLATES, d, slot)
    return total / len(IMPRESSIONS)


def whole_slate_ips() -> F:
    return sum((NEW_SLATES.get(s, F(0)) / LOG_SLATES[s] * len(c) for s, c in IMPRESSIONS), F(0)) / len(IMPRESSIONS)


def kish(ws: list[F]) -> F:
    return sum(ws) ** 2 / sum(w * w for w in ws)


def ips_term_variance(p: F, c: F) -> F:
    """term = click/p w.p. p*c, else 0: E[term^2] - E[term]^2."""
    return p * c * (1 / p) ** 2 - (p * c / p) ** 2


KEYS = {
    "ope-ess": kish([F(2), F(2), F(4), F(1, 2), F(1, 2)]),
    "ope-item-position": item_position_ips(),
    "ope-ips-term-variance": ips_term_variance(F(1, 20), F(1, 5)),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_numeric_key(qid):
    assert evaluate(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-12)


def test_every_fixed_numeric_question_has_a_key():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_numbers_the_explanations_quote():
    assert marginal(LOG_SLATES, "x", 0) == F(3, 4) and marginal(LOG_SLATES, "z", 1) == F(1, 4)
    assert item_position_ips() * 4 == F(16, 3) and whole_slate_ips() == 1
    assert kish([F(2), F(2), F(4), F(1, 2), F(1, 2)]) == F(81) / F(49, 2)
    assert round(float(KEYS["ope-ess"]), 1) == 3.3
    assert F(1, 5) * F(4, 5) == F(16, 100) and round(KEYS["ope-ips-term-variance"] / F(16, 100)) == 25


def test_monte_carlo_ips_term_and_clipping():
    """Simulate the IPS term of ope-ips-term-variance: unbiased, with the stated variance; a cap
    at 10 on its weight of 20 lowers the mean (ope-clipping-direction)."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    n = 2_000_000
    shown = rng.random(n) < 1 / 20
    click = rng.random(n) < 1 / 5
    term = np.where(shown & click, 20.0, 0.0)
    assert term.mean() == pytest.approx(0.2, abs=0.01)
    assert term.var() == pytest.approx(99 / 25, rel=0.02)
    clipped = np.where(shown & click, 10.0, 0.0)
    assert clipped.mean() < term.mean()


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
