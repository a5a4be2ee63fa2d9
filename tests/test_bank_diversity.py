"""The diversity pack: every number it states, recomputed from first principles.

alpha-nDCG follows Clarke et al. (SIGIR 2008): the gain of the document at rank k sums
(1 - alpha)^m over its subtopics (m = how often the subtopic was covered above k), the
discount is log2(1 + k), and the ideal is built greedily as ndeval.c's idealResult()
does. Intent-aware metrics weight a per-intent metric by P(intent|query) (Agrawal et al.,
WSDM 2009). pyndeval (the Python wrapper of TREC's ndeval.c) is run where it installs.
Claims that cannot be run carry their source in a comment in questions/diversity.yaml.
"""

from __future__ import annotations

import itertools
import math
import re
from decimal import Decimal
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "diversity.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
Q = {q["id"]: q for q in RAW["questions"]}
HALF = F(1, 2)

# The judged pool most questions use: each document's subtopics.
POOL = {"A": {1, 2, 3}, "B": {1, 2}, "C": {3, 4}, "D": {1}, "E": set()}


def value(expr: str) -> float:
    """An `answer:` expression of the pack (our own file: numbers, + - * / ^, log2)."""
    assert re.fullmatch(r"[0-9a-z/*+\-^(). ]+", expr), expr
    return eval(expr.replace("^", "**"), {"__builtins__": {}}, {"log2": math.log2})  # noqa: S307


def gains(ranking, docs=POOL, alpha=HALF):
    """alpha-nDCG gains: each subtopic earns (1 - alpha)^(times covered above)."""
    seen: dict[int, int] = {}
    out = []
    for d in ranking:
        out.append(sum(((1 - alpha) ** seen.get(s, 0) for s in docs[d]), F(0)))
        for s in docs[d]:
            seen[s] = seen.get(s, 0) + 1
    return out


def dcg(values) -> float:
    return sum(float(g) / math.log2(i + 2) for i, g in enumerate(values))


def greedy_ideal(docs=POOL, k=None, alpha=HALF, strict=True):
    """ndeval's idealResult(): at each rank the document with the largest gain so far."""
    left, chosen = sorted(docs), []
    for _ in range(k or len(docs)):
        best = max(left, key=lambda d: (gains(chosen + [d], docs, alpha)[-1], d))
        top = gains(chosen + [best], docs, alpha)[-1]
        if strict:  # the pack's pool has no ties, so the ideal does not depend on tie-breaking
            assert [d for d in left if gains(chosen + [d], docs, alpha)[-1] == top] == [best]
        chosen.append(best)
        left.remove(best)
    return chosen


def alpha_ndcg(ranking, k, docs=POOL, alpha=HALF) -> float:
    ideal = greedy_ideal(docs, k, alpha, strict=docs is POOL)
    return dcg(gains(ranking[:k], docs, alpha)) / dcg(gains(ideal, docs, alpha))


def err(labels, r=HALF):
    """ERR of binary labels with R = 1/2 for a relevant document (g_max = 1)."""
    total, still = F(0), F(1)
    for i, rel in enumerate(labels, start=1):
        p = r if rel else F(0)
        total += still * p / i
        still *= 1 - p
    return total


def test_pack_loads_with_enough_questions_and_kinds():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) >= 20
    kinds = {q.kind for q in pack.questions}
    assert len(kinds) >= 3 and {"numeric", "choice", "concept"} <= kinds
    assert len({q["difficulty"] for q in RAW["questions"]}) >= 2
    assert all(q["topic"] == "diversity" and q["id"].startswith("div-") for q in RAW["questions"])


# ------------------------------------------------------------------ alpha-nDCG


def test_alpha_gain_of_a_at_rank_3():
    assert gains(["C", "B", "A"])[2] == F(3, 2) == value(Q["div-alpha-gain"]["answer"])
    assert gains(["A"])[0] == 3  # ranked first it would earn 3


def test_alpha_dcg_at_4():
    run = ["B", "D", "A", "C"]
    assert gains(run) == [2, F(1, 2), F(7, 4), F(3, 2)]  # the explanation's gains
    got = dcg(gains(run))
    assert value(Q["div-alpha-dcg"]["answer"]) == pytest.approx(got, abs=1e-12)
    assert f"{got:.4f}" == "3.8365"
    assert gains(["B", "D"])[1] == gains(["D"])[0] / 2  # D keeps half its standalone gain


def test_alpha_ndcg_at_3_with_the_greedy_ideal():
    ideal = greedy_ideal(k=3)
    assert ideal == ["A", "C", "B"] and gains(ideal) == [3, F(3, 2), 1]
    assert gains(["A", "C"])[1] == F(3, 2) and gains(["A", "B"])[1] == 1  # C beats B at rank 2
    assert len(POOL["B"]) == len(POOL["C"]) == 2  # though they tie standalone
    assert gains(["B", "D", "A"]) == [2, F(1, 2), F(7, 4)]
    # the greedy ideal is the exact optimum here (brute force over every ordered top 3)
    best = max(dcg(gains(p)) for p in itertools.permutations(POOL, 3))
    assert best == pytest.approx(dcg(gains(ideal)), abs=1e-12)
    got = alpha_ndcg(["B", "D", "A"], 3)
    assert value(Q["div-alpha-ndcg"]["answer"]) == pytest.approx(got, abs=1e-12)
    assert f"{got:.4f}" == "0.7175"


def test_alpha_zero_is_dcg_with_linear_gain_subtopic_count():
    q = Q["div-alpha-zero"]
    run = ["B", "D", "A", "C"]
    counts = [len(POOL[d]) for d in run]
    assert gains(run, alpha=F(0)) == counts == q["problem"]["relevance"] == [2, 1, 3, 2]
    linear = sum(g / math.log2(i + 2) for i, g in enumerate(counts))
    assert value(q["answer"]) == pytest.approx(linear, abs=1e-12)
    exponential = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(counts))
    assert abs(exponential - linear) > 0.5  # the exponential-gain slip is told apart


def test_alpha_one_counts_only_the_first_coverage():
    assert gains(["B", "D", "A", "C"], alpha=F(1)) == [2, 0, 1, 1]
    assert gains(["B", "B2"], {"B": {1, 2}, "B2": {1, 2}}, alpha=HALF) == [2, 1]  # alpha 1/2 halves


def test_srecall_at_3():
    covered = set().union(*(POOL[d] for d in ["B", "A", "D"]))
    assert F(len(covered), 4) == F(3, 4) == value(Q["div-srecall"]["answer"])
    assert all(POOL[d] for d in ["B", "A", "D"])  # P@3 = 1: all three relevant


def test_srecall_denominator_counts_judged_subtopics():
    # s5 listed but never judged relevant: ndeval's actualSubtopics is 4
    options = {o["text"]: o for o in Q["div-srecall-denominator"]["options"]}
    assert options["3/4"].get("correct") is True
    assert F(3, 4) == F(len({1, 2, 3}), len({1, 2, 3, 4}))


def test_ideal_order_choice_names_greedy():
    [right] = [o for o in Q["div-ideal-greedy"]["options"] if o.get("correct")]
    assert right["text"].startswith("Greedily")
    # sorting by standalone subtopic count puts B (or C) second; the greedy ideal differs from A, B, ...
    assert dcg(gains(["A", "B", "C", "D"])) < dcg(gains(greedy_ideal(k=4)))


def test_redundancy_choice_numbers():
    docs = {"X1": {1}, "X2": {1}, "Y": {2}}
    grades = {"X1": 2, "X2": 2, "Y": 1}
    p, q = ["X1", "X2", "Y"], ["X1", "Y", "X2"]

    def ndcg(order):
        ideal = sorted(grades.values(), reverse=True)
        return dcg([2 ** grades[d] - 1 for d in order]) / dcg([2 ** g - 1 for g in ideal])

    assert ndcg(p) == 1 and f"{ndcg(q):.4f}" == "0.9514"
    assert f"{alpha_ndcg(p, 3, docs):.4f}" == "0.9652" and alpha_ndcg(q, 3, docs) == pytest.approx(1)
    assert gains(p, docs)[1] == HALF
    [right] = [o for o in Q["div-redundancy-ndcg"]["options"] if o.get("correct")]
    assert right["text"] == "NDCG@3 prefers P; alpha-nDCG@3 prefers Q"


# ------------------------------------------------------------------ intent-aware


JAGUAR_P = {"car": F(1, 2), "animal": F(3, 10), "os": F(1, 5)}
JAGUAR_REL = {"d1": {"car"}, "d2": {"car"}, "d3": {"animal"}}


def err_ia(ranking):
    return sum(JAGUAR_P[t] * err([t in JAGUAR_REL[d] for d in ranking]) for t in JAGUAR_P)


def test_err_ia_at_3():
    assert sum(JAGUAR_P.values()) == 1
    assert F(2 ** 1 - 1, 2 ** 1) == HALF  # R of a relevant document, g_max = 1
    ranking = ["d1", "d3", "d2"]
    assert err([True, False, True]) == F(7, 12) and err([False, True, False]) == F(1, 4)
    assert err_ia(ranking) == F(11, 30) == F(value(Q["div-err-ia"]["answer"])).limit_denominator(1000)
    assert err_ia(["d1", "d2", "d3"]) < err_ia(ranking)  # d2 above d3 lowers it


def test_p_ia_at_3_ignores_order():
    def p_ia(ranking):
        return sum(JAGUAR_P[t] * F(sum(t in JAGUAR_REL[d] for d in ranking[:3]), 3) for t in JAGUAR_P)

    assert p_ia(["d1", "d2", "d3"]) == F(13, 30) == F(value(Q["div-p-ia"]["answer"])).limit_denominator(1000)
    assert {p_ia(list(p)) for p in itertools.permutations(JAGUAR_REL)} == {F(13, 30)}


def test_ndcg_ia_maximum_below_one():
    weights, relevant = {"t1": F(2, 3), "t2": F(1, 3)}, {"t1": "u", "t2": "v"}

    def ndcg_ia(order):  # one relevant document per intent: IDCG@2 = 1 for each
        return sum(float(w) * sum(1 / math.log2(i + 2) for i, d in enumerate(order) if d == relevant[t])
                   for t, w in weights.items())

    best = max(ndcg_ia(p) for p in itertools.permutations("uv"))
    assert best == pytest.approx(ndcg_ia("uv")) and ndcg_ia("vu") < best < 1
    assert value(Q["div-ndcg-ia-max"]["answer"]) == pytest.approx(best, abs=1e-12)
    assert f"{best:.4f}" == "0.8770"
    [right] = [o for o in Q["div-ndcg-ia-one"]["options"] if o.get("correct")]
    assert right["text"] == "False"


def test_err_ia_diminishing_returns_per_intent():
    # a second relevant document for the same intent adds less than the first did
    assert err([True, True]) - err([True]) < err([True])


# ------------------------------------------------------------------ MMR and coverage


SIM_Q = {"d1": 0.9, "d2": 0.85, "d3": 0.6}
SIM = {frozenset({"d1", "d2"}): 0.95, frozenset({"d1", "d3"}): 0.2, frozenset({"d2", "d3"}): 0.3}


def mmr(doc, selected, lam):
    return lam * SIM_Q[doc] - (1 - lam) * max(SIM[frozenset({doc, s})] for s in selected)


def test_mmr_second_step():
    assert max(SIM_Q, key=SIM_Q.get) == "d1"  # with nothing selected MMR takes the most relevant
    assert mmr("d3", ["d1"], 0.7) == pytest.approx(0.36) == value(Q["div-mmr-score"]["answer"])
    assert mmr("d2", ["d1"], 0.7) == pytest.approx(0.31)
    assert mmr("d3", ["d1"], 0.7) > mmr("d2", ["d1"], 0.7)


def test_mmr_crossover_lambda():
    lam = value(Q["div-mmr-crossover"]["answer"])
    assert lam == 0.75
    assert mmr("d2", ["d1"], lam) == pytest.approx(mmr("d3", ["d1"], lam))
    assert mmr("d2", ["d1"], lam + 0.01) > mmr("d3", ["d1"], lam + 0.01)
    assert mmr("d2", ["d1"], lam - 0.01) < mmr("d3", ["d1"], lam - 0.01)
    assert SIM_Q["d2"] - SIM_Q["d3"] == pytest.approx(0.25)
    assert SIM[frozenset({"d1", "d2"})] - SIM[frozenset({"d1", "d3"})] == pytest.approx(0.75)
    assert mmr("d2", ["d1"], 1.0) == SIM_Q["d2"]  # lambda = 1: the plain relevance score


def test_catalog_coverage():
    lists = [["i1", "i2", "i3"], ["i1", "i2", "i4"], ["i2", "i1", "i5"]]
    distinct = set().union(*lists)
    assert len(distinct) == 5 and F(len(distinct), 20) == value(Q["div-catalog-coverage"]["answer"])


def test_generated_template_params():
    q = Q["div-gen-err-intent"]
    assert q["generator"] == "err-hand" and q["params"] == {"n": 4, "k": 3, "max_rel": 2}


def test_every_decimal_in_the_pack_is_checked_here():
    """Decimals with 3+ digits in any text must be among the values this file verifies."""
    checked = {"3.8365", "0.7175", "0.9514", "0.9652", "0.8770", "0.36", "0.31", "0.25", "0.75",
               "0.85", "0.95", "0.6", "0.9", "0.2", "0.3", "0.7", "0.00001"}
    texts = []
    for q in RAW["questions"]:
        texts += [q["prompt"], q.get("explanation", ""), q.get("model_answer", "")]
        texts += q.get("hints", []) + point_texts(q.get("key_points"))
        for o in q.get("options", []):
            texts += [o["text"], o.get("explanation", "")]
    found = {m.group() for t in texts for m in re.finditer(r"(?<![\w.])\d+\.\d+", t)}
    assert found <= checked, found - checked
    assert all(Decimal(x) for x in found)


# ------------------------------------------------------------------ pyndeval (ndeval.c)


def _ndeval(docs, run, measures, alpha=0.5, subtopics=(1, 2, 3, 4)):
    pyndeval = pytest.importorskip("pyndeval")
    qrels = [("q", str(t), d, int(t in s)) for d, s in docs.items() for t in subtopics]
    scored = [("q", d, float(len(run) - i)) for i, d in enumerate(run)]
    return pyndeval.RelevanceEvaluator(qrels, measures, alpha=alpha).evaluate(scored)["q"]


def test_pyndeval_alpha_ndcg_and_strec_agree():
    got = _ndeval(POOL, ["B", "D", "A", "C"], ["alpha-nDCG@3", "alpha-nDCG@4"])
    assert got["alpha-nDCG@3"] == pytest.approx(alpha_ndcg(["B", "D", "A", "C"], 3), abs=1e-9)
    assert got["alpha-nDCG@4"] == pytest.approx(alpha_ndcg(["B", "D", "A", "C"], 4), abs=1e-9)
    got = _ndeval(POOL, ["B", "A", "D", "C"], ["strec@3"])
    assert got["strec@3"] == pytest.approx(0.75)


def test_pyndeval_ignores_a_subtopic_without_relevant_documents():
    docs = {"A": {1, 2}, "B": {3}, "C": {4}, "D": set()}
    got = _ndeval(docs, ["A", "B", "D"], ["strec@3"], subtopics=(1, 2, 3, 4, 5))
    assert got["strec@3"] == pytest.approx(3 / 4)  # s5 has only non-relevant judgments


def test_pyndeval_err_ia_is_the_uniform_mean_of_per_intent_err():
    # ndeval's ERR-IA: intents weighted uniformly, R = alpha for a relevant document, then
    # divided by its "ideal ideal" alpha * sum_{r<=k} (1 - alpha)^(r-1) / r.
    docs = {"d1": {1}, "d2": {1}, "d3": {2}, "d4": set()}
    run = ["d1", "d3", "d2", "d4"]
    got = _ndeval(docs, run, ["ERR-IA@4"], subtopics=(1, 2))["ERR-IA@4"]
    mean = sum(err([t in docs[d] for d in run]) for t in (1, 2)) / 2
    ideal_ideal = sum(HALF * (1 - HALF) ** (r - 1) / r for r in range(1, 5))
    assert got == pytest.approx(float(mean / ideal_ideal), abs=1e-9)
