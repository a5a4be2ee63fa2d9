"""ads-calibration, ads-auc, pr-area and sampled-softmax: every answer against an independent
computation from the data read back out of the prompt (written out again here, per impression
or by ranks, not by the generator's own formulas), and against scikit-learn's numbers stored by
tests/retrieval_sklearn_reference.py in tests/fixtures/retrieval_sklearn.json."""

from __future__ import annotations

import json
import math
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from drills.answers.parser import parse
from drills.generators import REGISTRY
from drills.grading.check import check
from drills.model import Question

SEEDS = range(30)
SKLEARN = json.loads((Path(__file__).parent / "fixtures" / "retrieval_sklearn.json").read_text())
STORED = {(r["generator"], r["seed"]): r for r in SKLEARN["generated"]}


def make(name: str, ask: str, seed: int) -> Question:
    t = Question(id=f"t-{name}", topic=REGISTRY[name].topic, kind="generated", prompt="",
                 generator=name, params={"ask": ask})
    g = REGISTRY[name]
    return g.make(t, g.resolved({"ask": ask}), random.Random(seed))


def value(q: Question) -> float:
    return float(parse(q.answer).value)


# ------------------------------------------------------------------ ads-calibration

def buckets_of(prompt: str) -> list[tuple[Fraction, int, int]]:
    rows = re.findall(r"^\s+\d+\s+(\d+/\d+)\s+(\d+)\s+(\d+)\s*$", prompt, re.M)
    return [(Fraction(p), int(n), int(c)) for p, n, c in rows]


def impressions(buckets):
    """One (prediction, label) per impression."""
    return [(p, 1) for p, n, c in buckets for _ in range(c)] + \
           [(p, 0) for p, n, c in buckets for _ in range(n - c)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["calibration", "logloss", "ne"])
def test_calibration_logloss_ne_per_impression(ask, seed):
    q = make("ads-calibration", ask, seed)
    imps = impressions(buckets_of(q.prompt))
    assert len(buckets_of(q.prompt)) == 3
    ys = [y for _, y in imps]
    ll = -sum(y * math.log(p) + (1 - y) * math.log(1 - p) for p, y in imps) / len(imps)
    ctr = sum(ys) / len(ys)
    base = -(ctr * math.log(ctr) + (1 - ctr) * math.log(1 - ctr))
    want = {"calibration": sum(float(p) for p, _ in imps) / sum(ys), "logloss": ll, "ne": ll / base}[ask]
    assert value(q) == pytest.approx(want, abs=1e-12)
    assert value(q) == pytest.approx(STORED[("ads-calibration", seed)][ask], abs=1e-9)
    if ask != "calibration":
        assert "4 decimal places" in q.prompt and q.tolerance.absolute == 0.00005
        assert check(q, f"{want:.4f}").correct and not check(q, f"{want + 0.0002:.4f}").correct


def test_ne_is_the_same_in_bits():
    q = make("ads-calibration", "ne", 1)
    imps = impressions(buckets_of(q.prompt))
    ys = [y for _, y in imps]
    ctr = sum(ys) / len(ys)
    ll2 = -sum(y * math.log2(p) + (1 - y) * math.log2(1 - p) for p, y in imps) / len(imps)
    assert ll2 / -(ctr * math.log2(ctr) + (1 - ctr) * math.log2(1 - ctr)) == pytest.approx(value(q))


# ------------------------------------------------------------------ ads-auc

def users_of(prompt: str) -> list[list[tuple[float, int]]]:
    out = []
    for line in re.findall(r"^\s+user [A-C]: (.*)$", prompt, re.M):
        out.append([(float(x.rstrip("*")), int(x.endswith("*"))) for x in line.split(", ")])
    return out


def auc_by_ranks(pairs):
    """Mann-Whitney U from mid-ranks: (sum of positives' ranks - P(P+1)/2) / (P N)."""
    order = sorted(s for s, _ in pairs)
    rank = {s: Fraction(sum(i + 1 for i, t in enumerate(order) if t == s), order.count(s)) for s in order}
    pos = [s for s, y in pairs if y]
    neg = len(pairs) - len(pos)
    return (sum(rank[s] for s in pos) - Fraction(len(pos) * (len(pos) + 1), 2)) / (len(pos) * neg)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["auc", "gauc"])
def test_auc_and_gauc_by_ranks(ask, seed):
    q = make("ads-auc", ask, seed)
    users = users_of(q.prompt)
    assert len(users) == 3
    if ask == "auc":
        want = auc_by_ranks([x for u in users for x in u])
    else:
        both = [u for u in users if 0 < sum(y for _, y in u) < len(u)]
        assert len(both) < 3  # one user is all non-clicks: GAUC leaves it out
        want = sum(len(u) * auc_by_ranks(u) for u in both) / sum(len(u) for u in both)
    assert value(q) == pytest.approx(float(want), abs=1e-12)
    assert value(q) == pytest.approx(STORED[("ads-auc", seed)][ask], abs=1e-9)


# ------------------------------------------------------------------ pr-area

def items_of(prompt: str) -> list[tuple[float, int]]:
    line = re.search(r"highest first:\n\s+(.*)", prompt).group(1)
    return [(float(x.rstrip("*")), int(x.endswith("*"))) for x in line.split(", ")]


def ap_by_groups(items):
    """Walk the tie groups: each group adds (its positives / P) x precision after the group."""
    pos = sum(y for _, y in items)
    total, seen, hits = Fraction(0), 0, 0
    for s in sorted({s for s, _ in items}, reverse=True):
        group = [y for t, y in items if t == s]
        seen, hits = seen + len(group), hits + sum(group)
        total += Fraction(sum(group), pos) * Fraction(hits, seen)
    return total


def trapezoid_by_groups(items):
    pos = sum(y for _, y in items)
    total, seen, hits, prev = Fraction(0), 0, 0, Fraction(1)
    for s in sorted({s for s, _ in items}, reverse=True):
        group = [y for t, y in items if t == s]
        seen, hits = seen + len(group), hits + sum(group)
        now = Fraction(hits, seen)
        total += Fraction(sum(group), pos) * (prev + now) / 2
        prev = now
    return total


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["ap", "trapezoid"])
def test_pr_area_against_scikit_learn(ask, seed):
    q = make("pr-area", ask, seed)
    items = items_of(q.prompt)
    assert len(items) == 8 and len({s for s, _ in items}) == 7
    want = ap_by_groups(items) if ask == "ap" else trapezoid_by_groups(items)
    assert value(q) == pytest.approx(float(want), abs=1e-12)
    assert value(q) == pytest.approx(STORED[("pr-area", seed)][ask], abs=1e-9)


def test_pr_area_without_ties_is_the_precision_at_each_positive():
    """No tie: step AP = mean of P@k over the positives' ranks (the IR definition)."""
    items = [(0.9, 1), (0.8, 0), (0.7, 1), (0.6, 0), (0.5, 1)]
    assert ap_by_groups(items) == (1 + Fraction(2, 3) + Fraction(3, 5)) / 3


# ------------------------------------------------------------------ sampled-softmax

def batch_of(prompt: str) -> list[tuple[int, Fraction]]:
    rows = re.findall(r"^\s+(?:pos|n\d)\s+(\d+)\s+(\d+/\d+)\s*$", prompt, re.M)
    return [(int(s), Fraction(q)) for s, q in rows]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["probability", "loss"])
def test_sampled_softmax_with_log_q(ask, seed):
    q = make("sampled-softmax", ask, seed)
    batch = batch_of(q.prompt)
    assert len(batch) == 4
    corrected = [s - math.log(p) for s, p in batch]
    top = max(corrected)
    prob = math.exp(corrected[0] - top) / sum(math.exp(c - top) for c in corrected)
    want = prob if ask == "probability" else -math.log(prob)
    assert value(q) == pytest.approx(want, abs=1e-12)
    assert check(q, f"{want:.4f}").correct


@pytest.mark.parametrize("name,ask", [("ads-calibration", "ne"), ("ads-auc", "gauc"),
                                      ("pr-area", "trapezoid"), ("sampled-softmax", "loss")])
def test_deterministic_for_a_seed(name, ask):
    assert make(name, ask, 7) == make(name, ask, 7)
    assert make(name, ask, 7).prompt != make(name, ask, 8).prompt


def test_the_reference_file_is_from_scikit_learn():
    assert SKLEARN["sklearn"].startswith("1.") and len(SKLEARN["generated"]) == 3 * len(SEEDS)
