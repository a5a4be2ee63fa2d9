"""questions/metric-design.yaml: every number recomputed, every library claim run.

Values come from plain Python (fractions, math); the AUC claims (a ranking measure, blind
to calibration, unchanged by a monotone transform) run scikit-learn. drills' engine is
only compared with these values. Every decimal and fraction a question writes must be
one this file derives. Claims from papers that cannot be run are cited in the YAML's
header ([HE14], [LI09], [ERR]).
"""

from __future__ import annotations

import ast
import math
import random
import re
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "metric-design.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
QS = {q["id"]: q for q in RAW["questions"]}
log2 = math.log2


# ----------------------------------------------------------------------- own formulas

def gain(g: int, convention: str) -> float:
    return 2.0**g - 1 if convention == "exponential" else float(g)


def dcg(grades, k, convention="exponential") -> float:
    return sum(gain(g, convention) / log2(i + 1) for i, g in enumerate(grades[:k], start=1))


def ndcg(grades, pool, k, convention="exponential") -> float:
    ideal = dcg(sorted(pool, reverse=True), k, convention)
    return dcg(grades, k, convention) / ideal if ideal else 0.0


def err(grades, k, g_max) -> F:
    """Chapelle et al. 2009: sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1)/2^g_max."""
    total, still = F(0), F(1)
    for r, g in enumerate(grades[:k], start=1):
        stop = F(2**g - 1, 2**g_max)
        total += still * stop / r
        still *= 1 - stop
    return total


def rr(labels) -> F:
    return next((F(1, i) for i, x in enumerate(labels, start=1) if x), F(0))


def ap(grades, pool) -> F:
    relevant = sum(1 for g in pool if g >= 1)
    hits, total = 0, F(0)
    for i, g in enumerate(grades, start=1):
        if g >= 1:
            hits += 1
            total += F(hits, i)
    return total / relevant


# ------------------------------------------------------------ the values each question uses

A, B = [3, 0, 0, 2, 2], [2, 2, 0, 3, 0]
FLIP = {c: (dcg(A, 3, c), dcg(B, 3, c)) for c in ("exponential", "linear")}
ERR_GRADES = [4, 4]

ANSWERS: dict[str, float] = {
    "mdesign-legal-recall-number": float(F(1600, 2000)),
    "mdesign-calibration-ratio": float(F(550, 400)),
    "mdesign-gain-ratio": gain(3, "exponential") / gain(1, "exponential"),
    "mdesign-gain-flip-difference": ndcg(A, A, 3) - ndcg(B, A, 3),
    "mdesign-revenue-gain": dcg([0, 18, 0], 3, "linear"),
    "mdesign-err-two-excellent": float(err(ERR_GRADES, 2, 4)),
}

DERIVED: dict[str, list[float | F]] = {
    "mdesign-navigational": [rr([0, 1]), F(1, 10)],  # RR at rank 2; P@10 with one right page
    "mdesign-voice": [rr([0, 1])],
    "mdesign-legal-recall-number": [F(1600, 5000)],
    "mdesign-gain-flip-which": [FLIP["exponential"][1], FLIP["linear"][1]],
    "mdesign-gain-flip-difference": [F(3, 2)],  # the grade-2 term of IDCG@3 at rank 3
    "mdesign-revenue-gain": [rr([0, 1])],
    "mdesign-err-two-excellent": [F(15, 16), F(1, 16), err(ERR_GRADES, 2, 4) - err(ERR_GRADES, 1, 4)],
    # the stop probability of grade 4 (g_max 4); 1/r and log2 discounts at ranks 2 and 5
    "mdesign-err-when": [F(2**4 - 1, 2**4), F(1, 2), F(1, 5), 1 / math.log2(3), 1 / math.log2(6)],
}


def auc(labels, scores) -> F:
    """ROC AUC by pair counting: a tie counts one half."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y]
    neg = [s for y, s in zip(labels, scores, strict=True) if not y]
    wins = sum(F(1) if p > n else F(1, 2) if p == n else F(0) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


# mdesign-auc-monotone: six predictions; round(p, 1) is monotone but not strictly, and its ties move AUC
AUC_Y, AUC_P = [0, 0, 1, 0, 1, 1], [F(12, 100), F(31, 100), F(34, 100), F(52, 100), F(58, 100), F(91, 100)]
AUC_ROUNDED = [F(round(p * 10), 10) for p in AUC_P]
DERIVED["mdesign-auc-monotone"] = [auc(AUC_Y, AUC_P), auc(AUC_Y, AUC_ROUNDED)]


def test_err_barely_moves_when_the_good_result_rises_below_an_excellent_one():
    # mdesign-err-when: the grade-3 result moves from rank 5 to rank 2 under a grade-4 one
    before, after = [4, 0, 0, 0, 3, 0, 0, 0, 0, 0], [4, 3, 0, 0, 0, 0, 0, 0, 0, 0]
    d_err = float(err(after, 10, 4) - err(before, 10, 4))
    d_ndcg = ndcg(after, before, 10) - ndcg(before, before, 10)
    assert 0 < d_err < d_ndcg / 10  # 0.0082 against 0.0880
    assert 1 / 2 - 1 / 5 > 1 / log2(3) - 1 / log2(6)  # 1/r is the steeper discount here


def test_auc_of_a_monotone_but_not_strict_transform():
    assert auc(AUC_Y, AUC_P) == auc(AUC_Y, [p * p for p in AUC_P]) == F(8, 9)
    assert auc(AUC_Y, AUC_ROUNDED) == F(5, 6)
    sklearn = pytest.importorskip("sklearn.metrics")
    assert sklearn.roc_auc_score(AUC_Y, [float(p) for p in AUC_ROUNDED]) == pytest.approx(5 / 6)


DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
FRACTION = re.compile(r"(?<![\w./])(\d+)/(\d+)(?![\w/(])")


def texts(q: dict) -> list[str]:
    out = [q["prompt"], *q.get("hints", []), q.get("explanation", ""), q.get("model_answer", ""),
           *point_texts(q.get("key_points"))]
    for o in q.get("options", []):
        out += [o["text"], o.get("explanation", "")]
    return out


def safe_eval(text: str) -> float:
    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult, ast.Add, ast.Sub)):
            ops = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__,
                   ast.Div: float.__truediv__}
            return ops[type(node.op)](ev(node.left), ev(node.right))
        raise ValueError(ast.dump(node))
    return ev(ast.parse(str(text), mode="eval"))


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
    assert {q.topic for q in pack.questions} == {"metric-design"}
    assert len({q.difficulty for q in pack.questions}) >= 2
    assert RAW["pack"]["name"] == "metric-design"


def test_every_numeric_question_has_an_independent_value():
    assert {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"} == set(ANSWERS)


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
    if "answer" in QS[qid]:
        values |= {F(a) for a in re.findall(r"^\d+/\d+$", str(QS[qid]["answer"]))}
    for text in texts(QS[qid]):
        for m in FRACTION.finditer(text):
            assert F(int(m.group(1)), int(m.group(2))) in values, (qid, m.group(0))


# ------------------------------------------------------------- which metric, which k

def test_navigational_metrics_on_one_right_page():
    for r in range(1, 11):
        labels = [0] * 10
        labels[r - 1] = 1
        assert F(sum(labels[:10]), 10) == F(1, 10)  # P@10 is blind to the rank
        assert rr(labels) == F(1, r)
    labels = [0] * 100
    labels[79] = 1
    assert int(any(labels[:100])) == 1  # recall@100 with one right page at rank 80


def test_two_rankers_can_swap_between_ndcg_at_4_and_ndcg_at_20():
    # The same 30 documents (10 relevant): A front-loads 4, B spreads 10 over the top 11.
    a = [1, 1, 1, 1] + [0] * 16 + [1] * 6 + [0] * 4
    b = [1, 1, 0, 1] + [1] * 7 + [0] * 19
    assert sorted(a) == sorted(b)
    assert ndcg(a, a, 4) > ndcg(b, a, 4)
    assert ndcg(a, a, 20) < ndcg(b, a, 20)


def test_legal_numbers():
    assert F(1600, 2000) == F(4, 5)
    assert F(5000 - 1600, 1600) == pytest.approx(2, abs=0.2)  # "about two non-responsive each"


# ------------------------------------------------------------------------------ ads

def test_calibration_ratio_two_ways():
    assert F(550, 400) == F(550, 20000) / F(400, 20000) == F(11, 8)
    assert F(11, 8) - 1 > F(1, 3)  # "overpredicting by more than a third"


def test_auc_is_unchanged_by_squaring_while_log_loss_changes():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(7)
    p = [rng.uniform(0.01, 0.99) for _ in range(400)]
    y = [int(rng.random() < x) for x in p]
    squared = [x * x for x in p]
    assert metrics.roc_auc_score(y, squared) == metrics.roc_auc_score(y, p)
    assert metrics.log_loss(y, squared) != pytest.approx(metrics.log_loss(y, p), abs=1e-3)


def test_auc_cannot_see_a_model_that_doubles_every_prediction():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(11)
    p = [rng.uniform(0.001, 0.1) for _ in range(2000)]  # calibrated CTRs ...
    y = [int(rng.random() < x) for x in p]  # ... clicks drawn from them
    doubled = [2 * x for x in p]
    assert metrics.roc_auc_score(y, doubled) == metrics.roc_auc_score(y, p)
    assert sum(doubled) / sum(y) == pytest.approx(2 * sum(p) / sum(y))
    assert metrics.log_loss(y, doubled) > metrics.log_loss(y, p)


# ----------------------------------------------------------------------- gain design

def test_gain_ratios():
    assert gain(3, "exponential") / gain(1, "exponential") == 7
    assert gain(3, "linear") / gain(1, "linear") == 3


def test_the_gain_decides_which_ranking_wins():
    exp_a, exp_b = FLIP["exponential"]
    lin_a, lin_b = FLIP["linear"]
    assert exp_a == 7 and exp_b == pytest.approx(3 + 3 / log2(3))
    assert lin_a == 3 and lin_b == pytest.approx(2 + 2 / log2(3))
    assert exp_a > exp_b and lin_a < lin_b
    assert sorted(A) == sorted(B)  # same documents: one IDCG per gain
    assert dcg(sorted(A, reverse=True), 3) == pytest.approx(7 + 3 / log2(3) + 3 / 2)
    assert ANSWERS["mdesign-gain-flip-difference"] > 0
    assert ndcg(A, A, 3, "linear") - ndcg(B, A, 3, "linear") < 0


def test_revenue_weighting_and_conversion_disagree():
    revenue_a, revenue_b = dcg([0, 18, 0], 3, "linear"), dcg([10, 0, 0], 3, "linear")
    assert revenue_b == 10 and revenue_a > revenue_b
    assert rr([0, 1, 0]) == F(1, 2) < rr([1, 0, 0]) == 1


# ------------------------------------------------------------------------------- ERR

def test_err_of_two_excellent_results():
    assert err(ERR_GRADES, 2, 4) == F(15, 16) + F(1, 16) * F(15, 16) / 2 == F(495, 512)
    assert err(ERR_GRADES, 2, 4) - err(ERR_GRADES, 1, 4) == F(15, 512)
    second_over_first = (15 / log2(3)) / 15  # DCG with 2^rel - 1: what the second adds
    assert round(100 * second_over_first) == 63


def test_err_with_binary_labels_gives_every_relevant_document_one_r():
    assert len({F(2**g - 1, 2**1) for g in (1, 1, 1)}) == 1


# -------------------------------------------------------------------------- generated

LIST = re.compile(r"([AB]): \[([\d, ]+)\]")


def _lists(prompt: str) -> dict[str, list[int]]:
    return {name: [int(x) for x in body.split(",")] for name, body in LIST.findall(prompt)}


@pytest.mark.parametrize("seed", range(8))
def test_generated_items_verdicts(seed):
    """The correct option of each generated item agrees with this file's own NDCG and AP."""
    from drills.generators.instantiate import instantiate

    pack = load_pack(PATH, builtin=True)
    for q in pack.questions:
        if q.kind != "generated":
            continue
        item = instantiate(q, random.Random(seed))
        correct = next(o.text for o in item.options if o.correct)
        conv = "exponential" if "exponential gain 2^rel - 1" in item.prompt else "linear"
        if q.generator == "compare-rankings":
            ranks = _lists(item.prompt)
            k = int(re.search(r"NDCG@(\d+)", item.prompt).group(1))
            a, b = ndcg(ranks["A"], ranks["A"], k, conv), ndcg(ranks["B"], ranks["A"], k, conv)
            want = "same" if abs(a - b) < 1e-12 else ("A has" if a > b else "B has")
            assert correct.startswith(want) or want in correct, (seed, item.prompt, correct)
        elif q.generator == "map-vs-ndcg":
            ranks = _lists(item.prompt)
            ap_pick = "A" if ap(ranks["A"], ranks["A"]) > ap(ranks["B"], ranks["A"]) else "B"
            nd_a, nd_b = ndcg(ranks["A"], ranks["A"], None, conv), ndcg(ranks["B"], ranks["A"], None, conv)
            nd_pick = "A" if nd_a > nd_b else "B"
            assert correct == f"AP prefers {ap_pick}; NDCG prefers {nd_pick}", (seed, item.prompt)
        elif q.generator == "binary-vs-graded":
            graded, binary = [[int(x) for x in body.split(",")]
                              for body in re.findall(r"\[([\d, ]+)\]", item.prompt)[:2]]
            k = int(re.search(r"NDCG@(\d+)", correct + " ".join(o.text for o in item.options)).group(1))
            g, b = ndcg(graded, graded, k, conv), ndcg(binary, binary, k, conv)
            if abs(g - b) < 1e-12:
                assert "equal" in correct
            else:
                assert ("graded" if g > b else "binary") in correct, (seed, item.prompt, correct)
