"""The learning-to-rank pack (questions/learning-to-rank.yaml): every number and library claim.

RankNet's costs are recomputed as cross-entropies and their gradients and second
derivatives by finite differences (not from the closed forms the questions teach), ListMLE
by multiplying the Plackett-Luce choice probabilities, and every decimal the texts state is
listed with its own formula. LightGBM, XGBoost and scikit-learn claims are run when the
library installs (skipped cleanly otherwise); the others carry their source in a comment in
the YAML file.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import operator
import re
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from drills.answers.parser import parse
from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "learning-to-rank.yaml"
PACK = yaml.safe_load(PATH.read_text(encoding="utf-8"))
QUESTIONS = {q["id"]: q for q in PACK["questions"]}


def text_of(q: dict) -> str:
    parts = [q.get("prompt", ""), q.get("explanation", ""), q.get("model_answer", "")]
    parts += list(q.get("hints", [])) + list(point_texts(q.get("key_points")))
    for o in q.get("options", []):
        parts += [o["text"], o.get("explanation", "")]
    return "\n".join(parts)


# ----------------------------------------------------------------- own arithmetic

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}
_FUNCS = {"exp": math.exp, "ln": math.log, "log2": math.log2}


def own_eval(expr: str) -> float:
    """An answer expression evaluated here (+ - * / ^, exp, ln, log2), not by drills."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and len(node.args) == 1):
            return _FUNCS[node.func.id](ev(node.args[0]))
        raise ValueError(f"not allowed in an answer: {ast.dump(node)}")
    return ev(ast.parse(str(expr).replace("^", "**"), mode="eval"))


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def ranknet_cost(s_i: float, s_j: float, s_ij: int, sigma: float) -> float:
    """Cross-entropy between the target (1 + S_ij)/2 and P_ij = sigmoid(sigma (s_i - s_j))."""
    target, p = (1 + s_ij) / 2, sigmoid(sigma * (s_i - s_j))
    return -sum(t * math.log(q) for t, q in ((target, p), (1 - target, 1 - p)) if t)


def derivative(f, x: float, h: float = 1e-5) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def second_derivative(f, x: float, h: float = 1e-4) -> float:
    return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h)


def dcg(grades: list[int], gain=lambda g: 2**g - 1) -> float:
    return sum(gain(g) / math.log2(i + 1) for i, g in enumerate(grades, start=1))


def ndcg(grades: list[int], gain=lambda g: 2**g - 1) -> float:
    return dcg(grades, gain) / dcg(sorted(grades, reverse=True), gain)


def softmax(xs: list[float]) -> list[float]:
    z = sum(math.exp(x) for x in xs)
    return [math.exp(x) / z for x in xs]


def plackett_luce(scores: dict[str, float], order: list[str]) -> float:
    """Probability of drawing ``order`` one document at a time, each by softmax of the rest."""
    p, left = 1.0, list(order)
    for doc in order:
        p *= math.exp(scores[doc]) / sum(math.exp(scores[d]) for d in left)
        left.remove(doc)
    return p


def misordered(binary: list[int]) -> int:
    return sum(1 for i, j in itertools.combinations(range(len(binary)), 2) if binary[i] < binary[j])


# ----------------------------------------------------------------- the answers

PAIR_GRADES = [0, 2, 1]
PAIR_DELTA = abs(ndcg([2, 0, 1]) - ndcg(PAIR_GRADES))  # swap ranks 1 and 2
LEAF_G, LEAF_H, LEAF_L2 = [-0.3, 0.1, -0.2], [0.15, 0.05, 0.1], 0.2
RANK_A = [1, 0, 0, 0, 0, 0, 0, 1]
RANK_B = [0, 0, 1, 1, 0, 0, 0, 0]
LISTMLE_SCORES = {"A": 0.0, "B": 1.0, "C": 0.0}  # labels A = 2, B = 1, C = 0


def _pair_hessian(s_gap: float, delta: float, sigma: float = 1.0) -> float:
    return second_derivative(lambda s: delta * ranknet_cost(s, 0.0, 1, sigma), s_gap)


def _listnet(labels: list[float], scores: list[float]) -> float:
    return -sum(t * math.log(m) for t, m in zip(softmax(labels), softmax(scores), strict=True))


ANSWERS = {
    "ltr-ranknet-probability": sigmoid(1 * (2.5 - 1)),
    "ltr-ranknet-cost": ranknet_cost(0.5, 1.5, 1, 2),
    "ltr-ranknet-gradient": derivative(lambda s: ranknet_cost(s, 0.7, 1, 1), 0.2),
    "ltr-ranknet-tied-pair": ranknet_cost(4, 1, 0, 1),
    # the pair's gradient on the grade-2 document (rank 2): RankNet's at equal scores x |dNDCG|
    "ltr-pair-lambda": PAIR_DELTA * derivative(lambda s: ranknet_cost(s, 0.0, 1, 1), 0.0),
    # A above B (pushed up), A below C (pushed down); equal scores
    "ltr-lambda-of-a-document": 0.3 * derivative(lambda s: ranknet_cost(s, 0.0, 1, 1), 0.0)
    + 0.2 * derivative(lambda s: ranknet_cost(s, 0.0, -1, 1), 0.0),
    "ltr-pair-hessian": _pair_hessian(1.0, 0.5),
    "ltr-newton-leaf": -sum(LEAF_G) / (sum(LEAF_H) + LEAF_L2),
    "ltr-listnet-top-one": softmax([3, 1, 1])[0],
    "ltr-listnet-loss": _listnet([1, 0], [0, 1]),
    "ltr-listmle-loss": -math.log(plackett_luce(LISTMLE_SCORES, ["A", "B", "C"])),
}
# finite differences agree with the exact values to about 1e-9
TOLERANCE = {"ltr-ranknet-gradient": 1e-8, "ltr-pair-lambda": 1e-8,
             "ltr-lambda-of-a-document": 1e-8, "ltr-pair-hessian": 1e-6}


def test_pack_loads_with_enough_questions_and_kinds():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert pack.meta.name == "learning-to-rank"
    assert len(pack.questions) >= 20
    assert len({q.kind for q in pack.questions}) >= 3
    assert {q.difficulty for q in pack.questions} >= {"easy", "medium", "hard"}
    assert {q.topic for q in pack.questions} == {"learning-to-rank"}


def test_every_fixed_answer_is_recomputed():
    assert {qid for qid, q in QUESTIONS.items() if q["kind"] == "numeric"} == set(ANSWERS)


@pytest.mark.parametrize("qid", sorted(ANSWERS))
def test_answer(qid):
    expected = ANSWERS[qid]
    tol = TOLERANCE.get(qid, 1e-12)
    answer = QUESTIONS[qid]["answer"]
    assert math.isclose(own_eval(answer), expected, rel_tol=tol, abs_tol=tol)
    assert math.isclose(float(parse(answer).decimal(30)), expected, rel_tol=tol, abs_tol=tol)


def test_plackett_luce_is_a_distribution():
    total = sum(plackett_luce(LISTMLE_SCORES, list(p)) for p in itertools.permutations("ABC"))
    assert math.isclose(total, 1.0)


# ----------------------------------------------------------------- stated numbers

_ENTROPY = -sum(p * math.log(p) for p in softmax([1, 0]))
STATED: dict[str, dict[str, float | F]] = {
    "ltr-pairs-vs-ndcg": {"0.81": ndcg(RANK_A, gain=lambda g: g),  # 2 digits: 0.5706 is another
                          "0.57": ndcg(RANK_B, gain=lambda g: g)},  # pack's answer (ba-exposure-ratio)
    "ltr-ranknet-probability": {"2.5": 2.5, "1.5": 2.5 - 1, "0.2231": math.exp(-1.5),
                                "1/2": F(1, 2)},  # equal scores
    "ltr-ranknet-cost": {"0.5": 0.5, "1.5": 1.5},
    "ltr-ranknet-gradient": {"0.2": 0.2, "0.7": 0.7, "0.5": 0.7 - 0.2,
                             "0.3775": sigmoid(0.2 - 0.7)},  # P_ij, the slip
    "ltr-pair-lambda": {"0.3049": PAIR_DELTA, "1/2": F(1, 2)},
    "ltr-lambda-of-a-document": {"0.3": 0.3, "0.2": 0.2, "0.25": (0.3 + 0.2) / 2},
    "ltr-pair-hessian": {"0.5": 0.5, "0.2689": sigmoid(-1.0), "0.01": 0.01,  # lambdarank_norm's
                         "1.01": 0.01 + 1.0,  # 0.01 + |s_i - s_j| (rank_objective.hpp)
                         "0.1966": sigmoid(-1.0) * (1 - sigmoid(-1.0)),
                         "1/4": F(1, 2) * F(1, 2)},  # rho (1 - rho) at equal scores
    "ltr-newton-leaf": {"0.3": sum(LEAF_H), "0.1": 0.1, "0.2": LEAF_L2, "0.15": 0.15,
                        "0.05": 0.05, "0.4": -sum(LEAF_G), "4/3": F(4, 3),
                        "0.08": 0.1 * ANSWERS["ltr-newton-leaf"]},
    "ltr-listnet-top-one": {"3/5": F(3, 3 + 1 + 1)},  # raw scores instead of exponentials
    "ltr-listnet-loss": {"0.5822": _ENTROPY},
    "ltr-lightgbm-lambdarank-norm": {"0.01": 0.01},  # rank_objective.hpp: 0.01f + |delta score|
    "ltr-xgboost-pairs": {"2.0": 2.0},  # a version number
    "ltr-sigma": {"1.0": 1.0, "0.01": 0.01},  # LightGBM's sigmoid default, run below; norm's 0.01
    "ltr-xgboost-objectives": {"2.0": 2.0},  # a version number

}
DECIMAL = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\w]|\.\d)")


def _agrees(printed: str, value) -> bool:
    if "/" in printed:
        return F(printed) == value
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed) - float(value)) <= 0.5 * 10**-decimals + 1e-12


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_every_stated_number(qid):
    text = text_of(QUESTIONS[qid])
    stated = STATED.get(qid, {})
    assert set(DECIMAL.findall(text)) == {s for s in stated if "/" not in s}, "list every decimal"
    for shown, value in stated.items():
        assert re.search(rf"(?<![\w./]){re.escape(shown)}(?![\w/]|\.\d)", text), shown
        assert _agrees(shown, value), (shown, value)


def test_claims_in_words():
    # ltr-pairs-vs-ndcg: misordered pairs A 6, B 4; NDCG prefers A
    assert (misordered(RANK_A), misordered(RANK_B)) == (6, 4)
    assert ndcg(RANK_A) > ndcg(RANK_B)
    # ltr-ranknet-cost: ln 2 at equal scores whatever sigma; a soft hinge
    assert all(math.isclose(ranknet_cost(1, 1, 1, s), math.log(2)) for s in (0.5, 1, 2, 7))
    assert ranknet_cost(0.5, 1.5, 1, 2) > 2 * 1 > ranknet_cost(1.5, 0.5, 1, 2)
    # ltr-ranknet-tied-pair: symmetric, smallest (ln 2) at equal scores
    assert math.isclose(ranknet_cost(4, 1, 0, 1), ranknet_cost(1, 4, 0, 1))
    assert min(ranknet_cost(x / 10, 0, 0, 1) for x in range(-30, 31)) == ranknet_cost(0, 0, 0, 1)
    # ltr-ranknet-gradient: dC/ds_j = -dC/ds_i, and the gradient is -sigma (1 - P_ij)
    g_i = derivative(lambda s: ranknet_cost(s, 0.7, 1, 1), 0.2)
    g_j = derivative(lambda s: ranknet_cost(0.2, s, 1, 1), 0.7)
    assert math.isclose(g_i, -g_j, rel_tol=1e-8)
    assert math.isclose(g_i, -(1 - sigmoid(0.2 - 0.7)), rel_tol=1e-8)
    # ltr-pair-lambda: without the logistic factor -|dNDCG|; RankNet alone -1/2
    assert math.isclose(ANSWERS["ltr-pair-lambda"] * 2, -PAIR_DELTA, rel_tol=1e-8)
    assert math.isclose(derivative(lambda s: ranknet_cost(s, 0.0, 1, 1), 0.0), -0.5, rel_tol=1e-8)
    # ltr-pair-hessian: rho (1 - rho) is largest, 1/4, at equal scores
    assert max(sigmoid(x / 10) * (1 - sigmoid(x / 10)) for x in range(-30, 31)) == 0.25
    # ltr-listnet-top-one: only differences matter
    assert math.isclose(softmax([3, 1, 1])[0], softmax([10, 8, 8])[0])
    # ltr-listnet-loss: the minimum over the scores is the entropy, at scores = labels + c
    assert math.isclose(_listnet([1, 0], [5, 4]), _ENTROPY)
    assert all(_listnet([1, 0], [x / 10, 0]) >= _ENTROPY - 1e-12 for x in range(-50, 51))
    # ltr-listmle-loss: only the order of the labels matters (the loss never reads them)
    # and the last position adds nothing: ln(exp(s)) - s = 0
    assert math.isclose(math.log(math.exp(0.0)) - 0.0, 0.0)
    # ltr-lambdas-sum-to-zero: a pair's two gradients cancel
    assert math.isclose(
        derivative(lambda s: ranknet_cost(s, 0.3, 1, 2), 1.1)
        + derivative(lambda s: ranknet_cost(1.1, s, 1, 2), 0.3), 0.0, abs_tol=1e-9)
    # ltr-lightgbm-straddling-pair: LightGBM's discount of 0-based index i is 1/log2(2 + i)
    assert [1 / math.log2(2 + i) for i in (1, 8)] == [1 / math.log2(3), 1 / math.log2(10)]
    # ltr-query-normalisation: pairs grow quadratically with the list
    assert len(list(itertools.combinations(range(10), 2))) == 10 * 9 // 2


def test_no_answer_stated_by_another_question_of_the_pack():
    number = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")
    for qid, q in QUESTIONS.items():
        for shown in number.findall(text_of(q)):
            if len(shown.replace(".", "").lstrip("0").rstrip("0")) < 3:
                continue
            decimals = len(shown.split(".")[1]) if "." in shown else 0
            for other, value in ANSWERS.items():
                if other != qid:
                    assert abs(abs(value) - float(shown)) > 0.5 * 10**-decimals, (qid, shown, other)


# ----------------------------------------------------------------- library claims

def _lightgbm_data():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    return np, rng.normal(size=(40, 3)), [10] * 4


def test_lightgbm_lambdarank_defaults():
    lgb = pytest.importorskip("lightgbm")
    np, x, group = _lightgbm_data()
    y = np.tile(np.array([0, 1, 2, 3, 0, 0, 1, 0, 2, 0]), 4)
    booster = lgb.train({"objective": "lambdarank", "verbose": -1, "min_data_in_leaf": 1},
                        lgb.Dataset(x, y, group=group), num_boost_round=1)
    model = booster.model_to_string()
    for line in ("[lambdarank_truncation_level: 30]", "[lambdarank_norm: 1]", "[sigmoid: 1]"):
        assert line in model


def test_lightgbm_label_gain_limits():
    lgb = pytest.importorskip("lightgbm")
    np, x, group = _lightgbm_data()
    params = {"objective": "lambdarank", "verbose": -1, "min_data_in_leaf": 1}
    labels_30 = np.tile(np.array([0, 1, 2, 30, 0, 0, 1, 0, 2, 0]), 4)
    lgb.train(params, lgb.Dataset(x, labels_30, group=group), num_boost_round=1)  # 2^30 - 1: fine
    labels_31 = np.where(labels_30 == 30, 31, labels_30)
    with pytest.raises(lgb.basic.LightGBMError, match=r"Label 31 is not less than the number of label mappings \(31\)"):
        lgb.train(params, lgb.Dataset(x, labels_31, group=group), num_boost_round=1)
    linear = dict(params, label_gain=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                      19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31])
    lgb.train(linear, lgb.Dataset(x, labels_31, group=group), num_boost_round=1)  # a longer list


def test_xgboost_ranking_objectives():
    xgb = pytest.importorskip("xgboost")
    np, x, _ = _lightgbm_data()
    qid = np.repeat(np.arange(4), 10)
    graded = np.tile(np.array([0, 1, 2, 3, 0, 0, 1, 0, 2, 0]), 4)
    assert xgb.XGBRanker().get_params()["objective"] == "rank:ndcg"
    ranker = xgb.XGBRanker(n_estimators=1).fit(x, graded, qid=qid)
    objective = json.loads(ranker.get_booster().save_config())["learner"]["objective"]
    assert objective["name"] == "rank:ndcg"
    param = objective["lambdarank_param"]
    assert param["lambdarank_pair_method"] == "topk" and param["ndcg_exp_gain"] == "1"
    assert param["lambdarank_normalization"] == "1"
    for name in ("rank:pairwise", "rank:map"):
        xgb.XGBRanker(n_estimators=1, objective=name).fit(x, (graded > 0).astype(int), qid=qid)
    with pytest.raises(xgb.core.XGBoostError):
        xgb.XGBRanker(n_estimators=1, objective="rank:mrr").fit(x, graded, qid=qid)


def test_scikit_learn_ndcg_score_uses_the_label_as_gain():
    metrics = pytest.importorskip("sklearn.metrics")
    value = metrics.ndcg_score([[3, 1]], [[0, 1]])  # the grade-1 document ranked first
    assert math.isclose(value, ndcg([1, 3], gain=lambda g: g))
    assert not math.isclose(value, ndcg([1, 3]))
