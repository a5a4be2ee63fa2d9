"""The judging-at-scale pack (questions/judging-at-scale.yaml): every key recomputed here from its
definition (Cohen's kappa and Kendall's tau by counting, Horvitz-Thompson and statAP in
fractions, probabilistic interleaving's softmax, team-draft enumerated), the library numbers
from tests/fixtures/judging_reference.json (made by tests/judging_scipy_reference.py with scipy
and scikit-learn), and the choice questions free of length and wording cues."""

from __future__ import annotations

import json
import math
from fractions import Fraction as F
from itertools import combinations, product
from pathlib import Path

import pytest

from tests.experiments_bank import (
    coarse_tolerances,
    evaluate,
    load,
)

RAW = load("judging-at-scale")
Q = {q["id"]: q for q in RAW["questions"]}
REF = json.loads((Path(__file__).parent / "fixtures" / "judging_reference.json").read_text())

HUMAN = {"A": F("0.314"), "B": F("0.298"), "C": F("0.285"), "D": F("0.264"), "E": F("0.253"),
         "F": F("0.240")}
LLM = {"A": F("0.341"), "B": F("0.322"), "C": F("0.335"), "D": F("0.290"), "E": F("0.305"),
       "F": F("0.281")}


def kappa(both_rel, both_non, human_only, llm_only):
    """Cohen (1960): (p_o - p_e) / (1 - p_e), p_e from each judge's own label rates."""
    n = both_rel + both_non + human_only + llm_only
    p_o = F(both_rel + both_non, n)
    human_rel, llm_rel = F(both_rel + human_only, n), F(both_rel + llm_only, n)
    p_e = human_rel * llm_rel + (1 - human_rel) * (1 - llm_rel)
    return (p_o - p_e) / (1 - p_e)


def kendall_tau(x, y):
    """(concordant - discordant) / pairs, counted; no ties in these columns."""
    c = d = 0
    for a, b in combinations(sorted(x), 2):
        s = (x[a] - x[b]) * (y[a] - y[b])
        c += s > 0
        d += s < 0
    return F(c - d, c + d)


def horvitz_thompson(pis):
    return sum((1 / p for p in pis), F(0))


def stat_ap(run, r_hat):
    """run: (sampled, relevant, pi) per rank. PC(r) and statAP as the prompt defines them."""
    def pc(r):
        return sum((1 / pi for s, rel, pi in run[:r] if s and rel), F(0)) / r
    return sum((pc(r) / pi for r, (s, rel, pi) in enumerate(run, 1) if s and rel), F(0)) / r_hat


def softmax_ranks(ranking, tau):
    w = [F(1, r ** tau) for r in range(1, len(ranking) + 1)]
    return {d: x / sum(w) for d, x in zip(ranking, w, strict=True)}


def team_draft(a, b, coins):
    """Radlinski et al. 2008, in rounds: each round's coin says who drafts first."""
    shown, team = [], {}
    for first in coins:
        for who in (first, "b" if first == "a" else "a"):
            ranking = a if who == "a" else b
            pick = next((d for d in ranking if d not in shown), None)
            if pick is not None:
                shown.append(pick)
                team[pick] = who
    return shown, team


STATAP_RUN = [(True, True, F(1)), (False, None, F(1, 2)), (True, True, F(3, 4)),
              (True, False, F(1, 4))]

KEYS = {
    "js-cohen-kappa": kappa(40, 35, 10, 15),
    "js-kendall-tau": kendall_tau(HUMAN, LLM),
    "js-horvitz-thompson-r": horvitz_thompson([F(1)] * 3 + [F(1, 2)] * 2 + [F(1, 10)]),
    "js-statap": stat_ap(STATAP_RUN, F(4)),
    "js-probabilistic-interleaving": (softmax_ranks("abc", 3)["b"] + softmax_ranks("bca", 3)["b"]) / 2,
    "js-tukey-hsd": F("4.0622") * math.sqrt(F(1, 100) / 50),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_fixed_answer(qid):
    assert evaluate(Q[qid]["answer"]) == pytest.approx(float(KEYS[qid]), abs=1e-12)


def test_every_fixed_numeric_question_is_keyed():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(KEYS)


def test_the_libraries_agree():
    assert REF["js-kendall-tau"] == pytest.approx(float(KEYS["js-kendall-tau"]))
    assert REF["js-cohen-kappa"] == pytest.approx(float(KEYS["js-cohen-kappa"]))
    assert REF["js-kappa-prevalence"] == pytest.approx(float(kappa(5, 85, 5, 5)))
    # the q the prompt quotes is scipy's, to the 4 decimals it shows
    assert round(REF["js-tukey-hsd"]["q"], 4) == 4.0622
    assert round(REF["js-tukey-hsd"]["t"], 3) == 1.970


def test_numbers_the_explanations_quote():
    # kappa: p_o 0.75, p_e 0.5
    assert kappa(40, 35, 10, 15) == F(1, 2)
    # the prevalence case: p_e 0.82, kappa 4/9 (about 0.44), and the tempting options
    assert kappa(5, 85, 5, 5) == F(4, 9) and round(float(F(4, 9)), 2) == 0.44
    assert F(1, 10) ** 2 + F(9, 10) ** 2 == F(82, 100)
    assert (F(9, 10) - F(1, 2)) / F(1, 2) == F(4, 5)  # the coin-flip slip option, 0.80
    # tau: B/C and D/E are the only discordant pairs
    swapped = {(a, b) for a, b in combinations(sorted(HUMAN), 2)
               if (HUMAN[a] - HUMAN[b]) * (LLM[a] - LLM[b]) < 0}
    assert swapped == {("B", "C"), ("D", "E")}
    # statAP: PC(3) = 7/9; the sum 55/27; plain AP with d2 non-relevant and R = 2 is 5/6
    assert sum((1 / pi for s, rel, pi in STATAP_RUN[:3] if s and rel), F(0)) / 3 == F(7, 9)
    assert KEYS["js-statap"] * 4 == F(55, 27)
    assert (1 + F(2, 3)) / 2 == F(5, 6)
    # probabilistic interleaving: weights sum to 251/216
    assert sum(F(1, r ** 3) for r in (1, 2, 3)) == F(251, 216)
    # Tukey: about 0.057; the unadjusted bar about 0.039; 15 pairs of six systems
    assert round(float(KEYS["js-tukey-hsd"]), 3) == 0.057
    assert round(1.970 * math.sqrt(2 * 0.01 / 50), 3) == 0.039
    assert len(list(combinations(range(6), 2))) == 15 and (6 - 1) * (50 - 1) == 245
    assert len(list(combinations(range(12), 2))) == 66  # js-explain-many-systems


def test_team_draft_fidelity_example():
    """The concept's explanation: X = [a, b, c], Y = [b, c, a], a click on c only. Each
    ranker drafts c in half of the coin sequences, although Y ranks c higher."""
    credits = []
    for coins in product("ab", repeat=2):
        shown, team = team_draft("abc", "bca", coins)
        assert set(shown) == {"a", "b", "c"}
        credits.append(team["c"])
    assert credits.count("a") == credits.count("b") == 2


def test_no_duplicate_of_the_existing_interleaving_and_infap_questions():
    """Team-draft by hand and infAP are worked in online-evaluation and incomplete-judgements."""
    others = {q["prompt"] for stem in ("online-evaluation", "incomplete-judgements", "significance")
              for q in load(stem)["questions"]}
    assert not others & {q["prompt"] for q in RAW["questions"]}
    assert not any("team-draft" in q["prompt"].lower() and q["kind"] == "numeric"
                   for q in RAW["questions"])


def test_stated_decimals_are_what_the_tolerance_accepts():
    """A prompt asking for D decimal places gets a tolerance of half a unit there, so the
    default relative tolerance cannot accept a coarser answer."""
    assert coarse_tolerances(RAW["questions"], KEYS) == []
