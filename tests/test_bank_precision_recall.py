"""The precision-recall pack (questions/precision-recall.yaml): every key recomputed from its
definition here (fractions; tie orders enumerated; Q-measure and GAP written out from Sakai 2007
and Robertson, Kanoulas & Yilmaz 2010), scikit-learn's numbers from
tests/fixtures/retrieval_sklearn.json (made by tests/retrieval_sklearn_reference.py), and the
choice questions free of length and wording cues."""

from __future__ import annotations

import json
from fractions import Fraction as F
from itertools import permutations
from pathlib import Path

import pytest

from drills.generators import REGISTRY
from tests.experiments_bank import load

RAW = load("precision-recall")
Q = {q["id"]: q for q in RAW["questions"]}
SKLEARN = json.loads((Path(__file__).parent / "fixtures" / "retrieval_sklearn.json").read_text())["fixed"]


def precision_at(labels, k):
    return F(sum(labels[:k]), k)


def ap(labels, r):
    return sum((precision_at(labels, i + 1) for i, y in enumerate(labels) if y), F(0)) / r


def all_tied_trapezoid(n, positives):
    """Two points, (0, 1) and (1, positives/n), joined by a straight line."""
    return (1 + F(positives, n)) / 2


def eleven_point(labels, r):
    points = [(F(sum(labels[:k]), r), precision_at(labels, k)) for k in range(1, len(labels) + 1)]
    levels = [F(i, 10) for i in range(11)]
    return sum((max((p for rec, p in points if rec >= lv), default=F(0)) for lv in levels), F(0)) / 11


def f1_at(hits_at, k, r):
    h = sum(1 for x in hits_at if x <= k)
    p, rec = F(h, k), F(h, r)
    return 2 * p * rec / (p + rec)


def expected_rr_with_tie(before, tied, relevant_in_tie=1):
    """Enumerate every order of the tied group that follows ``before`` non-relevant documents."""
    group = [1] * relevant_in_tie + [0] * (tied - relevant_in_tie)
    orders = list(permutations(range(tied)))
    total = F(0)
    for order in orders:
        ranked = [0] * before + [group[i] for i in order]
        total += F(1, ranked.index(1) + 1)
    return total / len(orders)


def q_measure(run, pool, beta=1):
    ideal = sorted(pool, reverse=True)
    r_total = sum(1 for g in pool if g > 0)
    total, c, cg, cg_star = F(0), 0, 0, 0
    for r, g in enumerate(run, 1):
        cg += g
        cg_star += ideal[r - 1] if r <= len(ideal) else 0
        if g > 0:
            c += 1
            total += F(c + beta * cg, r + beta * cg_star)
    return total / r_total


def gap(run, pool, threshold_probs):
    """Robertson et al.'s GAP, as an expectation over pairs: G(c) = P(threshold <= c)."""
    def g_cum(c):
        return sum(threshold_probs[:c], F(0))
    rel = [(n, c) for n, c in enumerate(run, 1) if c > 0]
    num = sum((F(1, n) * sum((g_cum(min(cm, cn)) for m, cm in rel if m <= n), F(0)) for n, cn in rel), F(0))
    return num / sum((g_cum(c) for c in pool if c > 0), F(0))


KEYS = {
    "pr-sklearn-all-tied": all_tied_trapezoid(10, 2),
    "pr-eleven-point": eleven_point([1, 0, 1, 0, 0, 1], 4),
    "pr-f1-at-k": f1_at([1, 3, 4, 9], 10, 5),
    "pr-ties-rr": expected_rr_with_tie(1, 4),
    "pr-q-measure": q_measure([2, 0, 3, 1], [3, 2, 1, 1]),
    "pr-gap": gap([1, 2, 0, 2], [2, 2, 1], [F(1, 4), F(3, 4)]),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_fixed_answer(qid):
    assert F(Q[qid]["answer"]) == KEYS[qid]


def test_every_fixed_numeric_question_is_keyed():
    fixed = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric" and "answer" in q}
    assert fixed == set(KEYS)


def test_scikit_learn_agrees_on_the_all_tied_scorer():
    assert SKLEARN["pr-sklearn-all-tied"]["trapezoid"] == pytest.approx(float(KEYS["pr-sklearn-all-tied"]))
    assert SKLEARN["pr-sklearn-all-tied"]["ap"] == pytest.approx(2 / 10)  # the positive rate


def test_pessimistic_tie_problem_and_its_neighbours():
    q = Q["pr-ties-ap-pessimistic"]
    labels = q["problem"]["relevance"]
    assert labels == [1, 0, 0, 0, 1, 1] and q["metric"] == "ap"
    # every order of the three tied documents at ranks 3-5
    values = {ap([1, 0, *order, 1], 3) for order in set(permutations([1, 0, 0]))}
    assert min(values) == ap(labels, 3) == F(19, 30)
    assert round(float(max(values)), 2) == 0.72 and round(float(max(values) - min(values)), 2) == 0.09
    # scikit-learn's one-threshold treatment: the group's recall step at the precision after it
    assert F(1, 3) * 1 + F(1, 3) * F(2, 5) + F(1, 3) * F(3, 6) == ap(labels, 3)


def test_numbers_the_explanations_quote():
    assert eleven_point([1, 0, 1, 0, 0, 1], 4) > 0 and ap([1, 0, 1, 0, 0, 1], 4) < KEYS["pr-eleven-point"]
    assert (F(4, 10) + F(4, 5)) / 2 == F(3, 5)  # the arithmetic-mean slip of pr-f1-at-k
    assert round(float(KEYS["pr-q-measure"]), 3) == 0.586
    assert q_measure([2, 0, 3, 1], [3, 2, 1, 1], beta=0) == ap([1, 0, 1, 1], 4)  # beta 0 is AP
    assert gap([1, 2, 0, 2], [2, 2, 1], [F(1), F(0)]) == ap([1, 1, 0, 1], 3)  # G = 1 for all: AP
    assert gap([1, 2, 0, 2], [2, 2, 1], [F(0), F(1)]) == ap([0, 1, 0, 1], 2)  # top grade only
    assert F(1, 2) < F(3, 5)  # pr-interpolated-shape: the later point is higher


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
