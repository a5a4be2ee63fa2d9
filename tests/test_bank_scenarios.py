"""The `scenarios` pack (questions/scenarios.yaml): every number it asks for, recomputed.

Independent of drills' engine: each fixed scenario's shared problem and each step's
``change`` are read from the YAML with yaml.safe_load, the change is applied here, and the
value is recomputed with tests/ndcg_reference.py, tests/metrics_reference.py and
tests/cascade_reference.py; the engine's value for the loaded (bound) step must agree.
Every choice step's correct option is decided here from those reference numbers, and a
few closed forms are written out by hand as a check on the references' use. Generated
scenarios are drawn over several seeds and their numeric steps checked the same way.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from drills.authoring.lint import lint_questions
from drills.engine.metrics.registry import metric_value
from drills.generators import REGISTRY
from drills.generators.instantiate import instantiate, item_rng
from drills.model import TOPICS
from drills.packs import discover, load_pack, validate_paths
from drills.packs.leaks import find_leaks
from tests.bank_text import point_texts

from . import cascade_reference as cascade
from . import metrics_reference as mref
from . import ndcg_reference as ref

PATH = Path(__file__).resolve().parent.parent / "questions" / "scenarios.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
SCENARIOS = RAW["questions"]
BY_ID = {q["id"]: q for q in SCENARIOS}
FIXED = [q for q in SCENARIOS if "problem" in q]
GENERATED = [q for q in SCENARIOS if "generator" in q]
PACK = load_pack(PATH, builtin=True)
LOADED = {q.id: q for q in PACK.questions}
L2 = math.log2
NDCG_FAMILY = ("dcg", "idcg", "ndcg", "delta_ndcg")
BINARY = ("rr", "precision", "recall", "ap")


# --------------------------------------------------------------------------- references

def setting(problem: dict, change: dict | None = None, metric: str = "") -> dict:
    """The shared problem with one step's change applied, from the YAML alone."""
    s = {"relevance": list(problem["relevance"]), "judged": problem.get("judged"),
         "k": problem.get("k"), "gain": problem.get("gain", RAW["defaults"]["gain"]), "swap": None}
    change = change or {}
    if "k" in change:
        s["k"] = change["k"]
    if "gain" in change:
        s["gain"] = change["gain"]
    if "judged" in change:
        s["judged"] = list(change["judged"])
    if change.get("binarise"):
        s["relevance"] = mref.binary(s["relevance"])
        s["judged"] = None if s["judged"] is None else mref.binary(s["judged"])
    if "swap" in change:
        i, j = change["swap"]
        if metric == "delta_ndcg":
            s["swap"] = (i, j)
        else:
            s["relevance"] = swapped(s["relevance"], i, j)
    return s


def swapped(grades, i, j):
    out = list(grades)
    out[i - 1], out[j - 1] = out[j - 1], out[i - 1]
    return out


def ndcg_of(s: dict, relevance=None) -> float:
    return ref.ndcg(relevance or s["relevance"], s["judged"], s["k"], s["gain"])


def value(s: dict, metric: str, g_max: int | None = None) -> float:
    """The reference value of ``metric`` for a setting (relevant = grade >= 1)."""
    rel, judged, k, gain = s["relevance"], s["judged"], s["k"], s["gain"]
    if metric == "dcg":
        return ref.dcg(rel, k, gain)
    if metric == "idcg":
        return ref.idcg(rel, judged, k, gain)
    if metric == "ndcg":
        return ref.ndcg(rel, judged, k, gain)
    if metric == "delta_ndcg":
        return abs(ndcg_of(s, swapped(rel, *s["swap"])) - ndcg_of(s))
    if metric == "rr":
        return float(mref.rr(rel, k))
    if metric == "precision":
        return float(mref.precision(rel, k))
    if metric == "recall":
        return float(mref.recall(rel, k, judged))
    if metric == "ap":
        return float(mref.ap(rel, k, judged))
    if metric == "err":
        pool = judged if judged is not None else rel
        return float(cascade.err(rel, k, max(pool) if g_max is None else g_max))
    raise AssertionError(f"no reference for {metric}")


def steps_of(qid: str) -> dict[str, dict]:
    return {s["name"]: s for s in BY_ID[qid]["steps"]}


def at(qid: str, name: str, metric: str | None = None) -> dict:
    """The setting of a step of a fixed scenario (its change applied)."""
    step = steps_of(qid)[name]
    return setting(BY_ID[qid]["problem"], step.get("change"), metric or step.get("metric", ""))


def correct_text(qid: str, name: str) -> str:
    options = steps_of(qid)[name]["options"]
    right = [o["text"] for o in options if o.get("correct") is True]
    assert len(right) == 1
    return right[0]


# --------------------------------------------------------------------------- the pack

def test_the_pack_validates_and_lints_clean():
    assert PACK.errors == [], [str(e) for e in PACK.errors]
    assert validate_paths([PATH]) == []
    assert RAW["pack"]["name"] == "scenarios" and RAW["pack"]["version"] == "1.0.0"
    assert len(PACK.questions) == len(SCENARIOS)
    report = lint_questions(PACK.questions, seeds=5)
    assert report.errors == [], report.errors
    assert report.warnings == [], report.warnings


def test_size_and_spread():
    assert len(SCENARIOS) >= 12 and len(FIXED) >= 8
    assert all(q["kind"] == "scenario" and q["id"].startswith("scn-") for q in SCENARIOS)
    assert all(3 <= len(q["steps"]) <= 6 for q in FIXED)
    assert all(q["topic"] in TOPICS for q in SCENARIOS)
    assert len({q["topic"] for q in FIXED}) >= 8
    # every fixed scenario mixes numbers with a "which" or a "why"
    for q in FIXED:
        kinds = {s["kind"] for s in q["steps"]}
        assert "numeric" in kinds and kinds & {"choice", "concept"}, q["id"]
    # carry-forward in at least four fixed scenarios
    assert sum(any(s.get("uses") for s in q["steps"]) for q in FIXED) >= 4


def test_every_scenario_generator_is_used_once_with_its_defaults():
    scenario_generators = sorted(n for n, g in REGISTRY.items() if g.kind == "scenario")
    assert scenario_generators, "no scenario generator registered"
    used = sorted(q["generator"] for q in GENERATED)
    assert used == scenario_generators
    assert all(not q.get("params") and "steps" not in q for q in GENERATED)


def test_a_fixed_scenario_asks_dcg_idcg_ndcg_in_order_with_carry_forward():
    found = []
    for q in FIXED:
        numeric = [s for s in q["steps"] if s["kind"] == "numeric"]
        metrics = [s.get("metric") for s in numeric]
        if metrics[:3] == ["dcg", "idcg", "ndcg"] and not any(s.get("change") for s in numeric[:3]):
            dcg, idcg, ndcg = numeric[:3]
            assert ndcg["uses"] == [dcg["name"], idcg["name"]]
            k = q["problem"]["k"]
            assert f"DCG@{k}" in dcg["prompt"] and f"IDCG@{k}" in idcg["prompt"]
            assert f"NDCG@{k}" in ndcg["prompt"]
            found.append(q["id"])
    assert "scn-ndcg-chain" in found


def test_uses_only_carry_what_the_engine_can_recompute():
    for q in FIXED:
        before = {}
        for s in q["steps"]:
            for name in s.get("uses", []):
                assert s["metric"] in ("ndcg", "delta_ndcg") and name in before
                assert before[name]["metric"] in (("dcg", "idcg") if s["metric"] == "ndcg" else ("idcg",))
                assert not before[name].get("change")  # the same problem as the shared one
            before[s["name"]] = s


# --------------------------------------------------------------------------- numeric steps

NUMERIC = [(q["id"], s["name"]) for q in FIXED for s in q["steps"] if s["kind"] == "numeric"]


def test_numeric_steps_name_a_metric():
    assert NUMERIC and all("metric" in steps_of(qid)[name] for qid, name in NUMERIC)


@pytest.mark.parametrize(("qid", "name"), NUMERIC, ids=[f"{q}:{n}" for q, n in NUMERIC])
def test_numeric_step_matches_the_references(qid, name):
    step = steps_of(qid)[name]
    want = value(at(qid, name), step["metric"])
    loaded = next(s for s in LOADED[qid].steps if s.part.name == name)
    engine = metric_value(loaded.problem, loaded.metric)
    assert math.isclose(engine.value, want, rel_tol=1e-12, abs_tol=1e-15)
    assert 0 < want  # nothing answered by a glance
    if step["metric"] in ("ndcg", "delta_ndcg", "rr", "precision", "recall", "ap", "err"):
        assert want < 1


# Closed forms written out by hand (L = 1/log2(3)), a check on the references' use above.
L = 1 / L2(3)
HAND = {
    ("scn-ndcg-chain", "dcg"): 1 / 2 + 7 * L,
    ("scn-ndcg-chain", "idcg"): 15 + 7 * L + 3 / 2,
    ("scn-ndcg-chain", "ndcg"): (1 / 2 + 7 * L) / (15 + 7 * L + 3 / 2),
    ("scn-gain-exp-vs-linear", "dcg"): 3 + 15 / 2 + 1 / L2(5),
    ("scn-gain-exp-vs-linear", "linear"): (2 + 2 + 1 / L2(5)) / (4 + 2 * L + 1 / 2 + 1 / L2(5)),
    ("scn-lambdarank-pairs", "d13"): 14 * (1 - 1 / 2) / (15 + 3 * L + 1 / 2),
    ("scn-ndcg-vs-rr", "rr"): 1 / 2,
    ("scn-ap-recall", "ap"): (1 + 2 / 4 + 3 / 5) / 4,
    ("scn-err-cascade", "err"): (1 / 2) * (1 / 8) + (1 / 3) * (7 / 8) * (7 / 8)
    + (1 / 5) * (3 / 8) * (7 / 8) * (1 / 8),
    ("scn-unjudged", "dcg"): 3 + 1 / 2 + 7 / L2(6),
    ("scn-k-beyond-list", "dcg"): 3 + 7 * L,
    ("scn-normalise-queries", "ndcg"): (3 + L + 1 / L2(5)) / (3 + L + 1 / 2),
    ("scn-choose-k", "ndcg3"): 3 * L / (7 + 3 * L + 1 / 2),
}


@pytest.mark.parametrize(("key", "want"), HAND.items(), ids=[f"{q}:{n}" for q, n in HAND])
def test_hand_closed_forms(key, want):
    qid, name = key
    assert math.isclose(value(at(qid, name), steps_of(qid)[name]["metric"]), want, rel_tol=1e-12)


# --------------------------------------------------------------------------- choice steps

CHOICE = [(q["id"], s["name"]) for q in FIXED for s in q["steps"] if s["kind"] == "choice"]


def test_choice_steps_have_one_correct_option_and_explain_every_option():
    for qid, name in CHOICE:
        options = steps_of(qid)[name]["options"]
        assert 2 <= len(options) <= 5 and sum(o.get("correct") is True for o in options) == 1
        assert all(o.get("explanation", "").strip() for o in options), (qid, name)
        assert len({o["text"] for o in options}) == len(options)


def _best_swap():
    base = at("scn-ndcg-chain", "ndcg")
    swaps = {}
    for o in steps_of("scn-ndcg-chain")["best_swap"]["options"]:
        i, j = map(int, re.match(r"Swap ranks (\d) and (\d)", o["text"]).groups())
        swaps[o["text"]] = ndcg_of(base, swapped(base["relevance"], i, j))
    best = max(swaps, key=swaps.get)
    # the closed forms the options' explanations give
    dcg = {t: v * ref.idcg(base["relevance"], base["judged"], 3) for t, v in swaps.items()}
    assert sorted(round(x, 9) for x in dcg.values()) == sorted(
        round(x, 9) for x in (L + 7 / 2, 7 * L + 3 / 2, 7 + 1 / 2, 3 + 7 * L + 1 / 2))
    assert ndcg_of(base, swapped(base["relevance"], 2, 3)) < ndcg_of(base)
    return best


def _gain_choice():
    exp = at("scn-gain-exp-vs-linear", "ndcg")
    lin = at("scn-gain-exp-vs-linear", "linear")
    assert ndcg_of(lin) > ndcg_of(exp)
    # "5 grade-2 items under 2^rel - 1, only 2 under linear gain"
    assert (2**4 - 1) / (2**2 - 1) == 5 and 4 / 2 == 2
    # the wrong option's counterexample: [4, 0, 1, 2] scores higher under exponential gain
    other = [4, 0, 1, 2]
    assert ref.ndcg(other, exp["judged"], 4, "exponential") > ref.ndcg(other, exp["judged"], 4, "linear")
    return "The misplaced grade-4 item weighs less"


def _what_costs():
    b = at("scn-binarise", "binary")
    assert ndcg_of(b) < 1
    assert ndcg_of(b, swapped(b["relevance"], 4, 5)) == pytest.approx(1)  # fixing ranks 4-5 is enough
    # rank 3 is not where it falls short: binarised, the run's and the ideal's rank 3 are both relevant
    assert b["relevance"][2] == 1 and sorted(b["judged"], reverse=True)[2] == 1
    fewer_zeros = list(b["judged"])
    fewer_zeros.remove(0)
    assert ref.idcg(b["relevance"], fewer_zeros, 5) == ref.idcg(b["relevance"], b["judged"], 5)
    return "The non-relevant document at rank 4"


def _binary_swap():
    b = at("scn-binarise", "binary")
    graded, graded_swap = at("scn-binarise", "graded"), at("scn-binarise", "graded_swap")
    assert ndcg_of(graded_swap) > ndcg_of(graded)
    assert ndcg_of(b, swapped(b["relevance"], 1, 3)) == ndcg_of(b)
    return "NDCG@5 does not change"


def _delta(qid, i, j):
    return value(setting(BY_ID[qid]["problem"], {"swap": [i, j]}, "delta_ndcg"), "delta_ndcg")


def _largest_pair():
    qid = "scn-lambdarank-pairs"
    pairs = {"Ranks 2 and 3": (2, 3), "Ranks 1 and 4": (1, 4), "Ranks 1 and 2": (1, 2)}
    deltas = {t: _delta(qid, *p) for t, p in pairs.items()}
    # the pair of the d13 step is the largest of every pair in the list (its explanation says so)
    n = len(BY_ID[qid]["problem"]["relevance"])
    every = {(i, j): _delta(qid, i, j) for i in range(1, n + 1) for j in range(i + 1, n + 1)}
    assert max(every, key=every.get) == (1, 3)
    return max(deltas, key=deltas.get)


def _equal_labels():
    assert _delta("scn-lambdarank-pairs", 2, 5) == 0
    # the distractor's number is the right discount difference for ranks 2 and 5, and not 0:
    # it is wrong only because the gain difference multiplies it
    texts = [o["text"] for o in steps_of("scn-lambdarank-pairs")["equal_labels"]["options"]]
    assert any("1/log2(3) - 1/log2(6), the difference of their discounts" in t for t in texts)
    assert 1 / L2(1 + 2) - 1 / L2(1 + 5) > 0
    return "None: equal labels form no pair"


def _rr_after():
    before, after = at("scn-ndcg-vs-rr", "rr"), at("scn-ndcg-vs-rr", "swapped")
    assert value(after, "rr") == value(before, "rr")
    assert ndcg_of(after) > ndcg_of(before)
    return "Unchanged"


def _sklearn():
    s = at("scn-ap-recall", "ap")
    over_retrieved = mref.ap(s["relevance"], None, s["judged"], "retrieved")
    assert over_retrieved > mref.ap(s["relevance"], None, s["judged"])
    assert sum(mref.binary(s["relevance"])) == 3 and mref.relevant_in_pool(s["relevance"], s["judged"]) == 4
    return "A higher value"


def _swap_ap():
    s = at("scn-ap-recall", "ap")
    after = swapped(s["relevance"], 1, 4)
    assert mref.ap(after, None, s["judged"]) == mref.ap(s["relevance"], None, s["judged"])
    assert ref.ndcg(after, s["judged"]) < ref.ndcg(s["relevance"], s["judged"])
    return "AP stays the same, NDCG falls"


def _rr_vs_err():
    before, after = at("scn-err-cascade", "err"), at("scn-err-cascade", "err_swap")
    assert value(after, "rr") == value(before, "rr") == 1 / 2
    assert value(after, "err") > value(before, "err")
    return "RR is unchanged"


def _judged_later():
    s = at("scn-unjudged", "ndcg")
    rel = list(s["relevance"])
    rel[1] = 2  # the rank-2 document, judged grade 2, joins the pool
    pool = [*s["judged"], 2]
    old_dcg, new_dcg = ref.dcg(s["relevance"], 5), ref.dcg(rel, 5)
    old_idcg, new_idcg = ref.idcg(s["relevance"], s["judged"], 5), ref.idcg(rel, pool, 5)
    assert new_dcg - old_dcg == pytest.approx(3 / L2(3))
    assert 0 < new_idcg - old_idcg < new_dcg - old_dcg
    assert sorted(pool, reverse=True)[3] == 2 and sorted(s["judged"], reverse=True)[3] == 1
    assert ref.ndcg(rel, pool, 5) > ndcg_of(s)
    assert ndcg_of(at("scn-unjudged", "missed")) < ndcg_of(s)  # judgements move NDCG both ways
    return "Up: DCG gains a gain of 3 at rank 2"


def _retrieved_ideal():
    s = at("scn-k-beyond-list", "ndcg")
    theirs = ref.dcg(s["relevance"], 5) / ref.idcg(s["relevance"], None, 5)
    assert sorted(s["relevance"], reverse=True) == [3, 2, 0]
    assert theirs > ndcg_of(s)
    return "Higher"


def _average():
    a, b = at("scn-normalise-queries", "ndcg"), at("scn-normalise-queries", "query_b")
    assert value(a, "dcg") == value(b, "dcg")
    assert ndcg_of(b) < ndcg_of(a) / 2
    return "Their DCG@4 are equal"


def _track():
    s3, s6 = at("scn-choose-k", "ndcg3"), at("scn-choose-k", "ndcg6")
    assert ndcg_of(s6) > 2 * ndcg_of(s3)  # the grade-3 document below the fold flatters NDCG@6
    assert s3["relevance"].index(3) + 1 == 4
    # RR@3 ignores grades: a grade-1 result first scores as well as a grade-3 one
    assert mref.rr([1, 0, 0], 3) == mref.rr([3, 0, 0], 3) == 1
    return "NDCG@3"


DECIDERS = {
    ("scn-ndcg-chain", "best_swap"): _best_swap,
    ("scn-gain-exp-vs-linear", "which_higher"): _gain_choice,
    ("scn-binarise", "what_costs"): _what_costs,
    ("scn-binarise", "binary_swap"): _binary_swap,
    ("scn-lambdarank-pairs", "largest"): _largest_pair,
    ("scn-lambdarank-pairs", "equal_labels"): _equal_labels,
    ("scn-ndcg-vs-rr", "rr_after"): _rr_after,
    ("scn-ap-recall", "sklearn"): _sklearn,
    ("scn-ap-recall", "swap_ap"): _swap_ap,
    ("scn-err-cascade", "rr_vs_err"): _rr_vs_err,
    ("scn-unjudged", "judged_later"): _judged_later,
    ("scn-k-beyond-list", "retrieved_ideal"): _retrieved_ideal,
    ("scn-normalise-queries", "average"): _average,
    ("scn-choose-k", "track"): _track,
}


def test_every_choice_step_is_decided_here():
    assert set(DECIDERS) == set(CHOICE)


@pytest.mark.parametrize(("qid", "name"), CHOICE, ids=[f"{q}:{n}" for q, n in CHOICE])
def test_choice_correct_option_follows_the_numbers(qid, name):
    assert correct_text(qid, name).startswith(DECIDERS[(qid, name)]())


def test_sklearn_average_precision_divides_by_the_relevant_it_is_given():
    sk = pytest.importorskip("sklearn.metrics")
    s = at("scn-ap-recall", "ap")
    labels = mref.binary(s["relevance"])
    got = sk.average_precision_score(labels, list(range(len(labels), 0, -1)))
    assert math.isclose(got, float(mref.ap(s["relevance"], None, s["judged"], "retrieved")), rel_tol=1e-12)


def test_concept_steps_are_substantial():
    for q in FIXED:
        for s in q["steps"]:
            if s["kind"] == "concept":
                assert len(s["model_answer"]) > 200 and 3 <= len(point_texts(s["key_points"])) <= 6, (q["id"], s["name"])


# --------------------------------------------------------------------------- what the prompts show

def test_setup_states_the_shared_problem():
    for q in FIXED:
        p, text = q["problem"], " ".join(q["prompt"].split())
        assert str(p["relevance"]) in text, q["id"]
        if p.get("judged"):
            assert str(p["judged"]) in text, q["id"]
        if p.get("k"):
            assert f"k = {p['k']}" in text, q["id"]
        if any(s.get("metric") in NDCG_FAMILY for s in q["steps"]):
            assert "2^rel - 1" in text and "log2(i + 1)" in text, q["id"]
        if any(s.get("metric") in BINARY for s in q["steps"]):
            assert "grade >= 1" in text or "grade is at least 1" in text, q["id"]
        if any(s.get("metric") == "err" for s in q["steps"]):
            assert "g_max = 3" in text and "(2^g - 1) / 2^g_max" in text, q["id"]


def test_each_change_is_stated_in_its_step():
    for q in FIXED:
        for s in q["steps"]:
            change, text = s.get("change", {}), " ".join(s["prompt"].split())
            if "k" in change:
                assert f"k = {change['k']}" in text or f"@{change['k']}" in text, (q["id"], s["name"])
            if "gain" in change:
                assert change["gain"] in text, (q["id"], s["name"])
            if change.get("binarise"):
                assert "binaris" in text, (q["id"], s["name"])
            if "swap" in change:
                i, j = change["swap"]
                assert f"ranks {i} and {j}" in text, (q["id"], s["name"])
            if "judged" in change:
                assert str(change["judged"]) in text, (q["id"], s["name"])


def test_numeric_step_prompts_name_their_metric_and_cutoff():
    names = {"dcg": "DCG@", "idcg": "IDCG@", "ndcg": "NDCG@", "delta_ndcg": "|dNDCG@", "rr": "RR",
             "precision": "P@", "recall": "R@", "ap": "AP", "err": "ERR"}
    for qid, name in NUMERIC:
        step = steps_of(qid)[name]
        s = at(qid, name)
        label = names[step["metric"]]
        assert label in step["prompt"], (qid, name)
        if label.endswith("@"):
            k = s["k"] if s["k"] is not None else len(s["relevance"])
            assert f"{label}{k}" in step["prompt"], (qid, name)


_DIGITS = re.compile(r"(?<![\w.])\d+\.\d+")


def _texts(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for x in node:
            yield from _texts(x)
    elif isinstance(node, dict):
        for key, x in node.items():
            if key in ("prompt", "hints", "explanation", "model_answer", "key_points", "options", "steps",
                       "text"):
                yield from _texts(x)


def test_no_decimal_is_written_out():
    """Answers are given away by decimals; the pack writes exact forms (7/log2(3)) instead."""
    written = [m.group() for q in SCENARIOS for t in _texts(q) for m in _DIGITS.finditer(t)]
    assert written == []


def test_no_answer_leaks_across_the_bank():
    catalog = discover([])
    ours = {q.id for q in PACK.questions}
    questions = [q for q in catalog.questions if q.pack != "scenarios"] + list(PACK.questions)
    leaks = [f"{x.question.id} -> {x.answered.id}: {x.message()}" for x in find_leaks(questions)
             if x.question.id in ours or x.answered.id in ours]
    assert leaks == []


# --------------------------------------------------------------------------- generated scenarios

SEEDS = range(6)


@pytest.mark.parametrize("qid", [q["id"] for q in GENERATED])
def test_generated_numeric_steps_match_the_references(qid):
    template = LOADED[qid]
    for seed in SEEDS:
        item = instantiate(template, item_rng(seed, 0, qid))
        assert item.kind == "scenario" and len(item.steps) >= 2
        for step in item.steps:
            if step.kind != "numeric" or step.metric is None or step.problem is None:
                continue
            p = step.problem
            s = {"relevance": list(p.relevance), "judged": None if p.judged is None else list(p.judged),
                 "k": p.k, "gain": p.gain, "swap": p.swap}
            if step.metric in ("dcg", "idcg", "ndcg", "delta_ndcg", "err"):
                want = value(s, step.metric, p.max_grade)
            else:
                want = float(mref.value_of(p, step.metric))
            assert math.isclose(metric_value(p, step.metric).value, want, rel_tol=1e-12, abs_tol=1e-15), (
                qid, seed, step.part.name if step.part else "?")


def test_claims_in_the_explanations():
    # scn-ndcg-chain: rank 2 keeps about 63% of a gain; ranks 4-5 add more to DCG than to IDCG
    assert round(100 / L2(3)) == 63
    s3, s5 = at("scn-ndcg-chain", "ndcg"), at("scn-ndcg-chain", "wider")
    grow_dcg = value(s5, "dcg") / value(s3, "dcg")
    grow_idcg = value(s5, "idcg") / value(s3, "idcg")
    assert grow_dcg > grow_idcg and ndcg_of(s5) > ndcg_of(s3)
    weak = dict(s5, relevance=[*s5["relevance"][:3], 0, 0])  # nothing relevant at ranks 4 and 5
    assert ndcg_of(weak) < ndcg_of(s3)
    # scn-gain-exp-vs-linear (which_higher): the grade-4 item's gain is more than half of
    # IDCG@4, and rank 3's discount halves it
    s = at("scn-gain-exp-vs-linear", "idcg")
    assert 15 > value(s, "idcg") / 2 and L2(3 + 1) == 2
    # the run differs from the ideal at ranks 1-3 and agrees at rank 4
    ideal = sorted(s["judged"], reverse=True)[:4]
    assert [a == b for a, b in zip(s["relevance"], ideal, strict=True)] == [False, False, False, True]
    # a linear DCG@4 over the exponential IDCG@4 is not the linear NDCG@4
    lin = at("scn-gain-exp-vs-linear", "linear")
    assert not math.isclose(value(lin, "dcg") / value(s, "idcg"), ndcg_of(lin), rel_tol=1e-3)
    # scn-unjudged: rank 5 keeps under 40% of a gain
    assert 1 / L2(6) < 0.4
    # scn-err-cascade: leaving out the probability of getting that far overstates ERR; the
    # swap of ranks 2 and 3 leaves rank 5's term alone
    stop = {0: 0, 1: 1 / 8, 2: 3 / 8, 3: 7 / 8}
    before, after = at("scn-err-cascade", "err")["relevance"], at("scn-err-cascade", "err_swap")["relevance"]
    no_product = sum(stop[g] / r for r, g in enumerate(before, start=1))
    assert no_product > value(at("scn-err-cascade", "err"), "err")

    def term5(grades):
        reach = math.prod(1 - stop[g] for g in grades[:4])
        return reach * stop[grades[4]] / 5

    assert term5(before) == term5(after) > 0
    # scn-ndcg-vs-rr: the swap's change in closed form
    b, a = at("scn-ndcg-vs-rr", "ndcg"), at("scn-ndcg-vs-rr", "swapped")
    assert math.isclose(ndcg_of(a) - ndcg_of(b), (7 - 1) * (1 / L2(3) - 1 / L2(5)) / value(b, "idcg"), rel_tol=1e-12)
    # scn-binarise: binarising the ranking only, over the graded IDCG, gives a far lower number
    bb, graded = at("scn-binarise", "binary"), at("scn-binarise", "graded")
    assert value(bb, "dcg") / value(graded, "idcg") < ndcg_of(bb) / 2
    # scn-normalise-queries: an ideal from the four returned documents gives B query A's NDCG@4
    qa, qb = at("scn-normalise-queries", "ndcg"), at("scn-normalise-queries", "query_b")
    assert ref.ndcg(qb["relevance"], None, 4) == ndcg_of(qa)
    # scn-choose-k: IDCG@6 is IDCG@3 (the pool has three relevant documents)
    c3, c6 = at("scn-choose-k", "ndcg3"), at("scn-choose-k", "ndcg6")
    assert value(c6, "idcg") == value(c3, "idcg") and sum(g > 0 for g in c3["relevance"]) == 3
    # the run's own top 3 sorted would be a different (weaker) ideal
    assert ref.idcg(c3["relevance"][:3], None, 3) < value(c3, "idcg")
    # scn-lambdarank-pairs: gain differences 14 (ranks 1, 3) and 12 (ranks 3, 4)
    assert (2**4 - 1) - (2**1 - 1) == 14 and (2**4 - 1) - (2**2 - 1) == 12
    # scn-binarise: one swap recovers most of what graded NDCG took away
    graded, swap = at("scn-binarise", "graded"), at("scn-binarise", "graded_swap")
    assert ndcg_of(swap) - ndcg_of(graded) > (1 - ndcg_of(graded)) / 2
