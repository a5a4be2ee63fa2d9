"""Generators of the metrics beyond NDCG (issue 12, point 4): ap-hand, map-queries,
precision-recall, mrr-queries, err-hand, map-vs-ndcg.

Every expected value is recomputed here from the definitions (tests/metrics_reference.py,
tests/cascade_reference.py and a float NDCG), never copied from the engine.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.cli import cli
from drills.engine.metrics.registry import metric_value
from drills.generators import REGISTRY
from drills.generators.drawing import grades_text
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.generators.measured import GAP, WANTED
from drills.grading.check import check
from drills.grading.slips import SLIPS, Case, slips_for
from drills.model import Question

from . import cascade_reference as cref
from . import metrics_reference as ref
from .test_generators import DOCS, check_item, float_metric, make

NAMES = ("ap-hand", "map-queries", "precision-recall", "mrr-queries", "err-hand", "map-vs-ndcg")
# Parameter sets that between them reach every choice of every parameter.
CONFIGS: list[tuple[str, dict]] = [
    ("ap-hand", {}),
    ("ap-hand", {"k": "random"}),
    ("ap-hand", {"k": 3, "convention": "min_k_R", "unretrieved": 3}),
    ("ap-hand", {"convention": "min_k_R"}),
    ("ap-hand", {"convention": "retrieved", "k": 9, "n": 5}),
    ("ap-hand", {"convention": "R", "n": 2}),
    ("ap-hand", {"n": 12, "k": "random", "max_rel": 4, "threshold": 3, "unretrieved": 2}),
    ("ap-hand", {"max_rel": 3, "threshold": 2}),
    ("map-queries", {}),
    ("map-queries", {"queries": 2, "n": 2}),
    ("map-queries", {"queries": 4, "n": 8, "k": "random"}),
    ("precision-recall", {}),
    ("precision-recall", {"metric": "precision", "k": 9, "n": 6}),
    ("precision-recall", {"metric": "precision", "k": None}),
    ("precision-recall", {"metric": "recall", "k": None, "unretrieved": 3}),
    ("precision-recall", {"metric": "rprec", "n": 12}),
    ("precision-recall", {"metric": "rprec", "n": 2, "unretrieved": 3}),
    ("mrr-queries", {}),
    ("mrr-queries", {"queries": 3, "n": 2}),
    ("mrr-queries", {"queries": 5, "n": 10, "k": "random"}),
    ("err-hand", {}),
    ("err-hand", {"n": 2, "max_rel": 1, "k": 1}),
    ("err-hand", {"n": 8, "max_rel": 4, "k": "random"}),
    ("map-vs-ndcg", {}),
    ("map-vs-ndcg", {"case": "disagree", "k": 3}),
    ("map-vs-ndcg", {"case": "ap-tie", "gain": "linear"}),
    ("map-vs-ndcg", {"case": "agree", "n": 2, "max_rel": 2}),
    ("map-vs-ndcg", {"n": 12, "max_rel": 4, "k": "random"}),
]


def test_registered_with_every_config_valid():
    assert set(NAMES) <= set(REGISTRY)
    for name, params in CONFIGS:
        assert REGISTRY[name].validate(params) == [], (name, params)


@settings(max_examples=60, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**64))
def test_deterministic_for_a_seed(config, seed):
    name, params = config
    assert make(name, params, seed) == make(name, params, seed)


def test_different_seeds_give_different_items():
    for name in NAMES:
        assert len({make(name, {}, seed).prompt for seed in range(20)}) > 10, name


@pytest.mark.parametrize("name, params", CONFIGS)
def test_valid_and_right_against_the_reference_over_many_seeds(name, params):
    for seed in range(40):
        check_item(make(name, params, seed), name)  # numeric: the naive reference's value


def test_threshold_above_the_top_grade_is_a_generation_error():
    with pytest.raises(GenerationError, match="threshold"):
        make("ap-hand", {"max_rel": 2, "threshold": 3}, 0)


# ---------------------------------------------------------------------------------- AP
CONVENTION_NAMED = {"trec_eval's map": "R", "scikit-learn": "retrieved", "torchmetrics": "retrieved",
                    "ml_metrics' apk": "min_k_R"}


def _named(prompt: str) -> str:
    found = {c for words, c in CONVENTION_NAMED.items() if words in prompt}
    assert len(found) == 1, prompt
    return found.pop()


def test_ap_prompt_names_the_convention_and_the_value_is_that_convention():
    seen = set()
    for seed in range(200):
        q = make("ap-hand", {"k": "random"}, seed)
        p = q.problem
        convention = _named(q.prompt)
        assert convention == p.convention == q.params["convention"]
        want = ref.ap(list(p.relevance), p.k, list(p.judged), convention, p.threshold)
        assert metric_value(p, "ap").value == pytest.approx(float(want), abs=1e-12)
        if convention == "min_k_R":
            assert f"min({p.k}, R)" in q.prompt
        seen.add((convention, p.k is None))
    assert {c for c, _ in seen} == {"R", "retrieved", "min_k_R"}


def test_ap_pool_holds_a_relevant_document_not_retrieved_so_conventions_differ():
    differ = 0
    for seed in range(100):
        q = make("ap-hand", {}, seed)
        p = q.problem
        assert p.judged is not None and len(p.judged) == len(p.relevance) + 1
        assert ref.relevant_in_pool(p.relevance, p.judged) > ref.relevant_in_pool(p.relevance)
        assert p.k is None and p.convention in ("R", "retrieved")
        over_r = ref.ap(list(p.relevance), None, list(p.judged), "R")
        over_retrieved = ref.ap(list(p.relevance), None, list(p.judged), "retrieved")
        assert over_r < over_retrieved  # a missed relevant document only lowers AP / R
        differ += abs(float(over_r - over_retrieved)) >= GAP
    assert differ == 100


def test_ap_threshold_is_stated_and_used():
    for seed in range(50):
        q = make("ap-hand", {"max_rel": 3, "threshold": 2}, seed)
        p = q.problem
        assert p.threshold == 2 and "grade is at least 2 (trec_eval -l 2)" in q.prompt
        want = ref.ap(list(p.relevance), p.k, list(p.judged), p.convention, 2)
        assert metric_value(p, "ap").value == pytest.approx(float(want), abs=1e-12)


# --------------------------------------------------------------------------------- MAP
def test_map_is_the_mean_of_the_queries_ap_over_r():
    for seed in range(60):
        q = make("map-queries", {"k": "random"}, seed)
        p = q.problem
        assert 2 <= len(p.queries) <= 4 and p.queries[0].relevance == p.relevance
        assert p.convention == "R" and "trec_eval's map" in q.prompt
        assert any(x.judged is not None for x in p.queries), "a query missed a relevant document"
        for i, x in enumerate(p.queries, start=1):
            assert f"Query {i}: {grades_text(x.relevance)}" in q.prompt
        want = ref.mean(ref.ap(list(x.relevance), p.k, x.judged and list(x.judged)) for x in p.queries)
        assert metric_value(p, "map").value == pytest.approx(float(want), abs=1e-12)


# ----------------------------------------------------------------------- P, recall, R-prec
def test_precision_recall_and_rprec_values():
    seen = set()
    for seed in range(90):
        metric = ("precision", "recall", "rprec")[seed % 3]
        q = make("precision-recall", {"metric": metric}, seed)
        p = q.problem
        assert q.metric == metric and p.judged is not None
        assert ref.relevant_in_pool(p.relevance, p.judged) > sum(p.relevance), "missed relevant documents"
        ranking, pool = list(p.relevance), list(p.judged)
        if metric == "precision":
            want = ref.precision(ranking, p.k)
        elif metric == "recall":
            want = ref.recall(ranking, p.k, pool)
        else:
            want = ref.r_precision(ranking, pool)
        assert metric_value(p, metric).value == pytest.approx(float(want), abs=1e-12)
        if metric == "rprec":
            assert p.k is None and "R-precision" in q.prompt
        seen.add(metric)
    assert seen == {"precision", "recall", "rprec"}
    picked = {make("precision-recall", {}, seed).metric for seed in range(30)}
    assert picked == {"precision", "recall"}


# --------------------------------------------------------------------------------- MRR
def test_mrr_always_has_a_query_without_a_hit_and_counts_it():
    for seed in range(150):
        q = make("mrr-queries", {"k": "random"}, seed)
        p = q.problem
        count = len(p.queries)
        assert 3 <= count <= 5
        empty = [i for i, x in enumerate(p.queries, start=1) if not any(x.relevance)]
        assert len(empty) == 1, "exactly one query retrieved no relevant document"
        assert f"retrieved none for query {empty[0]}" in q.prompt
        rrs = [ref.rr(list(x.relevance), p.k) for x in p.queries]
        assert rrs[empty[0] - 1] == 0 and any(rrs)
        assert metric_value(p, "mrr").value == pytest.approx(float(sum(rrs) / count), abs=1e-12)
        skipped = sum(rrs) / sum(1 for r in rrs if r)
        assert abs(float(skipped) - metric_value(p, "mrr").value) >= GAP  # the no-hit slip is visible


# --------------------------------------------------------------------------------- ERR
def test_err_states_g_max_and_matches_the_cascade_reference():
    below_top = 0
    for seed in range(100):
        q = make("err-hand", {"k": "random", "max_rel": 3}, seed)
        p = q.problem
        assert p.max_grade == 3 and "g_max = 3" in q.prompt
        want = cref.err(list(p.relevance), p.k, 3)
        assert metric_value(p, "err").value == pytest.approx(float(want), abs=1e-12)
        below_top += max(p.relevance) < 3
    assert below_top > 0  # g_max is the scale's top even when the list never reaches it


# -------------------------------------------------------------------------- MAP vs NDCG
def test_map_vs_ndcg_right_option_comes_from_the_values():
    seen = set()
    for seed in range(150):
        q = make("map-vs-ndcg", {"k": "random"}, seed)
        a, b, k, gain = q.params["ranking_a"], q.params["ranking_b"], q.params["k"], q.params["gain"]
        assert sorted(a) == sorted(b) and a != b
        ap = [ref.ap(x, k) for x in (a, b)]
        nd = [float_metric(x, None, k, gain, "ndcg") for x in (a, b)]

        def verdict(x: float, y: float, name: str) -> str:
            if abs(x - y) < 1e-12:
                return f"{name} scores A and B the same"
            return f"{name} prefers A" if x > y else f"{name} prefers B"

        at = "" if k is None else f"@{k}"
        want = f"{verdict(float(ap[0]), float(ap[1]), 'AP' + at)}; {verdict(nd[0], nd[1], 'NDCG' + at)}"
        right = [o.text for o in q.options if o.correct]
        assert right == [want]
        assert len(q.options) == 4
        seen.add((want.count("prefers A"), "same" in want))
    assert len(seen) >= 3


@pytest.mark.parametrize("case", ["disagree", "ap-tie", "agree"])
def test_map_vs_ndcg_cases(case):
    for seed in range(40):
        q = make("map-vs-ndcg", {"case": case}, seed)
        right = next(o.text for o in q.options if o.correct)
        ap_part, nd_part = right.split("; ")
        assert "prefers" in nd_part
        if case == "ap-tie":
            assert "same" in ap_part
        elif case == "agree":
            assert ap_part[-1] == nd_part[-1]
        else:
            assert ap_part[-1] != nd_part[-1] and "same" not in ap_part


# ------------------------------------------------------------------ grading and the slips
def _declared_ok(q: Question) -> None:
    registered = set(slips_for(q.metric))
    assert set(q.slips) <= registered and set(q.slips) <= set(SLIPS)
    wanted = set(WANTED[q.metric]) & registered
    if wanted:
        assert q.slips, "a slip the generator wants is registered, so it is declared"


NUMERIC = [(n, p) for n, p in CONFIGS if n != "map-vs-ndcg"]


@settings(max_examples=120, deadline=None)
@given(config=st.sampled_from(NUMERIC), seed=st.integers(0, 2**32))
def test_answer_checks_correct_and_declared_slips_are_told_apart(config, seed):
    name, params = config
    q = make(name, params, seed)
    _declared_ok(q)
    exact = metric_value(q.problem, q.metric)
    assert check(q, exact.text).verdict == "correct"
    places = q.decimals or 4
    assert check(q, f"{exact.value:.{places}f}").verdict == "correct"
    assert q.decimals is None or q.decimals <= 4, "answerable to 4 decimals"
    case = Case(q.problem, q.metric, q.slips)
    for sid in q.slips:
        value = SLIPS[sid].value(case) if SLIPS[sid].applies(case) else None
        if value is None or abs(value.value - exact.value) < 1e-12:
            continue  # no mistake here, or the right number
        assert check(q, format(value.decimal(), ".12g")).verdict != "correct", (sid, q.prompt)


def test_draws_keep_declared_slips_at_least_a_gap_away():
    close = total = 0
    for name, params in NUMERIC:
        for seed in range(30):
            q = make(name, params, seed)
            exact = metric_value(q.problem, q.metric).value
            case = Case(q.problem, q.metric, q.slips)
            for sid in q.slips:
                value = SLIPS[sid].value(case) if SLIPS[sid].applies(case) else None
                if value is not None and abs(value.value - exact) > 1e-12:
                    total += 1
                    close += abs(value.value - exact) < GAP
    assert close <= total // 100


def test_ap_declares_no_slip_that_is_its_own_convention():
    for seed in range(60):
        q = make("ap-hand", {"k": "random"}, seed)
        if q.problem.convention == "retrieved":
            assert "ap_over_retrieved" not in q.slips
        if q.problem.convention == "min_k_R":
            assert "ap_over_k" not in q.slips


# ------------------------------------------------------------------------------ the docs
def _doc_section(name: str) -> str:
    return DOCS.read_text(encoding="utf-8").split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("name", NAMES)
def test_documented_example_prompt_is_what_the_generator_gives(name):
    section = _doc_section(name)
    snippet = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert snippet, name
    entry = yaml.safe_load(snippet.group(1))[0]
    template = Question(id=entry["id"], topic=entry["topic"], kind="generated", prompt=entry["prompt"],
                        generator=name, params=entry.get("params") or {})
    q = instantiate(template, item_rng(0, 0, entry["id"]))
    example = re.search(r"```text\n(.*?)```", section, re.S)
    assert example, name
    assert q.prompt in example.group(1)


def test_documented_templates_lint_clean_and_generate(tmp_path):
    entries = []
    for name in NAMES:
        entries += yaml.safe_load(re.search(r"```yaml\n(.*?)```", _doc_section(name), re.S).group(1))
    pack = {"pack": {"name": "beyond-ndcg-docs", "version": "1.0.0", "description": "docs examples",
                     "author": "tests"}, "questions": entries}
    path = tmp_path / "beyond.yaml"
    path.write_text(yaml.safe_dump(pack, sort_keys=False), encoding="utf-8")
    result = CliRunner().invoke(cli, ["packs", "lint", str(path), "--seeds", "25"], catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.startswith("0 errors, 0 warnings"), result.stdout
    sheet = CliRunner().invoke(cli, ["generate", "--pack", str(path), "--seed", "1", "--count", "7"],
                               catch_exceptions=False)
    assert sheet.exit_code == 0, sheet.stdout + sheet.stderr
    assert "trec_eval" in sheet.stdout and "Which statement is true" in sheet.stdout


def test_explanations_state_the_values_of_the_other_conventions():
    q = make("ap-hand", {"k": 3, "convention": "R"}, 1)
    p = q.problem
    for convention in ("R", "retrieved", "min_k_R"):
        value = ref.ap(list(p.relevance), 3, list(p.judged), convention)
        shown = f"{value.numerator}/{value.denominator}" if value.denominator > 1 else str(value)
        assert shown in q.explanation or f"{float(value):.4g}" in q.explanation, convention
    assert Fraction(0) <= ref.ap(list(p.relevance), 3, list(p.judged)) <= 1
