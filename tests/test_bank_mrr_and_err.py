"""The `mrr-and-err` pack (questions/mrr-and-err.yaml): every number it states, recomputed.

Independent of drills' engine: the pack is read with yaml.safe_load and every value is
recomputed here from first principles (exact fractions) from the inputs each question
declares; the engine's value is then compared with it. Every decimal and fraction printed
in a question (prompt, hints, options, explanations, model answer) must be one of the values
derived for that question. trec_eval's recip_rank runs through pytrec_eval when it installs
(skipped otherwise); the claims about gdeval.pl, MS MARCO's script, NTCIREVAL and trec_eval's
rbp carry their sources in the pack's comments.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction as F
from itertools import product
from pathlib import Path

import pytest
import yaml

from drills.engine.metrics.registry import metric_value
from drills.generators.instantiate import instantiate, item_rng
from drills.grading.reference import reference
from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "mrr-and-err.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
BY_ID = {q["id"]: q for q in RAW["questions"]}
PACK = load_pack(PATH, builtin=True)
LOADED = {q.id: q for q in PACK.questions}


# --------------------------------------------------------------------------- references

def binary(grades, threshold=1):
    return [1 if g >= threshold else 0 for g in grades]


def rr(labels, k=None):
    for rank, x in enumerate(labels[:k] if k else labels, start=1):
        if x:
            return F(1, rank)
    return F(0)


def stop_probability(grade, g_max):
    return F(2 ** grade - 1, 2 ** g_max)


def err(grades, g_max, k=None, stops=None):
    """sum over r of (1/r) R_r prod_{i<r} (1 - R_i); ``stops`` overrides R_i."""
    total, reach = F(0), F(1)
    for rank, grade in enumerate(grades[:k] if k else grades, start=1):
        r = stops(grade) if stops else stop_probability(grade, g_max)
        total += reach * r / rank
        reach *= 1 - r
    return total


def err_contributions(grades, g_max):
    out, reach = [], F(1)
    for rank, grade in enumerate(grades, start=1):
        r = stop_probability(grade, g_max)
        out.append(reach * r / rank)
        reach *= 1 - r
    return out


def rbp(grades, p, g_max=1):
    p = F(p)
    return (1 - p) * sum((F(g, g_max) * p ** i for i, g in enumerate(grades)), F(0))


def ndcg_at_1(labels):
    return F(labels[0]) if any(labels) else F(0)


# --------------------------------------------------------------------------- inputs and derived values

MRR5 = [[0, 1, 0, 1, 0], [1, 0, 0, 0, 1], [0, 0, 0, 0, 0], [0, 0, 0, 1, 1], [0, 0, 1, 0, 0]]
MRR_AT3 = [[0, 1, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0]]
MRR_GRADED = [[1, 3, 0, 2], [0, 1, 2, 1], [1, 1, 0, 0]]
ERR_HAND = [1, 3, 0, 2]


def _values_mrr5():
    rrs = [rr(q) for q in MRR5]
    return {"answer": sum(rrs) / len(rrs), "skip": sum(rrs) / sum(1 for x in rrs if x)}


def _values_mrr_at3():
    cut = [rr(q, 3) for q in MRR_AT3]
    return {"answer": sum(cut) / 5, "uncut": sum(rr(q) for q in MRR_AT3) / 5, "q2_uncut": rr(MRR_AT3[1])}


def _values_mrr_threshold():
    def at(t):
        return sum(rr(binary(g, t)) for g in MRR_GRADED) / 3
    return {"answer": at(2), "t1": at(1)}


def _values_err_hand():
    stops = [stop_probability(g, 3) for g in ERR_HAND]
    reach2 = 1 - stops[0]
    return {"answer": err(ERR_HAND, 3), **{f"R{i}": s for i, s in enumerate(stops)},
            "reach3": reach2 * (1 - stops[1]), "reach2": reach2}


def _values_err_scale():
    g = [2, 1, 2]
    return {"answer": err(g, 4), **{f"R{i}": stop_probability(x, 4) for i, x in enumerate(g)},
            **{f"R2_{i}": stop_probability(x, 2) for i, x in enumerate(g)}, "gmax2": err(g, 2)}


def _values_err_binary():
    b = [0, 1, 1, 0, 1]
    return {"answer": err(b, 1), "R": stop_probability(1, 1), "rr": rr(b)}


def _values_err_saturation():
    one, two = [4, 0, 0], [4, 3, 0]
    return {"answer": err(two, 4), "one": err(one, 4), "past": 1 - stop_probability(4, 4),
            "added": err(two, 4) - err(one, 4), "stopped": stop_probability(4, 4)}


def _values_rbp_binary():
    b, p = [1, 0, 0, 1, 1, 0], F(1, 2)
    weights = [(1 - p) * p ** i for i in range(6)]
    return {"answer": rbp(b, p), "p": p, **{f"w{i}": w for i, w in enumerate(weights)}}


def _values_rbp_graded():
    g, p = [3, 0, 1, 2], F(4, 5)
    return {"answer": rbp(g, p, 3), "p": p, "r1": F(1, 3), "r2": F(2, 3),
            "top_judged_2": rbp([2, 0, 1, 2], p, 2),  # trec_eval 10 rescales by the query's grades
            "trec_eval_version": F(10),


            **{f"w{i}": (1 - p) * p ** i for i in range(4)}, "residual": p ** 4}


def _values_rbp_persistence():
    b = [0, 0, 0, 1, 1, 1, 1, 0]
    return {"answer": rbp(b, F(9, 10)), "p": F(9, 10), "one_minus_p": F(1, 10), "p_low": F(1, 2),
            "low": rbp(b, F(1, 2))}


def _values_skip_misses():
    rrs = [F(1, 2), F(1), F(0), F(1, 4)]
    zero_based_rank4 = F(1, 4 - 1)  # rank 4 read as index 3
    return {"answer": sum(rrs) / 4, "slip": sum(rrs) / 3, "sum": sum(rrs), "rr1": rrs[0],
            "rr4": rrs[3], "zero_based": zero_based_rank4}


def _values_msmarco():
    return {"uncut": F(1, 14), "at_cut": F(1, 10)}


def _values_rr_vs_ndcg1():
    return {"rank2": rr([0, 1])}


def _values_err_stop():
    return {"answer": stop_probability(2, 3), "linear": F(2, 3), "minus_one": F(3, 7),
            "no_minus_one": F(2 ** 2, 2 ** 3), "top": stop_probability(3, 3)}


def _values_err_above():
    x, y = err_contributions([3, 1], 3), err_contributions([0, 1], 3)
    no_rank = [(1 - stop_probability(3, 3)) * stop_probability(1, 3), stop_probability(1, 3)]
    return {"x": x[1], "y": y[1], "R1": stop_probability(1, 3), "R3": stop_probability(3, 3),
            "reach_x": 1 - stop_probability(3, 3), "weight": F(1, 2), "no_rank_x": no_rank[0],
            "no_rank_y": no_rank[1]}


def _values_nerr():
    g, ideal = [1, 2, 0, 2], sorted([1, 2, 0, 2], reverse=True)
    e, i = err(g, 2), err(ideal, 2)
    top = err([2, 2, 2, 2], 2)
    return {"err": e, "ideal": i, "answer": e / i, "all_top": top, "over_all_top": e / top,
            "ascending": e / err(sorted(g), 2)}


def _values_err_equals_rr():
    return {"chapelle": err([1, 0, 0], 1)}


def _values_rbp_residual():
    p = F(9, 10)
    return {"answer": p ** 10, "p": p, "rank11": (1 - p) * p ** 10, "scored": 1 - p ** 10,
            "off_by_one": p ** 11, "one_minus_p": 1 - p}


def _values_rbp_depth():
    return {"p": F(4, 5), "inverse_p": 1 / F(4, 5), "p_half": F(1, 2), "patient": F(95, 100)}


def _values_rbp_concept():
    return {"impatient": F(1, 2), "patient": F(95, 100), "trec_default": F(9, 10)}


def _values_gen_err_binary():
    return {"R": stop_probability(1, 1)}


VALUES = {
    "mre-mrr-with-miss": _values_mrr5,
    "mre-mrr-at-3": _values_mrr_at3,
    "mre-mrr-threshold": _values_mrr_threshold,
    "mre-err-hand": _values_err_hand,
    "mre-err-scale": _values_err_scale,
    "mre-err-binary": _values_err_binary,
    "mre-err-saturation": _values_err_saturation,
    "mre-rbp-binary": _values_rbp_binary,
    "mre-rbp-graded": _values_rbp_graded,
    "mre-rbp-persistence": _values_rbp_persistence,
    "mre-skip-misses": _values_skip_misses,
    "mre-msmarco": _values_msmarco,
    "mre-rr-vs-ndcg1": _values_rr_vs_ndcg1,
    "mre-err-stop": _values_err_stop,
    "mre-err-above": _values_err_above,
    "mre-nerr": _values_nerr,
    "mre-err-equals-rr": _values_err_equals_rr,
    "mre-rbp-residual": _values_rbp_residual,
    "mre-rbp-depth": _values_rbp_depth,
    "mre-rbp-concept": _values_rbp_concept,
    "mre-gen-err-binary": _values_gen_err_binary,
}

INPUTS = {
    "mre-mrr-with-miss": {"queries": [{"relevance": q} for q in MRR5[:2]]
                          + [{"relevance": MRR5[2], "judged": [1, 0, 0, 0, 0, 0]}]
                          + [{"relevance": q} for q in MRR5[3:]]},
    "mre-mrr-at-3": {"queries": [{"relevance": q} for q in MRR_AT3[:3]]
                     + [{"relevance": MRR_AT3[3], "judged": [1, 0, 0, 0, 0, 0, 0]},
                        {"relevance": MRR_AT3[4]}], "k": 3},
    "mre-mrr-threshold": {"queries": [{"relevance": MRR_GRADED[0]}, {"relevance": MRR_GRADED[1]},
                                      {"relevance": MRR_GRADED[2], "judged": [3, 1, 1, 0, 0]}],
                          "threshold": 2},
    "mre-err-hand": {"relevance": ERR_HAND, "max_grade": 3, "k": 4},
    "mre-err-scale": {"relevance": [2, 1, 2], "max_grade": 4},
    "mre-err-binary": {"relevance": [0, 1, 1, 0, 1], "max_grade": 1},
    "mre-err-saturation": {"relevance": [4, 3, 0], "max_grade": 4},
    "mre-rbp-binary": {"relevance": [1, 0, 0, 1, 1, 0], "persistence": "1/2"},
    "mre-rbp-graded": {"relevance": [3, 0, 1, 2], "persistence": 0.8, "max_grade": 3},
    "mre-rbp-persistence": {"relevance": [0, 0, 0, 1, 1, 1, 1, 0], "persistence": 0.9},
}


# --------------------------------------------------------------------------- the pack

def test_the_pack_loads_with_enough_questions():
    assert PACK.errors == [], [str(e) for e in PACK.errors]
    assert PACK.meta.name == "mrr-and-err" == RAW["pack"]["name"]
    assert len(PACK.questions) == len(RAW["questions"]) >= 20
    kinds = {q["kind"] for q in RAW["questions"]}
    assert len(kinds) >= 3 and {"numeric", "generated", "choice", "concept"} <= kinds
    assert len({q.get("difficulty") for q in RAW["questions"]}) >= 2
    assert all(q["topic"] == "mrr-and-err" and q["id"].startswith("mre-") for q in RAW["questions"])
    generators = {q["generator"] for q in RAW["questions"] if q["kind"] == "generated"}
    assert {"mrr-queries", "err-hand"} <= generators
    metrics = {q["metric"] for q in RAW["questions"] if q["kind"] == "numeric"}
    assert {"mrr", "err", "rbp"} <= metrics


def test_every_numeric_question_has_declared_inputs_and_values():
    numeric = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"}
    assert numeric == set(INPUTS) and numeric <= set(VALUES)


@pytest.mark.parametrize("qid", sorted(INPUTS))
def test_numeric_answer_recomputed(qid):
    q = BY_ID[qid]
    assert q["problem"] == INPUTS[qid], "the YAML problem is the one this test computes"
    want = VALUES[qid]()["answer"]
    engine = metric_value(LOADED[qid].problem, q["metric"])
    assert math.isclose(engine.value, float(want), rel_tol=1e-12)
    assert math.isclose(reference(LOADED[qid]).value, float(want), rel_tol=1e-12)


def test_key_values():
    # the values the texts state, pinned beside the generic scan below
    assert _values_mrr5() == {"answer": F(5, 12), "skip": F(25, 48)}
    assert (_values_mrr_at3()["answer"], _values_mrr_at3()["uncut"]) == (F(11, 30), F(61, 150))
    assert _values_mrr_threshold() == {"answer": F(5, 18), "t1": F(5, 6)}
    assert _values_err_hand()["answer"] == F(1061, 2048) and _values_err_hand()["reach3"] == F(7, 64)
    assert (_values_err_scale()["answer"], _values_err_scale()["gmax2"]) == (F(1067, 4096), F(53, 64))
    assert _values_err_binary()["answer"] == F(43, 120)
    sat = _values_err_saturation()
    # [4, 3, 0]: 15/16 + (1/16)(7/16)/2 = 480/512 + 7/512 (no longer mdesign-err-two-excellent's [4, 4])
    assert (sat["answer"], sat["one"], sat["added"]) == (F(487, 512), F(15, 16), F(7, 512))
    assert _values_rbp_binary()["answer"] == F(19, 32)
    assert _values_rbp_graded()["answer"] == F(583, 1875) and _values_rbp_graded()["residual"] == F(256, 625)
    assert _values_rbp_persistence()["low"] == F(15, 128)
    assert round(float(_values_rbp_persistence()["answer"]), 7) == 0.2507031
    assert (_values_skip_misses()["answer"], _values_skip_misses()["slip"]) == (F(7, 16), F(7, 12))
    n = _values_nerr()
    assert (n["err"], n["ideal"], n["answer"]) == (F(145, 256), F(163, 192), F(435, 652))
    assert n["ascending"] > 1
    assert _values_err_stop()["answer"] == F(3, 8)
    above = _values_err_above()
    assert (above["x"], above["y"], above["y"] / above["x"]) == (F(1, 128), F(1, 16), 8)
    assert (above["no_rank_x"], above["no_rank_y"]) == (F(1, 64), F(1, 8))
    assert _values_err_equals_rr()["chapelle"] == F(1, 2) and rr([1, 0, 0]) == 1


def test_choice_answers_are_the_computed_ones():
    def correct(qid):
        return next(o["text"] for o in BY_ID[qid]["options"] if o.get("correct"))
    assert correct("mre-err-stop") == str(_values_err_stop()["answer"])
    assert correct("mre-nerr") == f"{float(_values_nerr()['answer']):.4f}"
    assert correct("mre-rbp-residual") == f"0.9^10 = {float(_values_rbp_residual()['answer']):.4f}"
    assert correct("mre-rbp-depth") == str(int(1 / (1 - _values_rbp_depth()["p"])))
    assert correct("mre-skip-misses").startswith(str(_values_skip_misses()["answer"]) + ":")
    above = _values_err_above()
    assert correct("mre-err-above") == f"ERR: {above['x']} in X, {above['y']} in Y; DCG: the same in both"


# --------------------------------------------------------------------------- claims checked by computation

def test_mrr_skipping_a_miss_rewards_failure():
    # adding a query the system cannot answer leaves the skip-miss mean unchanged
    hits = [F(1, 2), F(1), F(1, 4)]
    assert sum(hits) / 3 == (sum(hits) + 0) / 3 != (sum(hits) + 0) / 4


def test_zero_based_ranks_slip():
    # ranks 2, 1, 4 read as 0-based indices 1, 0, 3: 1, a division by zero, 1/3
    assert F(1, 2 - 1) == 1 and F(1, 4 - 1) == F(1, 3)
    with pytest.raises(ZeroDivisionError):
        F(1, 1 - 1)


def test_ndcg_at_1_never_exceeds_rr_under_binary_labels():
    for n in range(1, 7):
        for labels in product((0, 1), repeat=n):
            if not any(labels):
                continue
            labels = list(labels)
            assert ndcg_at_1(labels) <= rr(labels)
            assert (ndcg_at_1(labels) == rr(labels)) == (labels[0] == 1)


def test_err_is_rr_when_relevant_documents_always_stop_the_user():
    for n in range(1, 7):
        for labels in product((0, 1), repeat=n):
            labels = list(labels)
            assert err(labels, 1, stops=lambda g: F(g)) == rr(labels)


def test_err_discount_depends_on_what_is_above_dcg_does_not():
    x, y = err_contributions([3, 1], 3), err_contributions([0, 1], 3)
    assert y[1] == 8 * x[1]
    dcg_rank2 = [(2 ** 1 - 1) / math.log2(3)] * 2  # the same in both lists, by definition
    assert dcg_rank2[0] == dcg_rank2[1]


def test_rbp_weights_depth_and_residual():
    for p in (0.5, 0.8, 0.9, 0.95):
        # expected depth: sum of p^(i-1) = 1/(1 - p); weights (1 - p) p^(i-1) sum to 1
        partial = math.fsum(p ** i for i in range(2000))
        assert math.isclose(partial, 1 / (1 - p), rel_tol=1e-9)
        # the residual after depth d is the tail of the weights: p^d
        d = 10
        tail = math.fsum((1 - p) * p ** i for i in range(d, 2000))
        assert math.isclose(tail, p ** d, rel_tol=1e-9)
    assert 1 / (1 - F(4, 5)) == 5 and 1 / (1 - F(1, 2)) == 2 and 1 / (1 - F(95, 100)) == 20
    assert 1 / (1 - F(9, 10)) == 10
    # without (1 - p) the value doubles at p = 1/2
    b = [1, 0, 0, 1, 1, 0]
    assert rbp(b, F(1, 2)) * 2 == sum(F(x) * F(1, 2) ** i for i, x in enumerate(b))


def test_err_scale_matters():
    assert err([2, 1, 2], 2) > err([2, 1, 2], 4)
    assert [stop_probability(g, 2) for g in (2, 1, 2)] == [F(3, 4), F(1, 4), F(3, 4)]


# --------------------------------------------------------------------------- every printed number

_DECIMAL = re.compile(r"(?<![\w.^])(\d+\.\d+)(?![\d^])")
_FRACTION = re.compile(r"(?<![\w./^])(\d+)/(\d+)(?![\w(/^]|\.\d)")


def _texts(q: dict) -> list[str]:
    out = [q.get("prompt", ""), q.get("explanation", ""), q.get("model_answer", "")]
    out += q.get("hints", []) + point_texts(q.get("key_points"))
    for o in q.get("options", []):
        out += [o["text"], o.get("explanation", "")]
    return [t for t in out if t]


def _numbers(text: str):
    for m in _DECIMAL.finditer(text):
        yield m.group(0), F(m.group(1)), len(m.group(1).split(".")[1])
    for m in _FRACTION.finditer(text):
        yield m.group(0), F(int(m.group(1)), int(m.group(2))), None


def _allowed(qid: str) -> list:
    values = list(VALUES.get(qid, dict)().values())
    if qid in INPUTS and "queries" in INPUTS[qid]:  # each query's RR
        t = INPUTS[qid].get("threshold", 1)
        values += [rr(binary(query["relevance"], t)) for query in INPUTS[qid]["queries"]]
    return values


def _matches(value, decimals, allowed) -> bool:
    for a in allowed:
        if decimals is None:
            if F(a) == value:
                return True
        elif abs(float(a) - float(value)) <= 0.5 * 10 ** -decimals + 1e-12:
            return True
    return False


@pytest.mark.parametrize("qid", sorted(BY_ID))
def test_every_number_in_the_text_is_derived(qid):
    q = BY_ID[qid]
    allowed = _allowed(qid)
    wrong = [shown for text in _texts(q) for shown, value, decimals in _numbers(text)
             if not _matches(value, decimals, allowed)]
    assert wrong == []


# --------------------------------------------------------------------------- libraries

def test_trec_eval_recip_rank_counts_a_miss_as_zero():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for n, labels in enumerate(MRR5):
        qid = f"q{n}"
        run[qid] = {f"{qid}d{i}": float(10 - i) for i in range(len(labels))}
        qrels[qid] = {f"{qid}d{i}": x for i, x in enumerate(labels)}
        qrels[qid][f"{qid}missed"] = 1  # every query has a judged relevant document
    got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    values = [got[f"q{n}"]["recip_rank"] for n in range(len(MRR5))]
    assert values[2] == 0
    assert math.isclose(sum(values) / len(values), 5 / 12, rel_tol=1e-6)  # float32 inside


# --------------------------------------------------------------------------- generated items

TEMPLATES = [q for q in PACK.questions if q.kind == "generated"]
SEEDS = range(8)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda q: q.id)
def test_generated_items_match_the_references(template):
    for seed in SEEDS:
        item = instantiate(template, item_rng(seed, 0, template.id))
        p = item.problem
        if item.metric == "mrr":
            rrs = [rr(binary(q.relevance, p.threshold), p.k) for q in p.queries]
            want = sum(rrs) / len(rrs)
            assert sum(1 for x in rrs if x == 0) >= 1  # one query finds nothing, and counts
        else:
            assert item.metric == "err"
            assert p.max_grade == template.params["max_rel"]
            want = err(list(p.relevance), p.max_grade, p.k)
        assert math.isclose(reference(item).value, float(want), rel_tol=1e-12, abs_tol=1e-15)
