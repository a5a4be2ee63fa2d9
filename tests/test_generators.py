"""Generators: deterministic for a seed, valid over many seeds, right against independent floats."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.answers.parser import parse
from drills.display import Style
from drills.engine.metrics.ndcg import check_problem
from drills.engine.metrics.registry import metric_value, names
from drills.generators import REGISTRY
from drills.generators.drawing import grades_text
from drills.generators.instantiate import GenerationError, instantiate
from drills.model import TOPICS, Question, Source
from drills.quiz.session import QuestionShown
from drills.tui.render import render

from . import metrics_reference as metrics_ref

PUBLIC = {
    "ndcg-hand": {"n", "k", "metric", "max_rel", "gain", "ties", "unretrieved"},
    "swap-delta": {"n", "max_rel", "gain", "k"},
    "compare-rankings": {"n", "max_rel", "gain", "k", "ask"},
    "binary-vs-graded": {"n", "max_rel", "gain", "k", "ask"},
    "single-relevant": {"metric", "max_rank"},
    "ndcg-at-1-binary": {"n", "ask"},
    "gain-ratio": {"max_rel", "consecutive"},
    "discount-at-rank": {"max_rank", "ask"},
    "edge-case": {"case", "n", "max_rel", "gain", "k"},
    "ap-hand": {"n", "k", "convention", "max_rel", "threshold", "unretrieved"},
    "map-queries": {"queries", "n", "k"},
    "precision-recall": {"n", "k", "metric", "unretrieved"},
    "mrr-queries": {"queries", "n", "k"},
    "err-hand": {"n", "k", "max_rel"},
    "map-vs-ndcg": {"n", "max_rel", "gain", "k", "case"},
    "ctr-lift": {"ask"},
    "paired-test": {"test", "sides"},
}

# Parameter sets that between them reach every choice of every parameter.
CONFIGS: list[tuple[str, dict]] = [
    ("ndcg-hand", {}),
    ("ndcg-hand", {"n": 2, "k": "random", "metric": "dcg", "max_rel": 1, "gain": "linear"}),
    ("ndcg-hand", {"n": 12, "k": "random", "metric": "idcg", "max_rel": 4, "ties": True, "unretrieved": 3}),
    ("ndcg-hand", {"n": 6, "k": 9, "unretrieved": 1, "gain": "linear"}),
    ("ndcg-hand", {"n": 8, "k": 3, "ties": True}),
    ("swap-delta", {}),
    ("swap-delta", {"n": 2, "max_rel": 1}),
    ("swap-delta", {"n": 10, "k": "random", "gain": "linear", "max_rel": 4}),
    ("swap-delta", {"n": 8, "k": 2}),
    ("compare-rankings", {}),
    ("compare-rankings", {"ask": "difference"}),
    ("compare-rankings", {"n": 2, "max_rel": 1, "k": None}),
    ("compare-rankings", {"n": 12, "max_rel": 4, "k": "random", "ask": "difference", "gain": "linear"}),
    ("binary-vs-graded", {}),
    ("binary-vs-graded", {"ask": "which", "k": "random"}),
    ("binary-vs-graded", {"n": 2, "max_rel": 2, "gain": "linear"}),
    ("binary-vs-graded", {"n": 12, "max_rel": 4, "k": 3, "ask": "which"}),
    ("single-relevant", {}),
    ("single-relevant", {"metric": "rr", "max_rank": 2}),
    ("single-relevant", {"metric": "rr", "max_rank": 50}),
    ("ndcg-at-1-binary", {}),
    ("ndcg-at-1-binary", {"ask": "which", "n": 2}),
    ("ndcg-at-1-binary", {"n": 12}),
    ("gain-ratio", {}),
    ("gain-ratio", {"consecutive": True, "max_rel": 10}),
    ("gain-ratio", {"max_rel": 2}),
    ("discount-at-rank", {}),
    ("discount-at-rank", {"ask": "ratio"}),
    ("discount-at-rank", {"ask": "ratio", "max_rank": 2}),
    ("discount-at-rank", {"max_rank": 100}),
    ("edge-case", {}),
    ("edge-case", {"case": "nothing-relevant", "k": "random"}),
    ("edge-case", {"case": "all-equal", "gain": "linear", "n": 12, "max_rel": 4}),
    ("edge-case", {"case": "perfect", "n": 2, "max_rel": 1, "k": 1}),
    # the metrics beyond NDCG (more configurations in test_generators_metrics.py)
    ("ap-hand", {}),
    ("ap-hand", {"k": "random", "max_rel": 3, "threshold": 2}),
    ("map-queries", {"k": "random"}),
    ("precision-recall", {}),
    ("precision-recall", {"metric": "rprec"}),
    ("mrr-queries", {"k": "random"}),
    ("err-hand", {"k": "random"}),
    ("map-vs-ndcg", {}),
    ("ctr-lift", {}),
    ("ctr-lift", {"ask": "absolute"}),
    ("paired-test", {}),
    ("paired-test", {"test": "sign", "sides": 2}),
    ("paired-test", {"test": "sign-flip", "sides": 2}),
]


# ----------------------------------------------------------- an independent float implementation
def f_gain(rel: int, convention: str) -> float:
    return float(2**rel - 1) if convention == "exponential" else float(rel)


def f_dcg(grades: list[int], k: int, convention: str) -> float:
    return sum(f_gain(r, convention) / math.log2(rank + 1) for rank, r in enumerate(grades[:k], 1))


def float_metric(relevance: list[int], judged: list[int] | None, k: int | None, gain: str,
                 metric: str, swap: list[int] | None = None, versus: list[int] | None = None) -> float:
    """DCG/IDCG/NDCG/RR/P/hit/|delta NDCG|, NDCG(A) - NDCG(B), a gain ratio, a discount, a
    contribution or a discount ratio with math.log2 and a sorted judged pool: no drills code."""
    if metric == "gain_ratio":
        return f_gain(relevance[0], gain) / f_gain(relevance[1], gain)
    if metric == "discount":
        return math.log2(k + 1)
    if metric == "contribution":
        return f_gain(relevance[k - 1], gain) / math.log2(k + 1)
    if metric == "discount_ratio":
        return math.log2(swap[1] + 1) / math.log2(swap[0] + 1)
    if metric == "ndcg_difference":
        return (float_metric(relevance, judged, k, gain, "ndcg")
                - float_metric(versus, judged, k, gain, "ndcg"))
    kk = len(relevance) if k is None else k
    pool = sorted(judged if judged is not None else relevance, reverse=True)
    ideal = f_dcg(pool, len(pool) if k is None else k, gain)  # no cut-off: the whole pool
    if metric == "dcg":
        return f_dcg(relevance, kk, gain)
    if metric == "idcg":
        return ideal
    if metric == "rr":
        return next((1 / r for r, g in enumerate(relevance[:kk], 1) if g > 0), 0.0)
    if metric == "precision":
        return sum(g > 0 for g in relevance[:kk]) / kk
    if metric == "hit":
        return float(any(g > 0 for g in relevance[:kk]))
    if metric == "delta_ndcg":
        assert swap is not None
        after = list(relevance)
        i, j = swap
        after[i - 1], after[j - 1] = after[j - 1], after[i - 1]
        return abs(f_dcg(after, kk, gain) - f_dcg(relevance, kk, gain)) / ideal if ideal else 0.0
    return f_dcg(relevance, kk, gain) / ideal if ideal else 0.0


# The generators that make one numeric or choice question (scenario generators make a whole
# scenario: tests/test_scenario_generators.py).
QUESTION_GENERATORS = {name: g for name, g in REGISTRY.items() if g.kind == "question"}


def template(name: str, params: dict | None = None, **fields) -> Question:
    base = dict(id=f"t-{name}", topic=REGISTRY[name].topic, kind="generated", prompt="title",
                difficulty="hard", hints=("template hint",), pack="test-pack",
                source=Source("pack.yaml", 7), generator=name, params=params or {})
    base.update(fields)
    return Question(**base)


def make(name: str, params: dict, seed: int) -> Question:
    return instantiate(template(name, params), random.Random(seed))


# ----------------------------------------------------------------------------- the registry
def test_public_names_and_params():
    assert set(PUBLIC) <= set(REGISTRY)
    for name, params in PUBLIC.items():
        assert set(REGISTRY[name].params) == params, name


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_defaults_validate_and_topic_is_known(name):
    gen = REGISTRY[name]
    assert gen.topic in TOPICS
    assert gen.summary
    assert gen.validate(gen.resolved({})) == []


@pytest.mark.parametrize("name, params", CONFIGS)
def test_configs_validate(name, params):
    assert REGISTRY[name].validate(params) == []


@pytest.mark.parametrize("bad, field", [
    ({"k": "sometimes"}, "k"), ({"k": 0}, "k"), ({"k": True}, "k"), ({"n": 1}, "n"), ({"n": 13}, "n"),
    ({"metric": "mrr"}, "metric"), ({"max_rel": 5}, "max_rel"), ({"gain": "log"}, "gain"),
    ({"unretrieved": 4}, "unretrieved"), ({"ties": "yes"}, "ties"), ({"colour": 1}, "colour"),
])
def test_bad_params_are_reported(bad, field):
    problems = REGISTRY["ndcg-hand"].validate(bad)
    assert [f for f, _ in problems] == [field]
    with pytest.raises(GenerationError, match=field):
        make("ndcg-hand", bad, 0)


def test_unknown_generator_is_a_generation_error():
    q = template("ndcg-hand")
    with pytest.raises(GenerationError, match="unknown generator"):
        instantiate(Question(**{**q.__dict__, "generator": "nope"}), random.Random(0))


# --------------------------------------------------------------------------- determinism
@settings(max_examples=60, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**64))
def test_deterministic_for_a_seed(config, seed):
    name, params = config
    assert make(name, params, seed) == make(name, params, seed)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 12),
    k=st.one_of(st.none(), st.just("random"), st.integers(1, 15)),
    metric=st.sampled_from(["dcg", "idcg", "ndcg"]),
    max_rel=st.integers(1, 4),
    gain=st.sampled_from(["exponential", "linear"]),
    ties=st.booleans(),
    unretrieved=st.integers(0, 3),
    seed=st.integers(0, 2**32),
)
def test_ndcg_hand_any_valid_params(n, k, metric, max_rel, gain, ties, unretrieved, seed):
    params = dict(n=n, k=k, metric=metric, max_rel=max_rel, gain=gain, ties=ties, unretrieved=unretrieved)
    assert REGISTRY["ndcg-hand"].validate(params) == []
    q = make("ndcg-hand", params, seed)
    check_item(q, "ndcg-hand")
    assert len(q.problem.relevance) == n and q.metric == metric and q.problem.gain == gain
    assert len(q.problem.judged or q.problem.relevance) == n + unretrieved
    assert max(q.problem.judged or q.problem.relevance) <= max_rel
    if isinstance(k, int):
        assert q.problem.k == k


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(sorted(QUESTION_GENERATORS)), n=st.integers(2, 12), seed=st.integers(0, 2**32),
       k=st.one_of(st.none(), st.just("random"), st.integers(1, 15)))
def test_any_n_and_k_where_accepted(name, n, k, seed):
    accepted = REGISTRY[name].params
    params = {key: value for key, value in (("n", n), ("k", k)) if key in accepted}
    check_item(make(name, params, seed), name)


def test_swap_delta_is_well_above_the_tolerance():
    deltas = [metric_value(make("swap-delta", {}, seed).problem, "delta_ndcg").value for seed in range(200)]
    assert min(deltas) >= 0.02


def test_different_seeds_give_different_items():
    prompts = {make("ndcg-hand", {}, seed).prompt for seed in range(20)}
    assert len(prompts) > 10


# ------------------------------------------------------------------------------- validity
def check_item(q: Question, name: str) -> None:
    """Everything a concrete generated item must satisfy."""
    t = template(name)
    for attr in ("id", "topic", "difficulty", "hints", "pack", "source"):
        assert getattr(q, attr) == getattr(t, attr), attr
    assert q.generator == name
    json.dumps(q.params)
    assert q.kind in ("numeric", "choice")
    assert q.prompt and q.explanation
    if q.kind == "choice":
        assert sum(o.correct for o in q.options) == 1
        assert len(q.options) >= 2
        assert all(o.explanation for o in q.options)
        assert len({o.text for o in q.options}) == len(q.options)
        return
    # the quiz states the expected answer form under every prompt: said once, not twice
    assert "e.g." not in q.prompt
    assert render(QuestionShown(0, 1, q, None), Style(False, 80)).count("e.g.") == 1
    if q.problem is not None and q.metric in names(family="quantity"):  # one gain or one rank: no list to show
        check_problem(q.problem)
        value = metric_value(q.problem, q.metric)
        p = q.problem
        expected = float_metric(list(p.relevance), None, p.k, p.gain, q.metric, list(p.swap or ()))
        assert value.value == pytest.approx(expected, abs=1e-9)
        assert q.answer is not None and parse(q.answer).value == pytest.approx(expected, abs=1e-12)
        return
    if q.problem is not None and q.metric in metrics_ref.METRICS:  # beyond NDCG: the naive reference
        p = q.problem
        for query in p.queries or (p,):
            assert grades_text(query.relevance) in q.prompt
            if query.judged is not None:
                assert grades_text(query.judged) in q.prompt
        if p.k is not None:
            assert f"@{p.k}" in q.prompt
        value = metric_value(p, q.metric)
        assert 0 <= value.value <= 1
        assert value.value == pytest.approx(float(metrics_ref.value_of(p, q.metric)), abs=1e-12)
        assert q.params["relevance"] == list(p.relevance)
        return
    if q.problem is not None:
        check_problem(q.problem)
        assert grades_text(q.problem.relevance) in q.prompt
        if q.problem.judged is not None:
            assert grades_text(q.problem.judged) in q.prompt
        if q.problem.k is not None:
            assert f"@{q.problem.k}" in q.prompt
        value = metric_value(q.problem, q.metric)
        if q.metric in ("ndcg", "rr", "delta_ndcg"):
            assert -1e-12 <= value.value <= 1 + 1e-12
        elif q.metric == "ndcg_difference":
            assert -1 <= value.value <= 1 and q.problem.versus is not None
            assert grades_text(q.problem.versus) in q.prompt
        else:
            assert value.value >= 0
        p = q.problem
        expected = float_metric(list(p.relevance), list(p.judged) if p.judged else None, p.k, p.gain,
                                q.metric, list(p.swap) if p.swap else None,
                                list(p.versus) if p.versus else None)
        assert value.value == pytest.approx(expected, abs=1e-9)
        assert q.params["relevance"] == list(p.relevance)
    else:
        assert q.answer is not None
        parse(q.answer)


@pytest.mark.parametrize("name, params", CONFIGS)
def test_valid_over_many_seeds(name, params):
    for seed in range(60):
        check_item(make(name, params, seed), name)


def test_template_explanation_follows_and_own_hints_win():
    q = instantiate(template("gain-ratio", explanation="Pack note."), random.Random(1))
    assert q.explanation.endswith("Pack note.")
    assert q.hints == ("template hint",)
    bare = instantiate(template("gain-ratio", hints=()), random.Random(1))
    assert bare.hints


def test_ndcg_hand_covers_k_less_equal_greater_ties_and_unretrieved():
    seen = {"k<n": 0, "k=n": 0, "k>n": 0, "ties": 0, "unretrieved": 0}
    for seed in range(300):
        q = make("ndcg-hand", {"n": 6, "k": "random", "ties": True, "unretrieved": 2}, seed)
        p = q.problem
        assert p is not None and p.k is not None
        n = len(p.relevance)
        seen["k<n" if p.k < n else "k=n" if p.k == n else "k>n"] += 1
        positives = [g for g in p.relevance if g > 0]
        seen["ties"] += len(positives) != len(set(positives))
        assert p.judged is not None and len(p.judged) == n + 2
        extra = list(p.judged)
        for g in p.relevance:
            extra.remove(g)
        seen["unretrieved"] += any(extra)
        assert q.params["k"] == p.k
        if p.k > n:
            assert "only 6 documents" in q.prompt
    assert all(v >= 30 for v in seen.values()), seen
    assert seen["ties"] == seen["unretrieved"] == 300


def test_ndcg_hand_never_degenerate_and_defaults():
    for seed in range(200):
        q = make("ndcg-hand", {"max_rel": 1, "n": 2}, seed)
        assert any(q.problem.relevance)
        assert q.problem.k is None and q.problem.judged is None and q.metric == "ndcg"
        assert "no cut-off" in q.prompt and "exponential gain 2^rel - 1" in q.prompt


def test_swap_delta_is_never_zero():
    for seed in range(200):
        q = make("swap-delta", {"k": "random", "n": 6}, seed)
        assert metric_value(q.problem, "delta_ndcg").value > 0
        i, j = q.problem.swap
        assert f"ranks {i} and {j}" in q.prompt


def test_worked_example_swap_delta_value():
    from drills.engine.problem import Problem

    assert metric_value(Problem((2, 1, 3, 0), (3, 2, 1, 0), swap=(1, 3)), "delta_ndcg").value == \
        pytest.approx(0.2129292955)


def test_compare_rankings_which_is_consistent():
    answers = set()
    for seed in range(200):
        q = make("compare-rankings", {"k": "random"}, seed)
        a, b, k = q.params["ranking_a"], q.params["ranking_b"], q.params["k"]
        assert sorted(a) == sorted(b) and a != b
        assert grades_text(a) in q.prompt and grades_text(b) in q.prompt
        fa, fb = (float_metric(x, None, k, "exponential", "ndcg") for x in (a, b))
        right = next(o.text for o in q.options if o.correct)
        want = "same" if abs(fa - fb) < 1e-12 else "A has" if fa > fb else "B has"
        assert want in right
        answers.add(want)
    assert answers == {"same", "A has", "B has"}


def test_compare_rankings_difference_is_exact_and_signed():
    for seed in range(100):
        q = make("compare-rankings", {"ask": "difference"}, seed)
        a, b, k = q.params["ranking_a"], q.params["ranking_b"], q.params["k"]
        diff = float_metric(a, None, k, "exponential", "ndcg") - float_metric(b, None, k, "exponential", "ndcg")
        assert parse(q.answer).value == pytest.approx(diff, abs=1e-9)
        assert diff != 0


def test_binary_vs_graded():
    answers = set()
    for seed in range(200):
        q = make("binary-vs-graded", {"ask": "which", "k": "random"}, seed)
        graded, k = q.params["graded"], q.params["k"]
        binary = [int(g > 0) for g in graded]
        assert grades_text(graded) in q.prompt
        fg = float_metric(graded, None, k, "exponential", "ndcg")
        fb = float_metric(binary, None, k, "exponential", "ndcg")
        right = next(o.text for o in q.options if o.correct)
        want = "equal" if abs(fg - fb) < 1e-12 else "graded" if fg > fb else "binary"
        assert want in right
        answers.add(want)
    assert answers == {"equal", "graded", "binary"}
    q = make("binary-vs-graded", {}, 3)
    assert q.problem.relevance == tuple(int(g > 0) for g in q.params["graded"])


@pytest.mark.parametrize("metric", ["ndcg", "rr"])
def test_single_relevant_facts(metric):
    for seed in range(50):
        q = make("single-relevant", {"metric": metric}, seed)
        r = q.problem.relevance.index(1) + 1
        assert 2 <= r <= 10 and sum(q.problem.relevance) == 1
        want = 1 / math.log2(r + 1) if metric == "ndcg" else 1 / r
        assert metric_value(q.problem, metric).value == pytest.approx(want, abs=1e-12)


def test_ndcg_at_1_binary():
    values = set()
    for seed in range(100):
        q = make("ndcg-at-1-binary", {}, seed)
        assert q.problem.k == 1 and any(q.problem.relevance)
        values.add(metric_value(q.problem, "ndcg").value)
        choice = make("ndcg-at-1-binary", {"ask": "which"}, seed)
        assert next(o.text for o in choice.options if o.correct).startswith("Precision@1")
    assert values == {0.0, 1.0}


def test_gain_ratio_and_discount_answers():
    for seed in range(100):
        q = make("gain-ratio", {"max_rel": 6}, seed)
        hi, lo = q.params["high"], q.params["low"]
        assert parse(q.answer).value == pytest.approx((2**hi - 1) / (2**lo - 1))
        assert f"grade-{hi}" in q.prompt and f"grade-{lo}" in q.prompt
        d = make("discount-at-rank", {}, seed)
        assert parse(d.answer).value == pytest.approx(math.log2(d.params["rank"] + 1))
        r = make("discount-at-rank", {"ask": "ratio"}, seed)
        i, j = r.params["ranks"]
        assert parse(r.answer).value == pytest.approx(math.log2(j + 1) / math.log2(i + 1))
    assert make("gain-ratio", {"max_rel": 4, "consecutive": True}, 0).answer in {"3", "7/3", "15/7"}
    texts = {make("discount-at-rank", {"ask": "ratio", "max_rank": 4}, s).answer for s in range(100)}
    assert "log2(5)" in texts  # rank 1 -> rank 4 is log2(5) / 1


@pytest.mark.parametrize("case, value", [("nothing-relevant", 0), ("all-equal", 1), ("perfect", 1)])
def test_edge_cases(case, value):
    for seed in range(30):
        q = make("edge-case", {"case": case, "k": "random"}, seed)
        assert q.params["case"] == case
        assert metric_value(q.problem, "ndcg").value == value
        if case == "nothing-relevant":
            assert "defined as 0" in q.prompt
    picked = {make("edge-case", {}, s).params["case"] for s in range(40)}
    assert picked == {"nothing-relevant", "all-equal", "perfect"}


# ------------------------------------------------------------------------------ the docs
DOCS = Path(__file__).resolve().parents[1] / "docs" / "generators.md"


def test_every_generator_and_param_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    for name, gen in REGISTRY.items():
        assert f"## {name}" in text, name
        section = text.split(f"## {name}", 1)[1].split("\n## ", 1)[0]
        for param, spec in gen.params.items():
            default = json.dumps(spec.default).strip('"')
            assert f"| `{param}` | `{default}` |" in section, (name, param)


def test_documented_yaml_snippets_run():
    import yaml

    text = DOCS.read_text(encoding="utf-8")
    snippets = re.findall(r"```yaml\n(.*?)```", text, re.S)
    seen = set()
    for snippet in snippets:
        data = yaml.safe_load(snippet)
        entries = data["questions"] if isinstance(data, dict) else data
        for entry in entries:
            if entry.get("kind") == "scenario":  # scenario generators: tests/test_scenario_generators.py
                continue
            gen = REGISTRY[entry["generator"]]
            params = entry.get("params") or {}
            assert gen.validate(params) == [], entry["id"]
            q = make(entry["generator"], params, 0)
            check_item(q, entry["generator"])
            seen.add(entry["generator"])
    assert seen == set(QUESTION_GENERATORS)


def test_documented_example_prompt_is_what_the_generator_gives():
    from drills.generators.instantiate import item_rng

    q = instantiate(template("ndcg-hand", {"n": 6, "k": "random", "metric": "idcg", "unretrieved": 2},
                             id="hand-gen-idcg-pool"), item_rng(0, 0, "hand-gen-idcg-pool"))
    assert q.prompt in DOCS.read_text(encoding="utf-8")


def test_no_cut_off_with_unretrieved_documents_is_uncut_ndcg():
    # a generated "no cut-off" question: DCG over the ranking, IDCG over the whole judged pool
    seen = 0
    for seed in range(40):
        q = make("ndcg-hand", {"n": 4, "k": None, "unretrieved": 2}, seed)
        p = q.problem
        assert p is not None and p.k is None and p.judged is not None and len(p.judged) == 6
        assert "with no cut-off (DCG over the whole ranking, IDCG over the whole judged pool)" in q.prompt
        pool = sorted(p.judged, reverse=True)
        ideal = sum(f_gain(r, p.gain) / math.log2(i + 1) for i, r in enumerate(pool, 1))  # all 6
        dcg = sum(f_gain(r, p.gain) / math.log2(i + 1) for i, r in enumerate(p.relevance, 1))
        assert metric_value(p, "ndcg").value == pytest.approx(dcg / ideal, abs=1e-12)
        seen += 1
    assert seen == 40
