"""The `map-and-recall` pack (questions/map-and-recall.yaml): every number it states, recomputed.

Independent of drills' engine: the pack is read with yaml.safe_load and every value is
recomputed here from first principles (fractions) from the inputs each question declares;
the engine's value is then compared with it. Every decimal and fraction printed in a
question (prompt, hints, options, explanations, model answer) must be one of the values
derived for that question. The library claims run against the library where it installs:
scikit-learn always, pytrec_eval, torchmetrics and ml_metrics when present (skipped
otherwise; their sources are in the pack's comments).
"""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from drills.engine.metrics.registry import metric_value
from drills.generators.instantiate import instantiate, item_rng
from drills.grading.reference import reference
from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "map-and-recall.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
BY_ID = {q["id"]: q for q in RAW["questions"]}
PACK = load_pack(PATH, builtin=True)
LOADED = {q.id: q for q in PACK.questions}


# --------------------------------------------------------------------------- references

def binary(grades, threshold=1):
    return [1 if g >= threshold else 0 for g in grades]


def precisions_at_hits(labels):
    """P@i at each relevant rank i."""
    out, hits = [], 0
    for i, x in enumerate(labels, start=1):
        if x:
            hits += 1
            out.append(F(hits, i))
    return out


def ap(labels, r, k=None, denominator="R"):
    top = labels[:k] if k else labels
    total = sum(precisions_at_hits(top), F(0))
    d = {"R": r, "retrieved": sum(top), "min_k_R": min(k or len(labels), r)}[denominator]
    return total / d if d else F(0)


def precision(labels, k):
    return F(sum(labels[:k]), k)  # ranks past the end count as non-relevant


def recall(labels, r, k):
    return F(sum(labels[:k]), r)


def rprec(labels, r):
    return F(sum(labels[:r]), r)


def ndcg(grades):
    """Exponential gain 2^g - 1, log2(i + 1) discount, ideal from the same documents."""
    def dcg(gs):
        return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gs))
    return dcg(grades) / dcg(sorted(grades, reverse=True))


# --------------------------------------------------------------------------- inputs and derived values
# Each entry: the inputs the question states (checked against its YAML), and every value
# that may appear in its text.

def _values_ap_over_r():
    b, r = [0, 1, 1, 0, 1, 0, 0], 4
    return {"answer": ap(b, r), "sklearn": ap(b, r, denominator="retrieved"), "share": F(3, r)}


def _values_ap_sklearn():
    b, r = [1, 0, 1, 0, 0, 1, 1, 0], 6
    appended = b + [1, 1]  # the two missed documents scored below every other
    return {"answer": ap(b, r, denominator="retrieved"), "trec": ap(b, r),
            "ratio": F(sum(b), r), "appended": ap(appended, r)}


def _values_apk():
    b, r, k = [1, 1, 0, 0, 1, 0, 1, 1], 7, 5
    return {"answer": ap(b, r, k, "min_k_R"), "over_r": ap(b, r, k, "R"),
            "over_retrieved": ap(b, r, k, "retrieved"), "perfect_over_r": F(k, r)}


def _values_threshold():
    g, pool = [2, 0, 3, 1, 2, 0], [3, 3, 2, 2, 1, 0, 0]
    def at(t):
        return ap(binary(g, t), sum(binary(pool, t)))
    return {"answer": at(2), "t1": at(1), "t3": at(3)}


LAST = [1, 1] + [0] * 17 + [1]


def _values_last():
    r = 3
    return {"answer": ap(LAST, r), "p20": F(3, 20), "share": F(3, 20) / r,
            "missed": ap(LAST[:2], r), "at3": ap([1, 1, 1], r)}


MAP_QUERIES = [([1, 0, 0, 1, 0], 2), ([0, 0, 1, 0, 0], 3), ([0, 0, 0, 0, 0], 2)]


def _values_map():
    aps = [ap(b, r) for b, r in MAP_QUERIES]
    sk = [ap(b, r, denominator="retrieved") for b, r in MAP_QUERIES]
    return {"answer": sum(aps) / 3, "skip_miss": sum(aps) / 2, "sklearn": sum(sk) / 3}


def _values_p_past_end():
    b = [0, 1, 1, 0, 1, 0, 1]
    return {"answer": precision(b, 15), "set_p": F(sum(b), len(b))}


RECALL_LIST = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0]


def _values_recall():
    b, r = RECALL_LIST, 50
    return {"answer": recall(b, r, 10), "best": F(10, r), "p10": precision(b, 10),
            "r_cap": F(sum(b), min(r, 10))}


def _values_rprec():
    b, r = [1, 1, 0, 1, 1, 0, 1, 0, 0, 1], 7
    return {"answer": rprec(b, r), "r_from_list": rprec(b, sum(b))}


def _values_sklearn_choice():
    return {"ratio": F(4, 6), "classifier_threshold": F(1, 2)}  # the 0.5 myth in a wrong option


def _values_which_tool():
    b, r, k = [0, 1, 1, 0, 0, 1], 5, 4
    top = precisions_at_hits(b[:k])
    return {"trec": ap(b, r, k, "R"), "apk": ap(b, r, k, "min_k_R"), "torch": ap(b, r, k, "retrieved"),
            "sum": sum(top, F(0)), "p2": top[0], "p3": top[1],
            "over_all_retrieved": sum(top, F(0)) / sum(b)}


def _values_p_tools():
    return {"p10": F(3, 10), "set_p": F(3, 6)}


def _values_hit_recall():
    return {"recall_r2": F(1, 2), "recall_r3": F(1, 3)}


SWAP_A, SWAP_B = [1, 0, 0, 3, 2], [3, 0, 0, 1, 2]


def _values_graded_swap():
    return {"ap_a": ap(binary(SWAP_A), 3), "ap_b": ap(binary(SWAP_B), 3),
            "ndcg_a": ndcg(SWAP_A), "ndcg_b": ndcg(SWAP_B)}


def _values_recall_concept():
    return {"max": F(10, 500), "k_over_r": F(10, 500)}


VALUES = {
    "mar-ap-over-r": _values_ap_over_r,
    "mar-ap-sklearn": _values_ap_sklearn,
    "mar-apk-min-k-r": _values_apk,
    "mar-ap-threshold": _values_threshold,
    "mar-last-relevant": _values_last,
    "mar-map-with-miss": _values_map,
    "mar-p-past-end": _values_p_past_end,
    "mar-recall-large-r": _values_recall,
    "mar-rprec": _values_rprec,
    "mar-sklearn-denominator": _values_sklearn_choice,
    "mar-apk-which-tool": _values_which_tool,
    "mar-p-past-end-tools": _values_p_tools,
    "mar-hit-vs-recall": _values_hit_recall,
    "mar-graded-swap": _values_graded_swap,
    "mar-recall-large-r-concept": _values_recall_concept,
}

# The inputs each numeric question declares, as the test reads its own prompt.
INPUTS = {
    "mar-ap-over-r": {"relevance": [0, 1, 1, 0, 1, 0, 0], "judged": [1, 1, 1, 1, 0, 0, 0, 0]},
    "mar-ap-sklearn": {"relevance": [1, 0, 1, 0, 0, 1, 1, 0], "judged": [1] * 6 + [0] * 4,
                       "denominator": "retrieved"},
    "mar-apk-min-k-r": {"relevance": [1, 1, 0, 0, 1, 0, 1, 1], "judged": [1] * 7 + [0] * 3, "k": 5,
                        "denominator": "min_k_R"},
    "mar-ap-threshold": {"relevance": [2, 0, 3, 1, 2, 0], "judged": [3, 3, 2, 2, 1, 0, 0], "threshold": 2},
    "mar-last-relevant": {"relevance": LAST},
    "mar-map-with-miss": {"queries": [
        {"relevance": [1, 0, 0, 1, 0]},
        {"relevance": [0, 0, 1, 0, 0], "judged": [1, 1, 1, 0, 0, 0, 0]},
        {"relevance": [0, 0, 0, 0, 0], "judged": [1, 1, 0, 0, 0, 0, 0]}]},
    "mar-p-past-end": {"relevance": [0, 1, 1, 0, 1, 0, 1], "k": 15},
    "mar-recall-large-r": {"relevance": RECALL_LIST, "judged": [1] * 50 + [0] * 3, "k": 10},
    "mar-rprec": {"relevance": [1, 1, 0, 1, 1, 0, 1, 0, 0, 1], "judged": [1] * 7 + [0] * 4},
}


# --------------------------------------------------------------------------- the pack

def test_the_pack_loads_with_enough_questions():
    assert PACK.errors == [], [str(e) for e in PACK.errors]
    assert PACK.meta.name == "map-and-recall" == RAW["pack"]["name"]
    assert len(PACK.questions) == len(RAW["questions"]) >= 20
    kinds = {q["kind"] for q in RAW["questions"]}
    assert len(kinds) >= 3 and {"numeric", "generated", "choice", "concept"} <= kinds
    assert len({q.get("difficulty") for q in RAW["questions"]}) >= 2
    assert all(q["topic"] == "map-and-recall" and q["id"].startswith("mar-") for q in RAW["questions"])
    generators = {q["generator"] for q in RAW["questions"] if q["kind"] == "generated"}
    assert {"ap-hand", "map-queries", "precision-recall", "map-vs-ndcg"} <= generators


def test_every_numeric_question_has_declared_inputs_and_values():
    numeric = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric"}
    assert numeric == set(INPUTS)
    assert numeric <= set(VALUES)


@pytest.mark.parametrize("qid", sorted(INPUTS))
def test_numeric_answer_recomputed(qid):
    q = BY_ID[qid]
    problem = q["problem"]
    assert problem == INPUTS[qid], "the YAML problem is the one this test computes"
    want = VALUES[qid]()["answer"]
    engine = metric_value(LOADED[qid].problem, q["metric"])
    assert F(engine.text) == want if "/" in engine.text or engine.text.isdigit() else \
        math.isclose(engine.value, float(want), rel_tol=1e-12)
    assert math.isclose(reference(LOADED[qid]).value, float(want), rel_tol=1e-12)
    if "answer" in q:
        assert q["answer"] == str(want)


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
    """Every decimal (value, decimals printed) and fraction (exact) in a text."""
    for m in _DECIMAL.finditer(text):
        yield m.group(0), F(m.group(1)), len(m.group(1).split(".")[1])
    for m in _FRACTION.finditer(text):
        yield m.group(0), F(int(m.group(1)), int(m.group(2))), None


def _allowed(qid: str) -> list:
    values = list(VALUES.get(qid, dict)().values())
    extra = []
    if qid in INPUTS:  # the precisions at the relevant ranks are part of every AP explanation
        for query in INPUTS[qid].get("queries", [INPUTS[qid]]):
            extra += precisions_at_hits(binary(query["relevance"], INPUTS[qid].get("threshold", 1)))
    return values + extra


def _matches(value, decimals, allowed) -> bool:
    for a in allowed:
        if decimals is None:
            if isinstance(a, F) and a == value:
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


def test_stated_values_are_the_computed_ones():
    # spot checks of what the texts say, by value, beside the generic scan above
    assert _values_ap_over_r()["sklearn"] == F(53, 90)
    assert _values_ap_sklearn()["answer"] == F(115, 168) and _values_ap_sklearn()["trec"] == F(115, 252)
    assert round(float(_values_ap_sklearn()["appended"]), 4) == 0.6489
    apk = _values_apk()
    assert (apk["answer"], apk["over_r"], apk["over_retrieved"]) == (F(13, 25), F(13, 35), F(13, 15))
    t = _values_threshold()
    assert (t["answer"], t["t1"], t["t3"]) == (F(17, 30), F(193, 300), F(1, 6))
    last = _values_last()
    assert (last["answer"], last["missed"], last["at3"], last["share"]) == (F(43, 60), F(2, 3), 1, F(1, 20))
    m = _values_map()
    assert (m["answer"], m["skip_miss"], m["sklearn"]) == (F(31, 108), F(31, 72), F(13, 36))
    assert _values_p_past_end() == {"answer": F(4, 15), "set_p": F(4, 7)}
    rec = _values_recall()
    assert (rec["answer"], rec["best"], rec["p10"], rec["r_cap"]) == (F(7, 50), F(1, 5), F(7, 10), F(7, 10))
    assert _values_rprec() == {"answer": F(5, 7), "r_from_list": F(2, 3)}


def test_which_tool_correct_option_is_the_computed_triple():
    v = _values_which_tool()
    correct = next(o for o in BY_ID["mar-apk-which-tool"]["options"] if o.get("correct"))
    assert correct["text"] == (f"trec_eval map_cut_4 {v['trec']}; ml_metrics apk {v['apk']}; "
                               f"torchmetrics top_k=4 {v['torch']}")
    assert v["sum"] == F(7, 6)


def test_graded_swap_same_ap_ndcg_rises():
    v = _values_graded_swap()
    assert v["ap_a"] == v["ap_b"] == F(7, 10)
    assert v["ndcg_b"] > v["ndcg_a"]
    assert (round(v["ndcg_a"], 4), round(v["ndcg_b"], 4)) == (0.551, 0.9147)
    assert sorted(SWAP_A) == sorted(SWAP_B) and binary(SWAP_A) == binary(SWAP_B)


def test_hit_equals_recall_only_with_one_relevant_item():
    # exhaustive over small rankings: Hit@k == Recall@k for every ranking and k iff R == 1
    from itertools import permutations

    for r in (1, 2, 3):
        labels = [1] * r + [0] * (4 - r)
        same = all(int(sum(p[:k]) > 0) == F(sum(p[:k]), r)
                   for p in set(permutations(labels)) for k in range(1, 5))
        assert same == (r == 1)


def test_rprec_is_recall_at_r():
    for labels in ([1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 1, 0, 1], [1, 1, 1]):
        for r in range(1, len(labels) + 1):
            assert rprec(labels, r) == recall(labels, r, r)


# --------------------------------------------------------------------------- libraries

def test_sklearn_average_precision_divides_by_the_relevant_it_is_given():
    sk = pytest.importorskip("sklearn.metrics")
    scores = lambda n: list(range(n, 0, -1))  # noqa: E731 - strictly decreasing
    b = INPUTS["mar-ap-sklearn"]["relevance"]
    assert math.isclose(sk.average_precision_score(b, scores(len(b))), float(F(115, 168)), rel_tol=1e-12)
    # the missed documents appended below every other score: not trec_eval's value either
    appended = b + [1, 1]
    got = sk.average_precision_score(appended, scores(len(appended)))
    assert math.isclose(got, float(ap(appended, 6)), rel_tol=1e-12) and round(got, 4) == 0.6489
    assert not math.isclose(got, float(ap(b, 6)))
    b2 = INPUTS["mar-ap-over-r"]["relevance"]
    assert math.isclose(sk.average_precision_score(b2, scores(len(b2))), float(F(53, 90)), rel_tol=1e-12)
    # the choice question's setting: 10 retrieved, 4 relevant of R = 6
    b3 = [0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
    got3 = sk.average_precision_score(b3, scores(10))
    total = sum(precisions_at_hits(b3), F(0))
    assert math.isclose(got3, float(total / 4), rel_tol=1e-12)
    assert math.isclose(got3 * 4 / 6, float(ap(b3, 6)), rel_tol=1e-12)  # x 4/6 = trec_eval's
    # per query for the MAP question: the all-zero query warns and scores 0
    values = []
    for labels, _ in MAP_QUERIES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values.append(sk.average_precision_score(labels, scores(len(labels))))
    assert values[2] == 0 and math.isclose(sum(values) / 3, float(F(13, 36)), rel_tol=1e-12)


def test_sklearn_ndcg_agrees_on_the_graded_swap():
    sk = pytest.importorskip("sklearn.metrics")
    for grades in (SWAP_A, SWAP_B):
        gains = [[2 ** g - 1 for g in grades]]
        got = sk.ndcg_score(gains, [list(range(len(grades), 0, -1))])
        assert math.isclose(got, ndcg(grades), rel_tol=1e-12)


def _trec_run(labels, judged_relevant):
    """qrels/run dicts for pytrec_eval: documents r0.. relevant, n0.. not, scores descending."""
    run, qrels, rel_i, non_i = {}, {}, 0, 0
    for rank, x in enumerate(labels):
        name = f"r{rel_i}" if x else f"n{non_i}"
        rel_i, non_i = rel_i + x, non_i + (1 - x)
        run[name] = float(len(labels) - rank)
        qrels[name] = x
    for extra in range(rel_i, judged_relevant):
        qrels[f"r{extra}"] = 1  # judged relevant, never retrieved
    return {"q": qrels}, {"q": run}


def test_trec_eval_conventions_through_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")

    def measure(labels, r, names):
        qrels, run = _trec_run(labels, r)
        return pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)["q"]

    got = measure(INPUTS["mar-ap-over-r"]["relevance"], 4, {"map"})
    assert math.isclose(got["map"], float(F(53, 120)), rel_tol=1e-9)
    got = measure(INPUTS["mar-ap-sklearn"]["relevance"], 6, {"map"})
    assert math.isclose(got["map"], float(F(115, 252)), rel_tol=1e-9)
    got = measure(INPUTS["mar-apk-min-k-r"]["relevance"], 7, {"map_cut.5"})
    assert math.isclose(got["map_cut_5"], float(F(13, 35)), rel_tol=1e-9)
    got = measure([0, 1, 1, 0, 0, 1], 5, {"map_cut.4"})
    assert math.isclose(got["map_cut_4"], float(F(7, 30)), rel_tol=1e-9)
    got = measure(LAST, 3, {"map"})
    assert math.isclose(got["map"], float(F(43, 60)), rel_tol=1e-9)
    got = measure(INPUTS["mar-p-past-end"]["relevance"], 4, {"P.15", "set_P"})
    assert math.isclose(got["P_15"], 4 / 15, rel_tol=1e-9) and math.isclose(got["set_P"], 4 / 7, rel_tol=1e-9)
    got = measure([1, 0, 1, 0, 1, 0], 3, {"P.10", "set_P"})
    assert math.isclose(got["P_10"], 0.3, rel_tol=1e-9) and math.isclose(got["set_P"], 0.5, rel_tol=1e-9)
    got = measure(RECALL_LIST, 50, {"recall.10"})
    assert math.isclose(got["recall_10"], 7 / 50, rel_tol=1e-9)
    got = measure(INPUTS["mar-rprec"]["relevance"], 7, {"Rprec"})
    assert math.isclose(got["Rprec"], 5 / 7, rel_tol=1e-9)
    aps = [measure(labels, r, {"map"})["map"] for labels, r in MAP_QUERIES]
    assert math.isclose(sum(aps) / 3, float(F(31, 108)), rel_tol=1e-9)


def test_trec_eval_threshold_through_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    grades, pool = [2, 0, 3, 1, 2, 0], [3, 3, 2, 2, 1, 0, 0]
    run = {f"d{i}": float(10 - i) for i in range(len(grades))}
    qrels = {f"d{i}": g for i, g in enumerate(grades)}
    qrels["missed"] = 3  # the pool's extra grade-3 document
    assert sorted(qrels.values(), reverse=True) == pool
    for level, want in ((2, F(17, 30)), (1, F(193, 300)), (3, F(1, 6))):
        ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"map"}, relevance_level=level)
        assert math.isclose(ev.evaluate({"q": run})["q"]["map"], float(want), rel_tol=1e-9)


def test_ml_metrics_apk_divides_by_min_k_r():
    ml_metrics = pytest.importorskip("ml_metrics")  # Python 2 only on PyPI: usually skipped
    labels, actual = INPUTS["mar-apk-min-k-r"]["relevance"], [f"r{i}" for i in range(7)]
    predicted, rel_i = [], 0
    for i, x in enumerate(labels):
        predicted.append(f"r{rel_i}" if x else f"n{i}")
        rel_i += x
    assert math.isclose(ml_metrics.apk(actual, predicted, k=5), 13 / 25, rel_tol=1e-9)


def test_torchmetrics_top_k_divides_by_relevant_in_the_top_k():
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.functional.retrieval")
    labels = [0, 1, 1, 0, 0, 1]
    preds = torch.tensor([float(len(labels) - i) for i in range(len(labels))])
    got = retrieval.retrieval_average_precision(preds, torch.tensor(labels), top_k=4)
    assert math.isclose(float(got), 7 / 12, rel_tol=1e-6)


# --------------------------------------------------------------------------- generated items

TEMPLATES = [q for q in PACK.questions if q.kind == "generated"]
SEEDS = range(8)


def _ours(problem, metric):
    """The answer of a generated numeric item, from its problem, by the references above."""
    def labels_and_r(p):
        b = binary(p.relevance, problem.threshold)
        pool = p.judged if p.judged is not None else p.relevance
        return b, sum(binary(pool, problem.threshold))

    if metric == "map":
        parts = [labels_and_r(p) for p in problem.queries]
        return sum((ap(b, r, problem.k) for b, r in parts), F(0)) / len(parts)
    b, r = labels_and_r(problem)
    if metric == "ap":
        return ap(b, r, problem.k, problem.convention)
    if metric == "precision":
        return precision(b, problem.k or len(b))
    if metric == "recall":
        return recall(b, r, problem.k or len(b))
    if metric == "rprec":
        return rprec(b, r)
    raise AssertionError(metric)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda q: q.id)
def test_generated_items_match_the_references(template):
    for seed in SEEDS:
        item = instantiate(template, item_rng(seed, 0, template.id))
        if item.kind == "numeric":
            want = _ours(item.problem, item.metric)
            assert math.isclose(reference(item).value, float(want), rel_tol=1e-12, abs_tol=1e-15)
            continue
        # map-vs-ndcg: the correct verdict pair follows the recomputed AP and NDCG
        a, b = item.params["ranking_a"], item.params["ranking_b"]
        assert item.params["k"] is None and item.params["gain"] == "exponential"
        ap_a, ap_b = ap(binary(a), sum(binary(a))), ap(binary(b), sum(binary(b)))
        nd_a, nd_b = ndcg(a), ndcg(b)

        def verdict(name, x, y):
            if abs(float(x) - float(y)) < 1e-12:
                return f"{name} scores A and B the same"
            return f"{name} prefers {'A' if x > y else 'B'}"
        correct = next(o.text for o in item.options if o.correct)
        assert correct == f"{verdict('AP', ap_a, ap_b)}; {verdict('NDCG', nd_a, nd_b)}"
