"""The beyond-accuracy pack (questions/beyond-accuracy.yaml): every key recomputed here from the
definition its prompt states (fractions; xQuAD after Santos et al. 2010, PM-2's Sainte-Lague
quotient after Dang & Croft 2012, the 2x2 DPP determinant, Steck's KL, exposure under a
position-based model, the Gini coefficient, EPC and ILD after Vargas & Castells 2011), and the
choice questions free of length and wording cues. No drills engine is used for the keys."""

from __future__ import annotations

import math
import re
from fractions import Fraction as F
from itertools import combinations

import pytest

from tests.experiments_bank import (
    coarse_tolerances,
    evaluate,
    load,
)

RAW = load("beyond-accuracy")
Q = {q["id"]: q for q in RAW["questions"]}


def xquad(lam, p_aspect, p_doc_q, p_doc_aspect, selected):
    """f(d) = (1 - lam) P(d|q) + lam sum_i P(q_i|q) P(d|q_i) prod_s (1 - P(s|q_i))."""
    div = F(0)
    for a, pa in p_aspect.items():
        left = F(1)
        for s in selected:
            left *= 1 - s[a]
        div += pa * p_doc_aspect[a] * left
    return (1 - lam) * p_doc_q + lam * div


def genre_distribution(items):
    """Each item spreads weight 1 equally over its genres; the mean over items."""
    out: dict[str, F] = {}
    for genres in items:
        for g in genres:
            out[g] = out.get(g, F(0)) + F(1, len(genres))
    return {g: v / len(items) for g, v in out.items()}


def kl(p, q):
    return sum(float(p[g]) * math.log(p[g] / q[g]) for g in p if p[g] > 0)


def attention(j):
    return 1 / math.log2(1 + j)


def gini(x):
    n = len(x)
    return sum((abs(a - b) for a in x for b in x), F(0)) / (2 * n * sum(x))


def exposures(lists, weights, catalogue):
    out = {i: F(0) for i in catalogue}
    for lst in lists:
        for item, w in zip(lst, weights, strict=True):
            out[item] += w
    return out


def epc(items, disc):
    """Vargas & Castells' EPC: C sum_k disc(k) rel(i_k) (1 - p(seen|i_k)), C = 1/sum disc."""
    ds = [disc(k) for k in range(1, len(items) + 1)]
    return sum((d * rel * (1 - seen) for d, (rel, seen) in zip(ds, items, strict=True)), F(0)) / sum(ds, F(0))


def jaccard_distance(a, b):
    return 1 - F(len(a & b), len(a | b))


def ild(items):
    pairs = list(combinations(items, 2))
    return sum((jaccard_distance(a, b) for a, b in pairs), F(0)) / len(pairs)


D1 = {"q1": F(9, 10), "q2": F(1, 10)}
ASPECTS = {"q1": F(3, 5), "q2": F(2, 5)}
HISTORY = [{"drama"}, {"drama", "comedy"}, {"comedy"}, {"drama"}]
SHOWN = [{"drama"}, {"drama", "comedy"}]
EXPOSURE = exposures([["a", "b"], ["a", "c"], ["b", "a"]], [F(1), F(1, 2)], "abcd")
EPC_LIST = [(1, F(1, 2)), (0, F(1, 10)), (1, F(1, 50))]  # (relevant, share of users who saw it)

KEYS = {
    "ba-xquad-step": xquad(F(1, 2), ASPECTS, F(1, 2), {"q1": F(1, 10), "q2": F(4, 5)}, [D1]),
    "ba-calibration-kl": kl(genre_distribution(HISTORY), genre_distribution(SHOWN)),
    "ba-exposure-ratio": (attention(3) + attention(4)) / (attention(1) + attention(2)),
    "ba-gini-exposure": gini(list(EXPOSURE.values())),
    "ba-epc": epc(EPC_LIST, lambda k: F(1, k)),
    "ba-ild": ild([{"action", "sci-fi"}, {"action"}, {"romance"}]),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_fixed_answer(qid):
    assert _value(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-12)


def _value(expr: str) -> float:
    """The answer as a float: ln and log2 calls replaced by their values, then the shared
    evaluator (numbers and + - * /)."""
    def call(m: re.Match) -> str:
        f = math.log if m.group(1) == "ln" else math.log2
        return repr(f(evaluate(m.group(2))))
    return evaluate(re.sub(r"(ln|log2)\(([0-9/]+)\)", call, expr))


def test_every_fixed_numeric_question_is_keyed():
    fixed = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"}
    assert fixed == set(KEYS)


def test_tolerances_accept_the_key_and_reject_the_slips():
    # the stated decimals are enough and the tolerance excludes the usual slips
    assert Q["ba-calibration-kl"]["tolerance"]["absolute"] < abs(KEYS["ba-calibration-kl"] / math.log(2)
                                                                 - KEYS["ba-calibration-kl"])
    reverse = kl(genre_distribution(SHOWN), genre_distribution(HISTORY))  # KL(q, p)
    assert abs(reverse - KEYS["ba-calibration-kl"]) > 0.001
    no_product = xquad(F(1, 2), ASPECTS, F(1, 2), {"q1": F(1, 10), "q2": F(4, 5)}, [])
    assert abs(no_product - KEYS["ba-xquad-step"]) > F(1, 100)


def test_numbers_the_explanations_quote():
    # xQuAD: d2 scores 377/1000 and loses to d3
    d2 = xquad(F(1, 2), ASPECTS, F(7, 10), {"q1": F(9, 10), "q2": F(0)}, [D1])
    assert d2 == F(377, 1000) < KEYS["ba-xquad-step"]
    assert KEYS["ba-xquad-step"] - F(1, 4) == F(147, 1000)
    # calibration: p and q as stated, about 0.0381
    assert genre_distribution(HISTORY) == {"drama": F(5, 8), "comedy": F(3, 8)}
    assert genre_distribution(SHOWN) == {"drama": F(3, 4), "comedy": F(1, 4)}
    assert round(KEYS["ba-calibration-kl"], 4) == 0.0381
    # exposure: about 0.571; merit ratio 0.75 / 0.85 = 15/17, about 0.88
    assert round(KEYS["ba-exposure-ratio"], 3) == 0.571 and F(75, 85) == F(15, 17)
    # Gini: exposures, the pair sum 17 and 2 n sum x = 36; without d it is lower
    assert EXPOSURE == {"a": F(5, 2), "b": F(3, 2), "c": F(1, 2), "d": F(0)}
    assert sum((abs(a - b) for a in EXPOSURE.values() for b in EXPOSURE.values()), F(0)) == 17
    assert gini([F(5, 2), F(3, 2), F(1, 2)]) < KEYS["ba-gini-exposure"]
    # EPC: 6/11 x 62/75; the plain mean popularity complement is about 0.79
    assert KEYS["ba-epc"] == F(6, 11) * F(62, 75)
    assert round(float((F(1, 2) + F(9, 10) + F(49, 50)) / 3), 2) == 0.79


def test_pm2_quotients():
    v, s = (F(7, 10), F(3, 10)), (F(3, 2), F(1, 2))
    qt = [vi / (2 * si + 1) for vi, si in zip(v, s, strict=True)]
    assert qt == [F(7, 40), F(3, 20)] and qt[0] > qt[1]
    # the shortfalls against the proportional share of three seats
    assert (3 * v[0] - s[0], 3 * v[1] - s[1]) == (F(3, 5), F(2, 5))
    # the tempting reading: t2 holds 25% of the seats against a 30% vote
    assert s[1] / sum(s) == F(1, 4) < v[1]
    correct = [o["text"] for o in Q["ba-pm2-next-seat"]["options"] if o.get("correct")][0]
    assert correct.startswith("t1")


def test_dpp_pair():
    q = {"a": F(9, 10), "b": F(4, 5), "c": F(3, 5)}
    sim = {("a", "b"): F(9, 10), ("a", "c"): F(1, 10), ("b", "c"): F(1, 5)}
    det = {p: q[p[0]] ** 2 * q[p[1]] ** 2 * (1 - s ** 2) for p, s in sim.items()}
    # the 2x2 determinant of diag(q) S diag(q), written out
    for (i, j), s in sim.items():
        assert det[(i, j)] == (q[i] ** 2) * (q[j] ** 2) - (q[i] * s * q[j]) ** 2
    assert max(det, key=det.get) == ("a", "c")
    assert [round(float(det[p]), 2) for p in sim] == [0.10, 0.29, 0.22]
    correct = [o["text"] for o in Q["ba-dpp-pair"]["options"] if o.get("correct")][0]
    assert correct.startswith("{a, c}")


def test_no_duplicate_of_the_diversity_pack():
    """MMR and catalogue coverage are worked in questions/diversity.yaml; not again here."""
    diversity = load("diversity")
    prompts = {q["prompt"] for q in diversity["questions"]}
    assert not prompts & {q["prompt"] for q in RAW["questions"]}
    assert not any("sim(q, d" in q["prompt"] for q in RAW["questions"])


def test_stated_decimals_are_what_the_tolerance_accepts():
    """A prompt asking for D decimal places gets a tolerance of half a unit there, so the
    default relative tolerance cannot accept a coarser answer."""
    assert coarse_tolerances(RAW["questions"], KEYS) == []
