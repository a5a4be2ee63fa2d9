"""Packs ask for the metrics beyond NDCG: `metric:` ap, precision, ..., map, mrr with the
problem fields they use (threshold, denominator, persistence, max_grade, queries)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from drills.engine.metrics.registry import SOLVE_METRICS
from drills.grading.check import check
from drills.grading.reference import reference
from drills.packs import load_pack
from drills.packs.cache import decode, encode

from . import cascade_reference as cref
from . import metrics_reference as ref

HEAD = 'pack:\n  name: metric-pack\n  version: "1"\nquestions:\n'


def question(qid: str, metric: str, problem: str) -> str:
    body = "\n".join("      " + line for line in problem.strip().splitlines())
    return (f"  - id: {qid}\n    topic: hand-computation\n    kind: numeric\n"
            f"    prompt: \"{qid}\"\n    metric: {metric}\n    problem:\n{body}\n")


def load(tmp_path: Path, *items: str):
    path = tmp_path / "pack.yaml"
    path.write_text(HEAD + "".join(items), encoding="utf-8")
    return load_pack(path)


def test_every_solve_metric_and_the_query_metrics_load_and_grade(tmp_path):
    b, pool = [1, 0, 1, 1, 0], [1, 1, 1, 1, 0]
    # NDCG's pool holds every ranked grade; the others' need only the relevant ones
    items = [question(f"q-{m}", m, f"relevance: {b}\njudged: {pool if m not in ('ndcg', 'dcg', 'idcg') else pool + [0]}")
             for m in SOLVE_METRICS]
    items.append(question("q-ap-ret", "ap", f"relevance: {b}\njudged: {pool}\ndenominator: retrieved"))
    items.append(question("q-rbp-half", "rbp", f"relevance: {b}\npersistence: 0.5"))
    items.append(question("q-err-4", "err", "relevance: [2, 1, 3, 0]\nmax_grade: 4\nk: 4"))
    items.append(question("q-p2", "precision", "relevance: [2, 1, 3, 0]\nthreshold: 2\nk: 3"))
    items.append(question("q-map", "map", f"queries:\n  - relevance: {b}\n    judged: {pool}\n"
                                          "  - relevance: [2, 1, 3, 0]"))
    items.append(question("q-mrr", "mrr", "queries:\n  - relevance: [1, 0]\n  - relevance: [0, 0, 1]\n"
                                          "  - relevance: [0, 0]\n    judged: [1, 0, 0]"))
    pack = load(tmp_path, *items)
    assert pack.errors == [], [str(e) for e in pack.errors]
    q = {x.id: x for x in pack.questions}
    expected = {
        "q-ap": ref.ap(b, judged=pool), "q-ap-ret": ref.ap(b, judged=pool, convention="retrieved"),
        "q-precision": ref.precision(b), "q-recall": ref.recall(b, judged=pool),
        "q-rprec": ref.r_precision(b, judged=pool), "q-rr": ref.rr(b), "q-hit": ref.hit(b),
        "q-rbp-half": cref.rbp(b, Fraction(1, 2))[0], "q-err-4": cref.err([2, 1, 3, 0], 4, 4),
        "q-p2": ref.precision([2, 1, 3, 0], 3, threshold=2),
        "q-map": (ref.ap(b, judged=pool) + ref.ap([2, 1, 3, 0])) / 2,
        "q-mrr": Fraction(1 + Fraction(1, 3) + 0, 3),
    }
    for qid, value in expected.items():
        assert reference(q[qid]).value == pytest.approx(float(value), abs=1e-12), qid
        assert check(q[qid], str(Fraction(value))).correct, qid
    # the pack cache keeps every new field (persistence is a Fraction, queries nested)
    for x in pack.questions:
        assert decode(encode(x)) == x


@pytest.mark.parametrize("metric,problem,message", [
    ("ndcg", "relevance: [1, 0]\npersistence: 0.5", "`persistence` is for metric rbp, not ndcg"),
    ("err", "relevance: [1, 0]\nthreshold: 2", "`threshold` is for metric"),
    ("rr", "relevance: [1, 0]\ndenominator: R", "`denominator` is for metric ap or map"),
    ("ap", "relevance: [1, 0]\ndenominator: sklearn", "denominator"),
    ("mrr", "relevance: [1, 0]", "needs `queries:`"),
    ("ap", "relevance: [1, 0, 2]\njudged: [1, 0]", "missing: 2"),
    ("rbp", "relevance: [1, 0]\npersistence: 1", "strictly between 0 and 1"),
    ("rbp", "relevance: [1, 0]\npersistence: [1]", "RBP's p"),
    ("map", "queries: []", "1 to 20 queries"),
])
def test_bad_metric_fields_are_reported_at_their_line(tmp_path, metric, problem, message):
    pack = load(tmp_path, question("bad", metric, problem))
    assert pack.questions == ()
    assert any(message in str(e) for e in pack.errors), [str(e) for e in pack.errors]
    assert all(":" in str(e).split(" ")[0] for e in pack.errors)  # file:line first


def test_lint_checks_every_query_list_and_the_metric_name(tmp_path):
    from drills.authoring.lint import lint_questions

    ok = question("ok", "map", "queries:\n  - relevance: [1, 0]\n  - relevance: [0, 1]").replace(
        'prompt: "ok"', 'prompt: "MAP of [1, 0] and [0, 1]?"')
    missing = question("missing", "map", "queries:\n  - relevance: [1, 0]\n  - relevance: [0, 1]").replace(
        'prompt: "missing"', 'prompt: "MAP of [1, 0]?"')
    unnamed = question("unnamed", "err", "relevance: [2, 0]").replace(
        'prompt: "unnamed"', 'prompt: "Score [2, 0]."')
    wrong_k = question("wrong-k", "ap", "relevance: [1, 0, 1]\nk: 2").replace(
        'prompt: "wrong-k"', 'prompt: "AP@3 of [1, 0, 1]?"')
    pack = load(tmp_path, ok, missing, unnamed, wrong_k)
    assert pack.errors == []
    report = lint_questions(pack.questions, seeds=1)
    text = "\n".join(report.errors)
    assert " ok:" not in text
    assert "missing: the prompt does not show the ranked relevance lists [1, 0] and [0, 1]" in text
    assert "unnamed: the prompt never names ERR" in text
    assert "wrong-k: the prompt says AP@3, but its problem has k: 2" in text


@pytest.mark.parametrize("queries", ["[]", "[[1, 0], [0, 1]]"])
def test_bad_queries_are_reported_once(tmp_path, queries):
    pack = load(tmp_path, question("bad", "map", f"queries: {queries}"))
    messages = [str(e) for e in pack.errors]
    assert any("problem.queries" in m for m in messages)
    assert not any("problem.relevance" in m for m in messages)
