"""The metric registry (drills.engine.metrics.registry) is the one list of metrics: every
registered metric computes, works and states its value, and agrees with the naive references
(tests/*_reference.py); every consumer (solve --metric, pack validation, code tasks, trec_eval
names, slips, generators, lint) names only registered metrics; and a new metric is one
declaration and one registry line."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction

import pytest

from drills.engine.exact import LogSum
from drills.engine.metrics import binary, cascade, ndcg_text, quantities, registry
from drills.engine.metrics.registry import (
    CODE_METRICS,
    METRICS,
    SOLVE_METRICS,
    TREC,
    measure,
    metric_value,
    names,
    value_line,
    worked_steps,
)
from drills.engine.metrics.spec import FIELDS, Metric
from drills.engine.problem import Problem
from drills.engine.table import Layout
from tests.test_packs_metrics import load as _load  # the same pack text as the metric pack tests
from tests.test_packs_metrics import question as _question

from . import cascade_reference as cref
from . import metrics_reference as mref
from . import ndcg_reference as nref

RANKED, POOL = (2, 1, 3, 0, 1), (3, 2, 1, 1, 0, 2, 0)
QUERIES = (Problem((1, 0, 1, 1, 0), (1, 1, 1, 1, 0, 1)), Problem((0, 0, 1)), Problem((0, 0), (1, 0, 0)))
# One sample problem per metric, with the fields it takes (tests/test_metric_registry.py: a new
# metric adds its sample here).
SAMPLES: dict[str, Problem] = {
    "dcg": Problem(RANKED, POOL, 4),
    "idcg": Problem(RANKED, POOL, 4),
    "ndcg": Problem(RANKED, POOL, 4, "linear"),
    "delta_ndcg": Problem(RANKED, POOL, 4, swap=(1, 3)),
    "ndcg_difference": Problem(RANKED, POOL, 4, versus=(3, 2, 1, 1, 0)),
    "gain_ratio": Problem((3, 1)),
    "discount": Problem(RANKED, k=4),
    "contribution": Problem(RANKED, k=3),
    "discount_ratio": Problem(RANKED, swap=(1, 4)),
    "precision": Problem(RANKED, POOL, 4, threshold=2),
    "recall": Problem(RANKED, POOL, 4, threshold=2),
    "rprec": Problem(RANKED, POOL, threshold=2),
    "hit": Problem(RANKED, POOL, 2, threshold=3),
    "rr": Problem(RANKED, POOL, 4, threshold=3),
    "ap": Problem(RANKED, POOL, 4, threshold=2, convention="min_k_R"),
    "err": Problem(RANKED, POOL, 4, max_grade=4),
    "rbp": Problem(RANKED, POOL, 4, persistence=Fraction(1, 2)),
    "map": Problem(QUERIES[0].relevance, QUERIES[0].judged, 4, convention="retrieved", queries=QUERIES),
    "mrr": Problem(QUERIES[0].relevance, QUERIES[0].judged, 2, queries=QUERIES),
}


def _swapped(grades: tuple[int, ...], i: int, j: int) -> tuple[int, ...]:
    out = list(grades)
    out[i - 1], out[j - 1] = out[j - 1], out[i - 1]
    return tuple(out)


def reference(metric: str, p: Problem) -> float:
    """The metric's value from the naive references only (no drills code)."""
    if metric == "dcg":
        return nref.dcg(p.relevance, p.k, p.gain)
    if metric == "idcg":
        return nref.idcg(p.relevance, p.judged, p.k, p.gain)
    if metric == "ndcg":
        return nref.ndcg(p.relevance, p.judged, p.k, p.gain)
    if metric == "delta_ndcg":
        after = _swapped(p.relevance, *p.swap)
        return abs(nref.ndcg(after, p.judged, p.k) - nref.ndcg(p.relevance, p.judged, p.k))
    if metric == "ndcg_difference":
        return nref.ndcg(p.relevance, p.judged, p.k) - nref.ndcg(p.versus, p.judged, p.k)
    if metric == "gain_ratio":
        return nref.gain(p.relevance[0]) / nref.gain(p.relevance[1])
    if metric == "discount":
        return math.log2(p.k + 1)
    if metric == "contribution":
        return nref.gain(p.relevance[p.k - 1]) / math.log2(p.k + 1)
    if metric == "discount_ratio":
        i, j = p.swap
        return math.log2(j + 1) / math.log2(i + 1)
    if metric == "rbp":
        return float(cref.rbp(p.relevance, p.persistence, p.k, p.max_grade)[0])
    return float(mref.value_of(p, metric))


# ------------------------------------------------------------------------ the one list
def test_the_names_in_the_order_packs_and_errors_list_them():
    assert names() == ("dcg", "idcg", "ndcg", "rr", "precision", "hit", "delta_ndcg", "gain_ratio",
                       "discount", "contribution", "discount_ratio", "ndcg_difference", "ap",
                       "recall", "rprec", "err", "rbp", "map", "mrr")
    assert tuple(METRICS) == names()
    assert names(per_query=True) == ("map", "mrr")
    assert names(family="quantity") == ("gain_ratio", "discount", "contribution", "discount_ratio")
    assert names(measured=True) == ("rr", "precision", "hit", "ap", "recall", "rprec", "err", "rbp",
                                    "map", "mrr")
    assert names(taking="swap") == ("delta_ndcg", "discount_ratio")


def test_every_declared_metric_is_registered_once_and_says_what_it_takes():
    declared = [m for family in (ndcg_text, binary, quantities, cascade) for m in family.METRICS]
    assert len(declared) == len(METRICS) and set(declared) == set(METRICS.values())
    for name, m in METRICS.items():
        assert m.name == name and m.family and m.takes <= set(FIELDS)
        assert m.per_query == (name in ("map", "mrr"))
        assert (m.result is not None) == (m.family in ("binary", "cascade"))
    assert set(SOLVE_METRICS) <= set(CODE_METRICS) <= set(METRICS)
    assert len(set(CODE_METRICS)) == len(CODE_METRICS)


@pytest.mark.parametrize("metric", names())
def test_every_metric_computes_works_and_agrees_with_the_reference(metric):
    p = SAMPLES[metric]
    value = metric_value(p, metric)
    assert value.value == pytest.approx(reference(metric, p), abs=1e-12)
    steps, line = worked_steps(p, metric), value_line(p, metric)
    assert steps.strip() and line.strip() and "\n" not in line
    narrow = worked_steps(p, metric, Layout(narrow=True, max_rows=2))
    assert narrow.strip()
    if METRICS[metric].result is not None:
        result = measure(p, metric)
        assert LogSum.of(result.exact) == value
        assert result.working == line and result.worked == steps


def test_an_unknown_name_is_a_problem_error_and_measure_is_for_measured_metrics():
    with pytest.raises(ValueError, match="unknown metric 'ndcg_at_k'"):
        metric_value(SAMPLES["ndcg"], "ndcg_at_k")
    with pytest.raises(ValueError, match="not a measured metric"):
        measure(SAMPLES["ndcg"], "ndcg")


# ---------------------------------------------------------------------- the consumers
def test_solve_metric_choices_and_help_are_the_registry_s_solve_metrics():
    from drills.cli.solve.solve import solve

    option = next(p for p in solve.params if p.name == "metric")
    assert tuple(option.type.choices) == SOLVE_METRICS
    listed = option.help.split(": ", 1)[1].rstrip(".")
    assert tuple(re.sub(r" \(.*\)", "", name) for name in listed.split(", ")) == SOLVE_METRICS


def test_code_tasks_ask_for_the_registry_s_code_metrics():
    from drills.coding.task import CodeTask, TaskError

    with pytest.raises(TaskError) as err:
        CodeTask("ndcg_at_k", ("relevance",)).check()
    assert f"(one of {', '.join(CODE_METRICS)})" in str(err.value)




def _yaml(p: Problem, metric: str) -> str:
    takes = METRICS[metric].takes
    lines = [] if p.queries else [f"relevance: {list(p.relevance)}"]
    if p.judged is not None and not p.queries:
        lines.append(f"judged: {list(p.judged)}")
    for field, key in (("k", "k"), ("swap", "swap"), ("versus", "versus"), ("max_grade", "max_grade")):
        if getattr(p, field) is not None:
            value = getattr(p, field)
            lines.append(f"{key}: {list(value) if isinstance(value, tuple) else value}")
    if "threshold" in takes and p.threshold != 1:
        lines.append(f"threshold: {p.threshold}")
    if "convention" in takes:
        lines.append(f"denominator: {p.convention}")
    if p.persistence is not None:
        lines.append(f'persistence: "{p.persistence}"')
    if p.gain != "exponential":
        lines.append(f"gain: {p.gain}")
    if p.queries:
        lines.append("queries:")
        for q in p.queries:
            lines.append(f"  - relevance: {list(q.relevance)}")
            if q.judged is not None:
                lines.append(f"    judged: {list(q.judged)}")
    return "\n".join(lines)


def test_a_pack_accepts_every_registered_metric_and_rejects_any_other(tmp_path):
    pack = _load(tmp_path, *(_question(f"q-{m}", m, _yaml(SAMPLES[m], m)) for m in names()))
    assert pack.errors == [], [str(e) for e in pack.errors]
    loaded = {q.metric: q.problem for q in pack.questions}
    assert loaded == SAMPLES

    bad = _load(tmp_path, _question("q-bad", "ndcg_at_k", "relevance: [2, 1, 3, 0]"))
    assert [q.id for q in bad.questions] == []
    assert any(f"unknown metric 'ndcg_at_k'; expected one of: {', '.join(names())}" in str(e)
               for e in bad.errors), [str(e) for e in bad.errors]


def test_the_pack_fields_go_with_the_metrics_that_take_them():
    from drills.packs.kinds import SWAP_METRICS
    from drills.packs.problems import FIELD_METRICS

    field = {"threshold": "threshold", "denominator": "convention", "persistence": "persistence",
             "max_grade": "max_grade", "queries": "queries"}
    assert {key: set(metrics) for key, metrics in FIELD_METRICS.items()} == \
        {key: set(names(taking=field[key])) for key in FIELD_METRICS}
    assert SWAP_METRICS == names(taking="swap")


def test_trec_eval_names_map_to_registered_metrics():
    from drills.trec import names as trec

    families = {*trec.CUT.values(), *trec.PLAIN.values(), "rbp"}
    assert families == set(TREC)
    assert all(family in METRICS[metric].trec for family, metric in TREC.items())
    assert set(trec.BINARY) == {"map", "map_cut", "P", "recall", "Rprec", "recip_rank", "success"}
    for text in trec.DEFAULT:
        for measure_ in trec.parse_measure(text):
            assert TREC[measure_.family] in METRICS


def _generated_metrics() -> set[str]:
    from drills.generators import REGISTRY
    from drills.generators.instantiate import instantiate
    from drills.model import Question, Source

    found = set()
    for name, gen in REGISTRY.items():
        for param, spec in gen.params.items():
            if "metric" in param and spec.choices:
                found |= {c for c in spec.choices if c != "random"}
        for seed in range(3):
            template = Question(id=f"t-{name}", topic=gen.topic, prompt="title", difficulty="hard",
                                kind="scenario" if gen.kind == "scenario" else "generated",
                                pack="test-pack", source=Source("pack.yaml", 1), generator=name)
            q = instantiate(template, random.Random(seed))
            found |= {x.metric for x in (q, *q.steps) if x.metric}
    return found


def test_every_metric_a_slip_generator_or_lint_names_is_registered():
    from drills.authoring.lint import DIAGNOSED, QUANTITIES, UNIT_METRICS
    from drills.authoring.slip_lint import CUT_METRICS, NAMES
    from drills.generators.measured import WANTED
    from drills.grading.diagnose import TABLE_METRICS
    from drills.grading.slips import SLIPS

    slips = {m for slip in SLIPS.values() for m in slip.metrics}
    used = {"slips": slips, "generators": _generated_metrics(), "measured.WANTED": set(WANTED),
            "lint": {*DIAGNOSED, *QUANTITIES, *UNIT_METRICS, *CUT_METRICS},
            "diagnose": set(TABLE_METRICS)}
    assert {where: names_ - set(METRICS) for where, names_ in used.items()} == \
        {where: set() for where in used}
    assert slips == set(METRICS)  # every metric has its slips
    assert set(CUT_METRICS) == {"rr", "precision", "hit", "ap", "map", "mrr", "recall", "err", "rbp"}
    assert set(NAMES) == set(METRICS)  # the lint knows how a prompt names every metric


# ------------------------------------------------------------- adding a metric
def test_a_new_metric_is_one_declaration_and_one_registry_line(monkeypatch, tmp_path):
    """A toy metric (the sum of the grades in the top k), declared as a family module would
    declare it and added to the registry's dict: the engine computes and works it, a pack may
    ask for it, the grader grades it and the question shows its worked steps."""
    from drills.grading.check import check
    from drills.grading.solution import worked_for

    def value(problem: Problem, _formula) -> LogSum:  # noqa: ANN001 - NDCG's Formula, unused
        return LogSum.of(sum(problem.relevance[:problem.cutoff]))

    def steps(problem: Problem, _layout: Layout, _scoped: bool) -> str:
        top = problem.relevance[:problem.cutoff]
        return f"{' + '.join(map(str, top))} = {value(problem, None).text}"

    toy = Metric("grade_sum", "toy", frozenset({"k"}), value, steps,
                 lambda problem: f"grade sum = {value(problem, None).text}")
    monkeypatch.setitem(registry.METRICS, toy.name, toy)

    assert names()[-1] == "grade_sum" and names(family="toy") == ("grade_sum",)
    problem = Problem((2, 1, 3, 0), k=3)
    assert metric_value(problem, "grade_sum").text == "6"
    assert worked_steps(problem, "grade_sum") == "2 + 1 + 3 = 6"
    assert value_line(problem, "grade_sum") == "grade sum = 6"

    pack = _load(tmp_path, _question("q-toy", "grade_sum", "relevance: [2, 1, 3, 0]\nk: 3"))
    assert pack.errors == [], [str(e) for e in pack.errors]
    q = pack.questions[0]
    assert check(q, "6").verdict == "correct"
    assert check(q, "5").verdict == "wrong"
    assert worked_for(q) == "2 + 1 + 3 = 6"
