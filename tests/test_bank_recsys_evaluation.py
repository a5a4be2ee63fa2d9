"""questions/recsys-evaluation.yaml: every number recomputed, every claim run or sourced.

The values here come from plain Python (fractions, math.comb for the hypergeometric
draws of sampled evaluation), scipy's hypergeom and pytrec_eval where they are the claim;
drills' engine is only compared with them at the end. Every decimal and every fraction
written anywhere in a question must be one this file derives (or a given it lists).
The libraries the pack quotes (RecBole, Microsoft Recommenders, implicit, the Mult-VAE
code) are not installed here: their conventions are computed from the formulas in their
source, cited in the YAML's header comments ([RB], [MSR], [IMP], [VAE]).
"""

from __future__ import annotations

import ast
import math
import random
import re
from fractions import Fraction as F
from functools import cache
from pathlib import Path

import pytest
import yaml

from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "recsys-evaluation.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
QS = {q["id"]: q for q in RAW["questions"]}
log2 = math.log2


# ----------------------------------------------------------------------- own formulas

def ndcg_one(rank: int | None, k: int) -> float:
    """NDCG@k of a user whose single relevant item is at ``rank`` (None: not ranked)."""
    return 1 / log2(rank + 1) if rank is not None and rank <= k else 0.0


def hit(rank: int | None, k: int) -> int:
    return int(rank is not None and rank <= k)


@cache
def above_pmf(others: int, above: int, draws: int) -> tuple[float, ...]:
    """P(x of ``draws`` negatives, drawn without replacement from ``others``, outrank the
    held-out item), x = 0..draws, when ``above`` of the others outrank it: counted with
    exact integers (math.comb), divided once (int / int rounds correctly)."""
    total = math.comb(others, draws)
    return tuple(math.comb(above, x) * math.comb(others - above, draws - x) / total
                 for x in range(draws + 1))


def sampled_hr(others: int, above: int, draws: int, k: int) -> float:
    return math.fsum(above_pmf(others, above, draws)[:k])  # sampled rank x + 1 <= k


def sampled_ndcg(others: int, above: int, draws: int, k: int) -> float:
    pmf = above_pmf(others, above, draws)
    return math.fsum(pmf[x] / log2(x + 2) for x in range(k))


def ap_at_k(labels: list[int], k: int, denominator: int) -> F:
    hits, total = 0, F(0)
    for i, rel in enumerate(labels[:k], start=1):
        if rel:
            hits += 1
            total += F(hits, i)
    return total / denominator


def entropy_bits(counts: list[int]) -> float:
    n = sum(counts)
    return -sum(c / n * log2(c / n) for c in counts)


# ------------------------------------------------------- the values each question uses

LOO_AVG_RANKS = [1, 2, 6, 15]
LOO_AVG = sum(ndcg_one(r, 10) for r in LOO_AVG_RANKS) / 4
POP_TOP3 = ["A", "B", "C"]
POP_HELD_OUT = ["C", "A", "E", "B", "D"]
POP_RANKS = [POP_TOP3.index(x) + 1 if x in POP_TOP3 else None for x in POP_HELD_OUT]
POP_NDCG = sum(ndcg_one(r, 3) for r in POP_RANKS) / 5
LISTS = [["a", "b", "c"], ["a", "b", "d"], ["a", "c", "e"], ["b", "a", "c"]]
COVERAGE = F(len({x for lst in LISTS for x in lst}), 16)
MAP_LABELS = [1, 0, 1, 1]  # not mar-apk-which-tool's [0, 1, 1, 0]: its options would state this answer
IMPLICIT_USERS = [(3, 1), (20, 4)]  # (test items, hits in the top 10)
K = 10

# Flip: catalogue of 10,000, so 9,999 other items; A: rank 1 for 40%, rank 5,000 else.
FLIP = {
    "exact_A": 0.4 * hit(1, 10) + 0.6 * hit(5000, 10),
    "exact_B": hit(50, 10),
    "sampled_A": 0.4 * sampled_hr(9999, 0, 100, 10) + 0.6 * sampled_hr(9999, 4999, 100, 10),
    "sampled_B": sampled_hr(9999, 49, 100, 10),
    "ndcg_A": 0.4 * sampled_ndcg(9999, 0, 100, 10) + 0.6 * sampled_ndcg(9999, 4999, 100, 10),
    "ndcg_B": sampled_ndcg(9999, 49, 100, 10),
    "above_B": 100 * 49 / 9999,
    "above_A": 100 * 4999 / 9999,
}

# The independent value of each numeric question.
ANSWERS: dict[str, float] = {
    "recsys-loo-ndcg-rank9": ndcg_one(9, 10),
    "recsys-loo-hr-average": sum(hit(r, 10) for r in [1, 4, 9, 11, 27, 3, 10]) / 7,
    "recsys-loo-ndcg-average": LOO_AVG,
    "recsys-sampled-expected-above": float(F(100) * F(1500, 20000)),
    "recsys-sampled-one-negative": float(F(20000 - 1000, 20000)),
    "recsys-popularity-baseline": POP_NDCG,
    "recsys-catalog-coverage": float(COVERAGE),
    "recsys-distributional-coverage": entropy_bits([3, 2, 1]),
    "recsys-lib-map-at-k": float(ap_at_k(MAP_LABELS, 4, min(4, 5))),
    "recsys-lib-implicit-precision": sum(h for _, h in IMPLICIT_USERS)
    / sum(min(K, n) for n, _ in IMPLICIT_USERS),
}

# Every number a question writes, derived: decimals must round from one of these, and
# fractions must equal one of them exactly (Fractions) or be a GIVEN written as a ratio.
DERIVED: dict[str, list[float | F]] = {
    "recsys-loo-ndcg-rank9": [F(1, 9)],  # its RR
    "recsys-loo-ndcg-average": [1 / log2(16),  # what rank 15 would earn without the cut
                                sum(ndcg_one(r, 10) for r in LOO_AVG_RANKS) / 3,  # slip
                                F(sum(hit(r, 10) for r in LOO_AVG_RANKS), 4)],
    "recsys-loo-ndcg-vs-hr": [ndcg_one(3, 10)],
    "recsys-hr-equals-recall": [F(1, 4)],  # 1 of 4 held-out items found
    "recsys-sampled-expected-above": [F(1500, 20000), 1 + 100 * 1500 / 20000,
                                      sampled_hr(20000, 1500, 100, 10)],
    "recsys-sampled-one-negative": [F(19000, 20000), sampled_hr(20000, 1000, 100, 10)],
    "recsys-sampled-flip": [FLIP["exact_A"], FLIP["sampled_A"], FLIP["sampled_B"],
                            FLIP["above_B"], FLIP["ndcg_A"], FLIP["ndcg_B"]],
    "recsys-popularity-baseline": [F(1, 2), F(sum(hit(r, 3) for r in POP_RANKS), 5)],
    "recsys-distributional-coverage": [F(3, 6), F(2, 6), F(1, 6), log2(3)],
    "recsys-lib-map-at-k": [F(1), F(2, 3), F(3, 4), ap_at_k(MAP_LABELS, 4, 5), ap_at_k(MAP_LABELS, 4, 3)],
    "recsys-lib-recall": [F(6, 15), F(6, min(10, 15)), F(6, 10)],
    "recsys-lib-implicit-precision": [F(1, 10), F(4, 10), (F(1, 10) + F(4, 10)) / 2,
                                      F(1, 3), F(4, 10), (F(1, 3) + F(2, 5)) / 2],
}
GIVEN_RATIOS = {"recsys-split-temporal": {"80/20"}}  # a split, not a value

# --------------------------------------------------------------------------- helpers

DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
FRACTION = re.compile(r"(?<![\w./])(\d+)/(\d+)(?![\w/(])")


def texts(q: dict) -> list[str]:
    out = [q["prompt"], *q.get("hints", []), q.get("explanation", ""), q.get("model_answer", ""),
           *point_texts(q.get("key_points"))]
    for o in q.get("options", []):
        out += [o["text"], o.get("explanation", "")]
    return out


def safe_eval(text: str) -> float:
    """Numbers, + - * / ^ and log2: the forms the pack's answers use."""
    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__,
                   ast.Div: float.__truediv__, ast.Pow: float.__pow__}
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "log2":
            return math.log2(ev(node.args[0]))
        raise ValueError(ast.dump(node))
    return ev(ast.parse(str(text).replace("^", "**"), mode="eval"))


def rounds_to(printed: str, value: float) -> bool:
    digits = len(printed.split(".")[1])
    return abs(float(value) - float(printed)) <= 0.5 * 10 ** -digits + 1e-12


# ------------------------------------------------------------------------ the pack

def test_pack_loads_with_enough_questions_and_kinds():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) >= 20
    kinds = {q.kind for q in pack.questions}
    assert len(kinds) >= 3 and {"numeric", "choice", "concept", "generated"} <= kinds
    assert {q.topic for q in pack.questions} == {"recsys-evaluation"}
    assert len({q.difficulty for q in pack.questions}) >= 2
    assert RAW["pack"]["name"] == "recsys-evaluation"


def test_every_numeric_question_has_an_independent_value():
    numeric = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"}
    assert numeric == set(ANSWERS)


@pytest.mark.parametrize("qid", sorted(i for i in ANSWERS if "answer" in QS[i]))
def test_answer_text_equals_the_independent_value(qid):
    assert safe_eval(QS[qid]["answer"]) == pytest.approx(ANSWERS[qid], rel=1e-12)


@pytest.mark.parametrize("qid", sorted(ANSWERS))
def test_the_engine_agrees(qid):
    from drills.grading.reference import reference

    q = next(q for q in load_pack(PATH, builtin=True).questions if q.id == qid)
    assert reference(q).value == pytest.approx(ANSWERS[qid], rel=1e-9)


@pytest.mark.parametrize("qid", sorted(QS))
def test_every_written_decimal_is_derived(qid):
    values = [*DERIVED.get(qid, []), *([ANSWERS[qid]] if qid in ANSWERS else [])]
    for text in texts(QS[qid]):
        for printed in DECIMAL.findall(text):
            assert any(rounds_to(printed, v) for v in values), (qid, printed)


@pytest.mark.parametrize("qid", sorted(QS))
def test_every_written_fraction_is_derived(qid):
    values = {F(v) for v in DERIVED.get(qid, []) if isinstance(v, F)}
    if qid in ANSWERS and "answer" in QS[qid]:
        values |= {F(a) for a in re.findall(r"^\d+/\d+$", QS[qid]["answer"])}
    for text in texts(QS[qid]):
        for m in FRACTION.finditer(text):
            if m.group(0) in GIVEN_RATIOS.get(qid, set()):
                continue
            assert F(int(m.group(1)), int(m.group(2))) in values, (qid, m.group(0))


# --------------------------------------------------------------- leave-one-out claims

def test_ndcg_never_exceeds_hr_and_equals_it_only_at_rank_1_or_a_miss():
    for r in range(1, 40):
        n, h = ndcg_one(r, 10), hit(r, 10)
        assert n <= h
        assert (n == h) == (r == 1 or r > 10)


def test_hr_equals_recall_with_one_held_out_item_and_differs_with_four():
    for r in range(1, 30):
        assert hit(r, 10) == F(hit(r, 10), 1)  # recall = hits / 1
    found, held_out = 1, 4
    assert int(found > 0) == 1 and F(found, held_out) == F(1, 4)


def test_loo_rank9_sits_between_rr_and_hr():
    assert 1 / 9 < ndcg_one(9, 10) < hit(9, 10)


def test_hr_average_counts_rank_10_and_not_11():
    assert [hit(r, 10) for r in [1, 4, 9, 11, 27, 3, 10]] == [1, 1, 1, 0, 0, 1, 1]


def test_loo_with_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    items = [f"i{n}" for n in range(10)]
    qrels = {"u": {"i8": 1}}  # the held-out item at rank 9
    run = {"u": {d: float(10 - n) for n, d in enumerate(items)}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut", "recip_rank", "success"}).evaluate(run)["u"]
    assert got["ndcg_cut_10"] == pytest.approx(ANSWERS["recsys-loo-ndcg-rank9"], abs=1e-6)
    assert got["recip_rank"] == pytest.approx(1 / 9, abs=1e-6)
    assert got["success_10"] == 1


# ------------------------------------------------------------------ sampled metrics

def test_hypergeometric_by_hand_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for others, above in [(20000, 1500), (20000, 1000), (9999, 49), (9999, 4999)]:
        dist = stats.hypergeom(others, above, 100)
        assert sampled_hr(others, above, 100, 10) == pytest.approx(dist.cdf(9), abs=1e-9)
        assert math.fsum(x * p for x, p in enumerate(above_pmf(others, above, 100))) == \
            pytest.approx(dist.mean(), rel=1e-9)
        assert dist.mean() == pytest.approx(100 * above / others)


def test_expected_above_makes_a_rank_1501_item_a_sampled_top_10():
    assert ANSWERS["recsys-sampled-expected-above"] == 7.5
    assert 1 + 7.5 <= 10  # expected sampled rank inside the top 10 ...
    assert hit(1501, 10) == 0  # ... while the exact rank is not
    assert sampled_hr(20000, 1500, 100, 10) > 0.78


def test_one_negative_is_the_users_auc():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    # 20,000 negatives, 1,000 of them scored above the held-out positive.
    scores = [3.0] * 1000 + [1.0] * 19000 + [2.0]
    labels = [0] * 20000 + [1]
    auc = sklearn_metrics.roc_auc_score(labels, scores)
    assert auc == pytest.approx(ANSWERS["recsys-sampled-one-negative"], abs=1e-12)
    assert hit(1001, 10) == 0
    assert sampled_hr(20000, 1000, 100, 10) == pytest.approx(0.9722, abs=5e-5)


def test_sampling_flips_the_order_of_the_two_models():
    assert FLIP["exact_A"] == pytest.approx(0.4) and FLIP["exact_B"] == 0
    assert FLIP["sampled_A"] == pytest.approx(0.40, abs=0.005)
    assert FLIP["sampled_B"] == pytest.approx(1.00, abs=0.005)
    assert FLIP["ndcg_A"] < FLIP["ndcg_B"]
    assert FLIP["above_A"] == pytest.approx(50, abs=0.01)  # "expects 50 above"
    pmf_b = above_pmf(9999, 49, 100)
    assert pmf_b[0] + pmf_b[1] > 0.9  # "usually a sampled rank of 1 or 2"
    # A's mean exact rank is far worse than B's 50, yet A wins the exact HR@10.
    assert 0.4 * 1 + 0.6 * 5000 > 50


# ---------------------------------------------------------------- popularity, coverage

def test_popularity_baseline_ranks():
    assert POP_RANKS == [3, 1, None, 2, None]
    assert safe_eval(QS["recsys-popularity-baseline"]["answer"]) == pytest.approx(POP_NDCG)


def test_catalogue_coverage_counts_items_not_slots():
    assert sum(len(x) for x in LISTS) == 12
    assert COVERAGE == F(5, 16)


def test_distributional_coverage_bounds():
    assert entropy_bits([1, 1, 1]) == pytest.approx(log2(3))
    assert entropy_bits([6]) == 0
    assert 0 < entropy_bits([3, 2, 1]) < log2(3)


# ------------------------------------------------------------ conventions of libraries

def test_map_at_k_under_three_denominators():
    # 1 + 2/3 + 3/4 = 29/12, over 4, 5 and 3
    assert ap_at_k(MAP_LABELS, 4, min(4, 5)) == F(29, 48)  # RecBole MAP@K, recommenders map_at_k
    assert ap_at_k(MAP_LABELS, 4, 5) == F(29, 60)  # trec_eval map_cut, recommenders map
    assert ap_at_k(MAP_LABELS, 4, sum(MAP_LABELS)) == F(29, 36)  # over the relevant retrieved


def test_map_over_all_held_out_items_with_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"u": {"r1": 1, "r2": 1, "x1": 1, "x2": 1, "x3": 1}}  # 5 held-out items
    ranked = ["n1", "r1", "r2", "n2"]
    run = {"u": {d: float(4 - n) for n, d in enumerate(ranked)}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut"}).evaluate(run)["u"]
    assert got["map_cut_5"] == pytest.approx(float(F(7, 30)), abs=1e-6)


def test_recall_conventions():
    hits, held_out, k = 6, 15, 10
    assert F(hits, held_out) == F(2, 5)  # RecBole Recall@K, recommenders recall_at_k
    assert F(hits, min(k, held_out)) == F(3, 5)  # Mult-VAE Recall_at_k_batch
    assert F(hits, k) == F(hits, min(k, held_out))  # P@10 coincides only because 15 > 10


def test_implicit_precision_is_pooled():
    pooled = F(sum(h for _, h in IMPLICIT_USERS), sum(min(K, n) for n, _ in IMPLICIT_USERS))
    mean_p_at_k = sum(F(h, K) for _, h in IMPLICIT_USERS) / 2
    mean_normalised = sum(F(h, min(K, n)) for n, h in IMPLICIT_USERS) / 2
    assert pooled == F(5, 13)
    assert mean_p_at_k == F(1, 4) and mean_normalised == F(11, 30)
    assert len({pooled, mean_p_at_k, mean_normalised}) == 3


# -------------------------------------------------------------------------- generated

@pytest.mark.parametrize("seed", range(10))
def test_generated_single_relevant_items(seed):
    from drills.generators.instantiate import instantiate
    from drills.grading.reference import reference

    pack = load_pack(PATH, builtin=True)
    for q in pack.questions:
        if q.kind != "generated":
            continue
        item = instantiate(q, random.Random(seed))
        labels = list(item.problem.relevance)
        assert labels.count(1) == 1 and set(labels) <= {0, 1}
        r = labels.index(1) + 1
        assert f"{labels}" in item.prompt
        want = 1 / log2(r + 1) if item.metric == "ndcg" else 1 / r
        assert reference(item).value == pytest.approx(want, rel=1e-12)
