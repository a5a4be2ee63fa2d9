"""The position-bias pack (questions/position-bias.yaml): every number and library claim.

Every fixed answer is recomputed here from its click model with fractions, and every
number the texts state (a decimal anywhere, a fraction the explanations derive) is
listed with its own formula. The library claims are run when LightGBM, XGBoost or
scikit-learn install (skipped cleanly otherwise); the claims about papers and about
ULTRA and allRank carry their source in a comment in the YAML file.
"""

from __future__ import annotations

import ast
import inspect
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

PATH = Path(__file__).resolve().parent.parent / "questions" / "position-bias.yaml"
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
            return F(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and not (isinstance(right, F) and right.denominator == 1):
                return float(left) ** float(right)
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and len(node.args) == 1):
            return _FUNCS[node.func.id](float(ev(node.args[0])))
        raise ValueError(f"not allowed in an answer: {ast.dump(node)}")
    return float(ev(ast.parse(str(expr).replace("^", "**"), mode="eval")))


def cascade_clicks(r: list[F]) -> list[F]:
    """P(click at each rank) under the cascade model: click the first attractive, stop."""
    out, reach = [], F(1)
    for attract in r:
        out.append(reach * attract)
        reach *= 1 - attract
    return out


def cascade_examined(r: list[F], rank: int) -> F:
    """P(rank is examined) under the cascade model: no click above it."""
    return math.prod((1 - x for x in r[: rank - 1]), start=F(1))


def ips(impressions: list[tuple[int, int]], theta: dict[int, F], clip: F | None = None) -> F:
    """(1/n) sum click / theta_rank, each weight 1/theta capped at ``clip``."""
    total = F(0)
    for rank, click in impressions:
        weight = 1 / theta[rank]
        if clip is not None:
            weight = min(weight, clip)
        total += click * weight
    return total / len(impressions)


# ----------------------------------------------------------------- the answers

THETA3 = {1: F(1), 2: F(1, 2), 3: F(1, 4)}
IPS_LOG = [(1, 1), (1, 0), (2, 1), (2, 0), (3, 0), (3, 0)]
CLIP_LOG = [(1, 1), (1, 1), (1, 0), (1, 0), (8, 1), (8, 0), (8, 0), (8, 0)]
CLIP_THETA = {1: F(1), 8: F(1, 16)}
# swap experiment: (rank, documents' original rank) -> CTR, PBM with theta_3/theta_1 = 3/10
SWAP = {("normal", 1): F(40, 100), ("normal", 3): F(6, 100),
        ("swapped", 1): F(20, 100), ("swapped", 3): F(12, 100)}
# trust bias at rank 2
TB_THETA, TB_EPS_PLUS, TB_EPS_MINUS, TB_CTR = F(1, 2), F(1), F(1, 5), F(32, 100)
TB_ALPHA = TB_THETA * (TB_EPS_PLUS - TB_EPS_MINUS)
TB_BETA = TB_THETA * TB_EPS_MINUS


def _swap_ratio() -> F:
    rank3 = (SWAP["normal", 3] + SWAP["swapped", 3]) / 2
    rank1 = (SWAP["normal", 1] + SWAP["swapped", 1]) / 2
    return rank3 / rank1


def _em_posterior(theta: F, gamma: F) -> F:
    # P(R=1 | C=0) by Bayes over the four (E, R) cases of the position-based model
    joint = {(e, r): (theta if e else 1 - theta) * (gamma if r else 1 - gamma)
             for e in (0, 1) for r in (0, 1)}
    no_click = sum(p for (e, r), p in joint.items() if not (e and r))
    return sum(p for (e, r), p in joint.items() if r and not e) / no_click


def _variance(theta: F, gamma: F) -> F:
    values = {F(1) / theta: theta * gamma, F(0): 1 - theta * gamma}  # c / theta and its probability
    mean = sum(v * p for v, p in values.items())
    return sum((v - mean) ** 2 * p for v, p in values.items())


ANSWERS = {
    "pb-pbm-expected-clicks": sum(t * g for t, g in zip([F(1), F(1, 2), F(1, 4)],
                                                        [F(2, 5), F(4, 5), F(1, 2)], strict=True)),
    "pb-cascade-click-rank3": cascade_clicks([F(1, 5), F(1, 2), F(2, 5), F(3, 4)])[2],
    "pb-cascade-expected-clicks": sum(cascade_clicks([F(1, 4), F(2, 5), F(1, 3)])),
    "pb-cascade-examination": cascade_examined([F(2, 5), F(1, 4)], 3),
    "pb-ips-weight": F(math.isqrt(9)) ** 3,  # 1/theta_9 = 9^(3/2), 9 a perfect square
    "pb-ips-estimate": ips(IPS_LOG, THETA3),
    "pb-ips-clipped": ips(CLIP_LOG, CLIP_THETA, clip=F(5)),
    "pb-ips-variance": _variance(F(1, 10), F(1, 2)),
    "pb-swap-propensity": _swap_ratio(),
    "pb-em-posterior": _em_posterior(F(1, 5), F(1, 2)),
    "pb-trust-bias-affine": (TB_CTR - TB_BETA) / TB_ALPHA,
}


def test_ips_weight_from_the_propensity_model():
    theta_9 = (1 / 9) ** 1.5  # theta_k = (1/k)^eta, eta = 3/2
    assert math.isclose(1 / theta_9, 27) and math.isclose(9**1, 9)  # eta = 1 gives 9


def test_pack_loads_with_enough_questions_and_kinds():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert pack.meta.name == "position-bias"
    assert len(pack.questions) >= 20
    kinds = {q.kind for q in pack.questions}
    assert len(kinds) >= 3, kinds
    assert {q.difficulty for q in pack.questions} >= {"easy", "medium", "hard"}
    assert {q.topic for q in pack.questions} == {"position-bias"}


def test_every_fixed_answer_is_recomputed():
    fixed = {qid for qid, q in QUESTIONS.items() if q["kind"] == "numeric"}
    assert fixed == set(ANSWERS)


@pytest.mark.parametrize("qid", sorted(ANSWERS))
def test_answer(qid):
    q = QUESTIONS[qid]
    expected = float(ANSWERS[qid])
    assert math.isclose(own_eval(q["answer"]), expected, rel_tol=1e-12, abs_tol=1e-15)
    # the reference answer reads back as the same value through drills' own parser
    assert math.isclose(float(parse(q["answer"]).decimal(30)), expected, rel_tol=1e-12)


# ----------------------------------------------------------------- stated numbers

# Every number a text states as a result (each decimal anywhere, and the fractions the
# explanations derive), with the formula it comes from. Inputs the prompts give are
# listed too when they are decimals, so that no decimal goes unaccounted for.
STATED: dict[str, dict[str, F | float]] = {
    "pb-pbm-expected-clicks": {
        "2/5": F(1) * F(2, 5), "1/8": F(1, 4) * F(1, 2),
        "1.7": F(2, 5) + F(4, 5) + F(1, 2),  # attractiveness summed, examination ignored
    },
    "pb-cascade-click-rank3": {"2/5": F(2, 5)},
    "pb-cascade-expected-clicks": {
        "3/10": 1 - sum(cascade_clicks([F(1, 4), F(2, 5), F(1, 3)])),  # P(no click)
        "59/60": F(1, 4) + F(2, 5) + F(1, 3),
    },
    "pb-cascade-examination": {"3/5": cascade_examined([F(1, 4), F(1, 5)], 3)},
    "pb-ips-estimate": {"1/3": F(sum(c for _, c in IPS_LOG), len(IPS_LOG))},  # raw CTR
    "pb-ips-clipped": {"9/4": ips(CLIP_LOG, CLIP_THETA)},  # unclipped
    "pb-ips-variance": {"1/4": _variance(F(1), F(1, 2))},
    "pb-swap-propensity": {
        "0.40": SWAP["normal", 1], "0.06": SWAP["normal", 3],
        "0.20": SWAP["swapped", 1], "0.12": SWAP["swapped", 3],
        "0.09": (SWAP["normal", 3] + SWAP["swapped", 3]) / 2,
        "0.30": (SWAP["normal", 1] + SWAP["swapped", 1]) / 2,
        "0.15": SWAP["normal", 3] / SWAP["normal", 1],  # the confounded ratio
    },
    "pb-em-posterior": {"9/10": 1 - F(1, 5) * F(1, 2), "4/5": 1 - F(1, 5)},
    "pb-trust-bias-affine": {
        "0.32": TB_CTR, "0.1": TB_BETA, "0.4": TB_ALPHA, "2/5": TB_ALPHA, "1/10": TB_BETA,
        "0.55": (TB_CTR - TB_BETA) / TB_ALPHA, "0.5": TB_THETA, "0.64": TB_CTR / TB_THETA,
    },
    "pb-lightgbm-position": {"0.0": F(0)},  # the parameter's default, checked below too
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
    printed = set(DECIMAL.findall(text))
    assert printed == {s for s in stated if "/" not in s}, "list every decimal in STATED"
    for shown, value in stated.items():
        assert re.search(rf"(?<![\w./]){re.escape(shown)}(?![\w/]|\.\d)", text), shown
        assert _agrees(shown, value), (shown, value)


def test_claims_in_words():
    # pb-ips-variance: "nineteen times less" than at rank 1
    assert ANSWERS["pb-ips-variance"] / _variance(F(1), F(1, 2)) == 19
    # pb-pbm-expected-clicks: the rank-2 document is twice as attractive, same clicks
    assert F(4, 5) / F(2, 5) == 2 and F(1, 2) * F(4, 5) == F(1) * F(2, 5)
    # pb-swap-propensity: each document's own ratio agrees with the pooled one
    assert SWAP["swapped", 3] / SWAP["normal", 1] == SWAP["normal", 3] / SWAP["swapped", 1] == _swap_ratio()
    # pb-em-posterior: the skip lowers P(relevant) from the prior 1/2, but only a little
    assert F(1, 2) > ANSWERS["pb-em-posterior"] > F(2, 5)
    # pb-ips-clipped: unclipped the estimate exceeds 1
    assert ips(CLIP_LOG, CLIP_THETA) > 1
    # pb-cascade-click-rank3: in the cascade, click probabilities sum to P(some click) < 1
    assert sum(cascade_clicks([F(1, 5), F(1, 2), F(2, 5), F(3, 4)])) < 1
    # pb-pbm-vs-cascade: a more attractive rank 1 lowers rank 2's cascade click probability
    assert cascade_clicks([F(9, 10), F(1, 2)])[1] < cascade_clicks([F(1, 5), F(1, 2)])[1]


def test_no_answer_stated_by_another_question_of_the_pack():
    # the rule of drills' lint: a number written with 3+ informative digits states an
    # answer when the answer rounds to it
    answers = {qid: float(v) for qid, v in ANSWERS.items()}
    number = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")
    for qid, q in QUESTIONS.items():
        for shown in number.findall(text_of(q)):
            digits = shown.replace(".", "").lstrip("0").rstrip("0")
            if len(digits) < 3:
                continue
            decimals = len(shown.split(".")[1]) if "." in shown else 0
            for other, value in answers.items():
                if other != qid:
                    assert abs(abs(value) - float(shown)) > 0.5 * 10**-decimals, (qid, shown, other)


# ----------------------------------------------------------------- library claims

def test_lightgbm_position_support():
    lgb = pytest.importorskip("lightgbm")
    np = pytest.importorskip("numpy")
    from packaging.version import Version

    assert Version(lgb.__version__) >= Version("4.1.0")
    assert "position" in inspect.signature(lgb.Dataset.__init__).parameters
    assert hasattr(lgb.Dataset, "set_position")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, size=40)
    params = {"objective": "lambdarank", "verbose": -1, "min_data_in_leaf": 1}
    positions = np.tile(np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1]), 4)  # above / below the fold
    booster = lgb.train(params, lgb.Dataset(x, y, group=[10] * 4, position=positions),
                        num_boost_round=3)
    assert "[lambdarank_position_bias_regularization: 0]" in booster.model_to_string()
    assert booster.predict(x).shape == (40,)  # predicting needs no positions: f alone


def test_xgboost_unbiased_lambdamart():
    xgb = pytest.importorskip("xgboost")
    np = pytest.importorskip("numpy")
    import json

    from packaging.version import Version

    assert Version(xgb.__version__) >= Version("2.0.0")
    assert "position" not in inspect.signature(xgb.DMatrix.__init__).parameters
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    clicks = rng.integers(0, 2, size=40)
    qid = np.repeat(np.arange(4), 10)  # the row order within each qid is the shown order
    ranker = xgb.XGBRanker(n_estimators=2, lambdarank_unbiased=True)
    ranker.fit(x, clicks, qid=qid)
    objective = json.loads(ranker.get_booster().save_config())["learner"]["objective"]
    assert objective["name"] == "rank:ndcg"
    assert objective["lambdarank_param"]["lambdarank_unbiased"] == "1"
    assert "lambdarank_bias_norm" in objective["lambdarank_param"]
    default = xgb.XGBRanker(n_estimators=1).fit(x, clicks, qid=qid)
    param = json.loads(default.get_booster().save_config())["learner"]["objective"]["lambdarank_param"]
    assert param["lambdarank_unbiased"] == "0"


def test_scikit_learn_has_ranking_metrics():
    # read from the installed package's metrics/__init__.py rather than imported: importing
    # scikit-learn costs seconds, and the claim is only that these two functions exist
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("scikit-learn is not installed")
    init = Path(next(iter(spec.submodule_search_locations))) / "metrics" / "__init__.py"
    names = re.findall(r'"(\w+)"', init.read_text(encoding="utf-8"))
    assert {"ndcg_score", "dcg_score"} <= set(names)
